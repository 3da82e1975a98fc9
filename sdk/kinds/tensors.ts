/**
 * Checked access to a decoded model's tensors and parameters, for the kind scorers. Errors are
 * `TypeError`/`RangeError` naming the kind and the field; `loadModel` reports them as a
 * `corrupt` model file.
 *
 * @module
 */
import type { DecodedModel } from "./types.ts";

/**
 * The float tensor `name` (with `length` values when given).
 *
 * @example
 * ```ts
 * import { floats } from "./tensors.ts";
 * const m = { kind: "k", formatVersion: 1, numFeatures: 0, numLabels: 0, params: {},
 *   tensors: { b: { shape: [2], data: Float32Array.of(1, 2) } } };
 * console.log(floats(m, "b", 2)); // Float32Array(2) [ 1, 2 ]
 * ```
 */
export function floats(m: DecodedModel, name: string, length?: number): Float32Array {
  const t = m.tensors[name];
  if (!t || !(t.data instanceof Float32Array)) {
    throw new TypeError(`${m.kind} model: missing float tensor "${name}"`);
  }
  return checkLength(m, name, t.data, length);
}

/**
 * The integer tensor `name` (i32, or u16 when `u16` is allowed), with `length` values when given.
 *
 * @example
 * ```ts
 * import { ints } from "./tensors.ts";
 * const m = { kind: "k", formatVersion: 1, numFeatures: 0, numLabels: 0, params: {},
 *   tensors: { p: { shape: [2], data: Int32Array.of(0, 3) } } };
 * console.log(ints(m, "p")[1]); // 3
 * ```
 */
export function ints(
  m: DecodedModel,
  name: string,
  length?: number,
  u16 = false,
): Int32Array | Uint16Array {
  const t = m.tensors[name];
  if (!t || !(t.data instanceof Int32Array || (u16 && t.data instanceof Uint16Array))) {
    throw new TypeError(`${m.kind} model: missing integer tensor "${name}"`);
  }
  return checkLength(m, name, t.data, length);
}

function checkLength<T extends { length: number }>(
  m: DecodedModel,
  name: string,
  data: T,
  length?: number,
): T {
  if (length !== undefined && data.length !== length) {
    throw new RangeError(
      `${m.kind} model: tensor "${name}" has ${data.length} values, expected ${length}`,
    );
  }
  return data;
}

/**
 * Checks that `ptr` is a valid offsets array: starts at 0, never decreases, ends at `total`.
 *
 * @example
 * ```ts
 * import { checkOffsets } from "./tensors.ts";
 * checkOffsets("k", "ptr", Int32Array.of(0, 2, 2, 5), 5); // passes
 * try { checkOffsets("k", "ptr", Int32Array.of(0, 3, 2), 2); } catch (e) { console.log((e as Error).message); }
 * ```
 */
export function checkOffsets(
  kind: string,
  name: string,
  ptr: ArrayLike<number>,
  total: number,
): void {
  let prev = 0;
  for (let i = 0; i < ptr.length; i++) {
    if (ptr[i] < prev || (i === 0 && ptr[0] !== 0)) {
      throw new RangeError(`${kind} model: ${name}[${i}] = ${ptr[i]} breaks the offsets order`);
    }
    prev = ptr[i];
  }
  if (prev !== total) {
    throw new RangeError(`${kind} model: ${name} ends at ${prev}, expected ${total}`);
  }
}

/**
 * Checks that every value of `a` is an index in [0, n).
 *
 * @example
 * ```ts
 * import { checkIndices } from "./tensors.ts";
 * checkIndices("k", "labels", Int32Array.of(0, 1), 2); // passes
 * ```
 */
export function checkIndices(kind: string, name: string, a: ArrayLike<number>, n: number): void {
  for (let i = 0; i < a.length; i++) {
    if (!(a[i] >= 0 && a[i] < n)) {
      throw new RangeError(`${kind} model: ${name}[${i}] = ${a[i]} is out of range [0, ${n})`);
    }
  }
}

/**
 * The integer parameter `name`, at least `min`.
 *
 * @example
 * ```ts
 * import { intParam } from "./tensors.ts";
 * const m = { kind: "k", formatVersion: 1, numFeatures: 0, numLabels: 0, params: { rank: 4 }, tensors: {} };
 * console.log(intParam(m, "rank", 1)); // 4
 * ```
 */
export function intParam(m: DecodedModel, name: string, min: number): number {
  const v = m.params[name];
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
    throw new RangeError(`${m.kind} model: param "${name}" must be an integer >= ${min}`);
  }
  return v;
}
