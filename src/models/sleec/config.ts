/**
 * SLEEC hyper-parameters and their defaults.
 *
 * @module
 */

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
  /** Clusters per learner (the paper: ⌊n/6000⌋, at least 1). */
  numClusters: number;
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
  numClusters: 1,
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

const POSITIVE_INTEGERS: readonly (keyof SleecConfig)[] = [
  "rank",
  "svpNeighbours",
  "svpIterations",
  "admmIterations",
  "cgIterations",
  "k",
  "numClusters",
  "numLearners",
  "kmeansIterations",
  "reservoirSize",
  "refreshEvery",
  "firstRefresh",
  "refreshSvpIterations",
  "refreshAdmmIterations",
  "reembedEvery",
];

const NON_NEGATIVE_INTEGERS: readonly (keyof SleecConfig)[] = ["oversample"];

/**
 * Fills in defaults and validates. Unknown keys are ignored (so a factory can pass its whole
 * option bag); a known key with the wrong type is a TypeError, an out-of-range value a
 * RangeError, both naming the option.
 *
 * @example
 * ```ts
 * import { resolveConfig } from "./config.ts";
 * try { resolveConfig({ k: 0 }); } catch (e) { console.log((e as Error).message); }
 * // SLEEC option k must be a positive integer, got 0
 * ```
 */
export function resolveConfig(options: Record<string, unknown> = {}): SleecConfig {
  const c: Record<string, unknown> = { ...DEFAULT_CONFIG };
  for (const key of Object.keys(DEFAULT_CONFIG)) {
    const v = options[key];
    if (v === undefined) continue;
    const want = typeof (DEFAULT_CONFIG as Record<string, unknown>)[key];
    if (typeof v !== want || (want === "number" && !Number.isFinite(v))) {
      throw new TypeError(`SLEEC option ${key}: expected a finite ${want}, got ${String(v)}`);
    }
    c[key] = v;
  }
  const cfg = c as unknown as SleecConfig;
  for (const key of POSITIVE_INTEGERS) {
    const v = cfg[key] as number;
    if (!Number.isInteger(v) || v < 1) {
      throw new RangeError(`SLEEC option ${key} must be a positive integer, got ${v}`);
    }
  }
  for (const key of NON_NEGATIVE_INTEGERS) {
    const v = cfg[key] as number;
    if (!Number.isInteger(v) || v < 0) {
      throw new RangeError(`SLEEC option ${key} must be a non-negative integer, got ${v}`);
    }
  }
  const positive: (keyof SleecConfig)[] = ["lambda", "rho", "eta"];
  for (const key of positive) {
    if (!((cfg[key] as number) > 0)) {
      throw new RangeError(`SLEEC option ${key} must be > 0, got ${cfg[key]}`);
    }
  }
  const nonNegative: (keyof SleecConfig)[] = ["mu", "learningRate"];
  for (const key of nonNegative) {
    if (!((cfg[key] as number) >= 0)) {
      throw new RangeError(`SLEEC option ${key} must be >= 0, got ${cfg[key]}`);
    }
  }
  return cfg;
}
