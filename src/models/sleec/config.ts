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
  /** Seed of clustering, SVP start and reservoir sampling. */
  seed: number;
  /** Embedding dimension L̂. */
  rank: number;
  /** n̄: label-space neighbours per point in Ω. */
  svpNeighbours: number;
  /** SVP iterations (from scratch). */
  svpIterations: number;
  /** SVP step size η. */
  eta: number;
  /** Eigensolver oversampling. */
  oversample: number;
  /** ADMM: L2 weight λ on V. */
  lambda: number;
  /** ADMM: L1 weight μ on XV. */
  mu: number;
  /** ADMM penalty ρ. */
  rho: number;
  /** ADMM iterations. */
  admmIterations: number;
  /** CG iterations per ADMM linear solve. */
  cgIterations: number;
  /** k of the kNN prediction. */
  k: number;
  /** Weight neighbours by cosine similarity. */
  weighted: boolean;
  /** Clusters per learner (the paper: ⌊n/6000⌋, at least 1). */
  numClusters: number;
  /** Learners in the ensemble (batch trainer). */
  numLearners: number;
  /** k-means iterations. */
  kmeansIterations: number;
  /** Streaming: rows kept per cluster. */
  reservoirSize: number;
  /** Streaming: rows between SVP refreshes once the warm-up doubling reaches it. */
  refreshEvery: number;
  /** Streaming: first refresh after this many rows, then doubling up to `refreshEvery`. */
  firstRefresh: number;
  /** Streaming: SVP iterations of a warm-started refresh. */
  refreshSvpIterations: number;
  /** Streaming: ADMM iterations of a refresh. */
  refreshAdmmIterations: number;
  /** Streaming: Adam learning rate of V between refreshes. */
  learningRate: number;
  /** Streaming: L2 weight decay in the Adam step. */
  weightDecay: number;
}

/**
 * Defaults (embedding dimension 100 as in the paper's small data sets).
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
  svpNeighbours: 25,
  svpIterations: 15,
  eta: 1,
  oversample: 10,
  lambda: 0.1,
  mu: 0.01,
  rho: 1,
  admmIterations: 8,
  cgIterations: 20,
  k: 10,
  weighted: true,
  numClusters: 1,
  numLearners: 1,
  kmeansIterations: 10,
  reservoirSize: 6000,
  refreshEvery: 2000,
  firstRefresh: 64,
  refreshSvpIterations: 5,
  refreshAdmmIterations: 4,
  learningRate: 0.01,
  weightDecay: 1e-4,
});

/**
 * Fills defaults and validates (RangeError naming the bad option).
 *
 * @example
 * ```ts
 * import { resolveConfig } from "./config.ts";
 * try { resolveConfig({ k: 0 }); } catch (e) { console.log((e as Error).message); }
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
  const positiveInts: (keyof SleecConfig)[] = [
    "rank",
    "svpNeighbours",
    "k",
    "numClusters",
    "numLearners",
    "reservoirSize",
    "refreshEvery",
    "firstRefresh",
  ];
  for (const key of positiveInts) {
    const v = cfg[key] as number;
    if (!Number.isInteger(v) || v < 1) {
      throw new RangeError(`SLEEC option ${key} must be a positive integer, got ${v}`);
    }
  }
  if (!(cfg.lambda > 0)) throw new RangeError(`SLEEC option lambda must be > 0, got ${cfg.lambda}`);
  if (!(cfg.rho > 0)) throw new RangeError(`SLEEC option rho must be > 0, got ${cfg.rho}`);
  if (!(cfg.mu >= 0)) throw new RangeError(`SLEEC option mu must be >= 0, got ${cfg.mu}`);
  return cfg;
}
