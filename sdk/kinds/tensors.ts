/**
 * Checked access to a decoded model's tensors and parameters, for the kind scorers. Errors are
 * `RangeError`s naming the kind and the field; `loadModel` reports them as a `corrupt` model
 * file.
 *
 * @module
 */
import type { DecodedModel } from "./types.ts";
import { F32, I32, isInteger, range } from "../vector.ts";

/**
 * Throws a `RangeError` "<kind> model: <what>".
 *
 * @example
 * ```ts
 * import { bad } from "./tensors.ts";
 * try { bad({ kind: "k" }, "param x"); } catch (e) { console.log((e as Error).message); } // "k model: param x"
 * ```
 */
export const bad: (m: { kind: string }, what: string) => never = (m, what) => {
  throw new RangeError(`${m.kind} model: ${what}`);
};

/**
 * The float tensor `name` (with `length` values when given; `undefined` when it is absent and
 * `optional`); of class `T` or `U` when given (`ints` asks for i32, or also u16).
 *
 * @example
 * ```ts
 * import { floats } from "./tensors.ts";
 * const m = { kind: "k", formatVersion: 1, numFeatures: 0, numLabels: 0, params: {},
 *   tensors: { b: { shape: [2], data: Float32Array.of(1, 2) } } };
 * console.log(floats(m, "b", 2), floats(m, "bias", 2, true)); // Float32Array(2) [ 1, 2 ] undefined
 * ```
 */
export const floats = ((
  m: DecodedModel,
  name: string,
  length?: number,
  optional?: boolean,
  T: typeof Float32Array | typeof Int32Array = F32,
  U: typeof Uint16Array | typeof T = T,
) => {
  const d = m.tensors[name]?.data;
  if (optional && !d) return d;
  if (!(d instanceof T || d instanceof U) || d.length !== (length ?? d.length)) {
    bad(m, `tensor "${name}" missing or of wrong type or size`);
  }
  return d;
}) as {
  (m: DecodedModel, name: string, length?: number): Float32Array;
  (m: DecodedModel, name: string, length: number, optional: true): Float32Array | undefined;
  (
    m: DecodedModel,
    name: string,
    length: number | undefined,
    optional: false,
    T: typeof Int32Array,
    U?: typeof Uint16Array,
  ): Int32Array | Uint16Array;
};

/**
 * The integer tensor `name` (i32, or also u16 when `U` is `Uint16Array`), with `length` values
 * when given and every value in [0, `max`]. With `ptr` it is an offsets array: starting at 0,
 * never decreasing, ending at `max`.
 *
 * @example
 * ```ts
 * import { ints } from "./tensors.ts";
 * const m = { kind: "k", formatVersion: 1, numFeatures: 0, numLabels: 0, params: {},
 *   tensors: { p: { shape: [3], data: Int32Array.of(0, 3, 3) } } };
 * console.log(ints(m, "p", 3)[1], ints(m, "p", 3, 3, true).length); // 3 3
 * try { ints(m, "p", 2); } catch (e) { console.log((e as Error).message); } // "k model: p[1] = 3 is out of range or order"
 * try { ints(m, "p", 5, 3, true); } catch (e) { console.log((e as Error).message); } // "k model: p must end at 5"
 * ```
 */
export const ints = (
  m: DecodedModel,
  name: string,
  max: number,
  length?: number,
  ptr?: boolean,
  U?: typeof Uint16Array,
): Int32Array | Uint16Array => {
  const a = floats(m, name, length, false, I32, U) as Int32Array;
  // every value in [0, max] (with `ptr`, in [previous value, max], the first in [0, 0]). One
  // loop for i32 and u16 tensors: loading a u16 file and then a 24 MB i32 one took as long as
  // with a loop per type (`deno task sdk-scale`).
  for (let i = 0, lo = 0, hi = ptr ? 0 : max; i < a.length; i++, hi = max) {
    if (a[i] < lo || a[i] > hi) bad(m, `${name}[${i}] = ${a[i]} is out of range or order`);
    if (ptr) lo = a[i];
  }
  if (ptr && a[a.length - 1] !== max) bad(m, `${name} must end at ${max}`);
  return a;
};

/**
 * The offsets tensor `name` (i32, `length` values when given): starting at 0, never decreasing,
 * ending at `end` ({@linkcode ints} with `ptr`).
 *
 * @example
 * ```ts
 * import { ptrs } from "./tensors.ts";
 * const m = { kind: "k", formatVersion: 1, numFeatures: 0, numLabels: 0, params: {},
 *   tensors: { p: { shape: [3], data: Int32Array.of(0, 3, 3) } } };
 * console.log(ptrs(m, "p", 3)); // Int32Array(3) [ 0, 3, 3 ]
 * ```
 */
export const ptrs = (m: DecodedModel, name: string, end: number, length?: number): Int32Array =>
  ints(m, name, end, length, true) as Int32Array;

/**
 * The parameter `name`, a positive integer (at most `most` when given), or `absent` when the file
 * leaves it out and `absent` is given (an optional parameter's default).
 *
 * @example
 * ```ts
 * import { intParam } from "./tensors.ts";
 * const m = { kind: "k", formatVersion: 1, numFeatures: 0, numLabels: 0, params: { rank: 4 }, tensors: {} };
 * console.log(intParam(m, "rank"), intParam(m, "votePower", Infinity, 1)); // 4 1
 * try { intParam(m, "rank", 2); } catch (e) { console.log((e as Error).message); } // "k model: param "rank" must be an integer in [1, 2]"
 * ```
 */
export const intParam = (
  m: DecodedModel,
  name: string,
  most = Infinity,
  absent?: number,
): number => {
  const v = m.params[name] as number;
  return v === undefined && absent
    ? absent
    : isInteger(v) && v > 0 && v <= most
    ? v
    : bad(m, range(`param "${name}"`, 1, most));
};
