/**
 * Float16 and int8 quantisation of float32 tensors, and dequantisation back to float32.
 *
 * @module
 */
import type { Tensor } from "./types.ts";
import { halfFloats } from "../../sdk/internal.ts";

const f32Box = new Float32Array(1);
const u32Box = new Uint32Array(f32Box.buffer);

/**
 * IEEE 754 half-precision bits of `v` (round to nearest, ties to even; overflow gives ±Infinity).
 *
 * @example
 * ```ts
 * import { toFloat16Bits } from "./quantize.ts";
 * console.log(toFloat16Bits(1).toString(16)); // "3c00"
 * ```
 */
export function toFloat16Bits(v: number): number {
  f32Box[0] = v;
  const x = u32Box[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 112;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}

/**
 * Float16 → float32 for a whole array: the SDK's decoder (`halfFloats`, table-driven), so the
 * trainer reads quantised tensors exactly as the SDK does.
 *
 * @example
 * ```ts
 * import { float16ToFloat32 } from "./quantize.ts";
 * console.log(float16ToFloat32(Uint16Array.of(0x3c00, 0x3800))); // Float32Array(2) [ 1, 0.5 ]
 * ```
 */
export function float16ToFloat32(bits: Uint16Array): Float32Array {
  return halfFloats(bits);
}

/**
 * Float32 → float16 bits for a whole array.
 *
 * @example
 * ```ts
 * import { float32ToFloat16 } from "./quantize.ts";
 * console.log(float32ToFloat16(Float32Array.of(1, -2))); // Uint16Array [ 15360, 49152 ]
 * ```
 */
export function float32ToFloat16(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = toFloat16Bits(values[i]);
  return out;
}

/**
 * Symmetric int8 quantisation: value ≈ q × scale with q in [-127, 127]. With `rows` > 1 the
 * data is `rows` equal row-major rows, each with its own scale (max |value| / 127).
 *
 * @example
 * ```ts
 * import { quantizeInt8 } from "./quantize.ts";
 * const { data, scale } = quantizeInt8(Float32Array.of(1, -0.5, 0.25, 0.5), 2);
 * console.log(data, scale); // Int8Array [ 127, -64, 64, 127 ] Float32Array [ 1/127, 0.5/127 ]
 * ```
 */
export function quantizeInt8(
  values: ArrayLike<number>,
  rows = 1,
): { data: Int8Array; scale: number | Float32Array } {
  const n = values.length;
  if (rows < 1 || n % rows !== 0) {
    throw new RangeError(`quantizeInt8: ${n} values do not split into ${rows} rows`);
  }
  const width = n / rows;
  const data = new Int8Array(n);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    const start = r * width;
    let max = 0;
    for (let i = start; i < start + width; i++) {
      const a = Math.abs(values[i]);
      if (a > max && a !== Infinity) max = a;
    }
    const scale = Math.fround(max / 127);
    scales[r] = scale;
    if (scale === 0) continue;
    for (let i = start; i < start + width; i++) {
      const q = Math.round(values[i] / scale);
      data[i] = q > 127 ? 127 : q < -127 ? -127 : q;
    }
  }
  return { data, scale: rows === 1 ? scales[0] : scales };
}

/**
 * `data` (of shape `shape`) as a tensor of `dtype`: f32 as it is, f16, or i8 with one scale per
 * row of `rows` (default: `shape[0]` rows for a tensor of 2 or more dimensions, else one scale
 * for all), as {@linkcode encodeModelFile}'s `quantize` writes tensors.
 *
 * @example
 * ```ts
 * import { quantizedTensor } from "./quantize.ts";
 * const t = quantizedTensor(Float32Array.of(1, -0.5, 0.25, 0.5), [2, 2], "i8");
 * console.log(t.dtype, t.data, t.scale); // i8 Int8Array(4) [ 127, -64, 64, 127 ] Float32Array(2) [ 0.007874015718698502, 0.003937007859349251 ]
 * ```
 */
export function quantizedTensor(
  data: Float32Array,
  shape: number[],
  dtype: "f32" | "f16" | "i8",
  rows: number = shape.length >= 2 && shape[0] > 0 ? shape[0] : 1,
): Tensor {
  if (dtype === "f16") return { dtype, shape, data: float32ToFloat16(data) };
  if (dtype === "f32") return { dtype, shape, data };
  const q = quantizeInt8(data, rows);
  return { dtype, shape, data: q.data, scale: q.scale };
}

/**
 * The float32 values of a float tensor (`f32` returned as is, `f64`, `f16`, `i8` converted).
 *
 * @example
 * ```ts
 * import { dequantize } from "./quantize.ts";
 * const t = { dtype: "i8" as const, shape: [2], data: Int8Array.of(127, -127), scale: 0.5 / 127 };
 * console.log(dequantize(t)); // Float32Array [ 0.5, -0.5 ]
 * ```
 */
export function dequantize(t: Tensor): Float32Array {
  switch (t.dtype) {
    case "f32":
      return t.data as Float32Array;
    case "f16":
      return float16ToFloat32(t.data as Uint16Array);
    case "i8": {
      const q = t.data as Int8Array;
      const out = new Float32Array(q.length);
      const s = t.scale ?? 1;
      if (typeof s === "number") {
        for (let i = 0; i < q.length; i++) out[i] = q[i] * s;
      } else {
        const width = s.length ? q.length / s.length : 0;
        for (let i = 0; i < q.length; i++) out[i] = q[i] * s[Math.floor(i / width)];
      }
      return out;
    }
    default:
      return Float32Array.from(t.data as ArrayLike<number>);
  }
}
