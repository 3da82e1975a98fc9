/**
 * The periodic closed-form refresh of streaming LEML's local update mode: one alternating-
 * minimisation step as in the batch solver (./batch.ts), on the rows of the bounded replay
 * reservoir, warm-started from the current factors and restricted to what those rows involve,
 * of the objective (squared loss over ALL labels, mean over the n reservoir rows)
 *
 *   f = 1/(2n) Σ_i ‖H u_i + b − y_i‖² + λ/2 (‖W_F‖² + ‖H_T‖²) + μ/2 (‖W_F − W₀‖² + ‖Θ_T − Θ₀‖²),
 *
 * with u_i = x_iᵀW (scaled to unit norm when configured), F the features and T the labels
 * present in the reservoir, Θ = [H b] and μ (`prox` ≥ 0) an optional pull towards the current
 * factors (μ = 0: the plain ridge problem of the batch solver):
 * 1. **W step**: a few preconditioned CG iterations (Jacobi) on the Newton system of the W_F
 *    rows. The all-label term uses the cached G = HᵀH and Hᵀb ({@linkcode GramCache}), so the
 *    gradient (1/n) Xᵀ(U G + 1(Hᵀb)ᵀ − Y H) + λW and the Hessian-vector product
 *    (1/n) Xᵀ(X S G) + (λ + μ) S are exact at O(nnz(X_res)·k + n·k²) per iteration, whatever L;
 *    CG from the current W never increases f.
 * 2. **H step**: every label in T gets its exact minimiser given U = X_res W:
 *    ((1/n) ŨᵀŨ + diag(λ + μ, …, λ + μ, μ)) θ_l = (1/n) Σ_{i∋l} ũ_i + μ θ₀_l with ũ = [u; 1]
 *    (one (k+1)×(k+1) Cholesky factor shared by all labels), and the Gram cache absorbs the
 *    changed rows (O(k²) each). Labels absent from the reservoir keep their rows.
 * The cost is O(nnz(X_res)·k·(cg + 2) + n·k²·(cg + 1) + |T|·k² + k³): it depends on the
 * reservoir and the labels in it, never on L.
 *
 * @module
 */
import type { Batch } from "../../data/types.ts";
import { choleskyFactor, choleskyFactorShifted, choleskySolve } from "../../linalg/cholesky.ts";
import type { GramCache } from "./gram_cache.ts";

/**
 * What a refresh reads and updates.
 *
 * @example
 * ```ts
 * import type { RefreshInput } from "./refresh.ts";
 * const cg = (r: RefreshInput) => r.cgIterations;
 * console.log(typeof cg); // "function"
 * ```
 */
export interface RefreshInput {
  /** The reservoir's rows (fully observed rows are used; masked rows are skipped). */
  rows: Batch;
  /** Rank k. */
  k: number;
  /** Factors, updated in place (W: D×k, H: L×k, bias: L). */
  W: Float32Array;
  H: Float32Array;
  bias: Float32Array;
  /** The cached HᵀH and Hᵀb of all L labels (kept up to date). */
  gram: GramCache;
  /** λ. */
  lambda: number;
  /** μ, the pull towards the current factors. */
  prox: number;
  /** CG iterations of the W step (0: H step only). */
  cgIterations: number;
  /** Scale rows to unit L2 norm. */
  l2Normalize: boolean;
  /** Learn the bias. */
  useBias: boolean;
}

/**
 * What a refresh did.
 *
 * @example
 * ```ts
 * import type { RefreshResult } from "./refresh.ts";
 * const r: RefreshResult = { rows: 0, features: 0, labels: 0, cgIterations: 0 };
 * console.log(r.labels); // 0
 * ```
 */
export interface RefreshResult {
  /** Reservoir rows used. */
  rows: number;
  /** W rows updated. */
  features: number;
  /** H rows solved. */
  labels: number;
  /** CG iterations run. */
  cgIterations: number;
}

/**
 * Runs one refresh (see the module doc); the factors and the Gram cache are updated in place.
 *
 * @example
 * ```ts
 * import { refreshFactors } from "./refresh.ts";
 * import { GramCache } from "./gram_cache.ts";
 * // one feature, two labels; the reservoir row (feature 0 → label 1) is fitted exactly
 * const W = Float32Array.of(1), H = Float32Array.of(0.5, 0.5), bias = new Float32Array(2);
 * const gram = new GramCache(1);
 * gram.recompute(H, bias, 2);
 * const rows = {
 *   x: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) },
 * };
 * const r = refreshFactors({ rows, k: 1, W, H, bias, gram, lambda: 1e-6, prox: 0, cgIterations: 2, l2Normalize: false, useBias: false });
 * const z = (l: number) => W[0] * H[l];
 * console.log(r.labels, Math.abs(z(0)) < 1e-3, Math.abs(z(1) - 1) < 1e-3); // 2 true true
 * ```
 */
export function refreshFactors(input: RefreshInput): RefreshResult {
  const { rows: batch, k, W, H, bias, gram, lambda, prox, useBias } = input;
  const x = batch.x, y = batch.y;
  const observed = batch.observed, full = batch.fullyObserved;
  // fully observed rows only (masked rows would need their own per-label systems)
  const use: number[] = [];
  for (let i = 0; i < x.numRows; i++) {
    if (!observed || (full !== undefined && full[i] === 1)) use.push(i);
  }
  const n = use.length;
  if (n === 0) return { rows: 0, features: 0, labels: 0, cgIterations: 0 };
  // ---- local indices of the features (F) and labels (T) present ----
  const fIndex = new Map<number, number>(), tIndex = new Map<number, number>();
  const feats: number[] = [], labels: number[] = [];
  const xp = new Int32Array(n + 1), yp = new Int32Array(n + 1);
  let nx = 0, ny = 0;
  for (let q = 0; q < n; q++) {
    const i = use[q];
    nx += x.indptr[i + 1] - x.indptr[i];
    ny += y.indptr[i + 1] - y.indptr[i];
  }
  const xi = new Int32Array(nx), xv = new Float64Array(nx), yi = new Int32Array(ny);
  nx = ny = 0;
  for (let q = 0; q < n; q++) {
    const i = use[q];
    let ss = 0;
    for (let p = x.indptr[i]; p < x.indptr[i + 1]; p++) ss += x.values[p] * x.values[p];
    const f = input.l2Normalize ? (ss > 0 ? 1 / Math.sqrt(ss) : 0) : 1;
    for (let p = x.indptr[i]; p < x.indptr[i + 1]; p++) {
      const j = x.indices[p];
      let lj = fIndex.get(j);
      if (lj === undefined) {
        lj = feats.length;
        fIndex.set(j, lj);
        feats.push(j);
      }
      xi[nx] = lj;
      xv[nx++] = x.values[p] * f;
    }
    xp[q + 1] = nx;
    for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) {
      const l = y.indices[p];
      let ll = tIndex.get(l);
      if (ll === undefined) {
        ll = labels.length;
        tIndex.set(l, ll);
        labels.push(l);
      }
      yi[ny++] = l;
    }
    yp[q + 1] = ny;
  }
  const nf = feats.length, nt = labels.length, inv = 1 / n;
  const Wl = new Float64Array(nf * k);
  for (let a = 0; a < nf; a++) {
    for (let c = 0; c < k; c++) Wl[a * k + c] = W[feats[a] * k + c];
  }
  const U = new Float64Array(n * k), V = new Float64Array(n * k);
  /** out (n×k) = X S. */
  const xTimes = (S: Float64Array, out: Float64Array) => {
    out.fill(0);
    for (let q = 0; q < n; q++) {
      const ob = q * k;
      for (let p = xp[q]; p < xp[q + 1]; p++) {
        const v = xv[p], sb = xi[p] * k;
        for (let c = 0; c < k; c++) out[ob + c] += v * S[sb + c];
      }
    }
  };
  /** out (nf×k) += scale · Xᵀ M. */
  const xtTimesAdd = (M: Float64Array, scale: number, out: Float64Array) => {
    for (let q = 0; q < n; q++) {
      const mb = q * k;
      for (let p = xp[q]; p < xp[q + 1]; p++) {
        const v = scale * xv[p], ob = xi[p] * k;
        for (let c = 0; c < k; c++) out[ob + c] += v * M[mb + c];
      }
    }
  };
  const G = gram.gram;
  /** out_q = G m_q for the n rows of M. */
  const timesG = (M: Float64Array, out: Float64Array) => {
    for (let q = 0; q < n; q++) {
      const b0 = q * k;
      for (let a = 0; a < k; a++) {
        let t = 0;
        const ga = a * k;
        for (let c = 0; c < k; c++) t += G[ga + c] * M[b0 + c];
        out[b0 + a] = t;
      }
    }
  };
  // ---- 1. W step: PCG on (1/n) Xᵀ X S G + (λ + μ) S = −∇ ----
  let cgIterations = 0;
  if (input.cgIterations > 0) {
    xTimes(Wl, U);
    timesG(U, V);
    for (let q = 0; q < n; q++) {
      const vb = q * k;
      for (let c = 0; c < k; c++) V[vb + c] += gram.hb[c];
      for (let p = yp[q]; p < yp[q + 1]; p++) {
        const hb = yi[p] * k;
        for (let c = 0; c < k; c++) V[vb + c] -= H[hb + c];
      }
    }
    const m = nf * k;
    const r = new Float64Array(m); // r = −∇ = −(1/n) Xᵀ V − λ W
    for (let a = 0; a < m; a++) r[a] = -lambda * Wl[a];
    xtTimesAdd(V, -inv, r);
    const diag = new Float64Array(m), colSq = new Float64Array(nf);
    for (let p = 0; p < nx; p++) colSq[xi[p]] += xv[p] * xv[p];
    for (let a = 0; a < nf; a++) {
      for (let c = 0; c < k; c++) {
        const d = inv * colSq[a] * G[c * k + c] + lambda + prox;
        diag[a * k + c] = d > 0 ? d : 1;
      }
    }
    const delta = new Float64Array(m), z = new Float64Array(m), dir = new Float64Array(m);
    const ad = new Float64Array(m);
    const apply = (S: Float64Array, out: Float64Array) => {
      xTimes(S, U);
      timesG(U, V);
      for (let a = 0; a < m; a++) out[a] = (lambda + prox) * S[a];
      xtTimesAdd(V, inv, out);
    };
    let rz = 0, r0 = 0;
    for (let a = 0; a < m; a++) {
      z[a] = r[a] / diag[a];
      dir[a] = z[a];
      rz += r[a] * z[a];
      r0 += r[a] * r[a];
    }
    for (let it = 0; it < input.cgIterations && rz > 0; it++) {
      apply(dir, ad);
      let dad = 0;
      for (let a = 0; a < m; a++) dad += dir[a] * ad[a];
      if (!(dad > 0)) break;
      const alpha = rz / dad;
      let rr = 0;
      for (let a = 0; a < m; a++) {
        delta[a] += alpha * dir[a];
        r[a] -= alpha * ad[a];
        rr += r[a] * r[a];
      }
      cgIterations++;
      if (rr <= 1e-16 * r0) break;
      let rzNext = 0;
      for (let a = 0; a < m; a++) {
        z[a] = r[a] / diag[a];
        rzNext += r[a] * z[a];
      }
      const beta = rzNext / rz;
      rz = rzNext;
      for (let a = 0; a < m; a++) dir[a] = z[a] + beta * dir[a];
    }
    for (let a = 0; a < nf; a++) {
      const wb = feats[a] * k, lb = a * k;
      for (let c = 0; c < k; c++) {
        Wl[lb + c] += delta[lb + c];
        W[wb + c] = Wl[lb + c];
        Wl[lb + c] = W[wb + c]; // the float32 value actually stored
      }
    }
  }
  // ---- 2. H step: exact rows of the labels in T given U ----
  xTimes(Wl, U);
  const k1 = useBias ? k + 1 : k;
  const A = new Float64Array(k1 * k1), s = new Float64Array(k);
  for (let q = 0; q < n; q++) {
    const ub = q * k;
    for (let a = 0; a < k; a++) {
      const ua = U[ub + a];
      s[a] += ua;
      for (let c = a; c < k; c++) A[a * k1 + c] += ua * U[ub + c];
    }
  }
  for (let a = 0; a < k; a++) {
    for (let c = a; c < k; c++) {
      A[a * k1 + c] *= inv;
      A[c * k1 + a] = A[a * k1 + c];
    }
    A[a * k1 + a] += lambda + prox;
  }
  if (useBias) {
    for (let a = 0; a < k; a++) A[a * k1 + k] = A[k * k1 + a] = s[a] * inv;
    A[k * k1 + k] = 1 + prox + 1e-9;
  }
  const [Lf, colScale] = factorRidge(A, k1);
  const R = new Float64Array(nt * k1); // (1/n) Σ_{i∋l} ũ_i
  for (let q = 0; q < n; q++) {
    const ub = q * k;
    for (let p = yp[q]; p < yp[q + 1]; p++) {
      const rb = tIndex.get(yi[p])! * k1;
      for (let a = 0; a < k; a++) R[rb + a] += inv * U[ub + a];
      if (useBias) R[rb + k] += inv;
    }
  }
  const oldH = new Float64Array(nt * k), oldB = new Float64Array(nt);
  const rowsT = Int32Array.from(labels), theta = new Float64Array(k1), rhs = new Float64Array(k1);
  for (let t = 0; t < nt; t++) {
    const l = labels[t], hb = l * k, rb = t * k1;
    for (let a = 0; a < k; a++) oldH[t * k + a] = H[hb + a];
    oldB[t] = bias[l];
    for (let a = 0; a < k1; a++) rhs[a] = R[rb + a];
    if (prox > 0) {
      for (let a = 0; a < k; a++) rhs[a] += prox * H[hb + a];
      if (useBias) rhs[k] += prox * bias[l];
    }
    if (!useBias) { // the bias stays fixed (it is 0 when not learned)
      for (let a = 0; a < k; a++) rhs[a] -= bias[l] * s[a] * inv;
    }
    if (colScale !== undefined) { for (let a = 0; a < k1; a++) rhs[a] *= colScale[a]; }
    choleskySolve(Lf, k1, rhs, theta);
    if (colScale !== undefined) { for (let a = 0; a < k1; a++) theta[a] *= colScale[a]; }
    for (let a = 0; a < k; a++) H[hb + a] = theta[a];
    if (useBias) bias[l] = theta[k];
  }
  gram.replaceRows(oldH, oldB, H, bias, rowsT, nt);
  return { rows: n, features: nf, labels: nt, cgIterations };
}

/**
 * The refreshes a model ran: how often and at what cost (wall-clock milliseconds are measured,
 * not part of the model state; the counters are).
 *
 * @example
 * ```ts
 * import type { RefreshStats } from "./refresh.ts";
 * const s: RefreshStats = { count: 2, totalMs: 30, lastMs: 14, rowsSinceLast: 10 };
 * console.log(s.totalMs / s.count); // 15
 * ```
 */
export interface RefreshStats {
  /** Refreshes run (restored with the state). */
  count: number;
  /** Milliseconds spent in refreshes by this instance (not restored). */
  totalMs: number;
  /** Milliseconds of the last refresh of this instance (0 before the first). */
  lastMs: number;
  /** Rows learned since the last scheduled refresh. */
  rowsSinceLast: number;
  /** What the last refresh of this instance did. */
  last?: RefreshResult;
}

/**
 * The Cholesky factor of the H step's k1×k1 system `A`, and undefined: the plain factor, as
 * always when it exists. When rounding makes it fail (raw rows of 1e10 and more whose latent
 * rows span fewer than k directions: A's eigenvalues then run from about value² down to λ + μ,
 * past float64's 1e16, and a pivot came out zero or negative, "choleskyFactor: matrix is not
 * positive definite" thrown from inside learnMany), the factor of the equilibrated D⁻¹AD⁻¹
 * (unit diagonal, D = √diag A; the bias column no longer 1e20 times smaller than the others)
 * with the smallest ridge shift that factors (`choleskyFactorShifted`), and D⁻¹: solve with
 * rhs·D⁻¹, then scale the solution by D⁻¹.
 */
function factorRidge(A: Float64Array, k1: number): [Float64Array, Float64Array | undefined] {
  try {
    return [choleskyFactor(A, k1), undefined];
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const inv = new Float64Array(k1), As = new Float64Array(k1 * k1);
    for (let a = 0; a < k1; a++) {
      const d = A[a * k1 + a];
      inv[a] = d > 0 && d < Infinity ? 1 / Math.sqrt(d) : 1;
    }
    for (let a = 0; a < k1; a++) {
      for (let c = 0; c < k1; c++) As[a * k1 + c] = A[a * k1 + c] * inv[a] * inv[c];
    }
    const Lf = new Float64Array(k1 * k1);
    choleskyFactorShifted(As, k1, Lf);
    return [Lf, inv];
  }
}
