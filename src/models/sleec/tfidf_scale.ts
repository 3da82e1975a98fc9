/**
 * TF-IDF weighting of rows whose weighted values would overflow a float32. SLEEC weights a row
 * by the IDF and then L2-normalises it, so the answer does not depend on the row's scale; but the
 * weighted values are rounded to float32 first (as the model file's preprocessing does), and a
 * raw value near the float32 maximum times an IDF above 1 rounds to Infinity, whose norm turned
 * the whole row into NaN (training: NaN kNN points and centroids; prediction: no cluster, every
 * label scored 0). Such a row is scaled by a power of two first, so that its largest weighted
 * value is about 1: the same direction, finite. Rows that do not overflow are not touched, so
 * ordinary training and prediction are unchanged bit for bit.
 *
 * @module
 */
import type { CsrMatrix } from "../../data/types.ts";

/**
 * 1 when every weighted value `values[p] · idf[indices[p]]` of `[start, end)` (features at or
 * beyond `idf.length` weigh 0) fits a float32, else the power of two 2^−⌈log2 m⌉ (m the largest
 * weighted magnitude, computed in float64) that brings the largest to at most 1. Reads only.
 *
 * @example
 * ```ts
 * import { tfidfRowScale } from "./tfidf_scale.ts";
 * const idf = Float32Array.of(2, 3);
 * console.log(tfidfRowScale(Int32Array.of(0, 1), Float32Array.of(1, 5), 0, 2, idf)); // 1
 * const s = tfidfRowScale(Int32Array.of(0, 1), Float32Array.of(1, 3e38), 0, 2, idf);
 * console.log(s === 2 ** -130, Number.isFinite(Math.fround(3e38 * s * 3))); // true true
 * ```
 */
export function tfidfRowScale(
  indices: ArrayLike<number>,
  values: ArrayLike<number>,
  start: number,
  end: number,
  idf: ArrayLike<number>,
): number {
  let largest = 0, overflow = false;
  for (let p = start; p < end; p++) {
    const j = indices[p];
    const w = Math.abs(values[p] * (j >= 0 && j < idf.length ? idf[j] : 0));
    if (w > largest) largest = w;
    if (!Number.isFinite(Math.fround(w))) overflow = true;
  }
  return overflow ? 2 ** -Math.ceil(Math.log2(largest)) : 1;
}

/**
 * `x` itself when no row's TF-IDF weighted values overflow a float32, else a copy in which each
 * such row is multiplied by its {@linkcode tfidfRowScale} (the others copied as they are): the
 * rows to weight and L2-normalise in place of `x`. Never mutates `x`.
 *
 * @example
 * ```ts
 * import { tfidfSafeRows } from "./tfidf_scale.ts";
 * const x = { numRows: 2, numCols: 1, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 0), values: Float32Array.of(2, 3e38) };
 * const idf = Float32Array.of(4);
 * console.log(tfidfSafeRows(x, Float32Array.of(1)) === x, [...tfidfSafeRows(x, idf).values].map((v) => v <= 1)); // true [ false, true ]
 * ```
 */
export function tfidfSafeRows(x: CsrMatrix, idf: ArrayLike<number>): CsrMatrix {
  let values: Float32Array | undefined;
  for (let i = 0; i < x.numRows; i++) {
    const s = x.indptr[i], e = x.indptr[i + 1];
    const f = tfidfRowScale(x.indices, x.values, s, e, idf);
    if (f === 1) continue;
    values ??= x.values.slice();
    for (let p = s; p < e; p++) values[p] = x.values[p] * f;
  }
  return values === undefined ? x : { ...x, values };
}
