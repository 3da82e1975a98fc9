/**
 * `deno task repro popularity --dataset D [--threshold T]`: the popularity baseline (every test
 * row gets the training label frequencies). `modelBytes` is the size of its model file.
 *
 * @module
 */
import type { Experiment } from "../types.ts";
import { learnAll, loadTrainTest, numberFlag, timeSeconds } from "../harness.ts";
import { PopularityEstimator } from "../../../src/models/popularity/mod.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";

const popularity: Experiment = async (ctx) => {
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const threshold = numberFlag(ctx.flags, "threshold", 0.5);
  const { result: model, seconds: trainSeconds } = await timeSeconds(() =>
    learnAll(
      new PopularityEstimator({
        threshold,
        numFeatures: train.numFeatures,
        numLabels: train.numLabels,
      }),
      train,
    )
  );
  const { metrics, predictMsPerRow } = evaluateModel(model, test, {
    propensities,
    progress: ctx.progress,
  });
  const file = model.toModelFile({ labelNames });
  return {
    metrics,
    trainSeconds,
    predictMsPerRow,
    modelBytes: file.byteLength,
    extra: { threshold, trainRows: train.x.numRows, testRows: test.x.numRows },
  };
};

export default popularity;
