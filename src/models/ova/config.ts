/**
 * Settings of the sparse one-vs-all learner: typed, with defaults and ranges, validated where
 * they enter (an unknown key or a bad value is an error naming the key and what is allowed).
 *
 * @module
 */

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
export interface OvaOptions {
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

interface Spec {
  dflt: number | boolean | string;
  choices?: readonly string[];
  min?: number;
  max?: number;
  integer?: boolean;
}

const SPECS: Record<keyof OvaOptions, Spec> = {
  seed: { dflt: 0, integer: true, min: 0, max: 4294967295 },
  loss: { dflt: "logistic", choices: ["logistic", "squared-hinge"] },
  learningRate: { dflt: 0.5, min: 1e-6, max: 100 },
  adagradInit: { dflt: 0.01, min: 0, max: 1e6 },
  hardNegatives: { dflt: 24, integer: true, min: 0, max: 4096 },
  negatives: { dflt: 8, integer: true, min: 0, max: 4096 },
  maxLabelsPerFeature: { dflt: 1024, integer: true, min: 4, max: 1 << 24 },
  frequencyWindow: { dflt: 4096, integer: true, min: 1, max: 1 << 24 },
  negativeGrowth: { dflt: true },
  maxWeights: { dflt: 1 << 24, integer: true, min: 1024, max: 2 ** 31 - 1 },
  biasInit: { dflt: -4, min: -100, max: 100 },
  l2Normalize: { dflt: true },
  replay: { dflt: 0, integer: true, min: 0, max: 1 << 24 },
  replayRatio: { dflt: 1, min: 0, max: 64 },
};

/** Names of the settings, for help texts and errors. */
export const OVA_OPTION_NAMES: readonly string[] = Object.keys(SPECS);

/**
 * Fills the defaults and validates every setting. Keys the factory handles itself
 * (`numFeatures`, `numLabels`) are allowed and ignored.
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
  const out: Record<string, number | boolean | string> = {};
  for (const key of Object.keys(options)) {
    if (key === "numFeatures" || key === "numLabels") continue;
    if (!(key in SPECS)) {
      throw new TypeError(
        `ova: unknown option "${key}" (known: ${OVA_OPTION_NAMES.join(", ")})`,
      );
    }
  }
  for (const [key, spec] of Object.entries(SPECS)) {
    const v = options[key];
    if (v === undefined) {
      out[key] = spec.dflt;
      continue;
    }
    if (spec.choices) {
      if (typeof v !== "string" || !spec.choices.includes(v)) {
        throw new RangeError(
          `ova: option ${key} must be one of ${spec.choices.join(", ")}, got ${String(v)}`,
        );
      }
      out[key] = v;
      continue;
    }
    if (typeof spec.dflt === "boolean") {
      if (typeof v !== "boolean") {
        throw new TypeError(`ova: option ${key} must be true or false, got ${String(v)}`);
      }
      out[key] = v;
      continue;
    }
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new TypeError(`ova: option ${key} must be a finite number, got ${String(v)}`);
    }
    if ((spec.integer && !Number.isInteger(v)) || v < spec.min! || v > spec.max!) {
      throw new RangeError(
        `ova: option ${key} must be ${
          spec.integer ? "an integer" : "a number"
        } in [${spec.min}, ${spec.max}], got ${v}`,
      );
    }
    out[key] = v;
  }
  return out as unknown as OvaConfig;
}
