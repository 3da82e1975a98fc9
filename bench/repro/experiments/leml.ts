/**
 * `deno task repro leml --dataset bibtex|delicious [--rank K] [--lambda 10] [--iterations 5]`:
 * batch LEML (squared loss, alternating minimisation). Without `--rank`, the rank is chosen on
 * a 20% validation split among {0.2, 0.4, 0.6}·L (the issue caps it at 0.6·L), then the model
 * is refit on the whole training file. `trainSeconds` is the final fit only; the selection time
 * is reported as `selectSeconds`.
 *
 * @module
 */
import type { Experiment } from "../types.ts";
import { loadTrainTest, timeSeconds, validationSplit } from "../harness.ts";
import { LemlBatch } from "../../../src/models/leml/mod.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";

const leml: Experiment = async (ctx) => {
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const L = train.numLabels;
  const lambda = Number(ctx.flags.lambda ?? 10);
  const iterations = Number(ctx.flags.iterations ?? 5);
  if (!(lambda >= 0) || !(iterations >= 1)) {
    throw new TypeError(`--lambda must be >= 0 and --iterations >= 1`);
  }
  const opts = { lambda, iterations, seed: ctx.seed, loss: "squared" as const };
  let rank = ctx.flags.rank === undefined ? 0 : Number(ctx.flags.rank);
  const validation: Record<string, number> = {};
  const t0 = performance.now();
  if (!rank) {
    const { fit, valid } = validationSplit(train, 0.2, ctx.seed);
    let best = -1;
    for (const f of [0.2, 0.4, 0.6]) {
      const r = Math.max(1, Math.round(f * L));
      const m = LemlBatch.fit(fit.x, fit.y, { ...opts, rank: r });
      const p1 = evaluateModel(m, valid, { propensities }).metrics["P@1"];
      validation[`k=${r}`] = p1;
      if (p1 > best) {
        best = p1;
        rank = r;
      }
    }
  }
  const selectSeconds = (performance.now() - t0) / 1000;
  const { result: model, seconds } = await timeSeconds(() =>
    LemlBatch.fit(train.x, train.y, { ...opts, rank })
  );
  const ev = evaluateModel(model, test, { propensities, progress: ctx.progress });
  const file = model.toModelFile({ labelNames, meta: { dataset: ctx.dataset } });
  return {
    metrics: ev.metrics,
    trainSeconds: seconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: { rank, lambda, iterations, threshold: 0.5, selectSeconds, validationP1: validation },
  };
};

export default leml;
