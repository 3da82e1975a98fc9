/**
 * Training of one SLEEC cluster (Algorithm 1, steps 3-7): Ω from label-vector inner products,
 * SVP for Z = UΣ^½, ADMM for the regressor V, and the kNN points Z ← XV (unit-normalised,
 * float32, for cosine kNN).
 *
 * Departures from the paper (one warm-started block power step per SVP iteration in
 * `src/linalg/svp.ts` instead of an exact rank-r eigendecomposition, cosine-similarity Ω values,
 * few ADMM iterations with truncated CG, spherical k-means): docs/deviations.md, "SLEEC".
 *
 * @module
 */
import type { CsrMatrix } from "../../data/types.ts";
import { admmRegressor } from "../../linalg/admm.ts";
import { svp } from "../../linalg/svp.ts";
import type { SleecConfig } from "./config.ts";
import { labelNeighbourhood } from "./neighbours.ts";

/**
 * What {@linkcode trainCluster} learns.
 *
 * @example
 * ```ts
 * import { type ClusterFit, trainCluster } from "./learner.ts";
 * import { resolveConfig } from "./config.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const fit: ClusterFit = trainCluster(x, [Int32Array.of(0)], 1, resolveConfig({ rank: 1 }));
 * console.log(fit.v.length, fit.points.length); // 1 1
 * ```
 */
export interface ClusterFit {
  /** SVP embedding, row-major n × rank (zero columns when fewer dimensions were available). */
  z: Float64Array;
  /** V, row-major numFeatures × rank, float32 (what prediction uses). */
  v: Float32Array;
  /** Unit-norm (or zero) rows of XV computed with the float32 V, n × rank. */
  points: Float32Array;
  /** SVP relative residual on Ω. */
  residual: number;
  /** SVP iterations run. */
  svpIterations: number;
}

/**
 * Warm start of {@linkcode trainCluster}.
 *
 * @example
 * ```ts
 * import type { ClusterWarmStart } from "./learner.ts";
 * const warm: ClusterWarmStart = { z: new Float64Array(4), svpIterations: 3 };
 * console.log(warm.svpIterations); // 3
 * ```
 */
export interface ClusterWarmStart {
  /** Previous embedding of the same rows (row-major n × rank) for SVP. */
  z?: Float64Array;
  /** Previous V (row-major numFeatures × rank) for ADMM. */
  v?: ArrayLike<number>;
  /** SVP iterations (default: `svpIterations` of the config). */
  svpIterations?: number;
  /** ADMM iterations (default: `admmIterations` of the config). */
  admmIterations?: number;
}

/**
 * Writes the unit-normalised rows of XV (float32) into `out` (n × rank): the kNN points.
 * A row whose XV is zero stays zero.
 *
 * @example
 * ```ts
 * import { embedPoints } from "./learner.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * console.log(Array.from(embedPoints(x, Float32Array.of(3, 4), 2))); // [ 0.6000000238418579, 0.800000011920929 ]
 * ```
 */
export function embedPoints(
  x: CsrMatrix,
  v: ArrayLike<number>,
  rank: number,
  out = new Float32Array(x.numRows * rank),
): Float32Array {
  const z = new Float64Array(rank);
  for (let i = 0; i < x.numRows; i++) {
    embedRow(x.indices, x.values, x.indptr[i], x.indptr[i + 1], v, rank, z);
    normalizeInto(z, rank, out, i * rank);
  }
  return out;
}

/**
 * z = Vᵀx for the sparse row `indices[start..end)`, `values[start..end)` (features at or beyond
 * V's rows are ignored).
 *
 * @example
 * ```ts
 * import { embedRow } from "./learner.ts";
 * const z = new Float64Array(2);
 * embedRow(Int32Array.of(0, 5), Float32Array.of(2, 1), 0, 2, Float32Array.of(1, 3), 2, z);
 * console.log(Array.from(z)); // [ 2, 6 ]
 * ```
 */
export function embedRow(
  indices: ArrayLike<number>,
  values: ArrayLike<number>,
  start: number,
  end: number,
  v: ArrayLike<number>,
  rank: number,
  z: Float64Array,
): void {
  z.fill(0, 0, rank);
  const rows = v.length / rank;
  for (let e = start; e < end; e++) {
    const j = indices[e];
    if (j >= rows || j < 0) continue;
    const w = values[e], o = j * rank;
    for (let a = 0; a < rank; a++) z[a] += w * v[o + a];
  }
}

/**
 * Writes z / ‖z‖ (or zeros) as float32 into `out[offset..offset + rank)`.
 *
 * @example
 * ```ts
 * import { normalizeInto } from "./learner.ts";
 * const out = new Float32Array(2);
 * normalizeInto(Float64Array.of(0, 2), 2, out, 0);
 * console.log(Array.from(out)); // [ 0, 1 ]
 * ```
 */
export function normalizeInto(
  z: ArrayLike<number>,
  rank: number,
  out: Float32Array,
  offset: number,
): void {
  let s = 0;
  for (let a = 0; a < rank; a++) s += z[a] * z[a];
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let a = 0; a < rank; a++) out[offset + a] = z[a] * inv;
}

/**
 * Fits one cluster on L2-normalised rows `x` with label sets `labels` (strictly increasing).
 * `warm` warm-starts SVP (previous embedding of the same rows) and ADMM (previous V).
 *
 * @example
 * ```ts
 * import { trainCluster } from "./learner.ts";
 * import { resolveConfig } from "./config.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const fit = trainCluster(x, [Int32Array.of(0), Int32Array.of(1)], 2, resolveConfig({ rank: 2 }));
 * console.log(fit.points.length, fit.v.length); // 4 4
 * ```
 */
export function trainCluster(
  x: CsrMatrix,
  labels: readonly Int32Array[],
  numLabels: number,
  cfg: SleecConfig,
  warm: ClusterWarmStart = {},
): ClusterFit {
  const n = x.numRows, r = cfg.rank, d = x.numCols;
  if (labels.length !== n) {
    throw new RangeError(`trainCluster: ${n} feature rows but ${labels.length} label rows`);
  }
  const g = labelNeighbourhood(labels, numLabels, cfg.svpNeighbours, {
    normalize: cfg.normalizeLabels,
    seed: cfg.seed,
    pad: cfg.padNeighbourhoods,
  });
  const warmZ = warm.z !== undefined && warm.z.length === n * r ? warm.z : undefined;
  const res = svp(g, r, {
    iterations: warm.svpIterations ?? cfg.svpIterations,
    eta: cfg.eta,
    oversample: cfg.oversample,
    init: warmZ,
    initRank: warmZ ? r : undefined,
    seed: cfg.seed + 17,
  });
  const z = new Float64Array(n * r);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < res.rank; a++) z[i * r + a] = res.embedding[i * res.rank + a];
  }
  const init = warm.v !== undefined && warm.v.length === d * r
    ? Float64Array.from(warm.v)
    : undefined;
  const fit = admmRegressor(x, z, r, {
    lambda: cfg.lambda,
    mu: cfg.mu,
    rho: cfg.rho,
    iterations: warm.admmIterations ?? cfg.admmIterations,
    cgIterations: cfg.cgIterations,
    init,
  });
  const v = Float32Array.from(fit.v);
  return {
    z,
    v,
    points: embedPoints(x, v, r),
    residual: res.residual,
    svpIterations: res.iterations,
  };
}
