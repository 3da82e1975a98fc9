/**
 * `deno task repro popularity --dataset D [--threshold T]`: the popularity baseline (every test
 * row gets the training label frequencies). `modelBytes` is the size of its model file.
 *
 * @module
 */
import type { Experiment } from "../types.ts";
import { loadTrainTest, timeSeconds } from "../harness.ts";
import { batchesOf } from "../../../src/data/dataset.ts";
import { PopularityEstimator } from "../../../src/models/popularity/mod.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";

const popularity: Experiment = async (ctx) => {
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const threshold = ctx.flags.threshold === undefined ? 0.5 : Number(ctx.flags.threshold);
  if (!Number.isFinite(threshold)) {
    throw new TypeError(`--threshold must be a number, got '${ctx.flags.threshold}'`);
  }
  const { result: model, seconds: trainSeconds } = await timeSeconds(() => {
    const m = new PopularityEstimator({
      threshold,
      numFeatures: train.numFeatures,
      numLabels: train.numLabels,
    });
    for (const b of batchesOf(train, 1024)) m.learnMany(b);
    return m;
  });
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
