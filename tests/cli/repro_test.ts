// `deno task repro` end to end (subprocesses on a tiny temp dataset): the popularity and knn
// experiments print one JSON object on the last stdout line; unknown names list the available.
import { assert, lastJson, runDenoScript, type RunResult, tempDirWith } from "./helpers.ts";

const REPRO = new URL("../../bench/repro/repro.ts", import.meta.url).pathname;

const runRepro = (args: string[]): Promise<RunResult> =>
  runDenoScript(REPRO, ["--allow-all"], args);

// train label counts 3, 1, 1, 0: popularity ranks 0, 1, 2 (1 and 2 tie: smaller index), 3
const TRAIN = "4 3 4\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n";
// test rows {0}, {1, 2}, {}
const TEST = "3 3 4\n0 0:1\n1,2 2:1\n 2:1\n";

const tinyDir = (): Promise<string> =>
  tempDirWith("tagstream_repro_", {
    "tiny.train.txt": TRAIN,
    "tiny.test.txt": TEST,
    "tiny.labels.txt": "a\nb\nc\nd\n",
  });

Deno.test("repro popularity prints one JSON object with the hand-computed metrics", async () => {
  const dir = await tinyDir();
  try {
    const r = await runRepro(["popularity", "--dataset", "tiny", "--data-dir", dir, "--seed", "4"]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    const out = lastJson(r.stdout);
    assert(out.experiment === "popularity" && out.dataset === "tiny", "names");
    assert(out.seed === 4, `seed ${out.seed}`);
    for (const key of ["trainSeconds", "predictMsPerRow", "modelBytes"]) {
      assert(typeof out[key] === "number" && (out[key] as number) >= 0, `${key}: ${out[key]}`);
    }
    assert((out.modelBytes as number) > 0, "a model file was written");
    const m = out.metrics as Record<string, number>;
    const close = (a: number, b: number, what: string) =>
      assert(Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);
    close(m["P@1"], 100 / 3, "P@1"); // row 1 hit, row 2 miss (0 first), row 3 no labels
    close(m["P@3"], (100 * (1 / 3 + 2 / 3)) / 3, "P@3");
    // every row gets the same scores, so each label's macro AUC is 0.5
    close(m.macroAUC, 0.5, "macroAUC");
    // standard error of the mean of the rows' P@1 (1, 0, 0): √(Σ (v − 1/3)² / (3 · 2)) = 1/3
    const se = out.stdErr as Record<string, number>;
    close(se["P@1"], 100 / 3, "stdErr P@1");
    assert(Object.keys(se).includes("PSP@5"), `stdErr keys: ${Object.keys(se)}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro knn chooses k on a validation split and reports it", async () => {
  const dir = await tinyDir();
  try {
    const r = await runRepro([
      "knn",
      "--dataset",
      "tiny",
      "--data-dir",
      dir,
      "--k-grid",
      "1,2",
    ]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    const out = lastJson(r.stdout);
    assert(out.experiment === "knn", "experiment");
    assert(out.k === 1 || out.k === 2, `chosen k ${out.k}`);
    const validation = out.validationMeanP135 as Record<string, number>;
    assert("k=1" in validation && "k=2" in validation, "validation scores per k");
    const fixed = lastJson(
      (await runRepro(["knn", "--dataset", "tiny", "--data-dir", dir, "--k", "1"])).stdout,
    );
    // k = 1: test row 1 (feature 0) is nearest to training row 0 (label 0): a hit; row 2
    // (feature 2) to training row 3 (label 2): a hit; row 3 has no label
    assert(fixed.k === 1, "fixed k");
    const p1 = (fixed.metrics as Record<string, number>)["P@1"];
    assert(Math.abs(p1 - 200 / 3) < 1e-9, `knn P@1 ${p1}`);
    const se = (fixed.stdErr as Record<string, number>)["P@1"]; // rows 1, 1, 0: also 1/3
    assert(Math.abs(se - 100 / 3) < 1e-9, `knn stdErr P@1 ${se}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro rejects unknown experiments (listing the available) and bad usage", async () => {
  const r = await runRepro(["nope", "--dataset", "tiny"]);
  assert(r.code === 2, `exit ${r.code}`);
  assert(r.stderr.includes("Unknown experiment 'nope'"), r.stderr);
  assert(r.stderr.includes("knn") && r.stderr.includes("popularity"), `lists: ${r.stderr}`);
  const noDataset = await runRepro(["knn"]);
  assert(noDataset.code === 2 && noDataset.stderr.includes("--dataset"), noDataset.stderr);
  const missing = await runRepro(["knn", "--dataset", "absent", "--data-dir", "/nonexistent"]);
  assert(missing.code !== 0 && missing.stderr.includes("absent.train.txt"), missing.stderr);
});
