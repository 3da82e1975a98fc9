/**
 * `deno task repro knn --dataset D [--k N] [--k-grid 5,10,20] [--threshold T]`: the cosine
 * kNN baseline. k is chosen on a seeded 20% validation split of the TRAINING file (by the mean of
 * P@1, P@3 and P@5; ties go to the smaller k) unless `--k` fixes it (then `--k-grid` is
 * refused); the final model stores the whole training file and the test file is read only for
 * the final evaluation.
 *
 * `trainSeconds` is the time to index the full training file; `modelBytes` is the in-memory
 * size of the stored rows (the kNN baseline has no model file).
 *
 * @module
 */
import type { Experiment, ExperimentFlags } from "../types.ts";
import {
  intList,
  learnAll,
  loadTrainTest,
  numberFlag,
  PROPENSITY_FLAGS,
  stateBytes,
  trainAndEvaluate,
  validationSplit,
} from "../harness.ts";
import { labelsOf, rowView } from "../../../src/data/dataset.ts";
import { KnnEstimator } from "../../../src/models/knn/mod.ts";
import { PrecisionAtK } from "../../../src/metrics/precision.ts";

const DEFAULT_GRID = [1, 3, 5, 10, 20, 40];

function parseGrid(v: string | boolean | undefined): number[] {
  return [...intList(v, DEFAULT_GRID, "k-grid")].sort((a, b) => a - b);
}

const knn: Experiment = async (ctx) => {
  const data = await loadTrainTest(ctx);
  const { train } = data;
  const threshold = numberFlag(ctx.flags, "threshold", 0.5);
  let chosenK: number;
  const validation: Record<string, number> = {};
  if (ctx.flags.k !== undefined && ctx.flags["k-grid"] !== undefined) {
    throw new TypeError("knn: give --k (a fixed k) or --k-grid (k chosen among them), not both");
  }
  if (ctx.flags.k !== undefined) {
    chosenK = numberFlag(ctx.flags, "k", 0);
    if (!Number.isInteger(chosenK) || chosenK < 1) {
      throw new TypeError(`--k must be a positive integer, got '${ctx.flags.k}'`);
    }
  } else {
    const grid = parseGrid(ctx.flags["k-grid"]);
    const maxK = grid[grid.length - 1];
    const { fit, valid } = validationSplit(train, 0.2, ctx.seed);
    const probe = learnAll(
      new KnnEstimator({ k: maxK, threshold, numLabels: train.numLabels }),
      fit,
    );
    const acc = grid.map(() => new PrecisionAtK([1, 3, 5]));
    ctx.progress.start(valid.x.numRows, "choose k");
    for (let i = 0; i < valid.x.numRows; i++) {
      const nb = probe.neighbours(rowView(valid.x, i), maxK);
      const labels = labelsOf(valid.y, i);
      grid.forEach((k, g) => acc[g].add(probe.topKFromNeighbours(nb, k, 5).labels, labels));
      ctx.progress.tick();
    }
    ctx.progress.done();
    chosenK = grid[0];
    let best = -Infinity;
    grid.forEach((k, g) => {
      const r = acc[g].result();
      const score = (r["P@1"] + r["P@3"] + r["P@5"]) / 3;
      validation[`k=${k}`] = score;
      if (score > best) {
        best = score;
        chosenK = k;
      }
    });
  }
  const { model, metrics, stdErr, trainSeconds, predictMsPerRow } = await trainAndEvaluate(
    ctx,
    data,
    () =>
      new KnnEstimator({
        k: chosenK,
        threshold,
        numFeatures: train.numFeatures,
        numLabels: train.numLabels,
      }),
  );
  return {
    metrics,
    stdErr,
    trainSeconds,
    predictMsPerRow,
    modelBytes: stateBytes(model.toState()),
    extra: {
      k: chosenK,
      threshold,
      ...(Object.keys(validation).length > 0
        ? { validationMeanP135: validation, selection: "mean of P@1,P@3,P@5 on 20% of train" }
        : {}),
      modelBytesNote: "in-memory stored training rows (kNN has no model file)",
    },
  };
};

/**
 * The flags `repro knn` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner refuses
 * any other); it reads `<dataset>.test.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./knn.ts";
 * console.log(FLAGS.flags.includes("threshold")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: ["threshold", "k", "k-grid", ...PROPENSITY_FLAGS],
  test: true,
};

export default knn;
