/**
 * Singular Value Projection for PSD low-rank matrix completion (SLEEC Sub-routine 3):
 * `M ← P_r(M + η P_Ω(G − M))`, where `P_r` keeps the top `r` eigenpairs with their eigenvalues
 * clipped at zero, so that M stays PSD of rank at most `r`.
 *
 * `M = U Λ Uᵀ` is never formed: the operator `M + η P_Ω(G − M)` is applied to blocks as a
 * low-rank product plus a sparse product on Ω (cost O(n·r·b + |Ω|·b) per block of `b`
 * columns), and the eigensolver ({@linkcode topEigen}) is warm-started from the previous SVP
 * iteration's block, so each SVP iteration costs one power step.
 *
 * @module
 */
import { sortedSymmetricEigen, topEigen } from "./eigen.ts";
import { overflowScale } from "./overflow_scale.ts";

/**
 * A symmetric sparse matrix in CSR form (both (i, j) and (j, i) stored, columns increasing
 * within a row), e.g. `P_Ω(G)`.
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

/**
 * Options of {@linkcode svp}.
 *
 * @example
 * ```ts
 * import type { SvpOptions } from "./svp.ts";
 * const o: SvpOptions = { iterations: 20, eta: 1, tol: 1e-4 };
 * console.log(o.iterations); // 20
 * ```
 */
export interface SvpOptions {
  /** Maximum SVP iterations (default 15). */
  iterations?: number;
  /** Step size η (default 1). */
  eta?: number;
  /** Extra eigensolver block columns (default 10). */
  oversample?: number;
  /** Power steps of the first iteration when there is no warm start (default 4). */
  firstIterations?: number;
  /** Stop when the relative residual on Ω improves by less than this fraction (default 1e-3). */
  tol?: number;
  /**
   * Warm start: a previous embedding `Z0`, row-major `n × initRank`, so that M = Z0 Z0ᵀ
   * (e.g. the embedding of the same rows from an earlier run).
   */
  init?: Float64Array;
  /** Columns of `init`. */
  initRank?: number;
  /** Seed of the random starting block (default 1). */
  seed?: number;
}

/**
 * Result of {@linkcode svp}.
 *
 * @example
 * ```ts
 * import { svp, type SvpResult } from "./svp.ts";
 * const g = { n: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float64Array.of(4) };
 * const r: SvpResult = svp(g, 1);
 * console.log(Math.abs(r.embedding[0])); // 2
 * ```
 */
export interface SvpResult {
  /** Embedding Z = U Λ^½, row-major `n × rank`; M = Z Zᵀ. */
  embedding: Float64Array;
  /** Λ (non-negative, decreasing), length `rank`. */
  values: Float64Array;
  /** Columns of `embedding`: min(requested rank, n). */
  rank: number;
  /** SVP iterations run. */
  iterations: number;
  /**
   * ‖P_Ω(G − M)‖_F / ‖P_Ω(G)‖_F of the returned M: the iterate (the start included) with the
   * lowest residual, so an iteration that raised it (and stopped the loop) is not returned.
   */
  residual: number;
}

/**
 * Checks that `g` is a well-formed CSR matrix (sizes, index ranges, finite values); throws a
 * RangeError naming the problem.
 *
 * @example
 * ```ts
 * import { checkSymSparse } from "./svp.ts";
 * try {
 *   checkSymSparse({ n: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(3), values: Float64Array.of(1) });
 * } catch (e) { console.log((e as Error).message); }
 * ```
 */
export function checkSymSparse(g: SymSparse): void {
  const { n, indptr, indices, values } = g;
  if (!Number.isInteger(n) || n < 0 || indptr.length !== n + 1 || indptr[0] !== 0) {
    throw new RangeError(`svp: indptr must have n + 1 = ${n + 1} entries starting at 0`);
  }
  const nnz = indptr[n];
  if (indices.length < nnz || values.length < nnz) {
    throw new RangeError(`svp: ${nnz} entries declared but ${indices.length} indices stored`);
  }
  for (let i = 0; i < n; i++) {
    if (indptr[i + 1] < indptr[i]) throw new RangeError(`svp: indptr decreases at row ${i}`);
    for (let e = indptr[i]; e < indptr[i + 1]; e++) {
      const j = indices[e];
      if (!(j >= 0 && j < n)) {
        throw new RangeError(`svp: row ${i} has column ${j} outside [0, ${n})`);
      }
      if (!Number.isFinite(values[e])) {
        throw new RangeError(`svp: entry (${i}, ${j}) is ${values[e]}, not a finite number`);
      }
    }
  }
}

/**
 * Runs SVP on `P_Ω(G)` (the sparse matrix `g`, whose pattern is Ω) for a PSD M of rank at most
 * `rank`. A `g` with values beyond 1e±150 is solved scaled (the iteration is homogeneous).
 *
 * @throws {RangeError} on a bad rank, a malformed `g` (or a value in it that is not finite), a
 * mis-sized or non-finite warm start, an option out of range (`iterations` an integer >= 0,
 * `eta` a finite number > 0, `tol` a number, `oversample` a number >= 0, `firstIterations` a
 * finite number >= 1), or a step size `eta` so large that M overflows (naming it).
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
  if (!Number.isInteger(rank) || rank < 1) {
    throw new RangeError(`svp: rank must be a positive integer, got ${rank}`);
  }
  checkSymSparse(g);
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
  const firstIterations = options.firstIterations ?? 4;
  if (!Number.isSafeInteger(iterations) || iterations < 0) {
    throw new RangeError(`svp: iterations must be an integer >= 0, got ${iterations}`);
  }
  if (!(eta > 0 && eta < Infinity)) {
    throw new RangeError(`svp: eta must be a finite number > 0, got ${eta}`);
  }
  if (typeof tol !== "number" || Number.isNaN(tol)) {
    throw new RangeError(`svp: tol must be a number, got ${tol}`);
  }
  if (!(oversample >= 0)) {
    throw new RangeError(`svp: oversample must be a number >= 0, got ${oversample}`);
  }
  if (!(firstIterations >= 1 && firstIterations < Infinity)) {
    throw new RangeError(
      `svp: firstIterations must be a finite number >= 1, got ${firstIterations}`,
    );
  }
  // the iteration is homogeneous (G → G/s gives M → M/s): run it on G/s when ‖G‖² would
  // overflow or underflow (the residual would be NaN and M lost), and scale M back
  let gMax = 0;
  for (let e = 0; e < g.indptr[n]; e++) gMax = Math.max(gMax, Math.abs(g.values[e]));
  if (overflowScale(gMax) !== 1) {
    const root = Math.sqrt(gMax);
    const scaled = svp({ ...g, values: g.values.map((v) => v / gMax) }, rank, {
      ...options,
      // a finite start that overflows at G's scale is far off: no warm start (it was refused
      // as "init value is Infinity")
      init: options.init?.some((v) => !Number.isFinite(v / root) && Number.isFinite(v))
        ? new Float64Array(options.init.length)
        : options.init?.map((v) => v / root),
    });
    for (let e = 0; e < scaled.embedding.length; e++) scaled.embedding[e] *= root;
    for (let a = 0; a < scaled.values.length; a++) scaled.values[a] *= gMax;
    return scaled;
  }
  const { indptr, indices, values: gv } = g;
  const nnz = indptr[n];
  let gNorm = 0;
  for (let e = 0; e < nnz; e++) gNorm += gv[e] * gv[e];
  gNorm = Math.sqrt(gNorm) || 1;

  // Current M = U diag(lam) Uᵀ = Z Zᵀ: U and Z row-major n × k.
  let u: Float64Array = new Float64Array(n * k);
  let lam = new Float64Array(k);
  let z = new Float64Array(n * k);
  let hasM = false;
  let warmBlock: Float64Array | undefined;

  if (options.init !== undefined) {
    const r0 = options.initRank ?? 0;
    const z0 = options.init;
    if (!Number.isInteger(r0) || r0 < 1 || z0.length !== n * r0) {
      throw new RangeError(
        `svp: init has ${z0.length} values, expected n x initRank = ${n} x ${r0}`,
      );
    }
    for (let e = 0; e < z0.length; e++) {
      if (!Number.isFinite(z0[e])) {
        throw new RangeError(`svp: init value ${e} is ${z0[e]}, not a finite number`);
      }
    }
    // Z0 = (Z0 W μ^-½) μ^½ Wᵀ with Z0ᵀZ0 = W μ Wᵀ: U = Z0 W μ^-½ has orthonormal columns.
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
    const { values: mu, vectors: w } = sortedSymmetricEigen(c, r0);
    const kk = Math.min(k, r0);
    let top = 0;
    while (top < kk && mu[top] > 1e-12 * Math.max(mu[0], 1e-300)) top++;
    for (let i = 0; i < n; i++) {
      const o = i * r0;
      for (let a = 0; a < top; a++) {
        let s = 0;
        for (let b = 0; b < r0; b++) s += z0[o + b] * w[b * r0 + a];
        z[i * k + a] = s;
        u[i * k + a] = s / Math.sqrt(mu[a]);
      }
    }
    for (let a = 0; a < top; a++) lam[a] = mu[a];
    hasM = top > 0;
    if (hasM) warmBlock = u.slice();
  }

  const s = new Float64Array(nnz);
  const computeS = (): number => {
    let res = 0;
    for (let i = 0; i < n; i++) {
      const oi = i * k;
      for (let e = indptr[i]; e < indptr[i + 1]; e++) {
        let m = 0;
        if (hasM) {
          const oj = indices[e] * k;
          for (let a = 0; a < k; a++) m += z[oi + a] * z[oj + a];
        }
        const d = gv[e] - m;
        res += d * d;
        s[e] = eta * d;
      }
    }
    return Math.sqrt(res) / gNorm;
  };

  let t = new Float64Array(0); // Uᵀ q, k × b
  const op = {
    n,
    apply(q: Float64Array, b: number, out: Float64Array): void {
      // sparse part: η P_Ω(G − M) q
      for (let i = 0; i < n; i++) {
        const oo = i * b;
        for (let c = 0; c < b; c++) out[oo + c] = 0;
        for (let e = indptr[i]; e < indptr[i + 1]; e++) {
          const se = s[e];
          const oq = indices[e] * b;
          for (let c = 0; c < b; c++) out[oo + c] += se * q[oq + c];
        }
      }
      if (!hasM) return;
      // low-rank part: U Λ (Uᵀ q)
      if (t.length !== k * b) t = new Float64Array(k * b);
      t.fill(0);
      for (let i = 0; i < n; i++) {
        const ou = i * k, oq = i * b;
        for (let a = 0; a < k; a++) {
          const ua = u[ou + a];
          if (ua === 0) continue;
          const ot = a * b;
          for (let c = 0; c < b; c++) t[ot + c] += ua * q[oq + c];
        }
      }
      for (let a = 0; a < k; a++) {
        const la = lam[a], ot = a * b;
        for (let c = 0; c < b; c++) t[ot + c] *= la;
      }
      for (let i = 0; i < n; i++) {
        const ou = i * k, oo = i * b;
        for (let a = 0; a < k; a++) {
          const ua = u[ou + a];
          if (ua === 0) continue;
          const ot = a * b;
          for (let c = 0; c < b; c++) out[oo + c] += ua * t[ot + c];
        }
      }
    },
  };

  let residual = computeS();
  let prev = Infinity;
  // the iterate with the lowest residual seen (a step can raise it: a rise stops the loop, and
  // the iterate before it is returned, not the worse one)
  let best = { z, lam, residual };
  let it = 0;
  for (; it < iterations; it++) {
    if (residual < 1e-12 || (prev - residual) < tol * prev) break;
    const result = topEigen(op, k, {
      oversample,
      iterations: warmBlock ? 1 : Math.max(1, firstIterations),
      init: warmBlock,
      seed: seed + it,
    });
    warmBlock = result.image;
    u = result.vectors;
    lam = new Float64Array(k);
    z = new Float64Array(n * k);
    hasM = false;
    for (let a = 0; a < result.values.length; a++) {
      const l = Math.max(0, result.values[a]);
      if (!(l > 0)) continue;
      lam[a] = l;
      hasM = true;
      const sq = Math.sqrt(l);
      for (let i = 0; i < n; i++) z[i * k + a] = u[i * k + a] * sq;
    }
    prev = residual;
    residual = computeS();
    if (!Number.isFinite(residual)) {
      // M's entries (or their squares) overflowed: only a step η far too large does that
      throw new RangeError(
        `svp: the step size eta = ${eta} made M overflow in iteration ${it + 1} ` +
          `(largest eigenvalue ${result.values[0]}); use a smaller eta (about 1 converges)`,
      );
    }
    if (residual <= best.residual) best = { z, lam, residual };
  }
  return { embedding: best.z, values: best.lam, rank: k, iterations: it, residual: best.residual };
}
