/**
 * `deno task repro br --dataset D [--C 1] [--normalize true] [--eps 0.1] [--trainer dcd|adam]
 * [--epochs 5]`: binary relevance, the POP paper's base model. By default one L2-regularised
 * squared-hinge SVM per label trained by dual coordinate descent (as LIBLINEAR `-s 1 -B 1`) on
 * L2-normalised rows; `--trainer adam` trains the streaming estimator instead (minibatches of
 * 256, `--epochs` passes). `--C` and `--eps` are DCD's, `--epochs` adam's: a flag the chosen
 * trainer does not read is refused. Prints the test metrics and `modelBytes`, the size of the
 * `linear-sparse` model file (f32 weights, i32 label indices: every non-zero weight).
 *
 * @module
 */
import type { Experiment, ExperimentContext, ExperimentFlags } from "../types.ts";
import { learnAll, loadTrainTest, numberFlag, PROPENSITY_FLAGS, timeSeconds } from "../harness.ts";
import type { Dataset } from "../../../src/data/dataset.ts";
import { BrEstimator, nnzOf, trainBr } from "../../../src/models/br/mod.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";

/**
 * The flags {@linkcode brSettings} reads (`--C`, `--eps`, `--normalize`): `br` and `pop` list
 * them in their `FLAGS`.
 *
 * @example
 * ```ts
 * import { BR_FLAGS } from "./br.ts";
 * console.log(BR_FLAGS); // [ "C", "eps", "normalize" ]
 * ```
 */
export const BR_FLAGS = ["C", "eps", "normalize"] as const;

/**
 * The BR settings shared by the `br` and `pop` experiments, from the flags ({@linkcode BR_FLAGS}).
 *
 * @example
 * ```ts
 * import { brSettings } from "./br.ts";
 * console.log(brSettings({ C: "0.5" }).C); // 0.5
 * ```
 */
export function brSettings(flags: Record<string, string | boolean>): {
  C: number;
  eps: number;
  l2Normalize: boolean;
} {
  const num = (name: string, fallback: number) => {
    const v = flags[name];
    if (v === undefined) return fallback;
    const n = Number(v);
    if (typeof v !== "string" || !(n > 0)) {
      throw new TypeError(`--${name} must be a positive number, got '${v}'`);
    }
    return n;
  };
  const norm = flags.normalize;
  if (norm !== undefined && norm !== true && norm !== "true" && norm !== "false") {
    throw new TypeError(`--normalize must be true or false, got '${norm}'`);
  }
  return { C: num("C", 1), eps: num("eps", 0.1), l2Normalize: norm !== "false" };
}

/**
 * Trains the DCD BR model on `train` with the settings of {@linkcode brSettings}.
 *
 * @example
 * ```ts
 * import { trainBrModel } from "./br.ts";
 * console.log(typeof trainBrModel); // "function"
 * ```
 */
export function trainBrModel(
  ctx: ExperimentContext,
  train: Dataset,
  label: string,
): BrEstimator {
  const s = brSettings(ctx.flags);
  ctx.progress.start(train.numLabels, label);
  const m = trainBr(
    train.x,
    train.y,
    { C: s.C, eps: s.eps, seed: ctx.seed, onLabel: () => ctx.progress.tick() },
    { l2Normalize: s.l2Normalize },
  );
  ctx.progress.done();
  return m;
}

const br: Experiment = async (ctx) => {
  const s = brSettings(ctx.flags);
  const trainer = String(ctx.flags.trainer ?? "dcd");
  if (trainer !== "dcd" && trainer !== "adam") {
    throw new TypeError(`--trainer must be dcd or adam, got '${trainer}'`);
  }
  // a flag the chosen trainer does not read would be reported as if it had been used
  const unused = trainer === "dcd" ? ["epochs"] : ["C", "eps"];
  for (const name of unused) {
    if (ctx.flags[name] !== undefined) {
      throw new TypeError(`--${name} does not apply to --trainer ${trainer}`);
    }
  }
  const epochs = numberFlag(ctx.flags, "epochs", 5);
  if (!Number.isInteger(epochs) || epochs < 1) {
    throw new TypeError(`--epochs must be a positive integer, got '${ctx.flags.epochs}'`);
  }
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  let model: BrEstimator;
  let trainSeconds: number;
  if (trainer === "dcd") {
    ({ result: model, seconds: trainSeconds } = await timeSeconds(() =>
      trainBrModel(ctx, train, "br dcd")
    ));
  } else {
    ({ result: model, seconds: trainSeconds } = await timeSeconds(() =>
      learnAll(
        new BrEstimator({
          numFeatures: train.numFeatures,
          numLabels: train.numLabels,
          l2Normalize: s.l2Normalize,
          seed: ctx.seed,
        }),
        train,
        256,
        epochs,
      )
    ));
  }
  const ev = evaluateModel(model, test, { propensities, progress: ctx.progress });
  const file = model.toModelFile({ labelNames, meta: { dataset: ctx.dataset } });
  return {
    metrics: ev.metrics,
    stdErr: ev.stdErr,
    trainSeconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: {
      trainer,
      ...(trainer === "dcd" ? { C: s.C, eps: s.eps } : { epochs }),
      l2Normalize: s.l2Normalize,
      nnz: nnzOf(model.toLabelWeights()),
    },
  };
};

/**
 * The flags `repro br` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner refuses
 * any other); it reads `<dataset>.test.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./br.ts";
 * console.log(FLAGS.flags.includes("C")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: [...BR_FLAGS, "trainer", "epochs", ...PROPENSITY_FLAGS],
  test: true,
};

export default br;
