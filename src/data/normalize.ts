/**
 * Row L2 normalisation.
 *
 * @module
 */
import type { SparseVector } from "./types.ts";

/**
 * Scales `values` in place to unit Euclidean norm (a zero row is left unchanged). The sum of
 * squares is taken in float64.
 *
 * @example
 * ```ts
 * import { l2NormalizeInPlace } from "./normalize.ts";
 * const v = Float32Array.of(3, 4);
 * l2NormalizeInPlace(v);
 * console.log([...v].map((a) => a.toFixed(2))); // [ "0.60", "0.80" ]
 * ```
 */
export function l2NormalizeInPlace(values: Float32Array): void {
  let s = 0;
  for (let k = 0; k < values.length; k++) s += values[k] * values[k];
  if (s === 0 || !Number.isFinite(s)) return;
  const inv = 1 / Math.sqrt(s);
  for (let k = 0; k < values.length; k++) values[k] *= inv;
}

/**
 * A unit-norm copy of a row (same indices array, new values); the input is not changed.
 *
 * @example
 * ```ts
 * import { l2Normalized } from "./normalize.ts";
 * const x = { indices: Int32Array.of(1, 5), values: Float32Array.of(0, 2) };
 * console.log([...l2Normalized(x).values], [...x.values]); // [ 0, 1 ] [ 0, 2 ]
 * ```
 */
export function l2Normalized(x: SparseVector): SparseVector {
  const values = x.values.slice();
  l2NormalizeInPlace(values);
  return { indices: x.indices, values };
}
