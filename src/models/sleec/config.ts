/**
 * SLEEC hyper-parameters: their defaults ({@linkcode DEFAULT_CONFIG}) and their declaration
 * with ranges ({@linkcode SLEEC_SETTINGS}), checked where options enter.
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
} from "../settings.ts";
import { LIMIT_SPECS, type SpaceLimitSettings, withoutLimits } from "../space_limits.ts";

/**
 * Hyper-parameters shared by the batch trainer and the streaming estimator.
 *
 * @example
 * ```ts
 * import { resolveConfig } from "./config.ts";
 * console.log(resolveConfig({ rank: 20 }).rank); // 20
 * ```
 */
export interface SleecConfig {
  /** Seed of clustering, SVP start, tie-breaking and reservoir sampling. */
  seed: number;
  /** Embedding dimension L̂ (the paper: 100 on small data sets). */
  rank: number;
  /** n̄: label-space neighbours per point in Ω. */
  svpNeighbours: number;
  /** Ω values are cosine similarities of label vectors (true) or raw label overlaps (false). */
  normalizeLabels: boolean;
  /**
   * Ω fills a point's n̄ neighbours with points sharing no label (value 0), as the paper's N_i
   * does (false: only points sharing a label; `docs/deviations.md` S8).
   */
  padNeighbourhoods: boolean;
  /** SVP iterations of a cold start. */
  svpIterations: number;
  /** SVP step size η. */
  eta: number;
  /** Extra eigensolver block columns. */
  oversample: number;
  /** Regressor: L2 weight λ on V. */
  lambda: number;
  /** Regressor: L1 weight μ on XV. */
  mu: number;
  /** ADMM penalty ρ. */
  rho: number;
  /** ADMM iterations of a cold start. */
  admmIterations: number;
  /** Conjugate-gradient iterations per ADMM linear solve. */
  cgIterations: number;
  /** Neighbours of the kNN prediction. */
  k: number;
  /** Weight neighbours by their cosine similarity (else uniformly). */
  weighted: boolean;
  /**
   * Exponent π of the weighted vote, a positive integer up to 64: a neighbour weighs
   * max(0, sim)^π when `weighted` (1: the paper's rule). Stored in the model file (param
   * `votePower`, format version 4).
   */
  votePower: number;
  /** Feature weighting before L2 normalisation: "none" or "tfidf" (IDF of the training rows). */
  featureWeighting: "none" | "tfidf";
  /**
   * Fraction of the rows each learner is fit on, drawn without replacement by the learner's seed
   * (1: all rows; 0.632 is the share of distinct rows of a bootstrap sample).
   */
  rowFraction: number;
  /**
   * Fraction of the features each learner sees (a seeded random subset per learner, rows
   * re-normalised; 1: all features).
   */
  featureFraction: number;
  /** Clusters per learner (the paper: ⌊n/6000⌋, at least 1). */
  numClusters: number;
  /**
   * Batch trainer: how many of the learners (the first ones; all of them when it is larger than
   * `numLearners`) use one cluster, all rows, instead of `numClusters` (0: none, the paper's
   * ensemble). An unclustered learner is the most accurate
   * single learner and the clustered ones add diversity (docs/deviations.md, S7).
   */
  unclusteredLearners: number;
  /** Learners in the ensemble (different clustering seeds). */
  numLearners: number;
  /** k-means iterations. */
  kmeansIterations: number;
  /** Streaming: rows kept per cluster (reservoir sampling). */
  reservoirSize: number;
  /** Streaming: rows between SVP refreshes once the doubling schedule reaches it. */
  refreshEvery: number;
  /** Streaming: first refresh after this many rows, then after 2×, 4×, … up to `refreshEvery`. */
  firstRefresh: number;
  /** Streaming: SVP iterations of a warm-started refresh. */
  refreshSvpIterations: number;
  /** Streaming: ADMM iterations of a warm-started refresh. */
  refreshAdmmIterations: number;
  /** Streaming: Adam learning rate of V between refreshes (0 turns the Adam step off). */
  learningRate: number;
  /** Streaming: Adam steps of a cluster between re-embeddings of its kNN points. */
  reembedEvery: number;
}

/**
 * The options SLEEC takes: any {@linkcode SleecConfig} field, plus the initial sizes of the
 * streaming estimator.
 *
 * @example
 * ```ts
 * import type { SleecOptions } from "./config.ts";
 * const o: SleecOptions = { rank: 32, numLabels: 10 };
 * console.log(o.rank); // 32
 * ```
 */
export type SleecOptions =
  & Partial<SleecConfig>
  & { numFeatures?: number; numLabels?: number }
  & SpaceLimitSettings;

/**
 * Defaults: embedding dimension 100 as in the paper's small data sets; the other values were
 * chosen on a validation split of the bibtex training file (see the `sleec` experiment).
 *
 * @example
 * ```ts
 * import { DEFAULT_CONFIG } from "./config.ts";
 * console.log(DEFAULT_CONFIG.rank); // 100
 * ```
 */
export const DEFAULT_CONFIG: Readonly<SleecConfig> = Object.freeze({
  seed: 0,
  rank: 100,
  svpNeighbours: 100,
  normalizeLabels: true,
  padNeighbourhoods: false,
  svpIterations: 10,
  eta: 1,
  oversample: 10,
  lambda: 1,
  mu: 0.001,
  rho: 0.1,
  admmIterations: 4,
  cgIterations: 25,
  k: 15,
  weighted: true,
  votePower: 1,
  featureWeighting: "none",
  rowFraction: 1,
  featureFraction: 1,
  numClusters: 1,
  unclusteredLearners: 0,
  numLearners: 1,
  kmeansIterations: 10,
  reservoirSize: 6000,
  refreshEvery: 2000,
  firstRefresh: 64,
  refreshSvpIterations: 4,
  refreshAdmmIterations: 2,
  learningRate: 0.0005,
  reembedEvery: 32,
});

/** A positive integer setting with its default from {@linkcode DEFAULT_CONFIG}. */
/** The most learners an ensemble may have. */
const MAX_LEARNERS = 1024;

/**
 * The largest streaming `learningRate` (1e6): fewer than 2³¹ Adam steps between refreshes then
 * move V by less than 1e16, far inside float32.
 */
const MAX_LEARNING_RATE = 1e6;

function count(key: keyof SleecConfig, doc: string, max = 1 << 20): SettingSpec {
  return { kind: "int", default: DEFAULT_CONFIG[key] as number, min: 1, max, doc };
}

/**
 * The declared options of SLEEC (the batch trainer and the streaming estimator, kind "sleec"):
 * every {@linkcode SleecConfig} field with its default ({@linkcode DEFAULT_CONFIG}) and range,
 * plus the initial sizes of the streaming estimator.
 *
 * @example
 * ```ts
 * import { SLEEC_SETTINGS } from "./config.ts";
 * console.log(SLEEC_SETTINGS.parse({ rank: "20", weighted: "false" })); // { rank: 20, weighted: false }
 * ```
 */
export const SLEEC_SETTINGS: ModelSettings<SleecOptions> = defineSettings<SleecOptions>("sleec", {
  seed: {
    ...SEED_SPEC,
    default: DEFAULT_CONFIG.seed,
    doc: "Seed of clustering, SVP start, tie-breaking and reservoir sampling.",
  },
  rank: count("rank", "Embedding dimension L̂.", 4096),
  svpNeighbours: count("svpNeighbours", "n̄: label-space neighbours per point in Ω."),
  normalizeLabels: {
    kind: "boolean",
    default: DEFAULT_CONFIG.normalizeLabels,
    doc: "Ω values are cosine similarities of label vectors (else raw overlaps).",
  },
  padNeighbourhoods: {
    kind: "boolean",
    default: DEFAULT_CONFIG.padNeighbourhoods,
    doc: "Ω fills a point's n̄ neighbours with points sharing no label (value 0), as the paper's.",
  },
  svpIterations: count("svpIterations", "SVP iterations of a cold start."),
  eta: {
    kind: "number",
    default: DEFAULT_CONFIG.eta,
    min: 0,
    minExclusive: true,
    doc: "SVP step size η.",
  },
  oversample: {
    kind: "int",
    default: DEFAULT_CONFIG.oversample,
    min: 0,
    max: 1 << 16,
    doc: "Extra eigensolver block columns.",
  },
  lambda: {
    kind: "number",
    default: DEFAULT_CONFIG.lambda,
    min: 0,
    minExclusive: true,
    doc: "Regressor: L2 weight λ on V.",
  },
  mu: { kind: "number", default: DEFAULT_CONFIG.mu, min: 0, doc: "Regressor: L1 weight μ on XV." },
  rho: {
    kind: "number",
    default: DEFAULT_CONFIG.rho,
    min: 0,
    minExclusive: true,
    doc: "ADMM penalty ρ.",
  },
  admmIterations: count("admmIterations", "ADMM iterations of a cold start."),
  cgIterations: count("cgIterations", "Conjugate-gradient iterations per ADMM linear solve."),
  k: count("k", "Neighbours of the kNN prediction."),
  weighted: {
    kind: "boolean",
    default: DEFAULT_CONFIG.weighted,
    doc: "Weight neighbours by their cosine similarity (else uniformly).",
  },
  votePower: {
    ...count(
      "votePower",
      "Weighted votes: a neighbour weighs max(0, sim)^votePower (1: the paper's rule).",
      64,
    ),
    usedWhen: whenIs("weighted", true),
  },
  featureWeighting: {
    kind: "enum",
    values: ["none", "tfidf"],
    default: DEFAULT_CONFIG.featureWeighting,
    doc: "Feature weighting before L2 normalisation.",
  },
  rowFraction: {
    kind: "number",
    default: DEFAULT_CONFIG.rowFraction,
    min: 0,
    minExclusive: true,
    max: 1,
    doc: "Fraction of the rows each learner is fit on (seeded, without replacement).",
  },
  featureFraction: {
    kind: "number",
    default: DEFAULT_CONFIG.featureFraction,
    min: 0,
    minExclusive: true,
    max: 1,
    doc: "Fraction of the features each learner sees (seeded per learner).",
  },
  numClusters: count("numClusters", "Clusters per learner."),
  unclusteredLearners: {
    kind: "int",
    default: DEFAULT_CONFIG.unclusteredLearners,
    min: 0,
    max: MAX_LEARNERS,
    doc: "Batch: this many of the first learners use one cluster (all rows).",
  },
  // each streaming learner holds its own clusters' maps and reservoirs from the start (the paper
  // uses 15): a million of them exhausted the memory at create
  numLearners: count(
    "numLearners",
    "Learners in the ensemble (different clustering seeds).",
    MAX_LEARNERS,
  ),
  kmeansIterations: count("kmeansIterations", "k-means iterations."),
  reservoirSize: count("reservoirSize", "Streaming: rows kept per cluster.", 2 ** 31 - 1),
  refreshEvery: count("refreshEvery", "Streaming: rows between SVP refreshes.", 2 ** 31 - 1),
  firstRefresh: count(
    "firstRefresh",
    "Streaming: first refresh after this many rows.",
    2 ** 31 - 1,
  ),
  refreshSvpIterations: count("refreshSvpIterations", "Streaming: SVP iterations of a refresh."),
  refreshAdmmIterations: count("refreshAdmmIterations", "Streaming: ADMM iterations of a refresh."),
  // an Adam step moves an entry of V by at most about 3.2 × learningRate (β1 0.9, β2 0.999),
  // and V maps unit rows to embeddings of norm about 1, so rates past 1 only scramble it; at
  // 1e300 V overflowed float32 at once: the estimator served zeros and its state did not restore
  learningRate: {
    kind: "number",
    default: DEFAULT_CONFIG.learningRate,
    min: 0,
    max: MAX_LEARNING_RATE,
    doc: "Streaming: Adam learning rate of V between refreshes (0: off).",
  },
  reembedEvery: count("reembedEvery", "Streaming: Adam steps of a cluster between re-embeddings."),
  ...SIZE_SPECS,
  ...LIMIT_SPECS,
});

/**
 * Fills in defaults and validates against {@linkcode SLEEC_SETTINGS}: an unknown key is a
 * TypeError, a bad value a RangeError (or a TypeError for the wrong type), naming the option.
 * The initial sizes (`numFeatures`, `numLabels`) and the streaming model's growth limits
 * (`maxFeatures`, `maxLabels`) are accepted and left out of the result.
 *
 * @example
 * ```ts
 * import { resolveConfig } from "./config.ts";
 * try { resolveConfig({ k: 0 }); } catch (e) { console.log((e as Error).message); }
 * // sleec: option k must be an integer in [1, 1048576], got 0
 * ```
 */
export function resolveConfig(options: Record<string, unknown> = {}): SleecConfig {
  const { numFeatures: _d, numLabels: _l, ...config } = SLEEC_SETTINGS.resolve(options);
  return withoutLimits(config) as SleecConfig;
}
