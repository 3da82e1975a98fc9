// `deno task eval` (README "Offline evaluation") takes --help like the other tasks and checks its
// flags as they do: `--help` was "eval: Unknown option '--help'" (exit 2), `--k 0x10` evaluated
// at k = 16 and `--k 3 --k 5` silently used 5. And `tagstream eval` of a model with label names on
// a test file known by indices only (stdin) names the missing `--labels` in its warning.
import {
  assert,
  assertEquals,
  runDenoScript,
  runMain,
  type RunResult,
  tempDirWith,
} from "./helpers.ts";

const EVAL = new URL("../../src/cli/eval.ts", import.meta.url).pathname;
const runEval = (args: string[]): Promise<RunResult> =>
  runDenoScript(EVAL, ["--allow-read", "--allow-env"], args);

Deno.test("deno task eval --help prints the usage and exits 0", async () => {
  const r = await runEval(["--help"]);
  assertEquals(r.code, 0, r.stderr);
  assert(r.stdout.startsWith("usage: deno task eval --dataset NAME"), r.stdout);
  assert(r.stdout.includes("--predictions FILE") && r.stdout.includes("--k"), r.stdout);
});

Deno.test("deno task eval refuses --k not in plain decimal and a flag given twice", async () => {
  const dir = await tempDirWith("tagstream_eval_flags_", {
    "tiny.train.txt": "2 2 2\n0 0:1\n1 1:1\n",
    "tiny.test.txt": "2 2 2\n0 0:1\n1 1:1\n",
    "p.txt": "0:0.9 1:0.1\n1:0.8\n",
  });
  try {
    const base = ["--dataset", "tiny", "--data-dir", dir, "--predictions", `${dir}/p.txt`];
    const ok = await runEval(base);
    assertEquals(ok.code, 0, ok.stderr);
    const cases: [string[], RegExp][] = [
      [["--k", "0x10"], /^eval: --k must be an integer in \[1, 1000\], got '0x10'$/],
      [["--k", "3", "--k", "5"], /^eval: --k is given twice \('3' and '5'\): give it once$/],
      [["--kk", "3"], /^eval: unknown option '--kk' \(see deno task eval --help\)$/],
    ];
    for (const [extra, re] of cases) {
      const r = await runEval([...base, ...extra]);
      assertEquals(r.code, 2, `${extra.join(" ")}: ${r.stdout}`);
      assertEquals(r.stdout, "", extra.join(" "));
      assert(re.test(r.stderr.trim()), `${extra.join(" ")}: ${r.stderr}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tagstream eval: a test file without label names against a named model says --labels", async () => {
  const dir = await tempDirWith("tagstream_eval_labels_", {
    "toy.train.txt": "4 2 2\n0 0:1\n1 1:1\n0 0:1\n1 1:1\n",
    "toy.labels.txt": "news\nsport\n",
    // the same rows under a name that has no labels file beside it (as stdin has none)
    "rows.txt": "2 2 2\n0 0:1\n1 1:1\n",
  });
  try {
    const t = await runMain([
      "train",
      "--data",
      `${dir}/toy.train.txt`,
      "--model",
      "popularity",
      "--out",
      `${dir}/m.tsm`,
      "--quiet",
    ]);
    assertEquals(t.code, 0, t.err);
    const e = await runMain(["eval", "--model-file", `${dir}/m.tsm`, "--data", `${dir}/rows.txt`]);
    assertEquals(e.code, 0, e.err);
    assert(
      /none of the 2 labels of .*rows\.txt is known to the model .*m\.tsm: the model's labels have names \('news', \.\.\.\) and the test file's are indices: give their names with --labels FILE/
        .test(e.err),
      e.err,
    );
    const named = await runMain([
      "eval",
      "--model-file",
      `${dir}/m.tsm`,
      "--data",
      `${dir}/rows.txt`,
      "--labels",
      `${dir}/toy.labels.txt`,
    ]);
    assertEquals(named.code, 0, named.err);
    assert(!named.err.includes("warning"), named.err);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
