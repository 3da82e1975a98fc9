// `deno task scale` when the held-out evaluation throws part way: the worker's line has the error
// and no P@k (`metrics: null`), not the figures of the rows before the error as if they were the
// model's; the summary names the failed step and the exit code is 1. The failure is planted by a
// preload module (passed on to the worker) that makes the 3rd prediction of `popularity` throw.
import { assert, assertEquals, lastJson, runDenoScript, tempDirWith } from "../cli/helpers.ts";

const SCALE = new URL("../../bench/scale.ts", import.meta.url).pathname;
const POPULARITY = new URL("../../src/models/popularity/estimator.ts", import.meta.url).href;

const PRELOAD = `
import { PopularityEstimator } from ${JSON.stringify(POPULARITY)};
const predict = PopularityEstimator.prototype.predictTopK;
let calls = 0;
PopularityEstimator.prototype.predictTopK = function (x, k) {
  if (++calls === 3) throw new RangeError("planted: the 3rd prediction fails");
  return predict.call(this, x, k);
};
// bench/scale.ts runs its worker with this module preloaded too
const Command = Deno.Command;
Deno.Command = class extends Command {
  constructor(cmd, options) {
    const args = options?.args ?? [];
    const preload = ["run", "--preload", import.meta.url, ...args.slice(1)];
    super(cmd, args[0] === "run" ? { ...options, args: preload } : options);
  }
};
`;

Deno.test("scale: an evaluation that throws reports the error, no P@k, and exits 1", async () => {
  const dir = await tempDirWith("tagstream_scale_eval_error_", {
    "tiny.train.txt": "4 3 3\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n",
    "tiny.test.txt": "5 3 3\n0 0:1\n2 2:1\n0 0:1\n1 1:1\n0 0:1\n",
    "preload.js": PRELOAD,
  });
  try {
    const r = await runDenoScript(SCALE, ["--allow-all", "--preload", `${dir}/preload.js`], [
      "--dataset",
      "tiny",
      "--data-dir",
      dir,
      "--learners",
      "popularity",
      "--service-reps",
      "0",
      "--quiet",
    ]);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assertEquals(lines.length, 2, `one result and the summary: ${r.stdout} ${r.stderr}`);
    const [run, summary] = lines;
    assert(run.learner === "popularity" && run.rowsLearned === 4, `learned: ${r.stdout}`);
    assert(String(run.evalError).includes("planted"), `evalError: ${run.evalError}`);
    assertEquals(run.metrics, null, "no P@k of a failed evaluation");
    assertEquals(run.testRowsEvaluated, 2, "the rows evaluated before the error");
    assert(lastJson(r.stdout).summary === true, "the summary is printed");
    assertEquals(summary.failed, 1, "one run with a failed step");
    const s = summary.results[0];
    assert(String(s.failed?.evaluate).includes("planted"), `summary: ${JSON.stringify(s)}`);
    assertEquals(s["P@1"], null, "no P@1 in the summary");
    assert(/popularity on tiny: evaluate failed: .*planted/.test(r.stderr), r.stderr);
    assertEquals(r.code, 1, `exit code: ${r.stderr}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("scale: a run whose steps all succeed exits 0 with no failed steps", async () => {
  const dir = await tempDirWith("tagstream_scale_eval_ok_", {
    "tiny.train.txt": "4 3 3\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n",
    "tiny.test.txt": "2 3 3\n0 0:1\n2 2:1\n",
  });
  try {
    const r = await runDenoScript(SCALE, ["--allow-all"], [
      "--dataset",
      "tiny",
      "--data-dir",
      dir,
      "--learners",
      "popularity",
      "--service-reps",
      "0",
      "--quiet",
    ]);
    assertEquals(r.code, 0, r.stderr);
    const [run, summary] = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert(run.evalError === undefined && run.metrics !== null, `run: ${JSON.stringify(run)}`);
    assert(typeof run.metrics["P@1"] === "number", "P@1 measured");
    assertEquals(summary.failed, 0);
    assertEquals(summary.results[0].failed, undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
