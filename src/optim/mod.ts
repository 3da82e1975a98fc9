/**
 * Optimisers over flat typed arrays: Adam (dense and lazy row-sparse) and SGD, both clipping
 * every gradient element to ±GRADIENT_LIMIT (./limits.ts).
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
export { clipGradient, FLOAT32_MAX, GRADIENT_LIMIT } from "./limits.ts";
export { sgdRate, sgdUpdate, sgdUpdateRows } from "./sgd.ts";
