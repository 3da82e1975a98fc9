// A predictions file that cannot be read for a reason other than a missing file (a directory, a
// symbolic link to itself) was passed on as the raw OS error (`Is a directory (os error 21):
// read '…'`, exit 1 from `deno task eval`). It is bad input, as a missing file is: a TypeError
// naming the file, exit 2. (`tagstream eval --predictions` checks the path before it gets here.)
import { evaluatePredictionsFile } from "../../src/cli/eval.ts";
import { assert, runDenoScript, withTempDir } from "./helpers.ts";

const EVAL = new URL("../../src/cli/eval.ts", import.meta.url).pathname;

/** `dir` with toy.{train,test}.txt, a directory `p.dir` and a link to itself `p.loop`. */
async function fixture(dir: string): Promise<void> {
  await Deno.writeTextFile(`${dir}/toy.train.txt`, "2 2 2\n0 0:1\n1 1:1\n");
  await Deno.writeTextFile(`${dir}/toy.test.txt`, "2 2 2\n0 0:1\n1 1:1\n");
  await Deno.mkdir(`${dir}/p.dir`);
  await Deno.symlink("p.loop", `${dir}/p.loop`);
}

Deno.test("evaluatePredictionsFile: an unreadable predictions file is a TypeError naming it", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    for (
      const [file, reason] of [
        ["p.dir", "it is a directory"],
        ["p.loop", "Too many levels of symbolic links"],
      ]
    ) {
      const predictions = `${dir}/${file}`;
      const e = await evaluatePredictionsFile({ dataset: "toy", dataDir: dir, predictions })
        .then(() => undefined, (e) => e);
      assert(e instanceof TypeError, `${file}: not a TypeError: ${e}`);
      assert(
        e.message === `Cannot read predictions ${predictions}: ${reason}`,
        `${file}: ${e.message}`,
      );
    }
  });
});

Deno.test("deno task eval: an unreadable predictions file exits 2 naming it", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const args = ["--dataset", "toy", "--data-dir", dir, "--predictions", `${dir}/p.dir`];
    const r = await runDenoScript(EVAL, ["--allow-all"], args);
    assert(r.code === 2, `exit ${r.code}: ${r.stderr}`);
    assert(
      r.stderr.trim() === `eval: Cannot read predictions ${dir}/p.dir: it is a directory`,
      r.stderr,
    );
  });
});
