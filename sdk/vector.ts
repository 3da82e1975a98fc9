/**
 * Small vector helpers shared by the SDK's preprocessing and scorers.
 *
 * @module
 */

/**
 * `Math.sqrt`, `Math.min`, `Math.max`, `Math.fround`, `Math.imul`, `Math.ceil` and `Math.abs`
 * under short local names (a minifier renames these, not `Math`'s properties). Only functions
 * the SDK calls more than once are here: each name is in every bundle, used or not, and costs more
 * than one `Math.cos` call.
 *
 * @example
 * ```ts
 * import { abs, ceil, fround, imul, max, min, sqrt } from "./vector.ts";
 * console.log(sqrt(4), min(1, 2), max(1, 2), fround(0.1)); // 2 1 2 0.10000000149011612
 * console.log(imul(3, 5), ceil(1.5), abs(-2)); // 15 2 2
 * ```
 */
export const { sqrt, min, max, fround, imul, ceil, abs } = Math;

/**
 * The classes `Float32Array`, `Float64Array`, `Int32Array`, `Uint8Array` and `Uint16Array` under
 * short local names, as `Math`'s functions above (a minifier renames these, not the global names).
 *
 * @example
 * ```ts
 * import { F32, F64, I32, U16, U8 } from "./vector.ts";
 * console.log(F32 === Float32Array, F64.name, I32.name, U8.of(1), new U16(1)); // true Float64Array Int32Array Uint8Array(1) [ 1 ] Uint16Array(1) [ 0 ]
 * ```
 */
export const {
  Float32Array: F32,
  Float64Array: F64,
  Int32Array: I32,
  Uint8Array: U8,
  Uint16Array: U16,
} = globalThis;

/**
 * `Array.isArray`, `Number.isInteger`, `Number.isSafeInteger`, `Object.entries` and
 * `Object.hasOwn` under short local names (as above).
 *
 * @example
 * ```ts
 * import { entries, hasOwn, isArray, isInteger, isSafeInteger } from "./vector.ts";
 * console.log(isArray([]), isInteger(1.5), isSafeInteger(2 ** 53), entries({ a: 1 }), hasOwn({ a: 1 }, "a")); // true false false [ [ "a", 1 ] ] true
 * ```
 */
export const { isArray } = Array,
  { isInteger, isSafeInteger } = Number,
  { entries, hasOwn } = Object;

/**
 * Whether `v` is a number (NaN included).
 *
 * @example
 * ```ts
 * import { isNumber } from "./vector.ts";
 * console.log(isNumber(1), isNumber(NaN), isNumber("1")); // true true false
 * ```
 */
export const isNumber = (v: unknown): v is number => typeof v == "number";

/**
 * Whether `v` is a string.
 *
 * @example
 * ```ts
 * import { isString } from "./vector.ts";
 * console.log(isString(""), isString(1)); // true false
 * ```
 */
export const isString = (v: unknown): v is string => typeof v == "string";

/**
 * The message "`what` must be an integer in [`lo`, `hi`]" (one phrase for every range the SDK
 * checks).
 *
 * @example
 * ```ts
 * import { range } from "./vector.ts";
 * console.log(range("k", 0, 9)); // "k must be an integer in [0, 9]"
 * ```
 */
export const range = (what: string, lo: number, hi: number): string =>
  `${what} must be an integer in [${lo}, ${hi}]`;

/**
 * A zero-filled float64 vector of length `n` (scratch and accumulators).
 *
 * @example
 * ```ts
 * import { zeros } from "./vector.ts";
 * console.log(zeros(2)); // Float64Array(2) [ 0, 0 ]
 * ```
 */
export const zeros = (n: number): Float64Array => new F64(n);

/**
 * 1/‖v[0, n)‖₂ (squares summed in float64 in index order), or 0 for a zero vector.
 *
 * @example
 * ```ts
 * import { invNorm } from "./vector.ts";
 * console.log(invNorm(Float64Array.of(3, 4, 99), 2), invNorm(new Float64Array(2), 2)); // 0.2 0
 * ```
 */
export const invNorm = (v: ArrayLike<number>, n: number): number => {
  let ss = 0;
  for (let i = 0; i < n; i++) ss += v[i] * v[i];
  return ss > 0 ? 1 / sqrt(ss) : 0;
};

/**
 * `out = (scale · x) M` for a vector x and the row-major matrix of `width` columns starting at
 * `M[offset]`: x[i] scales row i of that matrix, or row `rows[i]` when `rows` is given (a sparse
 * row: `rows` its columns, x its values). Rows where x is 0 are skipped, unless `zeroRows` (their
 * 0 · M is then added, as the trainer does: NaN for an infinite entry). Accumulated in float64 in
 * the order of x; returns `out`.
 *
 * @example
 * ```ts
 * import { vecMat } from "./vector.ts";
 * const M = Float32Array.of(1, 2, 3, 4); // 2 × 2
 * console.log(vecMat(new Float64Array(2), Float64Array.of(0, 2), M, 2)); // Float64Array(2) [ 6, 8 ]
 * console.log(vecMat(new Float64Array(2), Float64Array.of(2), M, 2, Int32Array.of(1))); // Float64Array(2) [ 6, 8 ]
 * console.log(vecMat(new Float64Array(1), Float64Array.of(1), M, 1, Int32Array.of(1), 3, 2)); // Float64Array(1) [ 12 ]
 * ```
 */
export const vecMat = (
  out: Float64Array,
  x: Float32Array | Float64Array,
  M: Float32Array,
  width: number,
  rows?: Int32Array,
  scale = 1,
  offset = 0,
  zeroRows?: boolean,
): Float64Array => {
  out.fill(0);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i] * scale, o = offset + (rows ? rows[i] : i) * width;
    if (xi !== 0 || zeroRows) { for (let c = 0; c < width; c++) out[c] += xi * M[o + c]; }
  }
  return out;
};

/**
 * `z + Σ_a x[a] · M[o + a]` over a = 0 … n − 1, accumulated in that order (in float64).
 *
 * @example
 * ```ts
 * import { dot } from "./vector.ts";
 * console.log(dot(Float64Array.of(1, 2), Float32Array.of(9, 3, 4), 1, 2, 0.5)); // 11.5
 * ```
 */
export const dot = (x: ArrayLike<number>, M: Float32Array, o: number, n: number, z = 0): number => {
  for (let a = 0; a < n; a++) z += x[a] * M[o + a];
  return z;
};

/**
 * `out[j] = init[j] + Σ_c x[c] · M[j·width + c]` for each of the `out.length` rows of the
 * row-major matrix M (float64 sums, stored in `out`); `init` defaults to 0. Returns `out`.
 *
 * @example
 * ```ts
 * import { matVec } from "./vector.ts";
 * const M = Float32Array.of(1, 2, 3, 4); // 2 × 2
 * console.log(matVec(new Float32Array(2), M, Float64Array.of(1, 1), 2, Float32Array.of(0.5, 0))); // Float32Array(2) [ 3.5, 7 ]
 * ```
 */
export const matVec = <T extends Float32Array | Float64Array>(
  out: T,
  M: Float32Array,
  x: Float64Array,
  width: number,
  init?: Float32Array,
): T => {
  for (let j = 0; j < out.length; j++) out[j] = dot(x, M, j * width, width, init ? init[j] : 0);
  return out;
};

/**
 * A zero-filled `Int32Array` of length `n`.
 *
 * @example
 * ```ts
 * import { i32s } from "./vector.ts";
 * console.log(i32s(2)); // Int32Array(2) [ 0, 0 ]
 * ```
 */
export const i32s = (n: number): Int32Array<ArrayBuffer> => new I32(n);

/**
 * 0, 1, …, `n` − 1 as an `Int32Array` (an identity order).
 *
 * @example
 * ```ts
 * import { iota } from "./vector.ts";
 * console.log(iota(3)); // Int32Array(3) [ 0, 1, 2 ]
 * ```
 */
export const iota = (n: number): Int32Array<ArrayBuffer> => i32s(n).map((_, i) => i);

/**
 * A zero-filled `Uint8Array` of length `n` (marks).
 *
 * @example
 * ```ts
 * import { u8s } from "./vector.ts";
 * console.log(u8s(2)); // Uint8Array(2) [ 0, 0 ]
 * ```
 */
export const u8s = (n: number): Uint8Array<ArrayBuffer> => new U8(n);

/**
 * A zero-filled `Float32Array` of length `n`.
 *
 * @example
 * ```ts
 * import { f32s } from "./vector.ts";
 * console.log(f32s(2)); // Float32Array(2) [ 0, 0 ]
 * ```
 */
export const f32s = (n: number): Float32Array<ArrayBuffer> => new F32(n);

/**
 * `x` as a ranking score: NaN ranks as -Infinity (below every finite number; a tie with -Infinity
 * goes by label).
 *
 * @example
 * ```ts
 * import { rankable } from "./vector.ts";
 * console.log(rankable(2), rankable(NaN)); // 2 -Infinity
 * ```
 */
export const rankable = (x: number): number => x === x ? x : -Infinity;
