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
import {
  defineSettings,
  type ModelSettings,
  SEED_SPEC,
  type SettingSpec,
  SIZE_SPECS,
  whenIs,
  whenPositive,
} from "../settings.ts";
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

/**
 * The most steps or epochs (1000) any step-count setting allows: `foldInSteps`, `rowSteps`,
 * `streamRowSteps`, `globalSteps`, `streamSteps`, `consolidateEpochs` (and the `epochs` of
 * `CoEmbedLearner.consolidate`). A global step is a pass over the minibatch and its replayed rows
 * (about 23 ms for the default ColEmbed-NL on 64 rows with 256 replayed, 300 features, 100
 * labels; a row step about half that): 1000 of them take about 25 s, where the earlier limit,
 * 2²⁰, took about 7 hours for one batch. The repository's largest uses are 60 (`streamSteps`),
 * 40 (`consolidateEpochs`) and 10 (`foldInSteps`). The stream's steps multiply: see
 * {@linkcode MAX_STREAM_PASSES}.
 *
 * @example
 * ```ts
 * import { checkedConfig, MAX_STEPS } from "./settings.ts";
 * console.log(MAX_STEPS); // 1000
 * try { checkedConfig({ streamSteps: 5000 }); } catch (e) { console.log((e as Error).message); }
 * // coembed: option streamSteps must be an integer in [0, 1000], got 5000
 * ```
 */
export const MAX_STEPS = 1000;

/**
 * The most row and global passes (2¹⁴ = 16384) one streaming minibatch may take:
 * `streamSteps × (1 + streamRowSteps)` plus `foldInSteps` at every fresh replay sample (each
 * stream step with `replayPerStep`, else once). Each factor's own maximum ({@linkcode MAX_STEPS})
 * allows about a million (streamSteps and streamRowSteps both 1000: about 3 hours per batch for
 * the default ColEmbed-NL on 64 rows); at the limit a batch takes about 6 minutes. Each
 * setting at its own maximum, the others at their defaults, is within it (10010), and so is
 * the largest combination of the repository's uses (streamSteps 60, streamRowSteps 1,
 * foldInSteps 10: 720).
 *
 * @example
 * ```ts
 * import { checkedConfig, MAX_STREAM_PASSES } from "./settings.ts";
 * console.log(MAX_STREAM_PASSES); // 16384
 * try { checkedConfig({ streamSteps: 1000, streamRowSteps: 20 }); } catch (e) { console.log((e as Error).message); }
 * // coembed: options streamSteps (1000), streamRowSteps (20) and foldInSteps (0) give 21000 passes per minibatch, more than 16384: lower them
 * ```
 */
export const MAX_STREAM_PASSES = 2 ** 14;

function int(key: keyof CoEmbedConfig, min: number, doc: string, max = MAX_STEPS): SettingSpec {
  return { kind: "int", default: DEFAULT_CONFIG[key] as number, min, max, doc };
}

function positive(key: keyof CoEmbedConfig, doc: string, max?: number): SettingSpec {
  return {
    kind: "number",
    default: DEFAULT_CONFIG[key] as number,
    min: 0,
    minExclusive: true,
    ...(max === undefined ? {} : { max }),
    doc,
  };
}

/**
 * The largest RBF γ (1e74): the model file stores the random Fourier directions, normals scaled
 * by √(2γ), as float32. The seeded normals reach about 6.8 in magnitude, so at γ = 1e74 the
 * largest direction is about 1e38, just inside float32 (3.4e38); past it a direction is
 * Infinity in the file and every score NaN. (The kernel itself would then treat feature rows
 * differing by 1e-37 as unrelated.)
 *
 * @example
 * ```ts
 * import { MAX_STORED_GAMMA } from "./settings.ts";
 * console.log(MAX_STORED_GAMMA); // 1e+74
 * ```
 */
export const MAX_STORED_GAMMA = 1e74;

/**
 * The largest `initScale` (1e3), the standard deviation of the random initial factors. The
 * scores start at about initScale² times the features' scale (P and Q both start at it): at 1e3
 * a million times, every logistic term saturated; Adam moves a factor by about `learningRate`
 * per step, so a start that far off is never undone. Past 1e19 the first scores overflow float32
 * (±Infinity), past about 1e153 the first fold-in's V_OᵀV_O overflows float64.
 *
 * @example
 * ```ts
 * import { MAX_INIT_SCALE } from "./settings.ts";
 * console.log(MAX_INIT_SCALE); // 1000
 * ```
 */
export const MAX_INIT_SCALE = 1e3;

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
    numRff: {
      ...int("numRff", 1, "K: random Fourier directions (ColEmbed-NL).", 1 << 16),
      usedWhen: whenIs("variant", "NL"),
    },
    gamma: {
      ...positive(
        "gamma",
        "γ of the RBF kernel exp(-γ‖x − y‖²); at most 1e74: the directions (√(2γ) scale) are float32.",
        MAX_STORED_GAMMA,
      ),
      usedWhen: whenIs("variant", "NL"),
    },
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
    replayRatio: {
      ...nonNegative("replayRatio", "Streaming: rows replayed per new row."),
      usedWhen: whenPositive("replay"),
    },
    replayPerStep: {
      kind: "boolean",
      default: DEFAULT_CONFIG.replayPerStep,
      usedWhen: whenPositive("replay"),
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
    initScale: positive(
      "initScale",
      "Standard deviation of the random initial factors; at most 1e3: scores start at ~initScale².",
      MAX_INIT_SCALE,
    ),
    seed: { ...SEED_SPEC, default: DEFAULT_CONFIG.seed, doc: "Seed of every random draw." },
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
  const c = resolveConfig(options as Record<string, unknown>);
  checkCombined(c);
  return c;
}

/**
 * The configuration a saved state carries (`ModelState.config`, as `CoEmbedLearner.toState`
 * writes it), checked with the rules of {@linkcode checkedConfig} (what `create` applies): every
 * declared setting within its declared range ({@linkcode MAX_INIT_SCALE},
 * {@linkcode MAX_STORED_GAMMA}, {@linkcode MAX_STEPS}, …), the ColEmbed-NL sizes within
 * {@linkcode MAX_FIXED_ENTRIES}, the stream's passes within {@linkcode MAX_STREAM_PASSES}; a
 * value of the type `toState` never writes (a string for a number) is a TypeError. So a state
 * written by hand or by an older version with settings that are now refused is refused at
 * restore, before anything is allocated, with the message `create` gives (naming the setting and
 * its range), not accepted to allocate gigabytes or overflow later. A key that is not a setting
 * is refused as `create` refuses it, naming the key (a TypeError): every key `toState` has ever
 * written is a setting, so such a key is a state of another model or one edited by hand, and
 * ignoring it would restore a model other than the one saved.
 *
 * @throws {RangeError} naming the setting and its limit
 * @throws {TypeError} for a value of the wrong type
 *
 * @example
 * ```ts
 * import { restoredConfig } from "./settings.ts";
 * console.log(restoredConfig({ variant: "L", rankX: 5 }).rankX); // 5
 * try { restoredConfig({ initScale: 1e5 }); } catch (e) { console.log((e as Error).message); }
 * // coembed: option initScale must be a finite number in (0, 1000], got 100000
 * try { restoredConfig({ rnakX: 5 }); } catch (e) { console.log((e as Error).message); }
 * // coembed: unknown option "rnakX" (known: variant, rankX, …)
 * ```
 */
export function restoredConfig(config: Readonly<Record<string, unknown>>): CoEmbedConfig {
  // `create`'s own check: unknown keys, ranges, the NL sizes and the stream's passes
  return checkedConfig(config);
}

/**
 * The most entries (2²⁴) of a ColEmbed-NL tensor whose size the settings alone fix, before any
 * data: Q `[2·numRff, rankS]` (with its two Adam moments and its gradient: four float64 arrays,
 * 512 MiB at the limit) and Vᵀ W `[rankX, numRff]` (with its gradient accumulator). Each
 * setting's own maximum allows far more (numRff 65536 with rankS 4096: Q alone 4.3 GB per array,
 * about 17 GB at `create`, and one row took 10 s at rankS 256); within this limit are the
 * paper's K = 700 with any rank up to 4096, and K = 65536 with ranks up to 128.
 *
 * @example
 * ```ts
 * import { checkedConfig, MAX_FIXED_ENTRIES } from "./settings.ts";
 * console.log(MAX_FIXED_ENTRIES); // 16777216
 * try { checkedConfig({ numRff: 65536, rankS: 4096 }); } catch (e) { console.log((e as Error).message); }
 * // coembed: options numRff (65536) and rankS (4096) give Q 2·numRff × rankS = 536870912 entries, more than 16777216: lower numRff or rankS
 * ```
 */
export const MAX_FIXED_ENTRIES = 2 ** 24;

/**
 * Refuses ColEmbed-NL sizes past {@linkcode MAX_FIXED_ENTRIES} and stream passes past
 * {@linkcode MAX_STREAM_PASSES}, naming the options.
 */
function checkCombined(c: CoEmbedConfig): void {
  const passes = c.streamSteps * (1 + c.streamRowSteps) +
    (c.replayPerStep ? c.streamSteps : Math.min(c.streamSteps, 1)) * c.foldInSteps;
  if (passes > MAX_STREAM_PASSES) {
    throw new RangeError(
      `coembed: options streamSteps (${c.streamSteps}), streamRowSteps (${c.streamRowSteps}) ` +
        `and foldInSteps (${c.foldInSteps}) give ${passes} passes per minibatch, more than ` +
        `${MAX_STREAM_PASSES}: lower them`,
    );
  }
  if (c.variant !== "NL") return;
  const sizes: [string, string, number, number][] = [
    ["rankS", "Q 2·numRff × rankS", c.rankS, 2 * c.numRff * c.rankS],
    ["rankX", "Vᵀ W rankX × numRff", c.rankX, c.numRff * c.rankX],
  ];
  for (const [rank, what, value, entries] of sizes) {
    if (entries > MAX_FIXED_ENTRIES) {
      throw new RangeError(
        `coembed: options numRff (${c.numRff}) and ${rank} (${value}) give ${what} = ` +
          `${entries} entries, more than ${MAX_FIXED_ENTRIES}: lower numRff or ${rank}`,
      );
    }
  }
}

/**
 * The growth limits of `options` (`maxFeatures`, `maxLabels`, checked against
 * {@linkcode COEMBED_SETTINGS}), which the initial sizes (integers in [0, 2³¹ − 1], checked
 * as the declared `numFeatures` and `numLabels`) must be within.
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
  // the sizes too (`create` took 2.5 or NaN features as given, and -1 labels as 0)
  const { maxFeatures, maxLabels } = COEMBED_SETTINGS.resolve({
    ...options,
    numFeatures,
    numLabels,
  });
  return spaceLimits("coembed", {
    numFeatures,
    numLabels,
    maxFeatures: maxFeatures!,
    maxLabels: maxLabels!,
  });
}
