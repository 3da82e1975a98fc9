/**
 * Settings of the streaming LEML estimator: the options it takes ({@linkcode LemlStreamOptions}),
 * their declaration with defaults and ranges ({@linkcode LEML_SETTINGS}), and the resolved
 * configuration the estimator keeps ({@linkcode LemlStreamConfig}, via
 * {@linkcode resolveLemlStreamOptions}).
 *
 * @module
 */
import {
  defineSettings,
  type ModelSettings,
  SEED_SPEC,
  SIZE_SPECS,
  whenIs,
  whenPositive,
} from "../settings.ts";
import type { SpaceLimits } from "../../data/batch_check.ts";
import { LIMIT_SPECS, spaceLimits, type SpaceLimitSettings } from "../space_limits.ts";
import { defaultThreshold, type LemlLoss } from "./loss.ts";

/**
 * Options of the streaming estimator (all optional).
 *
 * @example
 * ```ts
 * import type { LemlStreamOptions } from "./settings.ts";
 * const o: LemlStreamOptions = { rank: 16, loss: "squared", optimizer: "adam", lr: 0.01 };
 * console.log(o.rank); // 16
 * ```
 */
export interface LemlStreamOptions extends SpaceLimitSettings {
  /** Seed of initialisation and negative sampling (default 0). */
  seed?: number;
  /** Initial feature-space size (default 0: grows with the data). */
  numFeatures?: number;
  /** Initial label-space size (default 0). */
  numLabels?: number;
  /** Rank k (default 32). */
  rank?: number;
  /** Regularisation λ per batch step, in [0, 1e6] (default 1e-4). */
  lambda?: number;
  /** Learning rate of W, in [0, 1e6] (default 0.01 for Adam, 0.05 for SGD). */
  lr?: number;
  /** Learning rate of H and the bias, in [0, 1e6] (default: `lr`). */
  lrH?: number;

  /** SGD learning-rate decay: lr/(1 + decay·(t−1)) (default 0; ignored by Adam). */
  lrDecay?: number;
  /** "adam" (default; lazy: only the rows a minibatch touches are updated) or "sgd". */
  optimizer?: "adam" | "sgd";
  /** Loss (default "squared"). */
  loss?: LemlLoss;
  /** Sampled negatives per row for the logistic / squared hinge losses (default 16). */
  negatives?: number;
  /** Learn a per-label bias (default true). */
  bias?: boolean;
  /** Decision threshold subtracted from scores, in [−1e6, 1e6] (default: 0.5 squared, else 0). */
  threshold?: number;
  /** Scale of the initial H entries, uniform in ±initScale, in (0, 1e6] (default 1/√rank). */
  initScale?: number;
  /** Scale every row to unit L2 norm before learning and scoring (default false). */
  l2Normalize?: boolean;
  /**
   * Experience replay: rows kept in a seeded reservoir of earlier rows (default 0: no replay).
   * Memory grows by at most this many rows, whatever the length of the stream.
   */
  replay?: number;
  /** Replayed rows per new row in each step (default 1; used when `replay` > 0). */
  replayRatio?: number;
  /** Optimiser steps per incoming minibatch, each with a fresh replay draw (default 1). */
  replaySteps?: number;
  /**
   * "full" (default): every step updates every label row (O(L·k²) per step). "local" (squared
   * loss only): a step updates the W rows of the batch's features and the H rows of its
   * positives plus `localNegatives` sampled labels per row, with the all-label Gram term exact
   * from a cached HᵀH (./local_step.ts, ./gram_cache.ts), and a periodic closed-form refresh on
   * the replay reservoir (./refresh.ts): a step's cost does not grow with L. The options below
   * apply to the local mode only (giving one with "full" is an error).
   */
  update?: "full" | "local";
  /** Local: sampled negatives per row, drawn by recent label frequency (default 8). */
  localNegatives?: number;
  /** Local: cap of the catch-up weight of a label's all-row gradient (default 16; 1: none). */
  catchUp?: number;
  /**
   * Local: rows between two refreshes on the replay reservoir (default `replay`; 0: never).
   * Needs `replay` > 0 (without a reservoir nothing is refreshed).
   */
  refreshEvery?: number;
  /** Local: at most this many reservoir rows per refresh, drawn uniformly (default 0: all). */
  refreshRows?: number;
  /**
   * Local: CG iterations of the refresh's W step (default 0: H rows only; on a validation
   * split of synthetic data, 1–3 iterations cost twice the time for no gain).
   */
  refreshCg?: number;
  /** Local: pull μ of the refresh towards the current factors (default 0.01; 0: plain ridge). */
  refreshProx?: number;
  /** Local: recompute the cached Gram after this many row changes per label (default 4). */
  gramRecompute?: number;
}

/**
 * The options that only `update: "local"` takes (in full mode each is a RangeError).
 *
 * @example
 * ```ts
 * import { LOCAL_KEYS } from "./settings.ts";
 * console.log(LOCAL_KEYS.includes("refreshEvery")); // true
 * ```
 */
export const LOCAL_KEYS = [
  "localNegatives",
  "catchUp",
  "refreshEvery",
  "refreshRows",
  "refreshCg",
  "refreshProx",
  "gramRecompute",
] as const;

/** In the local mode only: that mode's default; in the full mode: left out. */
const local = (dflt: number) => (s: Readonly<Record<string, unknown>>) =>
  s.update === "local" ? dflt : undefined;

/** Largest size of the feature or label space given up front. */
const MAX_SIZE = 2 ** 31 - 1;

/**
 * The largest `lr`, `lrH`, `lambda`, `initScale` and |`threshold`| (1e6, as SLEEC's streaming
 * rate): at 1e300 Adam's step overflowed the float32 factors, as did the initial H, and every
 * score was NaN (a threshold of 1e300 made every score −Infinity). At the bound, every loss,
 * optimiser and `l2Normalize` on rows from 1e-20 to the raw-value limit 1e15 stays finite (the SGD
 * step is capped where it would overshoot: ./step_cap.ts).
 */
const RATE_MAX = 1e6;

/**
 * The declared options of the streaming estimator (kind "leml"): every key of
 * {@linkcode LemlStreamOptions}, with its default and range. Defaults that depend on other
 * options: `lr` (0.01 for Adam, 0.05 for SGD), `lrH` (`lr`), `threshold` (0.5 for the squared
 * loss, else 0), `initScale` (1/√rank), `refreshEvery` (`replay`); the local options are only
 * set in the local mode.
 *
 * @example
 * ```ts
 * import { LEML_SETTINGS } from "./settings.ts";
 * const s = LEML_SETTINGS.resolve({ rank: "16", optimizer: "sgd" });
 * console.log(s.rank, s.lr, s.lrH, s.threshold); // 16 0.05 0.05 0.5
 * try { LEML_SETTINGS.resolve({ rank: 0 }); } catch (e) { console.log((e as Error).message); }
 * // leml: option rank must be an integer in [1, 4096], got 0
 * ```
 */
export const LEML_SETTINGS: ModelSettings<LemlStreamOptions> = defineSettings<LemlStreamOptions>(
  "leml",
  {
    seed: { ...SEED_SPEC, doc: "Seed of initialisation and negative sampling." },
    ...SIZE_SPECS,
    rank: { kind: "int", default: 32, min: 1, max: 4096, doc: "Rank k of W and H." },
    lambda: {
      kind: "number",
      default: 1e-4,
      min: 0,
      max: RATE_MAX,
      doc: "Regularisation λ per batch step.",
    },
    optimizer: {
      kind: "enum",
      values: ["adam", "sgd"],
      default: "adam",
      doc: "Optimiser (Adam is lazy: only the rows a minibatch touches move).",
    },
    lr: {
      kind: "number",
      default: (s) => s.optimizer === "adam" ? 0.01 : 0.05,
      min: 0,
      max: RATE_MAX,
      doc: "Learning rate of W (0.01 for Adam, 0.05 for SGD).",
    },
    lrH: {
      kind: "number",
      default: (s) => s.lr,
      min: 0,
      max: RATE_MAX,
      doc: "Learning rate of H and the bias (default: lr).",
    },
    lrDecay: {
      kind: "number",
      default: 0,
      min: 0,
      usedWhen: whenIs("optimizer", "sgd"),
      doc: "SGD learning-rate decay lr/(1 + decay·(t−1)).",
    },
    loss: {
      kind: "enum",
      values: ["squared", "logistic", "sqhinge"],
      default: "squared",
      doc: "Loss.",
    },
    negatives: {
      kind: "int",
      default: 16,
      min: 1,
      max: 1 << 20,
      usedWhen: whenIs("loss", "logistic", "sqhinge"),
      doc: "Sampled negatives per row (logistic and squared hinge losses).",
    },
    bias: { kind: "boolean", default: true, doc: "Learn a per-label bias." },
    threshold: {
      kind: "number",
      default: (s) => defaultThreshold(s.loss as LemlLoss),
      min: -RATE_MAX,
      max: RATE_MAX,
      doc: "Decision threshold subtracted from scores (0.5 squared, else 0).",
    },
    initScale: {
      kind: "number",
      default: (s) => 1 / Math.sqrt(s.rank as number),
      // > 0: W = 0 and H = 0 is a fixed point (every gradient of W and H is 0 there), so at 0
      // the factors never moved and the model learnt its biases only
      min: 0,
      minExclusive: true,
      max: RATE_MAX,
      doc: "Scale of the initial H entries, uniform in ±initScale (1/√rank).",
    },
    l2Normalize: {
      kind: "boolean",
      default: false,
      doc: "Scale every row to unit L2 norm before learning and scoring.",
    },
    replay: {
      kind: "int",
      default: 0,
      min: 0,
      max: MAX_SIZE,
      doc: "Rows kept in a seeded replay reservoir (0: no replay).",
    },
    replayRatio: {
      kind: "number",
      default: 1,
      min: 0,
      usedWhen: whenPositive("replay"),
      doc: "Replayed rows per new row in each step.",
    },
    replaySteps: {
      kind: "int",
      default: 1,
      min: 1,
      max: 1 << 16,
      usedWhen: whenPositive("replay"),
      doc: "Optimiser steps per incoming minibatch.",
    },
    update: {
      kind: "enum",
      values: ["full", "local"],
      doc:
        'Update mode: "full" (default) or "local" (squared loss; a step\'s cost does not grow with L).',
    },
    localNegatives: {
      kind: "int",
      default: local(8),
      min: 0,
      max: 1 << 20,
      doc: "Local: sampled negatives per row, by recent label frequency (8).",
    },
    catchUp: {
      kind: "number",
      default: local(16),
      min: 1,
      doc: "Local: cap of the catch-up weight of a label's all-row gradient (16; 1: none).",
    },
    refreshEvery: {
      kind: "int",
      default: (s) => s.update === "local" ? s.replay : undefined,
      min: 0,
      max: MAX_SIZE,
      doc: "Local: rows between two refreshes on the replay reservoir (replay; 0: never).",
    },
    refreshRows: {
      kind: "int",
      default: local(0),
      min: 0,
      max: MAX_SIZE,
      doc: "Local: reservoir rows per refresh, drawn uniformly (0: all).",
    },
    refreshCg: {
      kind: "int",
      default: local(0),
      min: 0,
      max: 1 << 16,
      doc: "Local: CG iterations of the refresh's W step (0: H rows only).",
    },
    refreshProx: {
      kind: "number",
      default: local(0.01),
      min: 0,
      doc: "Local: pull μ of the refresh towards the current factors (0.01; 0: plain ridge).",
    },
    gramRecompute: {
      kind: "number",
      default: local(4),
      min: 0,
      doc: "Local: recompute the cached Gram after this many row changes per label (4).",
    },
    ...LIMIT_SPECS,
  },
);

/** The settings of the local update mode. */
interface LocalConfig {
  update: "local";
  localNegatives: number;
  catchUp: number;
  refreshEvery: number;
  refreshRows: number;
  refreshCg: number;
  refreshProx: number;
  gramRecompute: number;
}

interface BaseConfig {
  seed: number;
  rank: number;
  lambda: number;
  lr: number;
  lrH: number;
  lrDecay: number;
  optimizer: "adam" | "sgd";
  loss: LemlLoss;
  negatives: number;
  bias: boolean;
  threshold: number;
  initScale: number;
  l2Normalize: boolean;
  replay: number;
  replayRatio: number;
  replaySteps: number;
}

/**
 * The resolved configuration of the streaming estimator (what `LemlStream.config` holds and its
 * state records): every option of {@linkcode LemlStreamOptions} but the sizes, set; the local
 * settings (and `update`) only in the local mode.
 *
 * @example
 * ```ts
 * import type { LemlStreamConfig } from "./settings.ts";
 * function isLocal(c: LemlStreamConfig): boolean { return c.update === "local"; }
 * console.log(typeof isLocal); // function
 * ```
 */
export type LemlStreamConfig = BaseConfig & Partial<LocalConfig>;

/**
 * Validates the options against {@linkcode LEML_SETTINGS} and the rules between them (the
 * local options need `update: "local"`, which needs the squared loss) and returns the
 * configuration, the initial sizes and the growth limits.
 *
 * @throws {TypeError} for an unknown option or a value of the wrong type
 * @throws {RangeError} for a value out of range or a rule broken, naming the option
 *
 * @example
 * ```ts
 * import { resolveLemlStreamOptions } from "./settings.ts";
 * const { config, numLabels } = resolveLemlStreamOptions({ rank: 8, numLabels: 3 });
 * console.log(config.rank, config.lr, config.update, numLabels); // 8 0.01 undefined 3
 * ```
 */
export function resolveLemlStreamOptions(
  options: Readonly<Record<string, unknown>> = {},
): { config: LemlStreamConfig; numFeatures: number; numLabels: number; limits: SpaceLimits } {
  const s = LEML_SETTINGS.resolve(options) as Required<LemlStreamOptions>;
  // the keys in the order the estimator's state has always recorded them
  const base: BaseConfig = {
    seed: s.seed,
    rank: s.rank,
    lambda: s.lambda,
    lr: s.lr,
    lrH: s.lrH,
    lrDecay: s.lrDecay,
    optimizer: s.optimizer,
    loss: s.loss,
    negatives: s.negatives,
    bias: s.bias,
    threshold: s.threshold,
    initScale: s.initScale,
    l2Normalize: s.l2Normalize,
    replay: s.replay,
    replayRatio: s.replayRatio,
    replaySteps: s.replaySteps,
  };
  const sizes = {
    numFeatures: s.numFeatures,
    numLabels: s.numLabels,
    limits: spaceLimits("leml", s),
  };
  if (s.update !== "local") {
    for (const key of LOCAL_KEYS) {
      if (options[key] !== undefined) {
        throw new RangeError(`leml: option ${key} applies to update: "local" only`);
      }
    }
    return { config: base, ...sizes };
  }
  if (s.loss !== "squared") {
    throw new RangeError(`leml: option update "local" needs loss "squared", got ${s.loss}`);
  }
  const local: LocalConfig = {
    update: "local",
    localNegatives: s.localNegatives,
    catchUp: s.catchUp,
    refreshEvery: s.refreshEvery,
    refreshRows: s.refreshRows,
    refreshCg: s.refreshCg,
    refreshProx: s.refreshProx,
    gramRecompute: s.gramRecompute,
  };
  return { config: { ...base, ...local }, ...sizes };
}

/**
 * The options of the batch-trained estimator that its solver `trainLemlBatch` (./batch.ts)
 * takes, in declaration order: every key of {@linkcode LEML_BATCH_SETTINGS} but the initial
 * sizes, the growth limits, the threshold and the row scaling. The one list of them: the estimator's options
 * ({@linkcode LemlBatchSettings}), the solver's declared settings and what the estimator hands
 * the solver all come from it.
 *
 * @example
 * ```ts
 * import { LEML_BATCH_SOLVER_KEYS } from "./settings.ts";
 * console.log(LEML_BATCH_SOLVER_KEYS.join(" ")); // seed rank lambda loss iterations ... bias
 * ```
 */
export const LEML_BATCH_SOLVER_KEYS = [
  "seed",
  "rank",
  "lambda",
  "loss",
  "iterations",
  "cgIterations",
  "cgTolerance",
  "newtonSteps",
  "bias",
] as const;

/**
 * The batch solver's settings ({@linkcode LEML_BATCH_SOLVER_KEYS}; the defaults and ranges are
 * in {@linkcode LEML_BATCH_SETTINGS}), all optional: shared by `trainLemlBatch`'s options
 * (./batch.ts, where `rank` is required) and the batch-trained estimator's.
 *
 * @example
 * ```ts
 * import type { LemlBatchSolverSettings } from "./settings.ts";
 * const o: LemlBatchSolverSettings = { loss: "logistic", newtonSteps: 3 };
 * console.log(o.loss); // "logistic"
 * ```
 */
export interface LemlBatchSolverSettings {
  /** Seed of the initial H (default 0). */
  seed?: number;
  /** Rank k. */
  rank?: number;
  /** Regularisation λ of the summed objective (default 1). */
  lambda?: number;
  /** Loss (default "squared"). */
  loss?: LemlLoss;
  /** Alternating iterations (W step then H step; default 10). */
  iterations?: number;
  /** CG iteration cap per Newton system (default 30). */
  cgIterations?: number;
  /** CG relative tolerance (default 1e-4). */
  cgTolerance?: number;
  /** Newton steps per W step and per label row for non-squared losses (default 2). */
  newtonSteps?: number;
  /** Learn a per-label bias (default true). */
  bias?: boolean;
}

/**
 * Options of the batch-trained estimator `LemlBatch` (./batch_estimator.ts), all optional: the
 * solver's ({@linkcode LemlBatchSolverSettings}), the initial sizes, the threshold and the row
 * scaling.
 *
 * @example
 * ```ts
 * import type { LemlBatchSettings } from "./settings.ts";
 * const o: LemlBatchSettings = { rank: 8, lambda: 1, iterations: 5 };
 * console.log(o.iterations); // 5
 * ```
 */
export interface LemlBatchSettings extends LemlBatchSolverSettings, SpaceLimitSettings {
  /** Initial feature-space size (default 0). */
  numFeatures?: number;
  /** Initial label-space size (default 0). */
  numLabels?: number;
  /** Decision threshold (default 0.5 squared, else 0). */
  threshold?: number;
  /** Scale every row to unit L2 norm before learning and scoring (default false). */
  l2Normalize?: boolean;
}

/**
 * The declared options of the batch-trained estimator (kind "leml", `trainer: "batch"` in its
 * state).
 *
 * @example
 * ```ts
 * import { LEML_BATCH_SETTINGS } from "./settings.ts";
 * console.log(LEML_BATCH_SETTINGS.resolve({ loss: "logistic" }).threshold); // 0
 * ```
 */
export const LEML_BATCH_SETTINGS: ModelSettings<LemlBatchSettings> = defineSettings<
  LemlBatchSettings
>("leml batch", {
  seed: { ...SEED_SPEC, doc: "Seed of the initial H." },
  ...SIZE_SPECS,
  rank: { kind: "int", default: 32, min: 1, max: 4096, doc: "Rank k." },
  lambda: { kind: "number", default: 1, min: 0, doc: "λ of the summed objective." },
  loss: {
    kind: "enum",
    values: ["squared", "logistic", "sqhinge"],
    default: "squared",
    doc: "Loss.",
  },
  iterations: {
    kind: "int",
    default: 10,
    min: 1,
    max: 1 << 20,
    doc: "Alternating iterations per refit.",
  },
  cgIterations: {
    kind: "int",
    default: 30,
    min: 1,
    max: 1 << 20,
    doc: "CG iteration cap per Newton system.",
  },
  cgTolerance: { kind: "number", default: 1e-4, min: 0, doc: "CG relative tolerance." },
  newtonSteps: {
    kind: "int",
    default: 2,
    min: 1,
    max: 1 << 10,
    doc: "Newton steps per W step and label row (non-squared losses).",
  },
  bias: { kind: "boolean", default: true, doc: "Learn a per-label bias." },
  threshold: {
    kind: "number",
    default: (s) => defaultThreshold(s.loss as LemlLoss),
    doc: "Decision threshold (0.5 squared, else 0).",
  },
  l2Normalize: {
    kind: "boolean",
    default: false,
    doc: "Scale every row to unit L2 norm before learning and scoring.",
  },
  ...LIMIT_SPECS,
});
