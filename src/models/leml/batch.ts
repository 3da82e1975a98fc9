/**
 * Batch LEML by alternating minimisation (Yu et al. 2014, Section 3) of
 * Σ_{(i,l)∈Ω} ℓ(y_il, x_iᵀW h_l + b_l) + λ/2(‖W‖² + ‖H‖²)  (the bias b is not regularised):
 *
 * - **H step**: every label row [h_l; b_l] solved exactly from a (k+1)×(k+1) system: one shared
 *   Gram matrix for the squared loss with full labels (cost O(n·k² + nnz(Y)·k + L·k³)), a
 *   per-label Gram over its observed rows for missing labels (O(|Ω|·k²)), a few damped Newton
 *   steps on the same small systems for the logistic and squared hinge losses.
 * - **W step**: conjugate gradient on the Newton system with Hessian-vector products.
 *   Squared loss, full labels (Algorithm 2): the system XᵀX W (HᵀH) + λW = Xᵀ(YH − 1bᵀH) is
 *   rotated into the eigenbasis P of the k×k matrix HᵀH (W' = WP), where the Hessian-vector
 *   product is Xᵀ(X S)Λ + λS: O(nnz(X)·k) per CG iteration, never touching n×L.
 *   General loss or missing labels (Algorithm 1): gradient Xᵀ D + λW and Hessian-vector product
 *   Xᵀ A + λS with D, A accumulated over Ω only: O((nnz(X) + |Ω|)·k) per CG iteration; Newton
 *   steps with a backtracking line search for the non-quadratic losses.
 *
 * Departures from the paper (exact H rows instead of CG, damped Newton-CG instead of TRON, an
 * unregularised per-label bias, the full-label logistic / squared-hinge trainer in
 * `batch_losses.ts`), their reasons and measured effects: docs/deviations.md, "LEML".
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../../data/types.ts";
import { conjugateGradient } from "../../linalg/cg.ts";
import { choleskyFactor, choleskySolve } from "../../linalg/cholesky.ts";
import { gram, matMul, symmetricEigen } from "../../linalg/dense.ts";
import { columnSquares, rotatedSolve, xTimes, xtTimesAdd } from "./rotated_w_step.ts";
import { type LemlLoss, lossCurvature, lossGrad, lossValue } from "./loss.ts";
import { hashUniform } from "../../linalg/rng.ts";

/**
 * Options of {@linkcode trainLemlBatch}.
 *
 * @example
 * ```ts
 * import type { LemlBatchOptions } from "./batch.ts";
 * const o: LemlBatchOptions = { rank: 8, lambda: 1, iterations: 5 };
 * console.log(o.rank); // 8
 * ```
 */
export interface LemlBatchOptions {
  /** Rank k. */
  rank: number;
  /** Regularisation λ of the summed objective (default 1). */
  lambda?: number;
  /** Loss (default "squared"). */
  loss?: LemlLoss;
  /** Alternating iterations (W step then H step; default 10). */
  iterations?: number;
  /** CG iteration cap per Newton system (default 30). */
  cgIterations?: number;
  /** CG relative tolerance (default 1e-4). */
  cgTolerance?: number;
  /** Newton steps per W step and per label row for non-squared losses (default 2). */
  newtonSteps?: number;
  /** Learn a per-label bias (default true). */
  bias?: boolean;
  /** Seed of the initial H (default 0). */
  seed?: number;
  /** Observed entries per row (positives are always observed); absent: all observed. */
  observed?: BinaryCsr;
  /** With `observed`: 1 where a row is fully observed. */
  fullyObserved?: Uint8Array;
  /** Warm start (sizes may be smaller than the data's: missing rows are initialised). */
  init?: { W: ArrayLike<number>; H: ArrayLike<number>; bias: ArrayLike<number> };
  /** Compute the objective after every iteration (costs one extra pass; default false). */
  trackObjective?: boolean;
  /** Called after every iteration. */
  onIteration?: (iteration: number, objective: number | undefined) => void;
}

/**
 * Learned factors: W (D×k), H (L×k), bias (L), row-major float64.
 *
 * @example
 * ```ts
 * import type { LemlFactors } from "./batch.ts";
 * function rankOf(f: LemlFactors): number { return f.rank; }
 * console.log(typeof rankOf); // "function"
 * ```
 */
export interface LemlFactors {
  rank: number;
  numFeatures: number;
  numLabels: number;
  W: Float64Array;
  H: Float64Array;
  bias: Float64Array;
  /** Objective after each iteration (when tracked). */
  objective: number[];
  /** CG iterations used in total. */
  cgIterations: number;
}

/** Observed entries as CSR by row and by column, with 0/1 targets. */
interface Omega {
  rowPtr: Int32Array;
  label: Int32Array;
  target: Uint8Array;
  colPtr: Int32Array;
  colRow: Int32Array;
  colTarget: Uint8Array;
}

function buildOmega(
  y: BinaryCsr,
  L: number,
  observed: BinaryCsr | undefined,
  full: Uint8Array | undefined,
): Omega {
  const n = y.numRows;
  const isFull = (i: number) => !observed || (full !== undefined && full[i] === 1);
  const rowPtr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    let c: number;
    if (isFull(i)) c = L;
    else {
      c = 0;
      let p = y.indptr[i], q = observed!.indptr[i];
      const p1 = y.indptr[i + 1], q1 = observed!.indptr[i + 1];
      while (p < p1 || q < q1) {
        const a = p < p1 ? y.indices[p] : Infinity, b = q < q1 ? observed!.indices[q] : Infinity;
        if (a <= b) p++;
        if (b <= a) q++;
        c++;
      }
    }
    rowPtr[i + 1] = rowPtr[i] + c;
  }
  const nnz = rowPtr[n];
  const label = new Int32Array(nnz), target = new Uint8Array(nnz);
  for (let i = 0; i < n; i++) {
    let e = rowPtr[i];
    const p1 = y.indptr[i + 1];
    if (isFull(i)) {
      let p = y.indptr[i];
      for (let l = 0; l < L; l++) {
        label[e] = l;
        if (p < p1 && y.indices[p] === l) {
          target[e] = 1;
          p++;
        }
        e++;
      }
      continue;
    }
    let p = y.indptr[i], q = observed!.indptr[i];
    const q1 = observed!.indptr[i + 1];
    while (p < p1 || q < q1) {
      const a = p < p1 ? y.indices[p] : Infinity, b = q < q1 ? observed!.indices[q] : Infinity;
      if (a <= b) {
        label[e] = a;
        target[e++] = 1;
        p++;
        if (a === b) q++;
      } else {
        label[e] = b;
        target[e++] = 0;
        q++;
      }
    }
  }
  const colPtr = new Int32Array(L + 1);
  for (let e = 0; e < nnz; e++) colPtr[label[e] + 1]++;
  for (let l = 0; l < L; l++) colPtr[l + 1] += colPtr[l];
  const fill = colPtr.slice(0, L);
  const colRow = new Int32Array(nnz), colTarget = new Uint8Array(nnz);
  for (let i = 0; i < n; i++) {
    for (let e = rowPtr[i]; e < rowPtr[i + 1]; e++) {
      const d = fill[label[e]]++;
      colRow[d] = i;
      colTarget[d] = target[e];
    }
  }
  return { rowPtr, label, target, colPtr, colRow, colTarget };
}

function checkInputs(x: CsrMatrix, y: BinaryCsr, o: LemlBatchOptions): void {
  if (x.numRows !== y.numRows) {
    throw new RangeError(`trainLemlBatch: x has ${x.numRows} rows but y has ${y.numRows}`);
  }
  if (o.observed && o.observed.numRows !== x.numRows) {
    throw new RangeError(`trainLemlBatch: observed has ${o.observed.numRows} rows, x ${x.numRows}`);
  }
  if (!Number.isInteger(o.rank) || o.rank < 1) {
    throw new RangeError(`trainLemlBatch: rank must be a positive integer, got ${o.rank}`);
  }
  for (let p = 0; p < x.indices.length; p++) {
    if (x.indices[p] < 0 || x.indices[p] >= x.numCols) {
      throw new RangeError(
        `trainLemlBatch: feature index ${x.indices[p]} is out of range [0, ${x.numCols})`,
      );
    }
  }
  for (let p = 0; p < y.indices.length; p++) {
    if (y.indices[p] < 0 || y.indices[p] >= y.numCols) {
      throw new RangeError(
        `trainLemlBatch: label index ${y.indices[p]} is out of range [0, ${y.numCols})`,
      );
    }
  }
}

/**
 * Trains LEML by alternating minimisation (see the module doc).
 *
 * @example
 * ```ts
 * import { trainLemlBatch } from "./batch.ts";
 * // two rows, two features, two labels: feature j ↔ label j
 * const f = trainLemlBatch(
 *   { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 *   { rank: 2, lambda: 0.01, bias: false },
 * );
 * const z00 = f.W[0] * f.H[0] + f.W[1] * f.H[1], z01 = f.W[0] * f.H[2] + f.W[1] * f.H[3];
 * console.log(z00 > 0.9, Math.abs(z01) < 0.1); // true true
 * ```
 */
export function trainLemlBatch(
  x: CsrMatrix,
  y: BinaryCsr,
  options: LemlBatchOptions,
): LemlFactors {
  checkInputs(x, y, options);
  const k = options.rank, n = x.numRows, D = x.numCols, L = y.numCols;
  const lambda = options.lambda ?? 1;
  const loss = options.loss ?? "squared";
  const iterations = options.iterations ?? 10;
  const cgOpts = {
    maxIterations: options.cgIterations ?? 30,
    tolerance: options.cgTolerance ?? 1e-4,
  };
  const newtonSteps = options.newtonSteps ?? 2;
  const useBias = options.bias ?? true;
  const seed = options.seed ?? 0;
  const gramPath = loss === "squared" && !options.observed;
  const omega = gramPath ? undefined : buildOmega(y, L, options.observed, options.fullyObserved);

  // ---- initial factors ----
  const W = new Float64Array(D * k), H = new Float64Array(L * k), bias = new Float64Array(L);
  const init = options.init;
  const w0 = init ? Math.min(init.W.length, D * k) : 0;
  for (let a = 0; a < w0; a++) W[a] = init!.W[a];
  const h0 = init ? Math.min(init.H.length, L * k) : 0;
  for (let a = 0; a < h0; a++) H[a] = init!.H[a];
  const sc = 1 / Math.sqrt(k);
  for (let a = h0; a < L * k; a++) H[a] = sc * hashUniform(seed, Math.floor(a / k), a % k);
  const b0 = init ? Math.min(init.bias.length, L) : 0;
  for (let l = 0; l < b0; l++) bias[l] = init!.bias[l];
  if (useBias && loss === "squared" && b0 < L) {
    // start from the observed label frequency
    const cnt = new Float64Array(L), tot = new Float64Array(L);
    if (omega) {
      for (let e = 0; e < omega.label.length; e++) {
        tot[omega.label[e]]++;
        cnt[omega.label[e]] += omega.target[e];
      }
    } else {
      for (let p = 0; p < y.indptr[n]; p++) cnt[y.indices[p]]++;
      tot.fill(n);
    }
    for (let l = b0; l < L; l++) bias[l] = tot[l] > 0 ? cnt[l] / tot[l] : 0;
  }

  const U = new Float64Array(n * k), V = new Float64Array(n * k);
  const objective: number[] = [];
  let cgTotal = 0;
  const k1 = useBias ? k + 1 : k;
  const A = new Float64Array(k1 * k1), Lf = new Float64Array(k1 * k1);
  const rhs = new Float64Array(k1), theta = new Float64Array(k1);

  const objectiveNow = (): number => {
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
  };

  // squared column norms of X (Jacobi preconditioner of the W step)
  const colSq = columnSquares(x);

  // ---- W step, squared loss with full labels (Algorithm 2, rotated) ----
  const wStepGram = (): void => {
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
    // the rotated system is block-diagonal by column: (λ_a XᵀX + λI) w'_a = b_a, solved by
    // column-wise CG with the Jacobi preconditioner λ_a Σ_i x_ij² + λ; then W = W' Pᵀ
    W.fill(0);
    cgTotal += rotatedSolve(x, colSq, lam, P, lambda, B, Wr, U, W, cgOpts);
  };

  // ---- W step, general loss / missing labels (Algorithm 1) ----
  const curv = omega ? new Float64Array(omega.label.length) : new Float64Array(0);
  const wObjective = (Wc: Float64Array): number => {
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
  };
  const wStepGeneral = (): void => {
    const om = omega!;
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
      cgTotal += res.iterations;
      if (loss === "squared") {
        for (let a = 0; a < W.length; a++) W[a] += dir[a];
        continue;
      }
      // backtracking line search (Armijo) on the W objective
      const f0 = wObjective(W);
      let slope = 0;
      for (let a = 0; a < dir.length; a++) slope -= grad[a] * dir[a]; // ∇f·d (grad holds −∇f)
      const trial = new Float64Array(W.length);
      let alpha = 1;
      for (let t = 0; t < 20; t++, alpha *= 0.5) {
        for (let a = 0; a < W.length; a++) trial[a] = W[a] + alpha * dir[a];
        if (wObjective(trial) <= f0 + 1e-4 * alpha * slope) {
          W.set(trial);
          break;
        }
      }
    }
  };

  // ---- H step ----
  const hStepGram = (): void => {
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
    choleskyFactor(A, k1, Lf);
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
  };

  const hStepGeneral = (): void => {
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
        choleskyFactor(A, k1, Lf);
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
  };

  for (let it = 0; it < iterations; it++) {
    if (gramPath) wStepGram();
    else wStepGeneral();
    if (gramPath) hStepGram();
    else hStepGeneral();
    const f = options.trackObjective ? objectiveNow() : undefined;
    if (f !== undefined) objective.push(f);
    options.onIteration?.(it + 1, f);
  }
  return { rank: k, numFeatures: D, numLabels: L, W, H, bias, objective, cgIterations: cgTotal };
}
