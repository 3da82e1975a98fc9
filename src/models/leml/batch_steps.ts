/**
 * The steps of batch LEML's alternating minimisation (./batch.ts): the W step and the H step,
 * each in two forms (squared loss with full labels through Gram matrices, Algorithm 2 of the
 * paper; any loss or missing labels over the observed entries, Algorithm 1), and the objective.
 * They work in place on the factors and scratch of a {@linkcode BatchProblem}.
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../../data/types.ts";
import { conjugateGradient } from "../../linalg/cg.ts";
import { choleskyFactorShifted, choleskySolve } from "../../linalg/cholesky.ts";
import { gram, matMul, symmetricEigen } from "../../linalg/dense.ts";
import { rotatedSolve, xTimes, xtTimesAdd } from "./rotated_w_step.ts";
import { type LemlLoss, lossCurvature, lossGrad, lossValue } from "./loss.ts";
import type { Omega } from "./omega.ts";

/**
 * One batch LEML problem: the data, the settings, the factors being learned (W: D×k, H: L×k,
 * bias: L, row-major, updated in place) and the scratch the steps share.
 *
 * @example
 * ```ts
 * import type { BatchProblem } from "./batch_steps.ts";
 * function rankOf(p: BatchProblem): number { return p.k; }
 * console.log(typeof rankOf); // function
 * ```
 */
export interface BatchProblem {
  /** Rows (n × D). */
  readonly x: CsrMatrix;
  /** Labels (n × L). */
  readonly y: BinaryCsr;
  /** Rank. */
  readonly k: number;
  /** Rows. */
  readonly n: number;
  /** Features. */
  readonly D: number;
  /** Labels. */
  readonly L: number;
  /** λ of the summed objective. */
  readonly lambda: number;
  /** The loss. */
  readonly loss: LemlLoss;
  /** Whether a per-label bias is learned. */
  readonly useBias: boolean;
  /** Newton steps per W step and per label row for the non-squared losses. */
  readonly newtonSteps: number;
  /** CG iteration cap and relative tolerance. */
  readonly cgOpts: { maxIterations: number; tolerance: number };
  /** The observed entries (undefined on the Gram path: squared loss, full labels). */
  readonly omega: Omega | undefined;
  /** W (D × k). */
  readonly W: Float64Array;
  /** H (L × k). */
  readonly H: Float64Array;
  /** The per-label bias. */
  readonly bias: Float64Array;
  /** Scratch n × k (X W). */
  readonly U: Float64Array;
  /** Scratch n × k. */
  readonly V: Float64Array;
  /** k + 1 with a bias, else k: the size of a label row's system. */
  readonly k1: number;
  /** A label row's system matrix (k1 × k1). */
  readonly A: Float64Array;
  /** Its Cholesky factor. */
  readonly Lf: Float64Array;
  /** A label row's right-hand side. */
  readonly rhs: Float64Array;
  /** A label row [h_l; b_l]. */
  readonly theta: Float64Array;
  /** Squared column norms of X (the W step's Jacobi preconditioner). */
  readonly colSq: Float64Array;
  /** Curvature per observed entry (Algorithm 1's W step). */
  readonly curv: Float64Array;
}

/**
 * The objective Σ_{(i,l)∈Ω} ℓ(y_il, x_iᵀW h_l + b_l) + λ/2(‖W‖² + ‖H‖²) at the current factors
 * (on the Gram path without visiting n × L). Overwrites the scratch U.
 *
 * @example
 * ```ts
 * import { trainLemlBatch } from "./batch.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const y = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
 * const f = trainLemlBatch(x, y, { rank: 1, iterations: 2, trackObjective: true }); // calls objectiveOf
 * console.log(f.objective.length); // 2
 * ```
 */
export function objectiveOf(prob: BatchProblem): number {
  const { x, y, k, n, L, lambda, loss, omega, W, H, bias, U } = prob;
  xTimes(x, W, k, U);
  let f = 0;
  if (omega) {
    for (let i = 0; i < n; i++) {
      for (let e = omega.rowPtr[i]; e < omega.rowPtr[i + 1]; e++) {
        const l = omega.label[e];
        let z = bias[l];
        for (let c = 0; c < k; c++) z += U[i * k + c] * H[l * k + c];
        f += lossValue(loss, z, omega.target[e]);
      }
    }
  } else {
    // ½Σ_i ‖H u_i + b‖² − Σ_{(i,l)∈Y} z_il + ½ nnz(Y)
    const M = gram(H, L, k);
    const hb = new Float64Array(k);
    let bb = 0;
    for (let l = 0; l < L; l++) {
      bb += bias[l] * bias[l];
      for (let c = 0; c < k; c++) hb[c] += H[l * k + c] * bias[l];
    }
    for (let i = 0; i < n; i++) {
      const ub = i * k;
      let q = bb;
      for (let a = 0; a < k; a++) {
        let mu = 2 * hb[a];
        for (let c = 0; c < k; c++) mu += M[a * k + c] * U[ub + c];
        q += U[ub + a] * mu;
      }
      f += 0.5 * q;
      for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) {
        const l = y.indices[p];
        let z = bias[l];
        for (let c = 0; c < k; c++) z += U[ub + c] * H[l * k + c];
        f += 0.5 - z;
      }
    }
  }
  let reg = 0;
  for (let a = 0; a < W.length; a++) reg += W[a] * W[a];
  for (let a = 0; a < H.length; a++) reg += H[a] * H[a];
  return f + 0.5 * lambda * reg;
}

/**
 * The W step for the squared loss with full labels (Algorithm 2): the system
 * XᵀX W (HᵀH) + λW = Xᵀ(YH − 1bᵀH), rotated into the eigenbasis of HᵀH where it is
 * block-diagonal by column, solved by column-wise CG warm-started from the current W. Returns
 * the CG iterations used.
 *
 * @example
 * ```ts
 * import { trainLemlBatch } from "./batch.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const y = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
 * console.log(trainLemlBatch(x, y, { rank: 1, iterations: 1 }).cgIterations > 0); // true
 * ```
 */
export function wStepGram(prob: BatchProblem): number {
  const { x, y, k, n, D, L, lambda, useBias, cgOpts, W, H, bias, U, V, colSq } = prob;
  const M = gram(H, L, k);
  const { values: lam, vectors: P } = symmetricEigen(M, k);
  const Ht = matMul(H, P, L, k, k); // H P
  const c = new Float64Array(k);
  for (let l = 0; l < L; l++) for (let a = 0; a < k; a++) c[a] += Ht[l * k + a] * bias[l];
  // T_i = Σ_{l∈y_i} h̃_l − c ; B = Xᵀ T
  for (let i = 0; i < n; i++) {
    const tb = i * k;
    for (let a = 0; a < k; a++) V[tb + a] = useBias ? -c[a] : 0;
    for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) {
      const hb = y.indices[p] * k;
      for (let a = 0; a < k; a++) V[tb + a] += Ht[hb + a];
    }
  }
  const B = new Float64Array(D * k);
  xtTimesAdd(x, V, k, B);
  const Wr = matMul(W, P, D, k, k); // warm start W' = W P
  // a direction p_a with λ_a numerically 0 (HᵀH singular: fewer labels than the rank, labels
  // no row has, every row with the same labels) has H p_a = 0, so b_a = 0 and w'_a = 0 exactly;
  // what B holds there is rounding noise, which 1/λ would amplify without bound for a tiny λ
  // (each alternating step multiplying W, until it overflowed into NaN scores)
  let lamMax = 0;
  for (let a = 0; a < k; a++) lamMax = Math.max(lamMax, lam[a]);
  const nullTol = k * 2.220446049250313e-16 * lamMax;
  for (let a = 0; a < k; a++) {
    if (lam[a] > nullTol) continue;
    for (let j = 0; j < D; j++) B[j * k + a] = Wr[j * k + a] = 0;
  }
  // the rotated system is block-diagonal by column: (λ_a XᵀX + λI) w'_a = b_a, solved by
  // column-wise CG with the Jacobi preconditioner λ_a Σ_i x_ij² + λ; then W = W' Pᵀ
  W.fill(0);
  return rotatedSolve(x, colSq, lam, P, lambda, B, Wr, U, W, cgOpts);
}

/** The W step's objective at `Wc` (over the observed entries); overwrites the scratch V. */
function wObjective(prob: BatchProblem, Wc: Float64Array): number {
  const { x, k, n, lambda, loss, omega, H, bias, V } = prob;
  xTimes(x, Wc, k, V);
  let f = 0;
  const om = omega!;
  for (let i = 0; i < n; i++) {
    for (let e = om.rowPtr[i]; e < om.rowPtr[i + 1]; e++) {
      const l = om.label[e];
      let z = bias[l];
      for (let c = 0; c < k; c++) z += V[i * k + c] * H[l * k + c];
      f += lossValue(loss, z, om.target[e]);
    }
  }
  let reg = 0;
  for (let a = 0; a < Wc.length; a++) reg += Wc[a] * Wc[a];
  return f + 0.5 * lambda * reg;
}

/**
 * The W step for any loss or missing labels (Algorithm 1): Newton-CG with Hessian-vector
 * products accumulated over the observed entries only (one exact step for the squared loss,
 * `newtonSteps` with a backtracking line search otherwise). Returns the CG iterations used.
 *
 * @example
 * ```ts
 * import { trainLemlBatch } from "./batch.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const y = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
 * console.log(trainLemlBatch(x, y, { rank: 1, iterations: 1, loss: "logistic" }).cgIterations > 0); // true
 * ```
 */
export function wStepGeneral(prob: BatchProblem): number {
  const { x, k, n, D, lambda, loss, newtonSteps, cgOpts, omega, W, H, bias, U, V, curv } = prob;
  const om = omega!;
  let cg = 0;
  const steps = loss === "squared" ? 1 : newtonSteps;
  for (let s = 0; s < steps; s++) {
    xTimes(x, W, k, U);
    // D_i = Σ_l ℓ'(z) h_l, curvature per entry
    V.fill(0);
    for (let i = 0; i < n; i++) {
      const ub = i * k;
      for (let e = om.rowPtr[i]; e < om.rowPtr[i + 1]; e++) {
        const l = om.label[e], hb = l * k;
        let z = bias[l];
        for (let c = 0; c < k; c++) z += U[ub + c] * H[hb + c];
        const g = lossGrad(loss, z, om.target[e]);
        curv[e] = lossCurvature(loss, z, om.target[e]);
        if (g !== 0) { for (let c = 0; c < k; c++) V[ub + c] += g * H[hb + c]; }
      }
    }
    const grad = new Float64Array(D * k);
    for (let a = 0; a < grad.length; a++) grad[a] = lambda * W[a];
    xtTimesAdd(x, V, k, grad);
    for (let a = 0; a < grad.length; a++) grad[a] = -grad[a];
    const dir = new Float64Array(D * k);
    const res = conjugateGradient(
      (sv, out) => {
        xTimes(x, sv, k, U);
        V.fill(0);
        for (let i = 0; i < n; i++) {
          const ub = i * k;
          for (let e = om.rowPtr[i]; e < om.rowPtr[i + 1]; e++) {
            const cu = curv[e];
            if (cu === 0) continue;
            const hb = om.label[e] * k;
            let t = 0;
            for (let c = 0; c < k; c++) t += U[ub + c] * H[hb + c];
            t *= cu;
            for (let c = 0; c < k; c++) V[ub + c] += t * H[hb + c];
          }
        }
        for (let a = 0; a < out.length; a++) out[a] = lambda * sv[a];
        xtTimesAdd(x, V, k, out);
      },
      grad,
      dir,
      cgOpts,
    );
    cg += res.iterations;
    if (loss === "squared") {
      for (let a = 0; a < W.length; a++) W[a] += dir[a];
      continue;
    }
    // backtracking line search (Armijo) on the W objective
    const f0 = wObjective(prob, W);
    let slope = 0;
    for (let a = 0; a < dir.length; a++) slope -= grad[a] * dir[a]; // ∇f·d (grad holds −∇f)
    const trial = new Float64Array(W.length);
    let alpha = 1;
    for (let t = 0; t < 20; t++, alpha *= 0.5) {
      for (let a = 0; a < W.length; a++) trial[a] = W[a] + alpha * dir[a];
      if (wObjective(prob, trial) <= f0 + 1e-4 * alpha * slope) {
        W.set(trial);
        break;
      }
    }
  }
  return cg;
}

/**
 * The H step for the squared loss with full labels: every label row [h_l; b_l] solved exactly
 * from one shared (k+1)×(k+1) system (UᵀU + λ, U = X W) by its Cholesky factor.
 *
 * @example
 * ```ts
 * import { trainLemlBatch } from "./batch.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const y = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
 * console.log(trainLemlBatch(x, y, { rank: 1, iterations: 1 }).H.length); // 1
 * ```
 */
export function hStepGram(prob: BatchProblem): void {
  const { x, y, k, n, L, lambda, useBias, W, H, bias, U, k1, A, Lf, theta } = prob;
  xTimes(x, W, k, U);
  A.fill(0);
  const G = gram(U, n, k);
  for (let a = 0; a < k; a++) {
    for (let c = 0; c < k; c++) A[a * k1 + c] = G[a * k + c];
    A[a * k1 + a] += lambda;
  }
  if (useBias) {
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < k; a++) A[a * k1 + k] += U[i * k + a];
    }
    for (let a = 0; a < k; a++) A[k * k1 + a] = A[a * k1 + k];
    A[k * k1 + k] = n + 1e-9;
  }
  choleskyFactorShifted(A, k1, Lf);
  // R_l = Σ_{i: l∈y_i} ũ_i
  const R = new Float64Array(L * k1);
  for (let i = 0; i < n; i++) {
    for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) {
      const rb = y.indices[p] * k1;
      for (let a = 0; a < k; a++) R[rb + a] += U[i * k + a];
      if (useBias) R[rb + k] += 1;
    }
  }
  for (let l = 0; l < L; l++) {
    choleskySolve(Lf, k1, R, theta, l * k1, 0);
    for (let a = 0; a < k; a++) H[l * k + a] = theta[a];
    if (useBias) bias[l] = theta[k];
  }
}

/**
 * The H step for any loss or missing labels: each label row from a (k+1)×(k+1) system over its
 * observed rows (exact for the squared loss, `newtonSteps` damped Newton steps otherwise).
 *
 * @example
 * ```ts
 * import { trainLemlBatch } from "./batch.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const y = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
 * console.log(trainLemlBatch(x, y, { rank: 1, iterations: 1, loss: "logistic" }).bias.length); // 2
 * ```
 */
export function hStepGeneral(prob: BatchProblem): void {
  const { x, k, L, lambda, loss, useBias, newtonSteps, omega, W, H, bias, U } = prob;
  const { k1, A, Lf, rhs, theta } = prob;
  const om = omega!;
  xTimes(x, W, k, U);
  const steps = loss === "squared" ? 1 : newtonSteps;
  const labelObjective = (l: number, th: Float64Array): number => {
    let f = 0;
    for (let e = om.colPtr[l]; e < om.colPtr[l + 1]; e++) {
      const ub = om.colRow[e] * k;
      let z = useBias ? th[k] : 0;
      for (let c = 0; c < k; c++) z += U[ub + c] * th[c];
      f += lossValue(loss, z, om.colTarget[e]);
    }
    let r = 0;
    for (let c = 0; c < k; c++) r += th[c] * th[c];
    return f + 0.5 * lambda * r;
  };
  const trial = new Float64Array(k1);
  for (let l = 0; l < L; l++) {
    for (let a = 0; a < k; a++) theta[a] = H[l * k + a];
    if (useBias) theta[k] = bias[l];
    for (let s = 0; s < steps; s++) {
      A.fill(0);
      rhs.fill(0);
      for (let e = om.colPtr[l]; e < om.colPtr[l + 1]; e++) {
        const ub = om.colRow[e] * k, t = om.colTarget[e];
        let z = useBias ? theta[k] : 0;
        for (let c = 0; c < k; c++) z += U[ub + c] * theta[c];
        const g = loss === "squared" ? -t : lossGrad(loss, z, t);
        const cu = loss === "squared" ? 1 : lossCurvature(loss, z, t);
        for (let a = 0; a < k; a++) {
          const ua = U[ub + a];
          rhs[a] -= g * ua;
          if (cu !== 0) { for (let c = a; c < k; c++) A[a * k1 + c] += cu * ua * U[ub + c]; }
        }
        if (useBias) {
          rhs[k] -= g;
          for (let a = 0; a < k; a++) A[a * k1 + k] += cu * U[ub + a];
          A[k * k1 + k] += cu;
        }
      }
      for (let a = 0; a < k1; a++) for (let c = 0; c < a; c++) A[a * k1 + c] = A[c * k1 + a];
      for (let a = 0; a < k; a++) A[a * k1 + a] += lambda;
      if (useBias) A[k * k1 + k] += 1e-9;
      choleskyFactorShifted(A, k1, Lf);
      if (loss === "squared") {
        // exact: (Σũũᵀ + λ) θ = Σ y ũ
        choleskySolve(Lf, k1, rhs, theta);
        break;
      }
      // Newton direction: rhs currently holds −Σℓ'ũ; subtract λh for the full gradient
      for (let a = 0; a < k; a++) rhs[a] -= lambda * theta[a];
      const d = choleskySolve(Lf, k1, rhs);
      const f0 = labelObjective(l, theta);
      let slope = 0;
      for (let a = 0; a < k1; a++) slope -= rhs[a] * d[a];
      let alpha = 1;
      for (let t = 0; t < 20; t++, alpha *= 0.5) {
        for (let a = 0; a < k1; a++) trial[a] = theta[a] + alpha * d[a];
        if (labelObjective(l, trial) <= f0 + 1e-4 * alpha * slope) {
          theta.set(trial);
          break;
        }
      }
    }
    for (let a = 0; a < k; a++) H[l * k + a] = theta[a];
    if (useBias) bias[l] = theta[k];
  }
}
