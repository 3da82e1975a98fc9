/**
 * Singular Value Projection for PSD low-rank matrix completion (SLEEC Sub-routine 3):
 * `M ← P_r(M + η P_Ω(G − M))`, where `P_r` keeps the top `r` non-negative eigenpairs.
 *
 * `M = U Λ Uᵀ` is never formed: the operator `M + η P_Ω(G − M)` is applied to blocks as a
 * low-rank product plus a sparse product on Ω, and the eigensolver ({@linkcode topEigen}) is
 * warm-started from the previous iteration's block, one power step per SVP iteration.
 *
 * @module
 */
import { dotSlice, symmetricEigen, topEigen } from "./eigen.ts";

/**
 * A symmetric sparse matrix in CSR form (both (i, j) and (j, i) stored), e.g. `P_Ω(G)`.
 *
 * @example
 * ```ts
 * import type { SymSparse } from "./svp.ts";
 * const g: SymSparse = { n: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float64Array.of(1, 1) };
 * console.log(g.n); // 2
 * ```
 */
export interface SymSparse {
  readonly n: number;
  readonly indptr: Int32Array;
  readonly indices: Int32Array;
  readonly values: Float64Array;
}

/** Options of {@linkcode svp}. */
export interface SvpOptions {
  /** Maximum SVP iterations (default 15). */
  iterations?: number;
  /** Step size η (default 1). */
  eta?: number;
  /** Extra eigensolver block columns (default 10). */
  oversample?: number;
  /** Power steps in the first iteration when starting from M = 0 (default 4). */
  firstIterations?: number;
  /** Stop when the relative residual on Ω improves by less than this fraction (default 1e-3). */
  tol?: number;
  /** Warm start: a previous embedding `Z0` (row-major `n × initRank`), so that M = Z0 Z0ᵀ. */
  init?: Float64Array;
  /** Columns of `init`. */
  initRank?: number;
  /** Seed of the random starting block (default 1). */
  seed?: number;
}

/** Result of {@linkcode svp}. */
export interface SvpResult {
  /** Embedding Z = U Λ^½, row-major `n × rank`; M ≈ Z Zᵀ. */
  embedding: Float64Array;
  /** Λ (non-negative, decreasing), length `rank`. */
  values: Float64Array;
  /** Columns of `embedding` (min of the requested rank and n). */
  rank: number;
  /** SVP iterations run. */
  iterations: number;
  /** ‖P_Ω(G − M)‖_F / ‖P_Ω(G)‖_F of the returned M. */
  residual: number;
}

/**
 * Runs SVP on `P_Ω(G)` (the sparse matrix `g`, whose pattern is Ω) for a rank-`rank` PSD M.
 *
 * @example
 * ```ts
 * import { svp } from "./svp.ts";
 * // G = v vᵀ with v = (1, 2, 3), fully observed: rank 1 recovers it exactly.
 * const v = [1, 2, 3];
 * const g = {
 *   n: 3,
 *   indptr: Int32Array.of(0, 3, 6, 9),
 *   indices: Int32Array.of(0, 1, 2, 0, 1, 2, 0, 1, 2),
 *   values: Float64Array.from([0, 1, 2].flatMap((i) => v.map((w) => v[i] * w))),
 * };
 * const r = svp(g, 1);
 * console.log(r.residual < 1e-6, Math.round(r.values[0])); // true 14
 * ```
 */
export function svp(g: SymSparse, rank: number, options: SvpOptions = {}): SvpResult {
  const n = g.n;
  if (!(rank >= 1)) throw new RangeError(`svp: rank must be >= 1, got ${rank}`);
  if (n === 0) {
    return {
      embedding: new Float64Array(0),
      values: new Float64Array(0),
      rank: 0,
      iterations: 0,
      residual: 0,
    };
  }
  const k = Math.min(rank, n);
  const iterations = options.iterations ?? 15;
  const eta = options.eta ?? 1;
  const tol = options.tol ?? 1e-3;
  const seed = options.seed ?? 1;
  const oversample = options.oversample ?? 10;
  const { indptr, indices, values: gv } = g;
  const nnz = indptr[n];
  let gNorm = 0;
  for (let e = 0; e < nnz; e++) gNorm += gv[e] * gv[e];
  gNorm = Math.sqrt(gNorm) || 1;

  // Current M = U diag(lam) Uᵀ: U column-major n × k, z row-major n × k (U·lam^½).
  let u: Float64Array = new Float64Array(n * k);
  let lam = new Float64Array(k);
  let z = new Float64Array(n * k);
  let hasM = false;
  let basis: Float64Array | undefined;

  if (options.init && options.initRank && options.initRank > 0) {
    const r0 = options.initRank;
    const z0 = options.init;
    if (z0.length !== n * r0) {
      throw new RangeError(`svp: init has ${z0.length} values, expected ${n} x ${r0}`);
    }
    const c = new Float64Array(r0 * r0);
    for (let i = 0; i < n; i++) {
      const o = i * r0;
      for (let a = 0; a < r0; a++) {
        const za = z0[o + a];
        if (za === 0) continue;
        for (let b = a; b < r0; b++) c[a * r0 + b] += za * z0[o + b];
      }
    }
    for (let a = 0; a < r0; a++) for (let b = 0; b < a; b++) c[a * r0 + b] = c[b * r0 + a];
    const { values: mu, vectors: w } = symmetricEigen(c, r0);
    const kk = Math.min(k, r0);
    for (let a = 0; a < kk; a++) {
      if (!(mu[a] > 1e-12)) break;
      lam[a] = mu[a];
      const inv = 1 / Math.sqrt(mu[a]);
      for (let i = 0; i < n; i++) {
        let s = 0;
        const o = i * r0;
        for (let b = 0; b < r0; b++) s += z0[o + b] * w[b * r0 + a];
        z[i * k + a] = s;
        u[a * n + i] = s * inv;
      }
      hasM = true;
    }
    if (hasM) basis = u.slice();
  }

  const s = new Float64Array(nnz);
  const computeS = (): number => {
    let res = 0;
    for (let i = 0; i < n; i++) {
      const oi = i * k;
      for (let e = indptr[i]; e < indptr[i + 1]; e++) {
        const j = indices[e];
        let m = 0;
        if (hasM) {
          const oj = j * k;
          for (let a = 0; a < k; a++) m += z[oi + a] * z[oj + a];
        }
        const d = gv[e] - m;
        res += d * d;
        s[e] = eta * d;
      }
    }
    return Math.sqrt(res) / gNorm;
  };

  const coef = new Float64Array(k);
  const op = {
    n,
    apply(q: Float64Array, cols: number, out: Float64Array): void {
      for (let c = 0; c < cols; c++) {
        const oc = c * n;
        for (let i = 0; i < n; i++) {
          let acc = 0;
          for (let e = indptr[i]; e < indptr[i + 1]; e++) acc += s[e] * q[oc + indices[e]];
          out[oc + i] = acc;
        }
        if (!hasM) continue;
        for (let a = 0; a < k; a++) {
          coef[a] = lam[a] === 0 ? 0 : lam[a] * dotSlice(u, a * n, q, oc, n);
        }
        for (let a = 0; a < k; a++) {
          const ca = coef[a];
          if (ca === 0) continue;
          const oa = a * n;
          for (let i = 0; i < n; i++) out[oc + i] += ca * u[oa + i];
        }
      }
    },
  };

  let residual = computeS();
  let prev = Infinity;
  let it = 0;
  for (; it < iterations; it++) {
    if (residual < 1e-12 || (prev - residual) < tol * prev) break;
    const result = topEigen(op, k, {
      oversample,
      iterations: hasM ? 1 : Math.max(1, options.firstIterations ?? 4),
      init: basis,
      seed: seed + it,
    });
    basis = result.image;
    u = result.vectors;
    lam = new Float64Array(k);
    z = new Float64Array(n * k);
    hasM = false;
    for (let a = 0; a < result.values.length; a++) {
      const l = Math.max(0, result.values[a]);
      lam[a] = l;
      if (l === 0) continue;
      hasM = true;
      const sq = Math.sqrt(l);
      for (let i = 0; i < n; i++) z[i * k + a] = u[a * n + i] * sq;
    }
    prev = residual;
    residual = computeS();
  }
  return { embedding: z, values: lam, rank: k, iterations: it, residual };
}
