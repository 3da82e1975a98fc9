// The scale worker's `phasePeakRssMB` says in which phase the peak RSS rose: one reached while
// writing the model files (f32 and f16) is the `modelFile` phase's. It used to show first under
// `evaluate`, which ran after it, as if evaluating had taken the memory. A preload module makes
// the process's peak (VmHWM of /proc/self/status) 1,000,000 kB until `toModelFile` runs and
// 3,000,000 kB from then on.
import { assertEquals, runDenoScript, tempDirWith } from "../cli/helpers.ts";

const WORKER = new URL("../../bench/scale_worker.ts", import.meta.url).pathname;
const POPULARITY = new URL("../../src/models/popularity/estimator.ts", import.meta.url).href;

const PRELOAD = `
import { PopularityEstimator } from ${JSON.stringify(POPULARITY)};
let hwm = 1000000;
const read = Deno.readTextFileSync;
Deno.readTextFileSync = (p) =>
  String(p) === "/proc/self/status" ? "VmHWM:\\t" + hwm + " kB\\nVmRSS:\\t 1000000 kB\\n" : read(p);
const toModelFile = PopularityEstimator.prototype.toModelFile;
PopularityEstimator.prototype.toModelFile = function (...args) {
  hwm = 3000000;
  return toModelFile.apply(this, args);
};
`;

Deno.test("scale_worker: a peak reached writing the model file is the modelFile phase's", async () => {
  const dir = await tempDirWith("tagstream_scale_phase_peaks_", {
    "tiny.train.txt": "4 3 3\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n",
    "tiny.test.txt": "2 3 3\n0 0:1\n2 2:1\n",
    "preload.js": PRELOAD,
  });
  try {
    const job = {
      learner: "popularity",
      options: {},
      source: { kind: "dataset", name: "tiny", dataDir: dir },
      batchSize: 256,
      seed: 0,
      budgetSeconds: 60,
      evalBudgetSeconds: 60,
      f16: true,
      serviceRepetitions: 0,
    };
    const r = await runDenoScript(
      WORKER,
      ["--allow-all", "--preload", `${dir}/preload.js`],
      [JSON.stringify(job)],
    );
    assertEquals(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    assertEquals(result.finished, true, r.stdout);
    // 1,000,000 kB = 1,024 MB before the model file, 3,000,000 kB = 3,072 MB from it on
    assertEquals(result.phasePeakRssMB, { learn: 1024, modelFile: 3072, evaluate: 3072 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
