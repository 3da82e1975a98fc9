/**
 * In-memory datasets: the {@linkcode Dataset} type (declared in `types.ts`), with (re-exported
 * from one module each) whole-file loading of XC text files (`dataset_load.ts`), row views and
 * minibatches (`dataset_rows.ts`), subsets, splits and concatenation (`dataset_subsets.ts`) and
 * label statistics (`dataset_stats.ts`).
 *
 * @module
 */
export type { Dataset } from "./types.ts";
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
