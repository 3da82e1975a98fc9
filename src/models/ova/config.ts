/**
 * Settings of the sparse one-vs-all learner: typed, with defaults and ranges, validated where
 * they enter (an unknown key or a bad value is an error naming the key and what is allowed).
 *
 * @module
 */
import {
  defineSettings,
  type ModelSettings,
  SEED_SPEC,
  SIZE_SPECS,
  whenPositive,
} from "../settings.ts";
import { LIMIT_SPECS, type SpaceLimitSettings } from "../space_limits.ts";

/**
 * Options of {@linkcode resolveOvaConfig} (all optional).
 *
 * @example
 * ```ts
 * import type { OvaOptions } from "./config.ts";
 * const o: OvaOptions = { hardNegatives: 8, learningRate: 0.3 };
 * console.log(o.hardNegatives); // 8
 * ```
 */
export interface OvaOptions extends SpaceLimitSettings {
  /** Seed of negative sampling (default 0). */
  seed?: number;
  /** Per-label loss: "logistic" (default) or "squared-hinge" (targets ±1, margin 1). */
  loss?: "logistic" | "squared-hinge";
  /** AdaGrad step size of the weights and biases (default 0.5). */
  learningRate?: number;
  /** Initial AdaGrad sum of every weight: damps the first steps (default 0.01). */
  adagradInit?: number;
  /** Hard negatives per row: the best-scored labels the row lacks (default 24). */
  hardNegatives?: number;
  /** Negatives per row drawn by label frequency (default 8). */
  negatives?: number;
  /**
   * Labels a feature may carry weights for: past it, the smallest quarter of the feature's
   * weights is dropped (default 1024). Bounds the cost of scoring a row by non-zeros × this.
   */
  maxLabelsPerFeature?: number;
  /** Recent positive labels that frequency-sampled negatives are drawn from (default 4096). */
  frequencyWindow?: number;
  /** Whether negative updates may create weights (default true; false: only existing ones move). */
  negativeGrowth?: boolean;
  /** Memory budget in stored weights: past it, the smallest 40% are dropped (default 2^24, about 0.8 GB). */
  maxWeights?: number;
  /**
   * Bias of a label at its first positive (default -4). Labels seen a few times are only pushed
   * up, rarely down: from 0 their bias outranked true labels on unrelated rows (an exact top-k
   * at L = 10⁵ agreed on 48% of its labels with the shortlisted one; from -4 on all of them), and
   * -4 was as good or better on the validation splits of debrecs, debtags and delicious.
   */
  biasInit?: number;
  /** Scale every row to unit L2 norm before learning and scoring (default true). */
  l2Normalize?: boolean;
  /**
   * Experience replay: earlier rows kept in a seeded reservoir (a uniform sample of the stream,
   * at most this many rows; default 0: none).
   */
  replay?: number;
  /** Replayed rows learned per new row (default 1; used when `replay` > 0). */
  replayRatio?: number;
}

/** {@linkcode OvaOptions} with every field set. */
export type OvaConfig = Required<OvaOptions>;

/**
 * The declared options of "ova": every {@linkcode OvaOptions} key with its default and range,
 * plus the initial sizes.
 *
 * @example
 * ```ts
 * import { OVA_SETTINGS } from "./config.ts";
 * console.log(OVA_SETTINGS.parse({ negatives: "32" })); // { negatives: 32 }
 * ```
 */
export const OVA_SETTINGS: ModelSettings<
  OvaOptions & { numFeatures?: number; numLabels?: number }
> = defineSettings<OvaOptions & { numFeatures?: number; numLabels?: number }>("ova", {
  seed: { ...SEED_SPEC, doc: "Seed of negative sampling." },
  loss: {
    kind: "enum",
    values: ["logistic", "squared-hinge"],
    default: "logistic",
    doc: "Per-label loss.",
  },
  learningRate: {
    kind: "number",
    default: 0.5,
    min: 1e-6,
    max: 100,
    doc: "AdaGrad step size of the weights and biases.",
  },
  adagradInit: {
    kind: "number",
    default: 0.01,
    min: 0,
    max: 1e6,
    doc: "Initial AdaGrad sum of every weight.",
  },
  hardNegatives: {
    kind: "int",
    default: 24,
    min: 0,
    max: 4096,
    doc: "Hard negatives per row (the best-scored labels the row lacks).",
  },
  negatives: {
    kind: "int",
    default: 8,
    min: 0,
    max: 4096,
    doc: "Negatives per row drawn by label frequency.",
  },
  maxLabelsPerFeature: {
    kind: "int",
    default: 1024,
    min: 4,
    max: 1 << 24,
    doc: "Labels a feature may carry weights for.",
  },
  frequencyWindow: {
    kind: "int",
    default: 4096,
    min: 1,
    max: 1 << 24,
    doc: "Recent positive labels that frequency-sampled negatives are drawn from.",
  },
  negativeGrowth: {
    kind: "boolean",
    default: true,
    doc: "Whether negative updates may create weights.",
  },
  maxWeights: {
    kind: "int",
    default: 1 << 24,
    min: 1024,
    max: 2 ** 31 - 1,
    doc: "Memory budget in stored weights.",
  },
  biasInit: { kind: "number", default: -4, min: -100, max: 100, doc: "Bias at a first positive." },
  l2Normalize: {
    kind: "boolean",
    default: true,
    doc: "Scale every row to unit L2 norm before learning and scoring.",
  },
  replay: {
    kind: "int",
    default: 0,
    min: 0,
    max: 1 << 24,
    doc: "Rows kept in a seeded replay reservoir (0: none).",
  },
  replayRatio: {
    kind: "number",
    default: 1,
    min: 0,
    max: 64,
    usedWhen: whenPositive("replay"),
    doc: "Replayed rows per new row.",
  },
  ...SIZE_SPECS,
  ...LIMIT_SPECS,
});

/** Names of the settings (without the initial sizes), for help texts and errors. */
export const OVA_OPTION_NAMES: readonly string[] = OVA_SETTINGS.names.filter((n) =>
  n !== "numFeatures" && n !== "numLabels"
);

/**
 * Fills the defaults and validates every setting against {@linkcode OVA_SETTINGS}. Keys the
 * factory handles itself (`numFeatures`, `numLabels`) are allowed and left out.
 *
 * @throws {TypeError} for an unknown key or a value of the wrong type
 * @throws {RangeError} for a value out of range, naming the range
 *
 * @example
 * ```ts
 * import { resolveOvaConfig } from "./config.ts";
 * console.log(resolveOvaConfig({ negatives: 32 }).negatives); // 32
 * try { resolveOvaConfig({ negativs: 32 }); } catch (e) { console.log((e as Error).message.slice(0, 35)); } // ova: unknown option "negativs" (known
 * ```
 */
export function resolveOvaConfig(options: Record<string, unknown> = {}): OvaConfig {
  const { numFeatures: _d, numLabels: _l, ...config } = OVA_SETTINGS.resolve(options);
  return config as OvaConfig;
}
