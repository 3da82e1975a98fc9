/**
 * Optimisers over flat typed arrays: Adam (dense and lazy row-sparse) and SGD.
 *
 * @example
 * ```ts
 * import { adamUpdate, sgdUpdate } from "./mod.ts";
 * console.log(typeof adamUpdate, typeof sgdUpdate); // "function" "function"
 * ```
 *
 * @module
 */
export { type AdamOptions, adamUpdate, adamUpdateRows } from "./adam.ts";
export { sgdRate, sgdUpdate, sgdUpdateRows } from "./sgd.ts";
