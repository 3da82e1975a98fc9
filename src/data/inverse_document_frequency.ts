/**
 * The IDF of a whole training matrix at once (batch trainers), as the streaming `TfIdf` counts it.
 *
 * @module
 */
import type { CsrMatrix } from "./types.ts";
import { TfIdf } from "./tfidf.ts";
import { rowView } from "./dataset_rows.ts";

/**
 * IDF of each column of `x` over its rows, by {@linkcode TfIdf} (./tfidf.ts): ln((1 + n) /
 * (1 + df_j)) + 1, the weights a model file's preprocessing block applies.
 *
 * @example
 * ```ts
 * import { inverseDocumentFrequency } from "./inverse_document_frequency.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 2, 3), indices: Int32Array.of(0, 1, 0), values: Float32Array.of(1, 1, 1) };
 * console.log(Array.from(inverseDocumentFrequency(x), (v) => v.toFixed(3))); // [ "1.000", "1.405" ]
 * ```
 */
export function inverseDocumentFrequency(x: CsrMatrix): Float32Array {
  // (every column of x is counted: the default bound, 2^24 columns, is not the caller's)
  const t = new TfIdf({ maxFeatures: Math.max(1, x.numCols) });
  for (let i = 0; i < x.numRows; i++) t.observe(rowView(x, i));
  return t.idfVector(x.numCols);
}
