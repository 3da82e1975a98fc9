/**
 * Batch LEML for the non-quadratic losses with full labels (LEML paper, Table 2: logistic "LR"
 * and squared hinge "SH"), by alternating majorise-minimise (MM) steps on
 * Σ_{i,l} ℓ(y_il, x_iᵀW h_l + b_l) + λ/2(‖W‖² + ‖H‖²)  (the bias b is not regularised).
 *
 * Every loss of `loss.ts` has a Lipschitz derivative: ℓ'' ≤ c with c = 1/4 (logistic), 2 (squared
 * hinge), 1 (squared). So at the current scores z⁰ the quadratic
 * ℓ(z⁰) + ℓ'(z⁰)(z − z⁰) + c/2 (z − z⁰)² lies above ℓ, and minimising it decreases the objective
 * (an MM step). Its curvature is the same constant c on every (i, l) entry, which is what makes
 * the full-label steps cheap:
 *
 * - **W step**: the majorised problem in Δ = W − W⁰ is c XᵀX Δ HᵀH + λΔ = −(Xᵀ G H + λW⁰), with
 *   G the n×L matrix of ℓ'(z⁰). It is solved like the paper's Algorithm 2: rotated into the
 *   eigenbasis of the k×k HᵀH, where it splits into k independent columns, each solved by Jacobi-
 *   preconditioned CG from Δ = 0 (CG from 0 decreases the quadratic monotonically, so even a
 *   truncated solve is a descent step). Cost O(n·L·k) for GH plus O(nnz(X)·k) per CG iteration.
 * - **H step**: for every label row θ_l = [h_l; b_l] the majorised problem has the SAME
 *   (k+1)×(k+1) matrix c·[UᵀU, Uᵀ1; 1ᵀU, n] + λ·diag(1,…,1,0) (U = XW): one Cholesky factor per H
 *   step, then θ_l ← θ_l − A⁻¹∇_l with ∇_l = [Uᵀg_l + λh_l; Σ_i g_il]. Cost O(n·L·k).
 *
 * The paper uses TRON (a trust-region Newton method with the exact per-entry curvature, built on
 * Algorithm 1, O(|Ω|·k) per Hessian-vector product). With full labels |Ω| = n·L, so an exact
 * Hessian-vector product costs as much as a whole MM step here, and the H step's per-label Hessian
 * Σ_i ℓ''_il u_i u_iᵀ would cost O(n·L·k²). The MM steps reach the same minimiser of each
 * convex sub-problem (more slowly per step, much more cheaply per step); `mmSteps` of them are
 * taken per W and per H step. See `docs/deviations.md` (LEML, losses).
 *
 * The squared loss keeps using `trainLemlBatch` (exact H rows, Algorithm 2); this module accepts
 * it too (c = 1: then one MM step with an exact inner solve IS the exact alternating step).
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../../data/types.ts";
import { choleskyFactorShifted, choleskySolve } from "../../linalg/cholesky.ts";
import { gram, matMul, symmetricEigen } from "../../linalg/dense.ts";
import { columnSquares, rotatedSolve, xTimes, xtTimesAdd } from "./rotated_w_step.ts";
import { hashUniform } from "../../random/mod.ts";
import type { LemlFactors } from "./batch.ts";
import { type LemlLoss, lossGrad, lossValue } from "./loss.ts";

/**
 * Options of {@linkcode trainLemlLosses}.
 *
 * @example
 * ```ts
 * import type { LemlLossBatchOptions } from "./batch_losses.ts";
 * const o: LemlLossBatchOptions = { rank: 8, loss: "logistic", lambda: 1, iterations: 5 };
 * console.log(o.loss); // "logistic"
 * ```
 */
export interface LemlLossBatchOptions {
  /** Rank k. */
  rank: number;
  /** Loss of every (row, label) entry. */
  loss: LemlLoss;
  /** Regularisation λ of the summed objective (default 1). */
  lambda?: number;
  /** Alternating iterations (W step then H step; default 5). */
  iterations?: number;
  /** MM steps per W step and per H step (default 2). */
  mmSteps?: number;
  /** CG iteration cap per W-step MM solve (default 10). */
  cgIterations?: number;
  /** CG relative tolerance (default 1e-4). */
  cgTolerance?: number;
  /** Learn a per-label bias (default true). */
  bias?: boolean;
  /** Seed of the initial H (default 0; the same initial H as `trainLemlBatch`). */
  seed?: number;
  /** Compute the objective after every iteration (one extra O(n·L·k) pass; default false). */
  trackObjective?: boolean;
  /** Called after every iteration. */
  onIteration?: (iteration: number, objective: number | undefined) => void;
}

/** The curvature bound c ≥ ℓ'' of a loss (the MM quadratic's curvature). */
function curvatureBound(loss: LemlLoss): number {
  return loss === "logistic" ? 0.25 : loss === "sqhinge" ? 2 : 1;
}

/**
 * One pass over every (row, label) entry at U (n×k), H (L×k), bias: for each row i, the loss
 * derivatives g_il = ℓ'(u_i·h_l + b_l; y_il) are put in `g` (length L) and `visit(i, g)` is
 * called. Returns Σ ℓ when `withValue` (else 0).
 */
function scorePass(
  U: Float64Array,
  H: Float64Array,
  bias: Float64Array,
  y: BinaryCsr,
  k: number,
  loss: LemlLoss,
  withValue: boolean,
  visit: (i: number, g: Float64Array) => void,
): number {
  const n = y.numRows, L = y.numCols;
  const g = new Float64Array(L), pos = new Uint8Array(L);
  let f = 0;
  for (let i = 0; i < n; i++) {
    const p0 = y.indptr[i], p1 = y.indptr[i + 1];
    for (let p = p0; p < p1; p++) pos[y.indices[p]] = 1;
    const ub = i * k;
    for (let l = 0; l < L; l++) {
      const hb = l * k;
      let z = bias[l];
      for (let c = 0; c < k; c++) z += U[ub + c] * H[hb + c];
      const t = pos[l];
      g[l] = lossGrad(loss, z, t);
      if (withValue) f += lossValue(loss, z, t);
    }
    for (let p = p0; p < p1; p++) pos[y.indices[p]] = 0;
    visit(i, g);
  }
  return f;
}

function checkFactors(
  x: CsrMatrix,
  y: BinaryCsr,
  k: number,
  W: ArrayLike<number>,
  H: ArrayLike<number>,
  bias: ArrayLike<number>,
): void {
  if (x.numRows !== y.numRows) {
    throw new RangeError(`LEML losses: x has ${x.numRows} rows but y has ${y.numRows}`);
  }
  if (W.length !== x.numCols * k || H.length !== y.numCols * k || bias.length !== y.numCols) {
    throw new RangeError(
      `LEML losses: factors must be W ${x.numCols}×${k}, H ${y.numCols}×${k}, bias ${y.numCols}`,
    );
  }
}

/**
 * The objective Σ_{i,l} ℓ(y_il, x_iᵀW h_l + b_l) + λ/2(‖W‖² + ‖H‖²) over ALL (row, label)
 * entries (full labels), and its gradients with respect to W (D×k), H (L×k) and the bias (L).
 *
 * @throws {RangeError} when the factor sizes do not match the data.
 *
 * @example
 * ```ts
 * import { lemlLossObjective } from "./batch_losses.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const y = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
 * // z = 0 on a positive entry: log 2 of logistic loss, gradient −½ on the bias
 * const r = lemlLossObjective(x, y, Float64Array.of(0), Float64Array.of(0), Float64Array.of(0), "logistic", 1);
 * console.log(r.value.toFixed(4), r.gradBias[0]); // "0.6931" -0.5
 * ```
 */
export function lemlLossObjective(
  x: CsrMatrix,
  y: BinaryCsr,
  W: Float64Array,
  H: Float64Array,
  bias: Float64Array,
  loss: LemlLoss,
  lambda: number,
): { value: number; gradW: Float64Array; gradH: Float64Array; gradBias: Float64Array } {
  const k = Math.max(1, Math.round(H.length / Math.max(1, y.numCols)));
  checkFactors(x, y, k, W, H, bias);
  const n = x.numRows, L = y.numCols;
  const U = new Float64Array(n * k), V = new Float64Array(n * k);
  xTimes(x, W, k, U);
  const gradH = new Float64Array(L * k), gradBias = new Float64Array(L);
  let value = scorePass(U, H, bias, y, k, loss, true, (i, g) => {
    const ub = i * k;
    for (let l = 0; l < L; l++) {
      const gl = g[l];
      if (gl === 0) continue;
      const hb = l * k;
      gradBias[l] += gl;
      for (let c = 0; c < k; c++) {
        V[ub + c] += gl * H[hb + c];
        gradH[hb + c] += gl * U[ub + c];
      }
    }
  });
  const gradW = new Float64Array(W.length);
  for (let a = 0; a < W.length; a++) gradW[a] = lambda * W[a];
  xtTimesAdd(x, V, k, gradW);
  let reg = 0;
  for (let a = 0; a < W.length; a++) reg += W[a] * W[a];
  for (let a = 0; a < H.length; a++) {
    reg += H[a] * H[a];
    gradH[a] += lambda * H[a];
  }
  value += 0.5 * lambda * reg;
  return { value, gradW, gradH, gradBias };
}

/**
 * Trains full-label LEML with any loss of `loss.ts` by alternating MM steps (see the module
 * doc). W starts at zero, H from the same seeded hash as `trainLemlBatch`, each bias at the best
 * constant score of its label (log-odds for the logistic loss, 2p − 1 for the squared hinge,
 * p for the squared loss; p the label's training frequency). Every MM step decreases the
 * objective (up to rounding).
 *
 * @throws {RangeError} on mismatched rows, a bad rank, an index out of range, a `lambda` that
 * is not a finite number >= 0 or `iterations`/`mmSteps` that are not integers >= 0.
 *
 * @example
 * ```ts
 * import { trainLemlLosses } from "./batch_losses.ts";
 * // two rows, two features, two labels: feature j ↔ label j
 * const f = trainLemlLosses(
 *   { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 *   { rank: 2, loss: "logistic", lambda: 0.01, iterations: 10 },
 * );
 * const z = (f2: number, l: number) => f.W[f2 * 2] * f.H[l * 2] + f.W[f2 * 2 + 1] * f.H[l * 2 + 1] + f.bias[l];
 * console.log(z(0, 0) > 0, z(0, 1) < 0, z(1, 1) > 0, z(1, 0) < 0); // true true true true
 * ```
 */
export function trainLemlLosses(
  x: CsrMatrix,
  y: BinaryCsr,
  options: LemlLossBatchOptions,
): LemlFactors {
  const k = options.rank, n = x.numRows, D = x.numCols, L = y.numCols;
  if (!Number.isInteger(k) || k < 1) {
    throw new RangeError(`trainLemlLosses: rank must be a positive integer, got ${k}`);
  }
  if (x.numRows !== y.numRows) {
    throw new RangeError(`trainLemlLosses: x has ${x.numRows} rows but y has ${y.numRows}`);
  }
  for (let p = 0; p < x.indptr[n]; p++) {
    if (!(x.indices[p] >= 0 && x.indices[p] < D)) {
      throw new RangeError(
        `trainLemlLosses: feature index ${x.indices[p]} is out of range [0, ${D})`,
      );
    }
  }
  for (let p = 0; p < y.indptr[n]; p++) {
    if (!(y.indices[p] >= 0 && y.indices[p] < L)) {
      throw new RangeError(
        `trainLemlLosses: label index ${y.indices[p]} is out of range [0, ${L})`,
      );
    }
  }
  const loss = options.loss;
  const lambda = options.lambda ?? 1;
  const iterations = options.iterations ?? 5;
  const mmSteps = options.mmSteps ?? 2;
  const cgOpts = {
    maxIterations: options.cgIterations ?? 10,
    tolerance: options.cgTolerance ?? 1e-4,
  };
  if (!(lambda >= 0 && lambda < Infinity)) {
    throw new RangeError(`trainLemlLosses: lambda must be a finite number >= 0, got ${lambda}`);
  }
  for (const [name, v] of [["iterations", iterations], ["mmSteps", mmSteps]] as const) {
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new RangeError(`trainLemlLosses: ${name} must be an integer >= 0, got ${v}`);
    }
  }
  const useBias = options.bias ?? true;
  const seed = options.seed ?? 0;
  const c = curvatureBound(loss);

  const W = new Float64Array(D * k), H = new Float64Array(L * k), bias = new Float64Array(L);
  const sc = 1 / Math.sqrt(k);
  for (let a = 0; a < L * k; a++) H[a] = sc * hashUniform(seed, Math.floor(a / k), a % k);
  if (useBias) {
    const cnt = new Float64Array(L);
    for (let p = 0; p < y.indptr[n]; p++) cnt[y.indices[p]]++;
    for (let l = 0; l < L; l++) {
      const p = Math.min(1 - 1e-3, Math.max(1e-3, cnt[l] / Math.max(1, n)));
      bias[l] = loss === "logistic" ? Math.log(p / (1 - p)) : loss === "sqhinge" ? 2 * p - 1 : p;
    }
  }
  const colSq = columnSquares(x);
  const U = new Float64Array(n * k), V = new Float64Array(n * k), S = new Float64Array(n * k);
  const objective: number[] = [];
  let cgTotal = 0;
  const lc = lambda / c;

  const wStep = (): void => {
    const M = gram(H, L, k);
    const { values: lam, vectors: P } = symmetricEigen(M, k);
    // a direction p_a with λ_a numerically 0 has H p_a = 0: there the step is exactly
    // Δ'_a = −W p_a (the ridge shrinks it to 0); solving for it would instead amplify the
    // rounding noise of b_a by c/λ, without bound for a tiny λ. Take that step now and leave
    // the direction out of the solves (b_a = 0).
    let lamMax = 0;
    for (let a = 0; a < k; a++) lamMax = Math.max(lamMax, lam[a]);
    const nullTol = k * 2.220446049250313e-16 * lamMax;
    const nullDirs: number[] = [];
    for (let a = 0; a < k; a++) if (lam[a] <= nullTol) nullDirs.push(a);
    for (const a of nullDirs) {
      for (let j = 0; j < D; j++) {
        let wp = 0;
        for (let c2 = 0; c2 < k; c2++) wp += W[j * k + c2] * P[c2 * k + a];
        for (let c2 = 0; c2 < k; c2++) W[j * k + c2] -= wp * P[c2 * k + a];
      }
    }
    for (let s = 0; s < mmSteps; s++) {
      xTimes(x, W, k, U);
      V.fill(0);
      scorePass(U, H, bias, y, k, loss, false, (i, g) => {
        const vb = i * k;
        for (let l = 0; l < L; l++) {
          const gl = g[l];
          if (gl === 0) continue;
          const hb = l * k;
          for (let a = 0; a < k; a++) V[vb + a] += gl * H[hb + a];
        }
      });
      // B = −(Xᵀ G H + λW) / c, rotated: B P
      const grad = new Float64Array(D * k);
      for (let a = 0; a < grad.length; a++) grad[a] = lambda * W[a];
      xtTimesAdd(x, V, k, grad);
      for (let a = 0; a < grad.length; a++) grad[a] = -grad[a] / c;
      const B = matMul(grad, P, D, k, k);
      for (const a of nullDirs) for (let j = 0; j < D; j++) B[j * k + a] = 0;
      const delta = new Float64Array(D * k);
      // (λ_a XᵀX + (λ/c) I) Δ'_a = b_a, then W += Δ' Pᵀ
      cgTotal += rotatedSolve(x, colSq, lam, P, lc, B, delta, S, W, cgOpts);
    }
  };

  const k1 = useBias ? k + 1 : k;
  const A = new Float64Array(k1 * k1), Lf = new Float64Array(k1 * k1);
  const R = new Float64Array(L * k1), step = new Float64Array(k1);
  const hStep = (): void => {
    xTimes(x, W, k, U);
    const G = gram(U, n, k);
    A.fill(0);
    for (let a = 0; a < k; a++) {
      for (let b = 0; b < k; b++) A[a * k1 + b] = c * G[a * k + b];
      A[a * k1 + a] += lambda;
    }
    if (useBias) {
      for (let i = 0; i < n; i++) for (let a = 0; a < k; a++) A[a * k1 + k] += c * U[i * k + a];
      for (let a = 0; a < k; a++) A[k * k1 + a] = A[a * k1 + k];
      A[k * k1 + k] = c * n + 1e-9;
    }
    choleskyFactorShifted(A, k1, Lf);
    for (let s = 0; s < mmSteps; s++) {
      R.fill(0);
      scorePass(U, H, bias, y, k, loss, false, (i, g) => {
        const ub = i * k;
        for (let l = 0; l < L; l++) {
          const gl = g[l];
          if (gl === 0) continue;
          const rb = l * k1;
          for (let a = 0; a < k; a++) R[rb + a] += gl * U[ub + a];
          if (useBias) R[rb + k] += gl;
        }
      });
      for (let l = 0; l < L; l++) {
        const rb = l * k1;
        for (let a = 0; a < k; a++) R[rb + a] = -(R[rb + a] + lambda * H[l * k + a]);
        if (useBias) R[rb + k] = -R[rb + k];
        choleskySolve(Lf, k1, R, step, rb, 0);
        for (let a = 0; a < k; a++) H[l * k + a] += step[a];
        if (useBias) bias[l] += step[k];
      }
    }
  };

  const objectiveNow = (): number => {
    xTimes(x, W, k, U);
    let f = scorePass(U, H, bias, y, k, loss, true, () => {});
    let reg = 0;
    for (let a = 0; a < W.length; a++) reg += W[a] * W[a];
    for (let a = 0; a < H.length; a++) reg += H[a] * H[a];
    f += 0.5 * lambda * reg;
    return f;
  };

  for (let it = 0; it < iterations; it++) {
    wStep();
    hStep();
    const f = options.trackObjective ? objectiveNow() : undefined;
    if (f !== undefined) objective.push(f);
    options.onIteration?.(it + 1, f);
  }
  return { rank: k, numFeatures: D, numLabels: L, W, H, bias, objective, cgIterations: cgTotal };
}
