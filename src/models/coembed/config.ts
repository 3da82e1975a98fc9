/**
 * Hyper-parameters of CoEmbed (ColEmbed-L / ColEmbed-NL) and their defaults.
 *
 * @module
 */

/**
 * CoEmbed hyper-parameters. Names follow the paper (objectives (4) and (7), Algorithm 1).
 *
 * @example
 * ```ts
 * import { resolveConfig } from "./config.ts";
 * const c = resolveConfig({ variant: "L" });
 * console.log(c.variant, c.rankX); // L 10
 * ```
 */
export interface CoEmbedConfig {
  /** "L": f(X̂) = X̂Sᵀ; "NL": f(X̂) = φ(X̂)Sᵀ with random Fourier features. */
  variant: "L" | "NL";
  /** k_X: rank of X̂ = UVᵀ. */
  rankX: number;
  /** k_S: rank of S = PQᵀ. */
  rankS: number;
  /** k_E: rank of E = GHᵀ. */
  rankE: number;
  /** K: number of random Fourier directions (ColEmbed-NL; φ has 2K outputs). */
  numRff: number;
  /** γ of the RBF kernel exp(-γ‖x − y‖²); directions u ~ N(0, 2γI). */
  gamma: number;
  /** Weight Γ of a positive label entry; unlabeled entries weigh 1 − alpha. */
  alpha: number;
  /** λ: weight of the label loss against the feature reconstruction. */
  lambda: number;
  /** λ_X: ridge on U and V. */
  lambdaX: number;
  /** λ_S: ridge on P and Q. */
  lambdaS: number;
  /** λ_E: ridge on G and H. */
  lambdaE: number;
  /** Adam step size of the global factors V, P, Q, H and the label bias. */
  learningRate: number;
  /** Adam step size of the per-row factors U_i, G_i. */
  rowLearningRate: number;
  /**
   * Streaming only: Adam steps on (U_i, G_i) when a row is folded in, before the first stream
   * step. 0 (default): a row arrives as in the batch fit's first epoch (U_i the ridge fit of its
   * observed features, G_i = 0). Fresh Adam moments make every such step about
   * `rowLearningRate` per coordinate whatever the gradient, so a few of them let U_i, G_i absorb
   * the row's labels before the globals see it (measured: one-pass inductive macro-AUC −0.02 to
   * −0.03 with 10 steps).
   */
  foldInSteps: number;
  /**
   * Adam steps on (U_i, G_i) per minibatch visit in a batch fit with `rowUpdate` "joint" (the
   * paper's update; ./fit.ts). The default "fold-in" row update takes none.
   */
  rowSteps: number;
  /**
   * Streaming only: Adam steps on (U_i, G_i) before each stream step. 0 (default): the globals
   * are trained on U_i = the ridge fold-in of the row's observed features and G_i = 0, which is
   * exactly the input the inductive predictor computes for a new row (a stream keeps no row
   * factors, so a row's label-driven steps cannot build up slowly over epochs as in the batch
   * fit: they are taken afresh, all at once, at every visit).
   */
  streamRowSteps: number;
  /** Global Adam steps per minibatch in a batch fit. */
  globalSteps: number;
  /**
   * Global Adam steps per minibatch in the streaming learner (each on the minibatch plus its
   * replayed rows, the rows re-folded in between): a stream sees every row once, so it takes
   * several steps where a batch fit takes one step per epoch.
   */
  streamSteps: number;
  /**
   * Streaming only: rows kept in a seeded reservoir (a uniform sample of the rows seen) and
   * replayed next to each new minibatch, so that one pass over a drifting stream does not
   * forget; 0 disables replay.
   */
  replay: number;
  /** Streaming only: rows replayed per new row of a minibatch. */
  replayRatio: number;
  /**
   * Streaming only: true (default): every stream step draws its own replay sample, so that the
   * `streamSteps` global steps of a minibatch are taken on different rows, as the batch fit's
   * steps are; false: one replay sample per minibatch, all its steps on the same rows (measured:
   * more steps then overfit the block; scene ColEmbed-L one-pass macro-AUC 0.86 at best).
   */
  replayPerStep: boolean;
  /**
   * Streaming only: warm start. At the first minibatch after which at least `warmStart` rows
   * are available (the minibatch plus the reservoir's rows; all of them once the reservoir is
   * full), V is replaced by the batch fit's spectral initialisation computed on those rows (a
   * bounded sample) and its Adam moments are reset; the stream then goes on as usual. 0: never
   * (V stays random, as the globals of a fresh learner). Its eigen-problem is min(rows,
   * features) squared: a minibatch whose warm start would take more than 4096 rows of more than
   * 4096 features is refused (./spectral.ts `MAX_SPECTRAL_SIZE`). Features may keep growing
   * after it: a new feature's V row starts as a fresh learner's.
   */
  warmStart: number;
  /**
   * Streaming only: epochs of `CoEmbedLearner.consolidate` (./learner.ts) when called without an
   * argument — epochs of the stream's update over the reservoir's stored rows (bounded work; no
   * stream row is read again). Nothing calls it implicitly.
   */
  consolidateEpochs: number;
  /**
   * What an index absent from a sparse row means: "zero" (observed zero, as in the XC text
   * format) or "missing" (unobserved, as in events: only present entries are observed).
   */
  absent: "zero" | "missing";
  /**
   * Input of the inductive predictor for a new row: "projected" folds every row in through U
   * (x̃ = u Vᵀ with u the ridge fit of the row's observed entries, the same kind of input the
   * classifier was trained on); "raw" uses the row itself, filling only missing entries.
   */
  inductiveInput: "projected" | "raw";
  /** Standard deviation of the random initial factors. */
  initScale: number;
  /** Seed of every random draw (initial factors, RFF directions, batch-fit row order). */
  seed: number;
}

/**
 * Defaults: k_X = k_S = k_E = 10 and K = 700 as in the paper; alpha = 0.8 (the positive weight
 * (1 + ρ)/2 of the paper's Theorem 1 for ρ = 0.6, where its Section 5.1 prints α = 0.2: measured
 * on validation splits at τ = 0.8, α = 0.2 loses 0.14 (scene) and 0.06 (yeast) of inductive
 * macro-AUC); γ = 0.05 (Fourier directions with variance 2γ = 0.1, one reading of the paper's
 * "variance of RBF kernel 0.1", close to the median rule's γ on scene; `repro coembed` uses
 * 1 / median squared distance unless `--gamma` is given; the other reading, γ = 5, is near
 * chance on scene). The departures, the
 * reasons and what is measured: docs/deviations.md, "CoEmbed" (C1, C2).
 *
 * @example
 * ```ts
 * import { DEFAULT_CONFIG } from "./config.ts";
 * console.log(DEFAULT_CONFIG.numRff); // 700
 * ```
 */
export const DEFAULT_CONFIG: Readonly<CoEmbedConfig> = Object.freeze({
  variant: "NL",
  rankX: 10,
  rankS: 10,
  rankE: 10,
  numRff: 700,
  gamma: 0.05,
  alpha: 0.8,
  lambda: 0.1,
  lambdaX: 0.1,
  lambdaS: 0.1,
  lambdaE: 0.1,
  learningRate: 0.01,
  rowLearningRate: 0.05,
  foldInSteps: 0,
  rowSteps: 1,
  streamRowSteps: 0,
  globalSteps: 1,
  streamSteps: 10,
  replay: 1000,
  replayRatio: 4,
  replayPerStep: true,
  warmStart: 0,
  consolidateEpochs: 0,
  absent: "zero",
  inductiveInput: "projected",
  initScale: 0.1,
  seed: 0,
});

const POSITIVE_INTS = ["rankX", "rankS", "rankE", "numRff"] as const;
const NON_NEGATIVE_INTS = [
  "foldInSteps",
  "rowSteps",
  "streamRowSteps",
  "globalSteps",
  "streamSteps",
  "replay",
  "warmStart",
  "consolidateEpochs",
] as const;
const POSITIVE = ["gamma", "learningRate", "rowLearningRate", "initScale"] as const;
const NON_NEGATIVE = ["lambda", "lambdaX", "lambdaS", "lambdaE", "replayRatio"] as const;

/**
 * Merges options over {@linkcode DEFAULT_CONFIG} and validates them (unknown keys are ignored).
 * Throws a RangeError or TypeError naming the option.
 *
 * @example
 * ```ts
 * import { resolveConfig } from "./config.ts";
 * try { resolveConfig({ rankX: 0 }); } catch (e) { console.log((e as Error).message); }
 * ```
 */
export function resolveConfig(options: Record<string, unknown> = {}): CoEmbedConfig {
  const c: CoEmbedConfig = { ...DEFAULT_CONFIG };
  const rec = c as unknown as Record<string, unknown>;
  for (const key of Object.keys(DEFAULT_CONFIG)) {
    const v = options[key];
    if (v === undefined) continue;
    if (typeof v !== typeof rec[key]) {
      throw new TypeError(`CoEmbed option ${key}: expected a ${typeof rec[key]}, got ${typeof v}`);
    }
    rec[key] = v;
  }
  if (c.variant !== "L" && c.variant !== "NL") {
    throw new RangeError(`CoEmbed option variant: "${c.variant}" is not "L" or "NL"`);
  }
  if (c.inductiveInput !== "projected" && c.inductiveInput !== "raw") {
    throw new RangeError(
      `CoEmbed option inductiveInput: "${c.inductiveInput}" is not "projected" or "raw"`,
    );
  }
  if (c.absent !== "zero" && c.absent !== "missing") {
    throw new RangeError(`CoEmbed option absent: "${c.absent}" is not "zero" or "missing"`);
  }
  for (const k of POSITIVE_INTS) {
    if (!Number.isInteger(c[k]) || c[k] < 1) {
      throw new RangeError(`CoEmbed option ${k}: ${c[k]} must be an integer >= 1`);
    }
  }
  for (const k of NON_NEGATIVE_INTS) {
    if (!Number.isInteger(c[k]) || c[k] < 0) {
      throw new RangeError(`CoEmbed option ${k}: ${c[k]} must be an integer >= 0`);
    }
  }
  for (const k of POSITIVE) {
    if (!(c[k] > 0) || !Number.isFinite(c[k])) {
      throw new RangeError(`CoEmbed option ${k}: ${c[k]} must be a finite number > 0`);
    }
  }
  for (const k of NON_NEGATIVE) {
    if (!(c[k] >= 0) || !Number.isFinite(c[k])) {
      throw new RangeError(`CoEmbed option ${k}: ${c[k]} must be a finite number >= 0`);
    }
  }
  if (!(c.alpha >= 0 && c.alpha <= 1)) {
    throw new RangeError(`CoEmbed option alpha: ${c.alpha} must be in [0, 1]`);
  }
  if (!Number.isInteger(c.seed)) {
    throw new RangeError(`CoEmbed option seed: ${c.seed} must be an integer`);
  }
  return c;
}
