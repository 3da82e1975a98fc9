/**
 * PSP@k of label-major sparse weights on a validation set: the performance function POP's
 * binary search evaluates (PSP as reported by src/metrics: percent of the best achievable).
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../data/types.ts";
import { type LabelWeights, toFeatureMajor } from "../models/label_weights.ts";
import { biasOrderOf } from "../models/linear_sparse_file.ts";
import { PspAtK } from "../metrics/psp.ts";
import { type TopK, topKTouched } from "../../sdk/internal.ts";

/**
 * Labelled validation rows (a `Dataset` fits).
 *
 * @example
 * ```ts
 * import type { ValidationRows } from "./validation.ts";
 * const v: ValidationRows = {
 *   x: { numRows: 0, numCols: 1, indptr: Int32Array.of(0), indices: new Int32Array(0), values: new Float32Array(0) },
 *   y: { numRows: 0, numCols: 1, indptr: Int32Array.of(0), indices: new Int32Array(0) },
 * };
 * console.log(v.x.numRows); // 0
 * ```
 */
export interface ValidationRows {
  readonly x: CsrMatrix;
  readonly y: BinaryCsr;
}

/**
 * PSP@k (percent, one per entry of `ks`) of `w` on the validation rows.
 *
 * Each row's top k is exact (the answer of `topKDense` over every label's score) but found as the
 * SDK's `linear-sparse` scorer finds it: the row's feature postings score the labels it touches,
 * every other label scores its bias, and those are walked by decreasing bias only until they
 * cannot beat the k-th best ({@linkcode sparseTopK}). So a row costs its postings plus about k,
 * not one score per label: at 10⁵ labels a POP search no longer scores every label of every
 * validation row.
 *
 * @param propensities one propensity per label of `w`
 * @param ks increasing cut-offs (default [1, 3, 5])
 * @param biasOrders the order of `w.bias` (default: a sort); a run validating many copies of one
 * bias passes its {@linkcode biasOrderMemo}
 * @throws {RangeError} when the rows and labels disagree
 *
 * @example
 * ```ts
 * import { validationPsp } from "./validation.ts";
 * const w = { numFeatures: 2, numLabels: 2, labelPtr: Int32Array.of(0, 1, 2),
 *   featIdx: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const v = {
 *   x: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 * };
 * console.log(validationPsp(w, v, Float64Array.of(0.5, 0.5), [1])[0]); // 100
 * ```
 */
export function validationPsp(
  w: LabelWeights,
  rows: ValidationRows,
  propensities: ArrayLike<number>,
  ks: readonly number[] = [1, 3, 5],
  biasOrders: BiasOrderMemo = biasOrderOf,
): number[] {
  const { x, y } = rows;
  if (x.numRows !== y.numRows) {
    throw new RangeError(`validationPsp: ${x.numRows} feature rows but ${y.numRows} label rows`);
  }
  if (propensities.length < w.numLabels) {
    throw new RangeError(
      `validationPsp: ${propensities.length} propensities for ${w.numLabels} labels`,
    );
  }
  const psp = new PspAtK(propensities, ks);
  const maxK = Math.max(...ks);
  const top = sparseTopK(w, biasOrders);
  for (let i = 0; i < x.numRows; i++) {
    const s = x.indptr[i], e = x.indptr[i + 1];
    const t = top(x.indices.subarray(s, e), x.values.subarray(s, e), maxK);
    psp.add(t.labels, y.indices.subarray(y.indptr[i], y.indptr[i + 1]));
  }
  const r = psp.result();
  return ks.map((k) => r[`PSP@${k}`]);
}

/**
 * A memo of bias orders, as `validationPsp` and `sparseTopK` take it: `biasOrderOf(bias)`, reusing
 * the previous call's order when `bias` holds the same values (the validations of a POP run are
 * of cuts of one model, each with a copy of its bias: a comparison of L values instead of a sort
 * of L labels). It holds the last bias and its order (8 bytes a label) for as long as it is
 * referenced: create one per run with {@linkcode biasOrderMemo}.
 *
 * @example
 * ```ts
 * import { type BiasOrderMemo, biasOrderMemo } from "./validation.ts";
 * const orders: BiasOrderMemo = biasOrderMemo();
 * console.log([...orders(Float32Array.of(0, 2, 1))]); // [ 1, 2, 0 ]
 * ```
 */
export type BiasOrderMemo = (bias: Float32Array) => Int32Array;

/**
 * A new {@linkcode BiasOrderMemo}, empty: what the validations of one run share, dropped with it
 * (nothing is kept between runs).
 *
 * @example
 * ```ts
 * import { biasOrderMemo } from "./validation.ts";
 * const orders = biasOrderMemo();
 * const a = orders(Float32Array.of(-1, 3)), b = orders(Float32Array.of(-1, 3));
 * console.log([...a], a === b, orders(Float32Array.of(3, -1)) === a); // [ 1, 0 ] true false
 * ```
 */
export function biasOrderMemo(): BiasOrderMemo {
  let last: { bits: Uint32Array; order: Int32Array } | undefined;
  return (bias) => {
    const bits = new Uint32Array(bias.buffer, bias.byteOffset, bias.length);
    if (last !== undefined && last.bits.length === bits.length) {
      let same = true;
      for (let l = 0; l < bits.length && same; l++) same = last.bits[l] === bits[l];
      if (same) return last.order;
    }
    const order = biasOrderOf(bias);
    last = { bits: bits.slice(), order };
    return order;
  };
}

/**
 * The exact top k of label-major weights for sparse rows, without scoring every label: returns
 * `top(indices, values, k)`, the same labels in the same order as `topKDense` of every label's
 * score `bias_l + Σ_p values[p]·w[indices[p], l]` (accumulated in float64 in the order of the
 * row's entries, entries outside [0, numFeatures) ignored; ties by the smaller label, NaN as
 * −∞). The row's postings score the labels it touches; the others score their bias and are
 * walked by decreasing bias (ties by the smaller label) until they cannot beat the k-th best —
 * the SDK's `linear-sparse` top k. Building it costs one transpose of the weights and one sort
 * of the bias (`biasOrders` may skip it: a {@linkcode BiasOrderMemo} that already ordered the
 * same bias); a row costs its postings plus at most k + (labels it touches) steps of the walk,
 * whatever the number of labels.
 *
 * @param biasOrders the order of `w.bias` by decreasing value (default: `biasOrderOf`, a sort)
 *
 * @example
 * ```ts
 * import { sparseTopK } from "./validation.ts";
 * // label 0 ← feature 0 (weight 2); label 2 has the largest bias
 * const top = sparseTopK({ numFeatures: 1, numLabels: 3, labelPtr: Int32Array.of(0, 1, 1, 1),
 *   featIdx: Int32Array.of(0), values: Float32Array.of(2), bias: Float32Array.of(0, -1, 1) });
 * console.log([...top(Int32Array.of(0), Float32Array.of(1), 2).labels]); // [ 0, 2 ]
 * console.log([...top(Int32Array.of(0), Float32Array.of(0.25), 3).labels]); // [ 2, 0, 1 ]
 * ```
 */
export function sparseTopK(
  w: LabelWeights,
  biasOrders: BiasOrderMemo = biasOrderOf,
): (indices: Int32Array, values: Float32Array | Float64Array, k: number) => TopK {
  const L = w.numLabels, d = w.numFeatures, bias = w.bias;
  const { featPtr, labelIdx, weights } = toFeatureMajor(w);
  const order = bias ? biasOrders(bias) : undefined;
  const s = new Float64Array(L), mark = new Uint8Array(L), touched = new Int32Array(L);
  return (indices, values, k) => {
    let n = 0;
    for (let p = 0; p < indices.length; p++) {
      const j = indices[p];
      if (j < 0 || j >= d) continue;
      const v = values[p];
      for (let q = featPtr[j]; q < featPtr[j + 1]; q++) {
        const l = labelIdx[q];
        if (!mark[l]) {
          mark[l] = 1;
          s[l] = bias ? bias[l] : 0;
          touched[n++] = l;
        }
        s[l] += v * weights[q];
      }
    }
    // the touched labels, then the untouched ones (scoring their bias) by decreasing bias
    const top = topKTouched(k, L, s, touched, n, mark, order, bias);
    for (let i = 0; i < n; i++) mark[touched[i]] = 0;
    return top;
  };
}

/**
 * `x` without its entries outside the model's columns [0, numFeatures) (`x` itself when it has
 * none), as the SDK drops them before TF-IDF and L2 normalisation: kept, they entered the norm,
 * so the rows POP validated on were scaled unlike the model's queries.
 *
 * @example
 * ```ts
 * import { modelColumns } from "./validation.ts";
 * const x = { numRows: 1, numCols: 6, indptr: Int32Array.of(0, 2), indices: Int32Array.of(0, 5), values: Float32Array.of(1, 10) };
 * const m = modelColumns(x, 2);
 * console.log(m.numCols, [...m.indices], [...m.values]); // 2 [ 0 ] [ 1 ]
 * ```
 */
export function modelColumns(x: CsrMatrix, numFeatures: number): CsrMatrix {
  const { indptr, indices, values } = x;
  const known = (j: number) => j >= 0 && j < numFeatures;
  let n = 0;
  for (let p = indptr[0]; p < indptr[x.numRows]; p++) n += known(indices[p]) ? 1 : 0;
  if (n === indptr[x.numRows] - indptr[0]) return x;
  const ptr = new Int32Array(x.numRows + 1), idx = new Int32Array(n), val = new Float32Array(n);
  let q = 0;
  for (let i = 0; i < x.numRows; i++) {
    for (let p = indptr[i]; p < indptr[i + 1]; p++) {
      if (known(indices[p])) {
        idx[q] = indices[p];
        val[q++] = values[p];
      }
    }
    ptr[i + 1] = q;
  }
  return {
    numRows: x.numRows,
    numCols: Math.min(x.numCols, numFeatures),
    indptr: ptr,
    indices: idx,
    values: val,
  };
}
