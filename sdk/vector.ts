/**
 * Small vector helpers shared by the SDK's preprocessing and scorers.
 *
 * @module
 */

/**
 * `Math.sqrt`, `Math.min`, `Math.max`, `Math.floor`, `Math.fround`, `Math.imul`, `Math.ceil`,
 * `Math.cos` and `Math.sin` under short local names (a minifier renames these, not `Math`'s
 * properties).
 *
 * @example
 * ```ts
 * import { ceil, cos, floor, fround, imul, max, min, sin, sqrt } from "./vector.ts";
 * console.log(sqrt(4), min(1, 2), max(1, 2), floor(1.5), fround(0.1)); // 2 1 2 1 0.10000000149011612
 * console.log(imul(3, 5), ceil(1.5), cos(0), sin(0)); // 15 2 1 0
 * ```
 */
export const { sqrt, min, max, floor, fround, imul, ceil, cos, sin } = Math;

/**
 * A zero-filled float64 vector of length `n` (scratch and accumulators).
 *
 * @example
 * ```ts
 * import { zeros } from "./vector.ts";
 * console.log(zeros(2)); // Float64Array(2) [ 0, 0 ]
 * ```
 */
export const zeros = (n: number): Float64Array => new Float64Array(n);

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
 * `out = (scale · x) M` for a sparse row x (`indices`, `values`) and the row-major matrix of
 * `width` columns starting at `M[offset]`: row j of that matrix is `M[offset + j·width, …)`.
 * Accumulated in float64 in the order of the row's entries; returns `out`.
 *
 * @example
 * ```ts
 * import { sparseVecMat } from "./vector.ts";
 * const M = Float32Array.of(1, 2, 3, 4); // 2 × 2
 * console.log(sparseVecMat(new Float64Array(2), Int32Array.of(1), Float64Array.of(2), 1, M, 0, 2)); // Float64Array(2) [ 6, 8 ]
 * ```
 */
export const sparseVecMat = (
  out: Float64Array,
  indices: Int32Array,
  values: Float32Array | Float64Array,
  scale: number,
  M: Float32Array,
  offset: number,
  width: number,
): Float64Array => {
  out.fill(0);
  for (let e = 0; e < indices.length; e++) {
    const w = values[e] * scale, o = offset + indices[e] * width;
    for (let c = 0; c < width; c++) out[c] += w * M[o + c];
  }
  return out;
};

/**
 * `out = x M` for a vector x and a row-major matrix M of `width` columns: x[i] scales row i, or
 * row `rows[i]` when `rows` is given (a sparse x, its columns). Rows where x is 0 are skipped;
 * accumulated in float64 in the order of x; returns `out`.
 *
 * @example
 * ```ts
 * import { vecMat } from "./vector.ts";
 * const M = Float32Array.of(1, 2, 3, 4); // 2 × 2
 * console.log(vecMat(new Float64Array(2), Float64Array.of(0, 2), M, 2)); // Float64Array(2) [ 6, 8 ]
 * console.log(vecMat(new Float64Array(2), Float64Array.of(2), M, 2, Int32Array.of(1))); // Float64Array(2) [ 6, 8 ]
 * ```
 */
export const vecMat = (
  out: Float64Array,
  x: Float32Array | Float64Array,
  M: Float32Array,
  width: number,
  rows?: Int32Array,
): Float64Array => {
  out.fill(0);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i], o = (rows ? rows[i] : i) * width;
    if (xi !== 0) { for (let c = 0; c < width; c++) out[c] += xi * M[o + c]; }
  }
  return out;
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
  for (let j = 0; j < out.length; j++) {
    let z = init ? init[j] : 0;
    for (let c = 0; c < width; c++) z += x[c] * M[j * width + c];
    out[j] = z;
  }
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
export const i32s = (n: number): Int32Array<ArrayBuffer> => new Int32Array(n);

/**
 * A zero-filled `Uint8Array` of length `n` (marks).
 *
 * @example
 * ```ts
 * import { u8s } from "./vector.ts";
 * console.log(u8s(2)); // Uint8Array(2) [ 0, 0 ]
 * ```
 */
export const u8s = (n: number): Uint8Array<ArrayBuffer> => new Uint8Array(n);

/**
 * A zero-filled `Float32Array` of length `n`.
 *
 * @example
 * ```ts
 * import { f32s } from "./vector.ts";
 * console.log(f32s(2)); // Float32Array(2) [ 0, 0 ]
 * ```
 */
export const f32s = (n: number): Float32Array<ArrayBuffer> => new Float32Array(n);

/**
 * `x` as a ranking score: NaN ranks below every number (-Infinity).
 *
 * @example
 * ```ts
 * import { rankable } from "./vector.ts";
 * console.log(rankable(2), rankable(NaN)); // 2 -Infinity
 * ```
 */
export const rankable = (x: number): number => x === x ? x : -Infinity;
