// `deno task eval` end to end (a subprocess on a temp dataset): hand-checked metrics, agreement
// with evaluateModel on a model's own scores, and clear errors for bad prediction files.
import { KnnEstimator } from "../../src/models/knn/mod.ts";
import { evaluateModel } from "../../src/metrics/evaluate.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { labelCounts, loadDataset } from "../../src/data/dataset.ts";
import { assert, lastJson, runDenoScript, type RunResult, tempDirWith } from "./helpers.ts";

const EVAL = new URL("../../src/cli/eval.ts", import.meta.url).pathname;

const runEval = (args: string[]): Promise<RunResult> =>
  runDenoScript(EVAL, ["--allow-read", "--allow-env"], args);

// 4 labels; train counts 3, 1, 1, 0 over 4 rows
const TRAIN = "4 3 4\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n";
// test rows: {0}, {1, 2}, {} (no labels)
const TEST = "3 3 4\n0 0:1\n1,2 1:1 2:1\n 2:1\n";

const tinyDir = (): Promise<string> =>
  tempDirWith("tagstream_eval_", { "tiny.train.txt": TRAIN, "tiny.test.txt": TEST });

Deno.test("eval CLI prints the hand-computed metrics as the last JSON line", async () => {
  const dir = await tinyDir();
  try {
    // row 1: 0 first (hit); row 2: 3 first, then 2 (hit), then 0; 1 is unlisted, so never
    // ranked; row 3: empty line
    await Deno.writeTextFile(`${dir}/p.txt`, "0:2 3:-1\n3:0.9 2:0.5 0:0\n\n");
    const r = await runEval([
      "--dataset",
      "tiny",
      "--data-dir",
      dir,
      "--predictions",
      `${dir}/p.txt`,
    ]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    const out = lastJson(r.stdout) as { dataset: string; metrics: Record<string, number> };
    assert(out.dataset === "tiny", "dataset");
    const m = out.metrics;
    for (
      const key of [
        "P@1",
        "P@3",
        "P@5",
        "nDCG@1",
        "nDCG@3",
        "nDCG@5",
        "PSP@1",
        "PSP@3",
        "PSP@5",
        "PSnDCG@1",
        "PSnDCG@3",
        "PSnDCG@5",
        "instanceAUC",
        "macroAUC",
        "hamming",
      ]
    ) assert(typeof m[key] === "number", `missing ${key}`);
    const close = (a: number, b: number, what: string) =>
      assert(Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);
    close(m["P@1"], 100 / 3, "P@1"); // hit, miss, empty row
    // its standard error over the rows' values 1, 0, 0: √(Σ (v − 1/3)² / (3 · 2)) = 1/3
    const se = (out as unknown as { stdErr: Record<string, number> }).stdErr;
    close(se["P@1"], 100 / 3, "stdErr P@1");
    // row 2 ranking: 3 (0.9), 2 (0.5), 0 (0), and nothing more: one hit in top 3 and in top 5
    close(m["P@3"], (100 * (1 / 3 + 1 / 3)) / 3, "P@3");
    close(m["P@5"], (100 * (1 / 5 + 1 / 5)) / 3, "P@5");
    // Hamming: row 1 predicts {0} = truth; row 2 predicts {3, 2} vs {1, 2}; row 3 nothing
    close(m.hamming, (0 + 2 / 4 + 0) / 3, "hamming");
    // instance AUC (unlisted labels rank below every listed one): row 1: 0 (2) beats 1 and 2
    // (unlisted) and 3 (-1): 3 / 3; row 2: pos 1 (unlisted), 2 (0.5) vs neg 0 (0), 3 (0.9):
    // 1: 0 + 0; 2: 1 + 0 -> 1 / 4
    close(m.instanceAUC, (1 + 1 / 4) / 2, "instanceAUC");
    // PSP@1 with train propensities: numerator w0 (row 1), best w0 + max(w1, w2)
    const p = propensities([3, 1, 1, 0], 4);
    close(m["PSP@1"], (100 * (1 / p[0])) / (1 / p[0] + 1 / p[1]), "PSP@1");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval CLI on a model's dumped scores equals evaluateModel", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_eval_" });
  try {
    // a small random dataset
    let seed = 11;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const rows = (n: number) =>
      Array.from({ length: n }, () => {
        const labels = [...new Set([Math.floor(rand() * 6), Math.floor(rand() * 6)])]
          .sort((a, b) => a - b);
        const feats = [...new Set([labels[0] * 2, Math.floor(rand() * 12)])].sort((a, b) => a - b);
        return `${labels.join(",")} ${feats.map((j) => `${j}:1`).join(" ")}`;
      });
    await Deno.writeTextFile(`${dir}/r.train.txt`, `60 12 6\n${rows(60).join("\n")}\n`);
    await Deno.writeTextFile(`${dir}/r.test.txt`, `25 12 6\n${rows(25).join("\n")}\n`);
    const train = await loadDataset(dir, "r", "train");
    const test = await loadDataset(dir, "r", "test");
    const model = new KnnEstimator({ k: 4 });
    for (let i = 0; i < train.x.numRows; i++) {
      const a = train.x.indptr[i], b = train.x.indptr[i + 1];
      model.learnOne(
        { indices: train.x.indices.subarray(a, b), values: train.x.values.subarray(a, b) },
        train.y.indices.subarray(train.y.indptr[i], train.y.indptr[i + 1]),
      );
    }
    const lines: string[] = [];
    for (let i = 0; i < test.x.numRows; i++) {
      const a = test.x.indptr[i], b = test.x.indptr[i + 1];
      const s = model.predictScores({
        indices: test.x.indices.subarray(a, b),
        values: test.x.values.subarray(a, b),
      });
      lines.push([...s].map((v, l) => `${l}:${v}`).reverse().join(" "));
    }
    await Deno.writeTextFile(`${dir}/p.txt`, lines.join("\n") + "\n");
    const expected = evaluateModel(model, test, {
      propensities: propensities(labelCounts(train.y), train.x.numRows),
      timingRows: 0,
    }).metrics;
    const r = await runEval(["--dataset", "r", "--data-dir", dir, "--predictions", `${dir}/p.txt`]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    const got = (lastJson(r.stdout) as { metrics: Record<string, number> }).metrics;
    for (const [k, v] of Object.entries(expected)) {
      assert(Math.abs(got[k] - v) < 1e-12, `${k}: CLI ${got[k]} vs evaluateModel ${v}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval CLI rejects bad prediction files naming the file and line", async () => {
  const dir = await tinyDir();
  try {
    const cases: [string, string][] = [
      ["0:1\n1:x\n\n", "Cannot parse line 2 of bad.txt: '1:x' is not a label:score pair"],
      ["0:1\n\n9:1\n", "Cannot parse line 3 of bad.txt: label 9 is out of range [0, 4)"],
      ["0:1 0:2\n\n\n", "Cannot parse line 1 of bad.txt: label 0 is listed twice"],
      ["0:1\n", "bad.txt has 1 lines but tiny.test.txt has 3 rows"],
    ];
    for (const [text, message] of cases) {
      await Deno.writeTextFile(`${dir}/bad.txt`, text);
      const r = await runEval([
        "--dataset",
        "tiny",
        "--data-dir",
        dir,
        "--predictions",
        `${dir}/bad.txt`,
      ]);
      assert(r.code === 2, `exit code ${r.code} for ${JSON.stringify(text)}`);
      assert(r.stderr.includes(message), `stderr '${r.stderr.trim()}' lacks '${message}'`);
      assert(r.stdout.trim() === "", "no JSON on failure");
    }
    const missing = await runEval(["--dataset", "tiny", "--data-dir", dir]);
    assert(missing.code === 2 && missing.stderr.includes("--predictions"), "usage error");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
