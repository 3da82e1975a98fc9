/**
 * Settings of the streaming binary-relevance estimator (kind "br"): their declaration with
 * defaults and ranges ({@linkcode BR_SETTINGS}), checked where options enter.
 *
 * @module
 */
import { defineSettings, type ModelSettings, SEED_SPEC, SIZE_SPECS, whenIs } from "../settings.ts";
import { LIMIT_SPECS, type SpaceLimitSettings } from "../space_limits.ts";

/**
 * Options of the streaming BR estimator (all optional; see {@linkcode BR_SETTINGS}).
 *
 * @example
 * ```ts
 * import type { BrSettings } from "./settings.ts";
 * const c: BrSettings = { loss: "logistic", optimizer: "sgd", learningRate: 0.1 };
 * console.log(c.loss); // "logistic"
 * ```
 */
export interface BrSettings extends SpaceLimitSettings {
  /** Per-label loss (default "squared-hinge"). */
  loss?: "squared-hinge" | "logistic";
  /** Optimiser (default "adam"). */
  optimizer?: "adam" | "sgd";
  /** Step size, in (0, 1e6] (default 0.05 for Adam, 0.5 for SGD). */
  learningRate?: number;
  /** L2 penalty λ/2‖w‖², applied lazily to the rows a batch touches, in [0, 1e6] (default 1e-4). */
  lambda?: number;
  /** Learn a per-label bias (default true). */
  bias?: boolean;
  /** Adam β1, in [0, 1) (default 0.9). */
  beta1?: number;
  /** Adam β2, in [0, 1) (default 0.999). */
  beta2?: number;
  /** Adam ε (default 1e-8). */
  epsilon?: number;
  /**
   * Scale every row to unit L2 norm before learning and scoring (recorded in the model file as
   * `preprocess.l2Normalize`, so the SDK does the same to raw rows; default false).
   */
  l2Normalize?: boolean;
  /** Seed (recorded; training is deterministic and does not draw random numbers). */
  seed?: number;
  /** Initial feature-space size (default 0). */
  numFeatures?: number;
  /** Initial label-space size (default 0). */
  numLabels?: number;
}

/** The largest Adam β allowed: the largest double below 1. */
const BETA_MAX = 1 - 2 ** -53;

/**
 * The largest `learningRate` and `lambda` (1e6, as SLEEC's streaming rate): at 1e300 Adam's step
 * and the λw term overflowed the float32 weights and moments and every score was NaN. At the
 * bound, every loss, optimiser and `l2Normalize` on rows from 1e-20 to the raw-value limit 1e15
 * stays finite (the SGD step is capped where it would overshoot: ./step_cap.ts).
 */
const RATE_MAX = 1e6;

/** Adam's own settings are used with the Adam optimiser only. */
const ADAM = whenIs("optimizer", "adam");

/**
 * The declared options of the streaming BR estimator.
 *
 * @example
 * ```ts
 * import { BR_SETTINGS } from "./settings.ts";
 * console.log(BR_SETTINGS.resolve({ optimizer: "sgd" }).learningRate); // 0.5
 * try { BR_SETTINGS.resolve({ learningRate: 0 }); } catch (e) { console.log((e as Error).message); }
 * // br: option learningRate must be a finite number in (0, 1000000], got 0
 * ```
 */
export const BR_SETTINGS: ModelSettings<BrSettings> = defineSettings<BrSettings>("br", {
  loss: {
    kind: "enum",
    values: ["squared-hinge", "logistic"],
    default: "squared-hinge",
    doc: "Per-label loss.",
  },
  optimizer: { kind: "enum", values: ["adam", "sgd"], default: "adam", doc: "Optimiser." },
  learningRate: {
    kind: "number",
    default: (s) => s.optimizer === "adam" ? 0.05 : 0.5,
    min: 0,
    minExclusive: true,
    max: RATE_MAX,
    doc: "Step size (0.05 for Adam, 0.5 for SGD).",
  },
  lambda: {
    kind: "number",
    default: 1e-4,
    min: 0,
    max: RATE_MAX,
    doc: "L2 penalty λ/2‖w‖² (lazy).",
  },
  bias: { kind: "boolean", default: true, doc: "Learn a per-label bias." },
  // β < 1 (the largest double below 1): at β = 1 Adam's bias correction 1 − β^t is 0 and the
  // first step wrote NaN into every weight it touched
  beta1: { kind: "number", default: 0.9, min: 0, max: BETA_MAX, usedWhen: ADAM, doc: "Adam β1." },
  beta2: {
    kind: "number",
    default: 0.999,
    min: 0,
    max: BETA_MAX,
    usedWhen: ADAM,
    doc: "Adam β2.",
  },
  epsilon: { kind: "number", default: 1e-8, min: 0, usedWhen: ADAM, doc: "Adam ε." },
  l2Normalize: {
    kind: "boolean",
    default: false,
    doc: "Scale every row to unit L2 norm before learning and scoring.",
  },
  seed: { ...SEED_SPEC, doc: "Seed (recorded; training draws no random numbers)." },
  ...SIZE_SPECS,
  ...LIMIT_SPECS,
});
