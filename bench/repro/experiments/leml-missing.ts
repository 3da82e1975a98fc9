/**
 * `deno task repro leml-missing --dataset bibtex [--fraction 0.2] [--lambda 10]
 * [--iterations 5]`: the LEML paper's Table 4 protocol. A seeded 20% of all (row, label)
 * training entries, positives and negatives alike, are revealed; batch LEML (squared loss,
 * k = 0.4·L, Algorithm 1 on the observed entries only) is trained on them; the test set has full
 * labels. Reports P@1/3/5, `hamming` (threshold 0.5 on the 0/1 squared-loss scores) and
 * `instanceAUC`.
 *
 * @module
 */
import type { Experiment } from "../types.ts";
import { loadTrainTest, timeSeconds } from "../harness.ts";
import { LemlBatch, revealEntries } from "../../../src/models/leml/mod.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";

const lemlMissing: Experiment = async (ctx) => {
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const fraction = Number(ctx.flags.fraction ?? 0.2);
  const lambda = Number(ctx.flags.lambda ?? 10);
  const iterations = Number(ctx.flags.iterations ?? 5);
  if (!(fraction > 0 && fraction <= 1) || !(lambda >= 0) || !(iterations >= 1)) {
    throw new TypeError("--fraction must be in (0, 1], --lambda >= 0, --iterations >= 1");
  }
  const rank = Math.max(1, Math.round(0.4 * train.numLabels));
  const { observed, y } = revealEntries(train.y, fraction, ctx.seed + 1);
  const { result: model, seconds } = await timeSeconds(() =>
    LemlBatch.fit(train.x, y, {
      rank,
      lambda,
      iterations,
      seed: ctx.seed,
      observed,
      fullyObserved: new Uint8Array(train.x.numRows),
    })
  );
  const ev = evaluateModel(model, test, { propensities, progress: ctx.progress });
  const file = model.toModelFile({ labelNames, meta: { dataset: ctx.dataset } });
  return {
    metrics: ev.metrics,
    trainSeconds: seconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: {
      rank,
      lambda,
      iterations,
      fraction,
      observedEntries: observed.indices.length,
      observedPositives: y.indices.length,
      threshold: 0.5,
    },
  };
};

export default lemlMissing;
