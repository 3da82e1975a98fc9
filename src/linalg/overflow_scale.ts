/**
 * The scale a homogeneous computation runs at when its inputs' squares would overflow or
 * underflow: the solvers of this folder (CG, ADMM, SVP, the block orthonormalisation, the dense
 * eigendecomposition) divide their input by it, solve, and scale the result back.
 *
 * @module
 */

/**
 * 1 when `largest` (the largest absolute entry of an input) lies within [1/limit, limit] or is
 * 0 (no scaling needed), else `largest` itself: dividing the input by it brings the entries to
 * at most 1, whose squares neither overflow nor underflow.
 *
 * @example
 * ```ts
 * import { overflowScale } from "./overflow_scale.ts";
 * console.log(overflowScale(3), overflowScale(0), overflowScale(1e200)); // 1 1 1e+200
 * ```
 */
export function overflowScale(largest: number, limit = 1e150): number {
  return largest > limit || (largest > 0 && largest < 1 / limit) ? largest : 1;
}
