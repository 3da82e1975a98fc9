/**
 * `deno task repro pop --dataset D [--epsilon 0.01] [--lambda 0.01] [--delta 5]
 * [--val-fraction 0.2] [--weights f16|f32] [--index u16|i32] [--plot FILE.svg]` plus the BR flags
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
 * model's metrics and file size and the relative PSP@k changes in percent. `--plot FILE.svg`
 * also sweeps ε and λ on the held-out rows and writes the size-vs-PSP@k curve (`src/prune/curve.ts`).
 *
 * The flags are checked before any work (POP's `--epsilon`, `--lambda` and `--delta` were refused
 * by the search, after the BR fit).
 *
 * The protocol itself is `popBr` (src/prune/pop_br.ts), shared with `deno task prune --train br`.
 *
 * @module
 */
import type { Experiment, ExperimentFlags } from "../types.ts";
import { loadTrainTest, namingFlags, numberFlag, PROPENSITY_FLAGS } from "../harness.ts";
import { checkOutFile } from "../../../src/cli/commands/path_checks.ts";
import { BrEstimator, nnzOf } from "../../../src/models/br/mod.ts";
import { popBr } from "../../../src/prune/pop_br.ts";
import { curveSvg } from "../../../src/prune/curve.ts";
import { applyPop } from "../../../src/prune/pop.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";
import { BR_FLAGS, brSettings } from "./br.ts";

/** A model without labels: {@linkcode applyPop} on it only checks the POP options. */
const NO_WEIGHTS = {
  numFeatures: 0,
  numLabels: 0,
  labelPtr: Int32Array.of(0),
  featIdx: new Int32Array(0),
  values: new Float32Array(0),
};

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
  const plot = ctx.flags.plot;
  if (plot !== undefined && typeof plot !== "string") {
    throw new TypeError("--plot needs a file name, e.g. --plot pop-bibtex.svg");
  }
  // before any work: a plot that cannot be written, or that would replace a data file, must
  // not be found out (or destroy the data) only at the end
  if (plot !== undefined) {
    const inputs = ["train", "test"].map((split) => ({
      what: `the ${split} file of --dataset ${ctx.dataset}`,
      path: `${ctx.dataDir}/${ctx.dataset}.${split}.txt`,
    }));
    await checkOutFile(plot, "plot", { inputs, kind: "svg" });
  }
  const settings = brSettings(ctx.flags);
  const epsilon = numberFlag(ctx.flags, "epsilon", 0.01);
  const lambda = numberFlag(ctx.flags, "lambda", 0.01);
  const delta = numberFlag(ctx.flags, "delta", 5);
  const valFraction = numberFlag(ctx.flags, "val-fraction", 0.2);
  const weightType = choice(ctx.flags, "weights", ["f16", "f32"] as const);
  const indexType = choice(ctx.flags, "index", ["u16", "i32"] as const);
  const opts = { epsilon, lambda, delta };
  // POP's checks, now and naming the flags: the search checked them after the BR fit
  namingFlags(
    ctx.flags,
    { epsilon: "epsilon", lambda: "lambda", delta: "delta" },
    () => applyPop(NO_WEIGHTS, new Int32Array(0), 0, opts),
  );
  if (!(valFraction > 0 && valFraction < 1)) {
    throw new RangeError(`--val-fraction must be in (0, 1), got '${ctx.flags["val-fraction"]}'`);
  }
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  ctx.progress.start(2 * train.numLabels, "br (fit split, then all rows)");
  const r = popBr(train, propensities, {
    ...opts,
    weightType,
    indexType,
    dcd: { C: settings.C, eps: settings.eps },
    l2Normalize: settings.l2Normalize,
    validationFraction: valFraction,
    seed: ctx.seed,
    labelNames,
    meta: { dataset: ctx.dataset },
    curve: plot ? {} : undefined,
    onProgress: () => ctx.progress.tick(),
  });
  ctx.progress.done();
  const config = { l2Normalize: settings.l2Normalize };
  const prunedModel = BrEstimator.fromLabelWeights(r.weights, config);
  const base = evaluateModel(r.full, test, { propensities, timingRows: 0 });
  const ev = evaluateModel(prunedModel, test, { propensities, progress: ctx.progress });
  const unprunedFile = r.full.toModelFile({ labelNames });
  const rel: Record<string, number> = {};
  for (const k of ["PSP@1", "PSP@3", "PSP@5", "PSnDCG@1", "PSnDCG@3", "PSnDCG@5"]) {
    rel[k] = 100 * (ev.metrics[k] / base.metrics[k] - 1);
  }
  if (plot && r.curve) {
    await Deno.writeTextFile(
      plot,
      curveSvg(r.curve, {
        title: `POP on ${ctx.dataset}`,
        referenceBytes: unprunedFile.byteLength,
        referenceLabel: "unpruned BR",
      }),
    );
  }
  return {
    metrics: ev.metrics,
    stdErr: ev.stdErr,
    trainSeconds: r.trainSeconds + r.searchSeconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: r.bytes.byteLength,
    extra: {
      ...opts,
      C: settings.C,
      l2Normalize: settings.l2Normalize,
      weightType,
      indexType,
      numLabels: train.numLabels,
      numPrunedLabels: r.search.numPrunedLabels,
      searchEvaluations: r.search.evaluations,
      validationBaseline: r.search.baseline,
      validationFinal: r.search.final,
      nnzUnpruned: nnzOf(r.full.toLabelWeights()),
      nnzPruned: nnzOf(r.weights),
      unprunedBytes: unprunedFile.byteLength,
      unprunedMetrics: base.metrics,
      relativeChangePercent: rel,
      searchSeconds: r.searchSeconds,
      fullTrainSeconds: r.trainSeconds,
      ...(plot ? { plot, curve: r.curve } : {}),
    },
  };
};

/**
 * The flags `repro pop` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner refuses
 * any other); it reads `<dataset>.test.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./pop.ts";
 * console.log(FLAGS.flags.includes("C")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: [
    ...BR_FLAGS,
    "epsilon",
    "lambda",
    "delta",
    "val-fraction",
    "weights",
    "index",
    "plot",
    ...PROPENSITY_FLAGS,
  ],
  test: true,
};

export default popExperiment;
