/**
 * `deno task repro pop --dataset D [--epsilon 0.01] [--lambda 0.01] [--delta 5]
 * [--val-fraction 0.2] [--weights f16|f32] [--index u16|i32] [--plot FILE]` plus the BR flags
 * of `repro br` (`--C`, `--normalize`, `--eps`): POP (Wei and Li, AAAI 2019) on binary relevance.
 *
 * Protocol: BR is trained on a seeded (1 − val-fraction) part of the training file; POP's binary
 * search (Algorithm 1) runs on the held-out part, with labels ranked by impact wⱼuⱼ computed from
 * the whole training file. The number of δ-pruned labels it finds is then applied, with the √λ
 * threshold (Algorithm 2), to BR retrained on the whole training file, and both the unpruned and
 * the pruned models are evaluated on the test file (read only for that).
 *
 * `modelBytes` is the size of the pruned `linear-sparse` file; by default it stores weights as
 * float16 and label indices as uint16 (`--weights f32 --index i32` for the plain layout), and
 * the metrics are those of exactly the stored (rounded) weights. `extra` holds the unpruned
 * model's metrics and file size and the relative PSP@k changes in percent.
 *
 * @module
 */
import type { Experiment } from "../types.ts";
import { loadTrainTest, timeSeconds, validationSplit } from "../harness.ts";
import { labelCounts } from "../../../src/data/dataset.ts";
import {
  BrEstimator,
  linearSparseContent,
  nnzOf,
  preprocessRows,
  roundWeights,
} from "../../../src/models/br/mod.ts";
import { applyPop, impactOrder, labelImpact, pop } from "../../../src/prune/pop.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";
import { encodeModelFile } from "../../../src/format/model_file.ts";
import { brSettings, trainBrModel } from "./br.ts";

function numFlag(flags: Record<string, string | boolean>, name: string, fallback: number): number {
  const v = flags[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== "string" || !Number.isFinite(n)) {
    throw new TypeError(`--${name} must be a number, got '${v}'`);
  }
  return n;
}

function choice<T extends string>(
  flags: Record<string, string | boolean>,
  name: string,
  options: readonly T[],
): T {
  const v = flags[name] ?? options[0];
  if (!options.includes(v as T)) {
    throw new TypeError(`--${name} must be one of ${options.join(", ")}, got '${v}'`);
  }
  return v as T;
}

const popExperiment: Experiment = async (ctx) => {
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const settings = brSettings(ctx.flags);
  const epsilon = numFlag(ctx.flags, "epsilon", 0.01);
  const lambda = numFlag(ctx.flags, "lambda", 0.01);
  const delta = numFlag(ctx.flags, "delta", 5);
  const valFraction = numFlag(ctx.flags, "val-fraction", 0.2);
  const weightType = choice(ctx.flags, "weights", ["f16", "f32"] as const);
  const indexType = choice(ctx.flags, "index", ["u16", "i32"] as const);
  const opts = { epsilon, lambda, delta };
  const counts = labelCounts(train.y);
  const order = impactOrder(labelImpact(counts, propensities));

  const { result: search, seconds: searchSeconds } = await timeSeconds(() => {
    const { fit, valid } = validationSplit(train, valFraction, ctx.seed);
    const probe = trainBrModel(ctx, fit, "br (fit split)").toLabelWeights();
    const validRows = {
      x: preprocessRows(valid.x, { l2Normalize: settings.l2Normalize }),
      y: valid.y,
    };
    return pop(probe, validRows, counts, propensities, opts);
  });
  const { result: full, seconds: trainSeconds } = await timeSeconds(() =>
    trainBrModel(ctx, train, "br (full)")
  );
  const fullWeights = full.toLabelWeights();
  const pruned = roundWeights(
    applyPop(fullWeights, order, search.numPrunedLabels, opts),
    weightType,
  );
  const config = { l2Normalize: settings.l2Normalize };
  const prunedModel = BrEstimator.fromLabelWeights(pruned, config);
  const base = evaluateModel(full, test, { propensities, timingRows: 0 });
  const ev = evaluateModel(prunedModel, test, { propensities, progress: ctx.progress });
  const preprocess = { l2Normalize: settings.l2Normalize };
  const meta = { dataset: ctx.dataset, pop: { ...opts, numPrunedLabels: search.numPrunedLabels } };
  const file = encodeModelFile(
    linearSparseContent(pruned, { labelNames, preprocess, meta, weightType, indexType }),
  );
  const unprunedFile = full.toModelFile({ labelNames });
  const rel: Record<string, number> = {};
  for (const k of ["PSP@1", "PSP@3", "PSP@5", "PSnDCG@1", "PSnDCG@3", "PSnDCG@5"]) {
    rel[k] = 100 * (ev.metrics[k] / base.metrics[k] - 1);
  }
  return {
    metrics: ev.metrics,
    trainSeconds: trainSeconds + searchSeconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: {
      ...opts,
      C: settings.C,
      l2Normalize: settings.l2Normalize,
      weightType,
      indexType,
      numLabels: train.numLabels,
      numPrunedLabels: search.numPrunedLabels,
      searchEvaluations: search.evaluations,
      validationBaseline: search.baseline,
      validationFinal: search.final,
      nnzUnpruned: nnzOf(fullWeights),
      nnzPruned: nnzOf(pruned),
      unprunedBytes: unprunedFile.byteLength,
      unprunedMetrics: base.metrics,
      relativeChangePercent: rel,
      searchSeconds,
    },
  };
};

export default popExperiment;
