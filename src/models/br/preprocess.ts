/**
 * Row preprocessing now lives in `src/data/preprocess.ts` (it is not specific to BR); this path
 * re-exports it for the modules that still import it from here.
 *
 * @module
 */
export { preprocessRows, type RowPreprocess } from "../../data/preprocess.ts";
