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
 * A random Fourier feature map for the RBF kernel exp(-γ‖x − y‖²).
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
    if (!(gamma > 0) || !Number.isFinite(gamma)) {
      throw new RangeError(`RandomFourierFeatures: gamma ${gamma} must be a finite number > 0`);
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

  /** Grows the input space to `numInputs` (new rows drawn from their own seeded streams). */
  grow(numInputs: number): void {
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
    const K = this.numRff, c = this.scale;
    for (let k = 0; k < K; k++) {
      out[k] = c * Math.cos(a[k]);
      out[K + k] = c * Math.sin(a[k]);
    }
    return out;
  }

  /** φ(x) of a dense row. */
  features(x: ArrayLike<number>, out?: Float64Array): Float64Array {
    return this.fromProjection(this.project(x), out);
  }
}
