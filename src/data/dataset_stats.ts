/**
 * Label statistics of an in-memory dataset.
 *
 * @module
 */
import type { BinaryCsr } from "./types.ts";

/**
 * Number of positive rows of each label (length `y.numCols`).
 *
 * @example
 * ```ts
 * import { labelCounts } from "./dataset_stats.ts";
 * const y = { numRows: 2, numCols: 3, indptr: Int32Array.of(0, 2, 3), indices: Int32Array.of(0, 2, 2) };
 * console.log([...labelCounts(y)]); // [ 1, 0, 2 ]
 * ```
 */
export function labelCounts(y: BinaryCsr): Int32Array {
  const c = new Int32Array(y.numCols);
  const end = y.indptr[y.numRows];
  for (let k = 0; k < end; k++) c[y.indices[k]]++;
  return c;
}
