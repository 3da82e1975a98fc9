/**
 * The SLEEC regressor by ADMM (Sub-routine 4): minimises
 * `½‖Z − XV‖_F² + ½λ‖V‖_F² + μ‖XV‖_1` over `V` (`d × k`), with the split `α = XV` and the
 * scaled dual `β`:
 *
 * - `((1 + ρ) XᵀX + λI) V = Xᵀ(Z + ρ(α − β))`
 * - `α = soft(XV + β, μ/ρ)` (entry-wise soft threshold)
 * - `β ← β + XV − α`
 *
 * Row convention: `X` is the `n × d` sparse data matrix (one row per point), `Z` the `n × k`
 * embeddings, both row-major; the paper's `V X` is our `X V`. The linear step is solved by
 * Jacobi-preconditioned block conjugate gradients (all `k` right-hand sides share each sparse
 * product), warm-started from the previous `V`, so `XᵀX` is never formed. With `μ = 0` the
 * iteration converges to the ridge solution `(XᵀX + λI)⁻¹ XᵀZ`, at rate `ρ / (1 + ρ)`.
 *
 * @module
 */
import type { CsrMatrix } from "../data/types.ts";
import { columnOverflowScales, overflowScale, solveScaledColumns } from "./overflow_scale.ts";

/**
 * Options of {@linkcode admmRegressor}.
 *
 * @example
 * ```ts
 * import type { AdmmOptions } from "./admm.ts";
 * const o: AdmmOptions = { lambda: 1, mu: 0.001, rho: 0.1, iterations: 4 };
 * console.log(o.rho); // 0.1
 * ```
 */
export interface AdmmOptions {
  /** L2 weight λ (default 1). */
  lambda?: number;
  /** L1 weight μ on XV (default 0.001). */
  mu?: number;
  /** ADMM penalty ρ (default 0.1). */
  rho?: number;
  /** ADMM iterations (default 10). */
  iterations?: number;
  /** Maximum CG iterations per linear solve (default 25). */
  cgIterations?: number;
  /** Relative CG residual tolerance (default 1e-6). */
  cgTol?: number;
  /** Warm start for V (row-major `d × k`). */
  init?: Float64Array;
}

/**
 * Result of {@linkcode admmRegressor}.
 *
 * @example
 * ```ts
 * import { admmRegressor, type AdmmResult } from "./admm.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const r: AdmmResult = admmRegressor(x, Float64Array.of(1), 1, { lambda: 1, mu: 0, iterations: 50 });
 * console.log(r.v[0].toFixed(3)); // 0.500 (ridge: 1 / (1 + λ))
 * ```
 */
export interface AdmmResult {
  /** Row-major `d × k`. */
  v: Float64Array;
  /** XV, row-major `n × k` (before soft-thresholding). */
  xv: Float64Array;
  /** Total CG iterations spent. */
  cgSteps: number;
}

/**
 * `out = X · B` for row-major `B` (`d × k`), `out` row-major `n × k`.
 *
 * @example
 * ```ts
 * import { csrTimesDense } from "./admm.ts";
 * const x = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 2) };
 * const out = new Float64Array(1);
 * csrTimesDense(x, Float64Array.of(3, 4), 1, out);
 * console.log(out[0]); // 11
 * ```
 */
export function csrTimesDense(x: CsrMatrix, b: Float64Array, k: number, out: Float64Array): void {
  const { numRows, indptr, indices, values } = x;
  out.fill(0, 0, numRows * k);
  for (let i = 0; i < numRows; i++) {
    const oi = i * k;
    for (let e = indptr[i]; e < indptr[i + 1]; e++) {
      const w = values[e];
      const oj = indices[e] * k;
      for (let a = 0; a < k; a++) out[oi + a] += w * b[oj + a];
    }
  }
}

/**
 * `out = Xᵀ · B` for row-major `B` (`n × k`), `out` row-major `d × k`.
 *
 * @example
 * ```ts
 * import { csrTransposeTimesDense } from "./admm.ts";
 * const x = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 2) };
 * const out = new Float64Array(2);
 * csrTransposeTimesDense(x, Float64Array.of(3), 1, out);
 * console.log(Array.from(out)); // [ 3, 6 ]
 * ```
 */
export function csrTransposeTimesDense(
  x: CsrMatrix,
  b: Float64Array,
  k: number,
  out: Float64Array,
): void {
  const { numRows, numCols, indptr, indices, values } = x;
  out.fill(0, 0, numCols * k);
  for (let i = 0; i < numRows; i++) {
    const oi = i * k;
    for (let e = indptr[i]; e < indptr[i + 1]; e++) {
      const w = values[e];
      const oj = indices[e] * k;
      for (let a = 0; a < k; a++) out[oj + a] += w * b[oi + a];
    }
  }
}

/**
 * Solves `(c XᵀX + λI) V = Q` column by column (all columns at once) by Jacobi-preconditioned
 * CG, starting from `v` (updated in place). Returns the iterations used. A column of `Q` beyond
 * 1e±150 is solved at its own scale (a column of V far too large for it then starts from 0).
 *
 * @example
 * ```ts
 * import { ridgeCg } from "./admm.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(2) };
 * const v = new Float64Array(1);
 * ridgeCg(x, 1, 1, Float64Array.of(10), 1, v, 10, 1e-12); // (4 + 1) v = 10
 * console.log(v[0]); // 2
 * ```
 */
export function ridgeCg(
  x: CsrMatrix,
  c: number,
  lambda: number,
  q: Float64Array,
  k: number,
  v: Float64Array,
  maxIter: number,
  tol: number,
): number {
  const d = x.numCols, n = x.numRows;
  // each column at its own scale: next to a column of 1, one of 1e-170 (or one of 1 next to
  // 1e200, after admmRegressor's scaling) had ‖q‖² underflow to 0, passed for solved at once,
  // and its column of V stayed 0
  const scales = columnOverflowScales(q.subarray(0, d * k), k);
  if (scales !== undefined) {
    return solveScaledColumns(
      scales,
      q,
      v.subarray(0, d * k),
      k,
      (qs) => ridgeCg(x, c, lambda, qs, k, v, maxIter, tol),
    );
  }
  const diag = new Float64Array(d);
  for (let e = 0; e < x.indptr[n]; e++) diag[x.indices[e]] += x.values[e] * x.values[e];
  for (let j = 0; j < d; j++) diag[j] = 1 / (c * diag[j] + lambda);
  const tmp = new Float64Array(n * k);
  const ap = new Float64Array(d * k);
  const applyA = (p: Float64Array, out: Float64Array) => {
    csrTimesDense(x, p, k, tmp);
    csrTransposeTimesDense(x, tmp, k, out);
    for (let i = 0; i < d * k; i++) out[i] = c * out[i] + lambda * p[i];
  };
  const r = new Float64Array(d * k);
  applyA(v, ap);
  for (let i = 0; i < d * k; i++) r[i] = q[i] - ap[i];
  if (!(lambda > 0) || !(c > 0)) {
    throw new RangeError(`ridgeCg: need c > 0 and lambda > 0, got c = ${c}, lambda = ${lambda}`);
  }
  const zp = new Float64Array(d * k);
  const p = new Float64Array(d * k);
  const rz = new Float64Array(k), qn = new Float64Array(k), rn = new Float64Array(k);
  const alpha = new Float64Array(k), pap = new Float64Array(k);
  const rzNew = new Float64Array(k), betaCg = new Float64Array(k);
  for (let j = 0; j < d; j++) {
    const o = j * k;
    for (let a = 0; a < k; a++) {
      zp[o + a] = diag[j] * r[o + a];
      p[o + a] = zp[o + a];
      rz[a] += r[o + a] * zp[o + a];
      qn[a] += q[o + a] * q[o + a];
    }
  }
  let it = 0;
  for (; it < maxIter; it++) {
    rn.fill(0);
    for (let j = 0; j < d; j++) {
      const o = j * k;
      for (let a = 0; a < k; a++) rn[a] += r[o + a] * r[o + a];
    }
    let done = true;
    for (let a = 0; a < k; a++) if (rn[a] > tol * tol * Math.max(qn[a], 1e-300)) done = false;
    if (done) break;
    applyA(p, ap);
    pap.fill(0);
    for (let j = 0; j < d; j++) {
      const o = j * k;
      for (let a = 0; a < k; a++) pap[a] += p[o + a] * ap[o + a];
    }
    for (let a = 0; a < k; a++) alpha[a] = pap[a] > 0 ? rz[a] / pap[a] : 0;
    rzNew.fill(0);
    for (let j = 0; j < d; j++) {
      const o = j * k, dj = diag[j];
      for (let a = 0; a < k; a++) {
        v[o + a] += alpha[a] * p[o + a];
        const ra = r[o + a] - alpha[a] * ap[o + a];
        r[o + a] = ra;
        const za = dj * ra;
        zp[o + a] = za;
        rzNew[a] += ra * za;
      }
    }
    for (let a = 0; a < k; a++) betaCg[a] = rz[a] > 0 ? rzNew[a] / rz[a] : 0;
    for (let j = 0; j < d; j++) {
      const o = j * k;
      for (let a = 0; a < k; a++) p[o + a] = zp[o + a] + betaCg[a] * p[o + a];
    }
    rz.set(rzNew);
  }
  return it;
}

/**
 * The warm start `init` divided by `s`, or zeros when that overflows while `init` is finite (a
 * start of 1e200 for a Z of 1e-160 is far off: it starts from 0; it was refused as
 * "init value is Infinity").
 */
function scaledStart(init: Float64Array | undefined, s: number): Float64Array | undefined {
  const out = init?.map((v) => v / s);
  if (init !== undefined && out !== undefined) {
    for (let e = 0; e < out.length; e++) {
      if (!Number.isFinite(out[e]) && Number.isFinite(init[e])) return new Float64Array(out.length);
    }
  }
  return out;
}

/**
 * Learns `V` with `XV ≈ Z` (elastic-net style: L2 on V, L1 on XV) by ADMM. A `Z` with values
 * beyond 1e±150 is solved scaled (with μ scaled alike: the problem is homogeneous).
 *
 * @throws {RangeError} on a mis-sized `Z` or `init`, a value in them that is not finite, or an
 * option out of range (`lambda`, `rho` finite > 0, `mu` finite >= 0, `iterations` and
 * `cgIterations` integers >= 0, `cgTol` >= 0).
 *
 * @example
 * ```ts
 * import { admmRegressor } from "./admm.ts";
 * // one feature, two points: z = 2x; with tiny regularisation V ≈ 2
 * const x = { numRows: 2, numCols: 1, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 0), values: Float32Array.of(1, 2) };
 * const { v } = admmRegressor(x, Float64Array.of(2, 4), 1, { lambda: 1e-9, mu: 0, iterations: 20 });
 * console.log(Math.abs(v[0] - 2) < 1e-6); // true
 * ```
 */
export function admmRegressor(
  x: CsrMatrix,
  z: Float64Array,
  k: number,
  options: AdmmOptions = {},
): AdmmResult {
  const n = x.numRows, d = x.numCols;
  if (z.length !== n * k) {
    throw new RangeError(`admmRegressor: Z has ${z.length} values, expected ${n} x ${k}`);
  }
  const lambda = options.lambda ?? 1;
  const mu = options.mu ?? 0.001;
  const rho = options.rho ?? 0.1;
  const iterations = options.iterations ?? 10;
  const cgIterations = options.cgIterations ?? 25;
  const cgTol = options.cgTol ?? 1e-6;
  if (!(lambda > 0) || !(rho > 0) || !(mu >= 0)) {
    throw new RangeError(
      `admmRegressor: need lambda > 0, rho > 0, mu >= 0, got ${lambda}, ${rho} and ${mu}`,
    );
  }
  if (!(lambda < Infinity && rho < Infinity && mu < Infinity)) {
    throw new RangeError(
      `admmRegressor: lambda, rho and mu must be finite, got ${lambda}, ${rho} and ${mu}`,
    );
  }
  if (!Number.isSafeInteger(iterations) || iterations < 0) {
    throw new RangeError(`admmRegressor: iterations must be an integer >= 0, got ${iterations}`);
  }
  if (!Number.isSafeInteger(cgIterations) || cgIterations < 0) {
    throw new RangeError(
      `admmRegressor: cgIterations must be an integer >= 0, got ${cgIterations}`,
    );
  }
  if (!(cgTol >= 0)) {
    throw new RangeError(`admmRegressor: cgTol must be a number >= 0, got ${cgTol}`);
  }
  let zMax = 0;
  for (let e = 0; e < z.length; e++) {
    if (!Number.isFinite(z[e])) {
      throw new RangeError(
        `admmRegressor: Z has ${z[e]} at row ${Math.floor(e / k)}, column ${e % k}: ` +
          `it must be finite`,
      );
    }
    zMax = Math.max(zMax, Math.abs(z[e]));
  }
  if (overflowScale(zMax) !== 1) {
    // the problem is homogeneous (Z, μ, V → Z/s, μ/s, V/s): solve it scaled when ‖Z‖² would
    // overflow or underflow (the CG's convergence test would stop it at once, leaving V = 0)
    const r = admmRegressor(x, z.map((v) => v / zMax), k, {
      ...options,
      // μ/s overflows for a subnormal Z: μ then outweighs everything (XV → 0) as MAX_VALUE does
      mu: Math.min(mu / zMax, Number.MAX_VALUE),
      init: scaledStart(options.init, zMax),
    });
    for (let e = 0; e < r.v.length; e++) r.v[e] *= zMax;
    for (let e = 0; e < r.xv.length; e++) r.xv[e] *= zMax;
    return r;
  }
  const v = new Float64Array(d * k);
  if (options.init) {
    if (options.init.length !== d * k) {
      throw new RangeError(
        `admmRegressor: init has ${options.init.length} values, expected ${d} x ${k}`,
      );
    }
    v.set(options.init);
    for (let e = 0; e < v.length; e++) {
      if (!Number.isFinite(v[e])) {
        throw new RangeError(`admmRegressor: init value ${e} is ${v[e]}, not a finite number`);
      }
    }
  }
  const xv = new Float64Array(n * k);
  const alpha = new Float64Array(n * k);
  const beta = new Float64Array(n * k);
  const t = new Float64Array(n * k);
  const q = new Float64Array(d * k);
  csrTimesDense(x, v, k, xv);
  const thr = mu / rho;
  const soft = (u: number) => (u > thr ? u - thr : u < -thr ? u + thr : 0);
  for (let i = 0; i < n * k; i++) alpha[i] = soft(xv[i]);
  let cgSteps = 0;
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < n * k; i++) t[i] = z[i] + rho * (alpha[i] - beta[i]);
    csrTransposeTimesDense(x, t, k, q);
    cgSteps += ridgeCg(x, 1 + rho, lambda, q, k, v, cgIterations, cgTol);
    csrTimesDense(x, v, k, xv);
    for (let i = 0; i < n * k; i++) {
      const a = soft(xv[i] + beta[i]);
      alpha[i] = a;
      beta[i] += xv[i] - a;
    }
  }
  return { v, xv, cgSteps };
}
