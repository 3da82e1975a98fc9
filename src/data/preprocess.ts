/**
 * Row preprocessing applied before a model sees a row (the model file's `preprocess`): optional
 * TF-IDF weighting, then optional L2 normalisation. Model-agnostic: BR, LEML, SLEEC and POP use
 * it.
 *
 * @module
 */
import { weightRow } from "./tfidf_overflow.ts";
import type { CsrMatrix } from "./types.ts";

/**
 * Preprocessing steps (as recorded in a model file; `idf` is required with `tfidf`).
 *
 * @example
 * ```ts
 * import type { RowPreprocess } from "./preprocess.ts";
 * const p: RowPreprocess = { l2Normalize: true };
 * console.log(p.l2Normalize); // true
 * ```
 */
export interface RowPreprocess {
  tfidf?: boolean;
  l2Normalize?: boolean;
  idf?: Float32Array;
}

/**
 * A copy of `x` with TF-IDF weighting (features at or beyond `idf.length` are dropped from the
 * weighting, i.e. get weight 0) and/or unit-L2 rows; returns `x` itself when there is nothing to
 * do. With both, a row whose weighted values would overflow a float32 is scaled by a power of two
 * first (./tfidf_overflow.ts: the same unit row, finite). Empty rows stay empty. Never mutates `x`.
 *
 * @throws {TypeError} when `tfidf` is set without `idf`
 *
 * @example
 * ```ts
 * import { preprocessRows } from "./preprocess.ts";
 * const x = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(3, 4) };
 * console.log([...preprocessRows(x, { l2Normalize: true }).values]); // [0.6, 0.8] (as float32)
 * ```
 */
export function preprocessRows(x: CsrMatrix, pre: RowPreprocess | undefined): CsrMatrix {
  if (!pre || (!pre.tfidf && !pre.l2Normalize)) return x;
  if (pre.tfidf && !pre.idf) throw new TypeError("preprocessRows: tfidf needs an idf vector");
  const values = x.values.slice();
  const idf = pre.tfidf ? pre.idf! : undefined;
  for (let i = 0; i < x.numRows; i++) {
    const s = x.indptr[i], e = x.indptr[i + 1];
    // (a row that overflows float32 is scaled first when it is normalised: ./tfidf_overflow.ts)
    if (idf) weightRow(x.indices, x.values, s, e, idf, values, pre.l2Normalize === true);
    if (pre.l2Normalize) {
      let ss = 0;
      for (let p = s; p < e; p++) ss += values[p] * values[p];
      const f = ss > 0 ? 1 / Math.sqrt(ss) : 0;
      for (let p = s; p < e; p++) values[p] *= f;
    }
  }
  return { ...x, values };
}
