// `--plot x.png` (demo, prune, repro pop and sleec-curve: every `--plot` goes through
// `checkOutFile(path, "plot", { kind: "svg" })`) wrote SVG text into the `.png` without a word.
// Now a path not ending in `.svg` is refused before any work, naming the flag and that the plot
// is SVG.
import { checkOutFile } from "../../src/cli/commands/path_checks.ts";
import { runPrune } from "../../src/cli/prune.ts";
import { assert, assertEquals, assertThrowsMsg, withTempDir } from "../helpers.ts";
import { runDenoScript, TEN_ROWS_XC } from "./helpers.ts";

const DEMO = new URL("../../src/cli/demo.ts", import.meta.url).pathname;

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("checkOutFile with kind svg refuses a path that does not end in .svg", async () => {
  await withTempDir(async (dir) => {
    for (const name of ["curve.png", "curve", "curve.svg.txt"]) {
      await assertThrowsMsg(
        () => checkOutFile(`${dir}/${name}`, "plot", { kind: "svg" }),
        TypeError,
        `--plot ${dir}/${name}: the plot is written as SVG: give a file name ending in .svg`,
      );
    }
    await assertThrowsMsg(
      () => checkOutFile(`${dir}/curve.png`, "plot", { kind: "svg" }),
      TypeError,
      `(e.g. ${dir}/curve.svg)`,
    );
    await checkOutFile(`${dir}/curve.svg`, "plot", { kind: "svg" });
    await checkOutFile(`${dir}/CURVE.SVG`, "plot", { kind: "svg" });
    // other outputs keep their names
    await checkOutFile(`${dir}/model.bin`, "out", { kind: "model" });
    assertEquals(await exists(`${dir}/curve.png`), false);
  });
});

Deno.test("prune --plot x.png is refused before the search, and nothing is written", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, TEN_ROWS_XC);
    let started = 0;
    await assertThrowsMsg(
      () =>
        runPrune({
          dataset: "toy",
          dataDir: dir,
          train: "br",
          out: `${dir}/m.tsm`,
          plot: `${dir}/curve.png`,
          progress: { start: () => started++, tick: () => {}, done: () => {} } as never,
          onMessage: () => {},
        }),
      TypeError,
      `--plot ${dir}/curve.png: the plot is written as SVG`,
    );
    assertEquals(started, 0, "the search started");
    assertEquals([await exists(`${dir}/m.tsm`), await exists(`${dir}/curve.png`)], [false, false]);
  });
});

Deno.test("demo --plot x.png is refused before the run (exit 2), and nothing is written", async () => {
  await withTempDir(async (dir) => {
    const r = await runDenoScript(DEMO, ["--allow-read", "--allow-write", "--allow-env"], [
      "--rows",
      "300",
      "--plot",
      `${dir}/curve.png`,
    ]);
    assertEquals(r.code, 2, r.stderr);
    assert(
      r.stderr.trim().startsWith(`demo: --plot ${dir}/curve.png: the plot is written as SVG`),
      r.stderr,
    );
    assertEquals(r.stdout, "", "the demo ran");
    assertEquals(await exists(`${dir}/curve.png`), false);
  });
});
