/**
 * `deno task repro leml-stream --dataset bibtex|delicious [--rank 64] [--lr 0.002] [--batch 32]`:
 * one pass of the streaming LEML estimator (Adam, squared loss, Gram identity) over the training
 * file in file order, then the test metrics. `prequentialP@1` is test-then-train: each batch is
 * scored (P@1 of its rows) before the model learns from it.
 *
 * @module
 */
import type { Experiment } from "../types.ts";
import { loadTrainTest, timeSeconds } from "../harness.ts";
import { batchesOf, rowView } from "../../../src/data/dataset.ts";
import { LemlStream } from "../../../src/models/leml/mod.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";

const lemlStream: Experiment = async (ctx) => {
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const rank = Number(ctx.flags.rank ?? 64);
  const lr = Number(ctx.flags.lr ?? 0.002);
  const batch = Number(ctx.flags.batch ?? 32);
  const lambda = Number(ctx.flags.lambda ?? 1e-4);
  if (!(rank >= 1) || !(lr > 0) || !(batch >= 1) || !(lambda >= 0)) {
    throw new TypeError("--rank, --lr, --batch must be positive and --lambda >= 0");
  }
  const model = new LemlStream({ rank, lr, lambda, seed: ctx.seed });
  let hits = 0, scored = 0;
  const { seconds } = await timeSeconds(() => {
    for (const b of batchesOf(train, batch)) {
      for (let i = 0; i < b.x.numRows; i++) {
        const lo = b.y.indptr[i], hi = b.y.indptr[i + 1];
        if (hi === lo || model.numLabels === 0) continue;
        const top = model.predictTopK(rowView(b.x, i), 1).labels[0];
        for (let p = lo; p < hi; p++) if (b.y.indices[p] === top) hits++;
        scored++;
      }
      model.learnMany(b);
    }
  });
  const ev = evaluateModel(model, test, { propensities, progress: ctx.progress });
  const file = model.toModelFile({ labelNames, meta: { dataset: ctx.dataset } });
  return {
    metrics: { ...ev.metrics, "prequentialP@1": (100 * hits) / Math.max(1, scored) },
    trainSeconds: seconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: { rank, lr, lambda, batch, optimizer: "adam", threshold: 0.5, passes: 1 },
  };
};

export default lemlStream;
