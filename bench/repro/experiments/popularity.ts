/**
 * `deno task repro popularity --dataset D [--threshold T]`: the popularity baseline (every test
 * row gets the training label frequencies). `modelBytes` is the size of its model file.
 *
 * @module
 */
import type { Experiment, ExperimentFlags } from "../types.ts";
import {
  loadTrainTest,
  modelFileResult,
  numberFlag,
  PROPENSITY_FLAGS,
  trainAndEvaluate,
} from "../harness.ts";
import { PopularityEstimator } from "../../../src/models/popularity/mod.ts";

const popularity: Experiment = async (ctx) => {
  const data = await loadTrainTest(ctx);
  const { train, test, labelNames } = data;
  const threshold = numberFlag(ctx.flags, "threshold", 0.5);
  const run = await trainAndEvaluate(
    ctx,
    data,
    () =>
      new PopularityEstimator({
        threshold,
        numFeatures: train.numFeatures,
        numLabels: train.numLabels,
      }),
  );
  return modelFileResult(run.model, labelNames, run, {
    threshold,
    trainRows: train.x.numRows,
    testRows: test.x.numRows,
  });
};

/**
 * The flags `repro popularity` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner
 * refuses any other); it reads `<dataset>.test.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./popularity.ts";
 * console.log(FLAGS.flags.includes("threshold")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = { flags: ["threshold", ...PROPENSITY_FLAGS], test: true };

export default popularity;
