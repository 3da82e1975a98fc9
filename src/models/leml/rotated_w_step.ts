/**
 * The rotated W step shared by the batch LEML trainers (`batch.ts`: squared loss, Algorithm 2;
 * `batch_losses.ts`: the MM step of the other losses). Both solve, for a right-hand side B (D×k)
 * in the eigenbasis P of HᵀH = P Λ Pᵀ, the block-diagonal system (λ_a XᵀX + s I) w'_a = b_a
 * column by column (Jacobi-preconditioned CG; s the ridge shift), then rotate back W += W' Pᵀ.
 * Also here: the products of the sparse X (n×D, CSR) with row-major float64 factors the trainers
 * are built from. Every loop sums in a fixed order (row, entry, column), so the trainers' results
 * do not depend on where the code lives.
 *
 * @module
 */
import type { CsrMatrix } from "../../data/types.ts";
import { type CgOptions, conjugateGradientColumns } from "../../linalg/cg.ts";

/**
 * out (n×k) = X S (S: D×k); `out` is cleared first.
 *
 * @example
 * ```ts
 * import { xTimes } from "./rotated_w_step.ts";
 * const x = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 2) };
 * const out = new Float64Array(1);
 * xTimes(x, Float64Array.of(3, 4), 1, out);
 * console.log(out[0]); // 11
 * ```
 */
export function xTimes(x: CsrMatrix, s: Float64Array, k: number, out: Float64Array): void {
  out.fill(0);
  const n = x.numRows, ip = x.indptr, ix = x.indices, xv = x.values;
  for (let i = 0; i < n; i++) {
    const ob = i * k;
    for (let p = ip[i]; p < ip[i + 1]; p++) {
      const v = xv[p], sb = ix[p] * k;
      for (let c = 0; c < k; c++) out[ob + c] += v * s[sb + c];
    }
  }
}

/**
 * out (D×k) += Xᵀ V (V: n×k); `out` is not cleared.
 *
 * @example
 * ```ts
 * import { xtTimesAdd } from "./rotated_w_step.ts";
 * const x = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 2) };
 * const out = Float64Array.of(1, 1);
 * xtTimesAdd(x, Float64Array.of(3), 1, out);
 * console.log(Array.from(out)); // [ 4, 7 ]
 * ```
 */
export function xtTimesAdd(x: CsrMatrix, v: Float64Array, k: number, out: Float64Array): void {
  const n = x.numRows, ip = x.indptr, ix = x.indices, xv = x.values;
  for (let i = 0; i < n; i++) {
    const vb = i * k;
    for (let p = ip[i]; p < ip[i + 1]; p++) {
      const a = xv[p], ob = ix[p] * k;
      for (let c = 0; c < k; c++) out[ob + c] += a * v[vb + c];
    }
  }
}

/**
 * The squared column norms Σ_i x_ij² of X (length D).
 *
 * @example
 * ```ts
 * import { columnSquares } from "./rotated_w_step.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 0), values: Float32Array.of(1, 2) };
 * console.log(Array.from(columnSquares(x))); // [ 5, 0 ]
 * ```
 */
export function columnSquares(x: CsrMatrix): Float64Array {
  const colSq = new Float64Array(x.numCols);
  const nnz = x.indptr[x.numRows];
  for (let p = 0; p < nnz; p++) colSq[x.indices[p]] += x.values[p] * x.values[p];
  return colSq;
}

/** The Jacobi preconditioner (D×k) of the rotated system: max(λ_a, 0)·colSq_j + s, or 1 where ≤ 0. */
function rotatedDiagonal(lam: Float64Array, colSq: Float64Array, shift: number): Float64Array {
  const D = colSq.length, k = lam.length;
  const diagonal = new Float64Array(D * k);
  for (let j = 0; j < D; j++) {
    for (let a = 0; a < k; a++) {
      const d = Math.max(lam[a], 0) * colSq[j] + shift;
      diagonal[j * k + a] = d > 0 ? d : 1;
    }
  }
  return diagonal;
}

/**
 * The rotated solve and the rotation back: with HᵀH = P Λ Pᵀ (`lam` = Λ's k values, `P` the k×k
 * eigenvectors), solves (λ_a XᵀX + s I) w'_a = b_a for every column a of the D×k matrices `b`
 * and `wr` by column-wise CG, Jacobi-preconditioned by λ_a·colSq_j + s (`colSq` from
 * {@linkcode columnSquares}), starting from `wr`, which receives W'; then adds W' Pᵀ to `W`
 * (D×k). `scratch` is n×k work space. Returns the CG iterations.
 *
 * @example
 * ```ts
 * import { columnSquares, rotatedSolve } from "./rotated_w_step.ts";
 * // one row, one feature of value 2, k = 1, P = [1]: (1·4 + 1) w = 10
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(2) };
 * const wr = new Float64Array(1), W = Float64Array.of(0.5);
 * const lam = Float64Array.of(1), P = Float64Array.of(1);
 * rotatedSolve(x, columnSquares(x), lam, P, 1, Float64Array.of(10), wr, new Float64Array(1), W, {
 *   maxIterations: 5,
 * });
 * console.log(wr[0], W[0]); // 2 2.5
 * ```
 */
export function rotatedSolve(
  x: CsrMatrix,
  colSq: Float64Array,
  lam: Float64Array,
  P: Float64Array,
  shift: number,
  b: Float64Array,
  wr: Float64Array,
  scratch: Float64Array,
  W: Float64Array,
  options: CgOptions,
): number {
  const n = x.numRows, D = x.numCols, k = lam.length;
  const res = conjugateGradientColumns(
    (s, out) => {
      xTimes(x, s, k, scratch);
      for (let i = 0; i < n; i++) for (let a = 0; a < k; a++) scratch[i * k + a] *= lam[a];
      for (let a = 0; a < out.length; a++) out[a] = shift * s[a];
      xtTimesAdd(x, scratch, k, out);
    },
    b,
    wr,
    D,
    k,
    { ...options, diagonal: rotatedDiagonal(lam, colSq, shift) },
  );
  // W += W' Pᵀ
  for (let j = 0; j < D; j++) {
    for (let a = 0; a < k; a++) {
      const v = wr[j * k + a];
      if (v === 0) continue;
      for (let cc = 0; cc < k; cc++) W[j * k + cc] += v * P[cc * k + a];
    }
  }
  return res.iterations;
}
