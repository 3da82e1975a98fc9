/**
 * The declared options of CoEmbed (kind "coembed", {@linkcode COEMBED_SETTINGS}): every
 * {@linkcode CoEmbedConfig} field with its default (taken from ./config.ts's `DEFAULT_CONFIG`)
 * and its range, plus the initial sizes, so that the factory rejects an unknown key or a bad
 * value where options enter, naming it, and parses string values (the command line's) by the
 * declared kind. The learner keeps filling its defaults and checking its config itself
 * (./config.ts's `resolveConfig`).
 *
 * @module
 */
import { defineSettings, type ModelSettings, type SettingSpec, SIZE_SPECS } from "../settings.ts";
import { type CoEmbedConfig, DEFAULT_CONFIG, resolveConfig } from "./config.ts";
import type { SpaceLimits } from "../../data/batch_check.ts";
import { LIMIT_SPECS, spaceLimits, type SpaceLimitSettings } from "../space_limits.ts";

/**
 * The options the CoEmbed factory takes: any {@linkcode CoEmbedConfig} field, plus the initial
 * sizes.
 *
 * @example
 * ```ts
 * import type { CoEmbedOptions } from "./settings.ts";
 * const o: CoEmbedOptions = { variant: "L", rankX: 5, numLabels: 3 };
 * console.log(o.variant); // L
 * ```
 */
export type CoEmbedOptions =
  & Partial<CoEmbedConfig>
  & { numFeatures?: number; numLabels?: number }
  & SpaceLimitSettings;

const MAX_STEPS = 1 << 20;

function int(key: keyof CoEmbedConfig, min: number, doc: string, max = MAX_STEPS): SettingSpec {
  return { kind: "int", default: DEFAULT_CONFIG[key] as number, min, max, doc };
}

function positive(key: keyof CoEmbedConfig, doc: string): SettingSpec {
  return {
    kind: "number",
    default: DEFAULT_CONFIG[key] as number,
    min: 0,
    minExclusive: true,
    doc,
  };
}

function nonNegative(key: keyof CoEmbedConfig, doc: string): SettingSpec {
  return { kind: "number", default: DEFAULT_CONFIG[key] as number, min: 0, doc };
}

/**
 * The declared options of CoEmbed.
 *
 * @example
 * ```ts
 * import { COEMBED_SETTINGS } from "./settings.ts";
 * console.log(COEMBED_SETTINGS.parse({ variant: "L", rankX: "5" })); // { variant: "L", rankX: 5 }
 * try { COEMBED_SETTINGS.parse({ alpha: 2 }); } catch (e) { console.log((e as Error).message); }
 * // coembed: option alpha must be a finite number in [0, 1], got 2
 * ```
 */
export const COEMBED_SETTINGS: ModelSettings<CoEmbedOptions> = defineSettings<CoEmbedOptions>(
  "coembed",
  {
    variant: {
      kind: "enum",
      values: ["L", "NL"],
      default: DEFAULT_CONFIG.variant,
      doc: '"L": f(X̂) = X̂Sᵀ; "NL": f(X̂) = φ(X̂)Sᵀ with random Fourier features.',
    },
    rankX: int("rankX", 1, "k_X: rank of X̂ = UVᵀ.", 4096),
    rankS: int("rankS", 1, "k_S: rank of S = PQᵀ.", 4096),
    rankE: int("rankE", 1, "k_E: rank of E = GHᵀ.", 4096),
    numRff: int("numRff", 1, "K: random Fourier directions (ColEmbed-NL).", 1 << 16),
    gamma: positive("gamma", "γ of the RBF kernel exp(-γ‖x − y‖²)."),
    alpha: {
      kind: "number",
      default: DEFAULT_CONFIG.alpha,
      min: 0,
      max: 1,
      doc: "Weight of a positive label entry; unlabeled entries weigh 1 − alpha.",
    },
    lambda: nonNegative("lambda", "λ: weight of the label loss against the reconstruction."),
    lambdaX: nonNegative("lambdaX", "λ_X: ridge on U and V."),
    lambdaS: nonNegative("lambdaS", "λ_S: ridge on P and Q."),
    lambdaE: nonNegative("lambdaE", "λ_E: ridge on G and H."),
    learningRate: positive("learningRate", "Adam step size of the global factors."),
    rowLearningRate: positive("rowLearningRate", "Adam step size of the per-row factors."),
    foldInSteps: int("foldInSteps", 0, "Streaming: Adam steps on a row's factors at fold-in."),
    rowSteps: int("rowSteps", 0, "Adam steps on a row's factors per visit in a batch fit."),
    streamRowSteps: int("streamRowSteps", 0, "Streaming: row steps before each stream step."),
    globalSteps: int("globalSteps", 0, "Global Adam steps per minibatch in a batch fit."),
    streamSteps: int("streamSteps", 0, "Global Adam steps per minibatch when streaming."),
    replay: int(
      "replay",
      0,
      "Streaming: rows kept in a seeded replay reservoir (0: none).",
      2 ** 31 - 1,
    ),
    replayRatio: nonNegative("replayRatio", "Streaming: rows replayed per new row."),
    replayPerStep: {
      kind: "boolean",
      default: DEFAULT_CONFIG.replayPerStep,
      doc: "Streaming: a fresh replay sample for every stream step.",
    },
    warmStart: int(
      "warmStart",
      0,
      "Streaming: rows for the spectral warm start (0: never).",
      2 ** 31 - 1,
    ),
    consolidateEpochs: int("consolidateEpochs", 0, "Streaming: epochs of consolidate()."),
    absent: {
      kind: "enum",
      values: ["zero", "missing"],
      default: DEFAULT_CONFIG.absent,
      doc: "What an index absent from a sparse row means.",
    },
    inductiveInput: {
      kind: "enum",
      values: ["projected", "raw"],
      default: DEFAULT_CONFIG.inductiveInput,
      doc: "Input of the inductive predictor for a new row.",
    },
    initScale: positive("initScale", "Standard deviation of the random initial factors."),
    seed: { kind: "int", default: DEFAULT_CONFIG.seed, doc: "Seed of every random draw." },
    ...SIZE_SPECS,
    ...LIMIT_SPECS,
  },
);

/**
 * The configuration of `options`, checked against {@linkcode COEMBED_SETTINGS} first (an unknown
 * key or a bad value is an error naming it; `resolveConfig` alone ignores unknown keys), then
 * merged over the defaults. What the learners' `create` use.
 *
 * @example
 * ```ts
 * import { checkedConfig } from "./settings.ts";
 * console.log(checkedConfig({ variant: "L" }).variant); // L
 * try { checkedConfig({ rnak: 3 }); } catch (e) { console.log((e as Error).message); } // coembed: unknown option "rnak" ...
 * ```
 */
export function checkedConfig(options: Readonly<Record<string, unknown>> = {}): CoEmbedConfig {
  COEMBED_SETTINGS.parse(options);
  return resolveConfig(options as Record<string, unknown>);
}

/**
 * The growth limits of `options` (`maxFeatures`, `maxLabels`, checked against
 * {@linkcode COEMBED_SETTINGS}), which the initial sizes must be within.
 *
 * @example
 * ```ts
 * import { checkedLimits } from "./settings.ts";
 * console.log(checkedLimits({ maxLabels: 100 }, 3, 5)); // { maxFeatures: 16777216, maxLabels: 100 }
 * ```
 */
export function checkedLimits(
  options: Readonly<Record<string, unknown>>,
  numFeatures: number,
  numLabels: number,
): SpaceLimits {
  const { maxFeatures, maxLabels } = COEMBED_SETTINGS.resolve(options);
  return spaceLimits("coembed", {
    numFeatures,
    numLabels,
    maxFeatures: maxFeatures!,
    maxLabels: maxLabels!,
  });
}
