/**
 * Training of one SLEEC cluster (Algorithm 1, steps 3-7): Ω from label inner products, SVP for
 * Z = UΣ^½, ADMM for V, and the embedded points Z ← XV (unit-normalised for cosine kNN).
 *
 * @module
 */
import type { CsrMatrix } from "../../data/types.ts";
import { admmRegressor } from "../../linalg/admm.ts";
import { svp } from "../../linalg/svp.ts";
import type { SleecConfig } from "./config.ts";
import { labelNeighbourhood } from "./neighbours.ts";

/** What {@linkcode trainCluster} learns. */
export interface ClusterFit {
  /** SVP embedding, row-major n × rank (zero-padded when fewer dimensions were available). */
  z: Float64Array;
  /** SVP eigenvalues (length rank). */
  lambdas: Float64Array;
  /** V, row-major numFeatures × rank. */
  v: Float64Array;
  /** Unit-norm rows of XV (float32), n × rank. */
  points: Float32Array;
  /** SVP relative residual on Ω. */
  residual: number;
}

/**
 * L2-normalises the rows of a CSR matrix (a copy; zero rows stay zero).
 *
 * @example
 * ```ts
 * import { normalizeRows } from "./learner.ts";
 * const m = normalizeRows({ numRows: 1, numCols: 2, indptr: Int32Array.of(0, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(3, 4) });
 * console.log(Array.from(m.values)); // [ 0.6000000238418579, 0.800000011920929 ]
 * ```
 */
export function normalizeRows(x: CsrMatrix): CsrMatrix {
  const values = new Float32Array(x.values.length);
  for (let i = 0; i < x.numRows; i++) {
    let s = 0;
    for (let e = x.indptr[i]; e < x.indptr[i + 1]; e++) s += x.values[e] * x.values[e];
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let e = x.indptr[i]; e < x.indptr[i + 1]; e++) values[e] = x.values[e] * inv;
  }
  return { ...x, values };
}

/**
 * Unit-normalised float32 rows of XV.
 *
 * @example
 * ```ts
 * import { embedPoints } from "./learner.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * console.log(Array.from(embedPoints(x, Float64Array.of(3, 4), 2))); // [ 0.6000000238418579, 0.800000011920929 ]
 * ```
 */
export function embedPoints(x: CsrMatrix, v: ArrayLike<number>, rank: number): Float32Array {
  const out = new Float32Array(x.numRows * rank);
  const z = new Float64Array(rank);
  for (let i = 0; i < x.numRows; i++) {
    z.fill(0);
    for (let e = x.indptr[i]; e < x.indptr[i + 1]; e++) {
      const w = x.values[e], o = x.indices[e] * rank;
      for (let a = 0; a < rank; a++) z[a] += w * v[o + a];
    }
    let s = 0;
    for (let a = 0; a < rank; a++) s += z[a] * z[a];
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let a = 0; a < rank; a++) out[i * rank + a] = z[a] * inv;
  }
  return out;
}

/**
 * Fits one cluster on L2-normalised rows `x` with label sets `labels`.
 * `warm` warm-starts SVP (previous embedding of the same rows) and ADMM (previous V).
 *
 * @example
 * ```ts
 * import { trainCluster } from "./learner.ts";
 * import { resolveConfig } from "./config.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const fit = trainCluster(x, [Int32Array.of(0), Int32Array.of(1)], 2, resolveConfig({ rank: 2 }));
 * console.log(fit.points.length); // 4
 * ```
 */
export function trainCluster(
  x: CsrMatrix,
  labels: readonly Int32Array[],
  numLabels: number,
  cfg: SleecConfig,
  warm?: { z?: Float64Array; v?: Float64Array; svpIterations?: number; admmIterations?: number },
): ClusterFit {
  const n = x.numRows, r = cfg.rank, d = x.numCols;
  const g = labelNeighbourhood(labels, numLabels, cfg.svpNeighbours, cfg.seed);
  const res = svp(g, r, {
    iterations: warm?.svpIterations ?? cfg.svpIterations,
    eta: cfg.eta,
    oversample: cfg.oversample,
    init: warm?.z,
    initRank: warm?.z ? r : undefined,
    seed: cfg.seed + 17,
  });
  const z = new Float64Array(n * r);
  const lambdas = new Float64Array(r);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < res.rank; a++) z[i * r + a] = res.embedding[i * res.rank + a];
  }
  lambdas.set(res.values.subarray(0, Math.min(r, res.values.length)));
  const init = warm?.v && warm.v.length === d * r ? warm.v : undefined;
  const { v } = admmRegressor(x, z, r, {
    lambda: cfg.lambda,
    mu: cfg.mu,
    rho: cfg.rho,
    iterations: warm?.admmIterations ?? cfg.admmIterations,
    cgIterations: cfg.cgIterations,
    init,
  });
  return { z, lambdas, v, points: embedPoints(x, v, r), residual: res.residual };
}
