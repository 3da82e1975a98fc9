/**
 * In-memory datasets: the {@linkcode Dataset} type, with (re-exported from one module each)
 * whole-file loading of XC text files (`dataset_load.ts`), row views and minibatches
 * (`dataset_rows.ts`), subsets, splits and concatenation (`dataset_subsets.ts`) and label
 * statistics (`dataset_stats.ts`).
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "./types.ts";

export {
  datasetFromBuffer,
  loadDataset,
  type LoadedDataset,
  loadNames,
  type LoadOptions,
  loadXcBytes,
  loadXcFile,
} from "./dataset_load.ts";
export { batchesOf, labelsOf, rowsOf, rowView } from "./dataset_rows.ts";
export { concatRows, splitRows, subsetRows } from "./dataset_subsets.ts";
export { labelCounts } from "./dataset_stats.ts";

/**
 * A dataset held in memory: features as CSR, positive labels as binary CSR.
 *
 * @example
 * ```ts
 * import type { Dataset } from "./dataset.ts";
 * const ds: Dataset = {
 *   name: "tiny", numFeatures: 2, numLabels: 1,
 *   x: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) },
 * };
 * console.log(ds.x.numRows); // 1
 * ```
 */
export interface Dataset {
  /** Name (file base name without `.txt`/`.gz` for {@link loadXcFile}; the dataset name for
   * {@link loadDataset}). */
  name: string;
  /** Feature-space size (D). */
  numFeatures: number;
  /** Label-space size (L). */
  numLabels: number;
  /** Features, `numRows x numFeatures`. */
  x: CsrMatrix;
  /** Positive labels, `numRows x numLabels`. */
  y: BinaryCsr;
}
