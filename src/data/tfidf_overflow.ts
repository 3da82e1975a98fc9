/**
 * TF-IDF weighting of rows whose weighted values would overflow a float32. A model that weights
 * a row by the IDF and then L2-normalises it answers by the row's direction only; but the
 * weighted values are rounded to float32 first (as the model file's preprocessing does), and a
 * raw value near the float32 maximum times an IDF above 1 rounds to Infinity, whose norm turned
 * the whole row into NaN. Such a row is scaled by a power of two first
 * ({@linkcode tfidfRowScale}), so that its largest weighted value is at most 1: the same
 * direction, finite. Rows that do not overflow are not touched, so ordinary rows are weighted bit
 * for bit as before. `preprocessRows` (./preprocess.ts) and SLEEC's query weighting use it; the
 * SDK's featurizer (sdk/features.ts) does the same.
 *
 * @module
 */

/**
 * 1 when every weighted value `values[p] · idf[indices[p]]` of `[start, end)` (features at or
 * beyond `idf.length` weigh 0) fits a float32, else the power of two 2^−⌈log2 m⌉ (m the largest
 * weighted magnitude, computed in float64) that brings the largest to at most 1. Reads only.
 *
 * @example
 * ```ts
 * import { tfidfRowScale } from "./tfidf_overflow.ts";
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
 * Writes the TF-IDF weighted values `values[p] · idf[indices[p]]` of the entries `[start, end)` of
 * a row into `out` at the same positions, rounded to float32 (features outside the IDF weigh 0).
 * With `unitRow` (the row is L2-normalised next, so only its direction counts), a row whose
 * weighted values overflow a float32 is weighted again after scaling by its
 * {@linkcode tfidfRowScale}. `out` may be `values` itself.
 *
 * @example
 * ```ts
 * import { weightRow } from "./tfidf_overflow.ts";
 * const idf = Float32Array.of(2, 3), out = new Float32Array(2);
 * weightRow(Int32Array.of(0, 1), Float32Array.of(1, 5), 0, 2, idf, out, true);
 * console.log([...out]); // [ 2, 15 ]
 * weightRow(Int32Array.of(0, 1), Float32Array.of(1, 3e38), 0, 2, idf, out, true);
 * console.log(out.every(Number.isFinite)); // true
 * ```
 */
export function weightRow(
  indices: ArrayLike<number>,
  values: ArrayLike<number>,
  start: number,
  end: number,
  idf: ArrayLike<number>,
  out: Float32Array,
  unitRow: boolean,
): void {
  let finite = true;
  for (let p = start; p < end; p++) {
    const j = indices[p];
    out[p] = values[p] * (j >= 0 && j < idf.length ? idf[j] : 0);
    if (out[p] === Infinity || out[p] === -Infinity) finite = false;
  }
  if (finite || !unitRow) return;
  const f = tfidfRowScale(indices, values, start, end, idf);
  for (let p = start; p < end; p++) {
    const j = indices[p];
    out[p] = Math.fround(values[p] * f) * (j >= 0 && j < idf.length ? idf[j] : 0);
  }
}
