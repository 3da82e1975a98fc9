/**
 * Random Fourier features (Rahimi & Recht 2007) of the RBF kernel k(x, y) = exp(-γ‖x − y‖²).
 *
 * Directions u_k ~ N(0, 2γ I) are stored as a row-major `[numInputs, numRff]` matrix `W` (row d
 * holds the d-th coordinate of every direction) so that a sparse row is projected by summing the
 * rows of its present features. The feature map is
 * φ(x) = (1/√K) [cos(u_1·x), …, cos(u_K·x), sin(u_1·x), …, sin(u_K·x)], so that
 * φ(x)·φ(y) = (1/K) Σ_k cos(u_k·(x − y)) ≈ k(x, y).
 *
 * Row d of `W` is drawn from its own seeded stream (seed, d), so growing the input space keeps
 * the existing directions and the new rows do not depend on when the growth happened.
 *
 * @module
 */

// fdlibm's __kernel_sin / __kernel_cos minimax coefficients on [-π/4, π/4]
const S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03;
const S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06;
const S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
const C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03;
const C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07;
const C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
// π/2 split in two (Cody–Waite): the high part has 33 significant bits, so n·PIO2_HI is exact
const TWO_OVER_PI = 0.6366197723675814, PIO2_HI = 1.5707963267341256;
const PIO2_LO = 6.077100506506192e-11;

/**
 * The random-feature map of `count` projections at once: `out[q] = scale·cos(a[q])` and
 * `out[count + q] = scale·sin(a[q])`. One shared range reduction and two short polynomials per
 * angle (fdlibm's kernels), about 7× faster than `Math.cos` plus `Math.sin` in V8 and within
 * 2e-16 of them for |a| < 1e5. Beyond that (and for NaN) the angle goes to `Math.cos` and
 * `Math.sin`, as the SDK computes it: the two-part π/2 loses its exactness there, and a
 * projection of 1e15 gave other labels than the SDK's.
 *
 * @example
 * ```ts
 * import { cosSinInto } from "./rff.ts";
 * const out = new Float64Array(4);
 * cosSinInto(Float64Array.of(0, Math.PI / 2), 2, out, 1);
 * console.log(out[0], Math.abs(out[1]) < 1e-15, Math.abs(out[2]) < 1e-15, out[3]); // 1 true true 1
 * ```
 */
export function cosSinInto(
  a: ArrayLike<number>,
  count: number,
  out: Float64Array,
  scale: number,
): void {
  for (let q = 0; q < count; q++) {
    const x = a[q];
    if (!(x > -1e5 && x < 1e5)) {
      out[q] = scale * Math.cos(x);
      out[count + q] = scale * Math.sin(x);
      continue;
    }
    const n = Math.round(x * TWO_OVER_PI);
    const r = (x - n * PIO2_HI) - n * PIO2_LO;
    const z = r * r;
    const s = r + r * z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
    const c = 1 - 0.5 * z + z * z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    const m = n & 3; // quadrant (two's complement: correct for negative n too)
    if (m === 0) {
      out[q] = scale * c;
      out[count + q] = scale * s;
    } else if (m === 1) {
      out[q] = -scale * s;
      out[count + q] = scale * c;
    } else if (m === 2) {
      out[q] = -scale * c;
      out[count + q] = -scale * s;
    } else {
      out[q] = scale * s;
      out[count + q] = -scale * c;
    }
  }
}

/** splitmix32 step: a well-mixed 32-bit hash of a 32-bit state. */
function mix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  let z = x;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/**
 * Fills `out[offset .. offset+count)` with standard normal draws from the stream (seed, stream).
 * Deterministic: the same (seed, stream) always gives the same numbers.
 *
 * @example
 * ```ts
 * import { seededNormals } from "./rff.ts";
 * const a = new Float64Array(4), b = new Float64Array(4);
 * seededNormals(7, 3, a, 0, 4);
 * seededNormals(7, 3, b, 0, 4);
 * console.log(a[2] === b[2]); // true
 * ```
 */
export function seededNormals(
  seed: number,
  stream: number,
  out: Float64Array,
  offset: number,
  count: number,
): void {
  let state = mix32(mix32(seed >>> 0) ^ Math.imul(stream + 1, 0x27d4eb2d)) | 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296; // in (0, 1)
  };
  for (let i = 0; i < count; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const th = 2 * Math.PI * uniform();
    out[offset + i] = r * Math.cos(th);
    if (i + 1 < count) out[offset + i + 1] = r * Math.sin(th);
  }
}

/**
 * The largest γ {@linkcode RandomFourierFeatures} takes: the directions' scale √(2γ) stays below
 * 1e150, so neither a direction nor the projection of float32 feature values on it overflows
 * (beyond about 9e307 the scale itself is infinite, and every feature NaN).
 *
 * @example
 * ```ts
 * import { MAX_GAMMA } from "./rff.ts";
 * console.log(MAX_GAMMA); // 1e+299
 * ```
 */
export const MAX_GAMMA = 1e299;

/**
 * A random Fourier feature map for the RBF kernel exp(-γ‖x − y‖²).
 *
 * @throws {RangeError} (constructor) when `numInputs` is not an integer >= 0, `numRff` not an
 * integer >= 1, `gamma` not in (0, {@linkcode MAX_GAMMA}] or `w` mis-sized.
 *
 * @example
 * ```ts
 * import { RandomFourierFeatures } from "./rff.ts";
 * const rff = new RandomFourierFeatures(3, 2000, 0.5, 1);
 * const x = Float64Array.of(0.1, 0.2, 0.3), y = Float64Array.of(0.3, 0.1, 0.2);
 * const fx = rff.features(x), fy = rff.features(y);
 * let dot = 0;
 * for (let i = 0; i < fx.length; i++) dot += fx[i] * fy[i];
 * console.log(Math.abs(dot - Math.exp(-0.5 * 0.06)) < 0.05); // true
 * ```
 */
export class RandomFourierFeatures {
  /** Number of input dimensions D. */
  numInputs: number;
  /** Number of random directions K (the feature map has 2K outputs). */
  readonly numRff: number;
  /** RBF kernel parameter γ. */
  readonly gamma: number;
  /** Seed of the directions. */
  readonly seed: number;
  /** Directions, row-major `[numInputs, numRff]`. */
  W: Float64Array;

  constructor(numInputs: number, numRff: number, gamma: number, seed: number, w?: Float64Array) {
    if (!Number.isInteger(numInputs) || numInputs < 0) {
      throw new RangeError(`RandomFourierFeatures: numInputs ${numInputs} must be an integer >= 0`);
    }
    if (!Number.isInteger(numRff) || numRff < 1) {
      throw new RangeError(`RandomFourierFeatures: numRff ${numRff} must be an integer >= 1`);
    }
    if (!(gamma > 0) || !(gamma <= MAX_GAMMA)) {
      // beyond MAX_GAMMA the directions' scale √(2γ) overflows: infinite directions, NaN
      // features and scores
      throw new RangeError(
        `RandomFourierFeatures: gamma ${gamma} must be a number in (0, ${MAX_GAMMA}]`,
      );
    }
    this.numInputs = numInputs;
    this.numRff = numRff;
    this.gamma = gamma;
    this.seed = seed;
    if (w) {
      if (w.length !== numInputs * numRff) {
        throw new RangeError(
          `RandomFourierFeatures: W has ${w.length} entries, expected ${numInputs} × ${numRff}`,
        );
      }
      this.W = w;
    } else {
      this.W = new Float64Array(numInputs * numRff);
      this.fillRows(0, numInputs);
    }
  }

  /** Scale 1/√K applied to every output. */
  get scale(): number {
    return 1 / Math.sqrt(this.numRff);
  }

  /** Output dimension 2K. */
  get outputDim(): number {
    return 2 * this.numRff;
  }

  private fillRows(from: number, to: number): void {
    const K = this.numRff, std = Math.sqrt(2 * this.gamma);
    for (let d = from; d < to; d++) {
      seededNormals(this.seed, d, this.W, d * K, K);
      for (let k = d * K; k < (d + 1) * K; k++) this.W[k] *= std;
    }
  }

  /**
   * Grows the input space to `numInputs` (new rows drawn from their own seeded streams); a
   * smaller size changes nothing. Throws a RangeError when `numInputs` is not an integer.
   */
  grow(numInputs: number): void {
    if (!Number.isSafeInteger(numInputs)) {
      throw new RangeError(
        `RandomFourierFeatures.grow: numInputs ${numInputs} must be an integer`,
      );
    }
    if (numInputs <= this.numInputs) return;
    const w = new Float64Array(numInputs * this.numRff);
    w.set(this.W);
    const from = this.numInputs;
    this.W = w;
    this.numInputs = numInputs;
    this.fillRows(from, numInputs);
  }

  /** Projection a = xᵀW of a dense row (length ≥ numInputs; extra entries are ignored). */
  project(x: ArrayLike<number>, out: Float64Array = new Float64Array(this.numRff)): Float64Array {
    const K = this.numRff, W = this.W;
    out.fill(0, 0, K);
    for (let d = 0; d < this.numInputs; d++) {
      const v = x[d];
      if (v === 0) continue;
      const base = d * K;
      for (let k = 0; k < K; k++) out[k] += v * W[base + k];
    }
    return out;
  }

  /** Maps projections a (length K) to φ = (1/√K)[cos a, sin a] (length 2K). */
  fromProjection(a: ArrayLike<number>, out: Float64Array = new Float64Array(this.outputDim)) {
    cosSinInto(a, this.numRff, out, this.scale);
    return out;
  }

  /** φ(x) of a dense row. */
  features(x: ArrayLike<number>, out?: Float64Array): Float64Array {
    return this.fromProjection(this.project(x), out);
  }
}
