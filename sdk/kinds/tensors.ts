/**
 * Checked access to a decoded model's tensors and parameters, for the kind scorers. Errors are
 * `RangeError`s naming the kind and the field; `loadModel` reports them as a `corrupt` model
 * file.
 *
 * @module
 */
import type { DecodedModel } from "./types.ts";

/**
 * Throws a `RangeError` "<kind> model: <what>".
 *
 * @example
 * ```ts
 * import { bad } from "./tensors.ts";
 * try { bad({ kind: "k" }, "param x"); } catch (e) { console.log((e as Error).message); } // "k model: param x"
 * ```
 */
export function bad(m: { kind: string }, what: string): never {
  throw new RangeError(`${m.kind} model: ${what}`);
}

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
  return tensor(m, name, length, Float32Array) as Float32Array;
}

/**
 * The integer tensor `name` (i32, or also u16 when `u16`), with `length` values when given.
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
  return tensor(m, name, length, Int32Array, u16 ? Uint16Array : Int32Array) as Int32Array;
}

function tensor(
  m: DecodedModel,
  name: string,
  length: number | undefined,
  ...types: (typeof Float32Array | typeof Int32Array | typeof Uint16Array)[]
) {
  const d = m.tensors[name]?.data;
  if (!d || !types.some((t) => d instanceof t) || length !== undefined && d.length !== length) {
    bad(m, `tensor "${name}" missing or of wrong type or size`);
  }
  return d;
}

/**
 * Checks that every value of `a` is an integer in [0, n) and, when `total` is given, that `a` is
 * an offsets array: starting at 0, never decreasing, ending at `total`.
 *
 * @example
 * ```ts
 * import { checkIndices } from "./tensors.ts";
 * checkIndices({ kind: "k" }, "labels", Int32Array.of(0, 1), 2); // passes
 * checkIndices({ kind: "k" }, "ptr", Int32Array.of(0, 2, 2, 5), 6, 5); // passes
 * try { checkIndices({ kind: "k" }, "ptr", Int32Array.of(0, 3, 2), 9, 2); } catch (e) { console.log((e as Error).message); }
 * ```
 */
export function checkIndices(
  m: { kind: string },
  name: string,
  a: ArrayLike<number>,
  n: number,
  total?: number,
): void {
  for (let i = 0; i < a.length; i++) {
    if (!(a[i] >= 0 && a[i] < n) || total !== undefined && (i ? a[i] < a[i - 1] : a[0])) {
      bad(m, `${name}[${i}] = ${a[i]} is out of range or order`);
    }
  }
  if (total !== undefined && a[a.length - 1] !== total) bad(m, `${name} must end at ${total}`);
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
  return Number.isInteger(v) && (v as number) >= min ? v as number : bad(m, `param "${name}"`);
}
