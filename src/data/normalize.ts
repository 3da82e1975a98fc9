/**
 * Row L2 normalisation.
 *
 * @module
 */
import type { SparseVector } from "./types.ts";

/**
 * Scales `values` in place to unit Euclidean norm (a zero row is left unchanged, and so is one
 * with a non-finite value). Returns the sum of squares, taken in float64 (not finite exactly
 * when a value is not).
 *
 * @example
 * ```ts
 * import { l2NormalizeInPlace } from "./normalize.ts";
 * const v = Float32Array.of(3, 4);
 * l2NormalizeInPlace(v);
 * console.log([...v].map((a) => a.toFixed(2))); // [ "0.60", "0.80" ]
 * ```
 */
export function l2NormalizeInPlace(values: Float32Array): number {
  let s = 0;
  for (let k = 0; k < values.length; k++) s += values[k] * values[k];
  if (s === 0 || !Number.isFinite(s)) return s;
  const inv = 1 / Math.sqrt(s);
  for (let k = 0; k < values.length; k++) values[k] *= inv;
  return s;
}

/**
 * A unit-norm copy of a row (same indices array, new values); the input is not changed.
 *
 * @throws {TypeError} when `x` is not a row `{ indices, values }`
 * @throws {RangeError} for a value that is not finite (the row has no unit-norm copy)
 *
 * @example
 * ```ts
 * import { l2Normalized } from "./normalize.ts";
 * const x = { indices: Int32Array.of(1, 5), values: Float32Array.of(0, 2) };
 * console.log([...l2Normalized(x).values], [...x.values]); // [ 0, 1 ] [ 0, 2 ]
 * ```
 */
export function l2Normalized(x: SparseVector): SparseVector {
  if (!(x?.values instanceof Float32Array)) {
    throw new TypeError("l2Normalized: x must be a row { indices, values: Float32Array }");
  }
  const values = x.values.slice();
  if (!Number.isFinite(l2NormalizeInPlace(values))) {
    const k = values.findIndex((v) => !Number.isFinite(v)); // the error path only
    throw new RangeError(
      `l2Normalized: non-finite value at feature ${x.indices[k]} (${x.values[k]})`,
    );
  }
  return { indices: x.indices, values };
}
