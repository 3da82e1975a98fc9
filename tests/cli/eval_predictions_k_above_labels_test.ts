// A predictions file ranks at most the test file's labels, so P@k past them measures nothing:
// `deno task eval --k K` and `tagstream eval --predictions FILE --k K` refuse a K above the
// dataset's number of labels, naming both (as `tagstream eval` does for a model's labels and
// `prune --ks` for the dataset's); without --k, the default cut-offs (1, 3, 5) still evaluate a
// dataset of fewer labels.
import { assert, assertEquals, lastJson, runDenoScript, runMain, withTempDir } from "./helpers.ts";

const EVAL = new URL("../../src/cli/eval.ts", import.meta.url).pathname;
const XC = "4 2 3\n0 0:1\n1 1:1\n2 0:1\n0,1 1:1\n";
const PREDS = "0:0.9 1:0.1\n1:0.8\n2:0.5 0:0.2\n0:1 1:0.9\n";

Deno.test("eval of a predictions file refuses --k above the dataset's labels", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, XC);
    await Deno.writeTextFile(`${dir}/toy.test.txt`, XC);
    await Deno.writeTextFile(`${dir}/p.txt`, PREDS);
    const args = ["--dataset", "toy", "--data-dir", dir, "--predictions", `${dir}/p.txt`];
    const task = await runDenoScript(EVAL, ["--allow-read", "--allow-env"], [...args, "--k", "4"]);
    assertEquals(task.code, 2, task.stdout + task.stderr);
    assertEquals(task.stdout, "");
    assert(/--k 4 is above the 3 labels of toy\.test\.txt/.test(task.stderr), task.stderr);
    const cli = await runMain(["eval", ...args, "--k", "4"]);
    assertEquals(cli.code, 2, cli.out + cli.err);
    assert(/--k 4 is above the 3 labels of toy\.test\.txt/.test(cli.err), cli.err);
    // --k 3, and no --k at all (P@1, P@3, P@5 on three labels), still evaluate
    for (const extra of [["--k", "3"], []]) {
      const ok = await runDenoScript(EVAL, ["--allow-read", "--allow-env"], [...args, ...extra]);
      assertEquals(ok.code, 0, ok.stderr);
      assertEquals((lastJson(ok.stdout).metrics as Record<string, number>)["P@1"], 100);
      const okCli = await runMain(["eval", ...args, ...extra]);
      assertEquals(okCli.code, 0, okCli.err);
    }
  });
});
