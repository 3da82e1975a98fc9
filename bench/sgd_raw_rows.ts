/**
 * `deno task sgd-raw-rows [--datasets debtags,bibtex,delicious] [--models leml,br] [--batch 64]
 * [--seed 0] [--data-dir DIR]`: SGD on raw (not L2-normalised) rows, where a fixed learning rate
 * overshoots and the step-size cap acts (src/optim/step_cap.ts; docs/deviations.md, L8). For each
 * dataset and model it learns the training file once in file order, in minibatches of `--batch`,
 * with `optimizer: "sgd"`, `l2Normalize: false` and each loss of the model (LEML: squared, logistic,
 * squared hinge; BR: squared hinge, logistic), then ranks every row of the test file.
 *
 * stdout: one JSON line per dataset, model and loss: P@1, P@5, the largest |score| among the
 * answers (a diverged model scores near float32's limit), the training seconds and the share of
 * training rows above unit norm (the rows that make the cap measure the step).
 *
 * Bad flags and missing dataset files are one line on stderr and exit code 2, before any training.
 *
 * @module
 */
import { intFlag } from "../src/cli/commands/args.ts";
import { type BenchScript, checkXcDatasets, namesFlag, runBench } from "./args.ts";
import { type Dataset, loadDataset } from "../src/data/dataset.ts";
import { batchesOf } from "../src/data/dataset_rows.ts";
import { LemlStream } from "../src/models/leml/mod.ts";
import { BrEstimator } from "../src/models/br/mod.ts";
import { PrecisionAtK } from "../src/metrics/precision.ts";
import type { Estimator } from "../src/models/estimator.ts";
import { UNIT_NORM_SQ } from "../src/optim/step_cap.ts";

/** What `deno task sgd-raw-rows` runs with (see {@linkcode SGD_RAW_ROWS}). */
export interface SgdRawRowsOptions {
  datasets: string[];
  models: ("leml" | "br")[];
  batch: number;
  seed: number;
  dataDir: string;
}

/**
 * The command line of `deno task sgd-raw-rows`: every flag checked, and each dataset's training
 * and test files found, before a model learns.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { SGD_RAW_ROWS } from "./sgd_raw_rows.ts";
 * await benchOptions(SGD_RAW_ROWS, ["--models", "ova"]).catch((e) => console.log(e.message)); // --models: unknown 'ova' (give leml, br)
 * ```
 */
export const SGD_RAW_ROWS: BenchScript<SgdRawRowsOptions> = {
  task: "sgd-raw-rows",
  usage: `deno task sgd-raw-rows [--datasets debtags,bibtex,delicious] [--models leml,br]
  [--batch 64] [--seed 0] [--data-dir DIR]
SGD on raw (not L2-normalised) rows, one pass in file order, every loss of LEML and BR; one JSON
line per dataset, model and loss.`,
  flags: {
    datasets: "string",
    models: "string",
    batch: "string",
    seed: "string",
    "data-dir": "string",
  },
  async options(f) {
    const datasets = namesFlag(f, "datasets", ["debtags", "bibtex", "delicious"]);
    const models = namesFlag(f, "models", ["leml", "br"], ["leml", "br"]) as ("leml" | "br")[];
    const batch = intFlag(f, "batch", 64, 1, 1 << 20)!;
    const seed = intFlag(f, "seed", 0, 0, 2 ** 31 - 1)!;
    const dataDir = await checkXcDatasets(f, datasets, true, "--datasets");
    return { datasets, models, batch, seed, dataDir };
  },
};

/** The losses each model learns with (its own names for them). */
const LOSSES = {
  leml: ["squared", "logistic", "sqhinge"],
  br: ["squared-hinge", "logistic"],
} as const;

/**
 * One JSON row per model and loss: `model` learns `train` once with SGD on raw rows, then ranks
 * every row of `test` (P@1 and P@5 in percent, the largest |score| among the top 5).
 *
 * @example
 * ```ts
 * import { sgdRawRows } from "./sgd_raw_rows.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(30, 30) };
 * const y = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) };
 * const rows = sgdRawRows({ x, y }, { x, y }, ["br"], 2, 0);
 * console.log(rows.map((r) => r.loss)); // [ "squared-hinge", "logistic" ]
 * ```
 */
export function sgdRawRows(
  train: Pick<Dataset, "x" | "y">,
  test: Pick<Dataset, "x" | "y">,
  models: readonly ("leml" | "br")[],
  batch: number,
  seed: number,
): Record<string, number | string>[] {
  let over = 0;
  for (let i = 0; i < train.x.numRows; i++) {
    let ss = 0;
    for (let p = train.x.indptr[i]; p < train.x.indptr[i + 1]; p++) ss += train.x.values[p] ** 2;
    if (ss > UNIT_NORM_SQ) over++;
  }
  const out: Record<string, number | string>[] = [];
  for (const model of models) {
    for (const loss of LOSSES[model]) {
      const m: Estimator = model === "leml"
        ? new LemlStream({ optimizer: "sgd", l2Normalize: false, loss, seed })
        : new BrEstimator({
          optimizer: "sgd",
          l2Normalize: false,
          loss: loss as "squared-hinge" | "logistic",
          seed,
        });
      const t0 = performance.now();
      for (const b of batchesOf(train as Dataset, batch)) m.learnMany(b);
      const trainSeconds = (performance.now() - t0) / 1000;
      const precision = new PrecisionAtK([1, 5]);
      let maxAbsScore = 0;
      const { x, y } = test;
      for (let i = 0; i < x.numRows; i++) {
        const a = x.indptr[i], e = x.indptr[i + 1];
        const top = m.predictTopK({
          indices: x.indices.subarray(a, e),
          values: x.values.subarray(a, e),
        }, 5);
        for (const s of top.scores) if (!(Math.abs(s) <= maxAbsScore)) maxAbsScore = Math.abs(s);
        precision.add(top.labels, y.indices.subarray(y.indptr[i], y.indptr[i + 1]));
      }
      const p = precision.result();
      out.push({
        model,
        loss,
        "P@1": Math.round(p["P@1"] * 100) / 100,
        "P@5": Math.round(p["P@5"] * 100) / 100,
        maxAbsScore,
        trainSeconds: Math.round(trainSeconds * 100) / 100,
        rowsAboveUnitNorm: Math.round((over / Math.max(1, train.x.numRows)) * 1e4) / 1e4,
      });
    }
  }
  return out;
}

async function main(o: SgdRawRowsOptions): Promise<void> {
  for (const name of o.datasets) {
    const train = await loadDataset(o.dataDir, name, "train");
    const test = await loadDataset(o.dataDir, name, "test");
    for (const row of sgdRawRows(train, test, o.models, o.batch, o.seed)) {
      console.log(
        JSON.stringify({
          bench: "sgd-raw-rows",
          dataset: name,
          batch: o.batch,
          seed: o.seed,
          ...row,
        }),
      );
    }
  }
}

if (import.meta.main) await runBench(SGD_RAW_ROWS, main);
