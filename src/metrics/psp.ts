/**
 * Propensity-scored precision PSP@k (Jain et al. 2016, Extreme Classification Repository
 * convention): Σ_rows Σ_{j<k} rel_j / p_{top_j} divided by Σ_rows of the best attainable value
 * (the row's true labels ranked by 1/p, at most k of them), in percent, so it lies in [0, 100].
 * (The 1/k factors of both sides cancel.) Rows with no true label add 0 to both sums.
 *
 * @module
 */
import { normaliseKs } from "./precision.ts";
import { containsSorted, topWeights } from "./relevance.ts";

/**
 * Inverse propensities `1 / p_l` (the weights the propensity-scored metrics use).
 *
 * @example
 * ```ts
 * import { inversePropensities } from "./psp.ts";
 * console.log([...inversePropensities(Float64Array.of(0.5, 0.25))]); // [2, 4]
 * ```
 */
export function inversePropensities(propensities: ArrayLike<number>): Float64Array {
  const w = new Float64Array(propensities.length);
  for (let l = 0; l < w.length; l++) {
    const p = propensities[l];
    if (!(p > 0)) throw new RangeError(`propensity of label ${l} must be > 0, got ${p}`);
    w[l] = 1 / p;
  }
  return w;
}

/**
 * Streaming PSP@k accumulator for several k at once. O(k log |y| + |y| k) per row.
 *
 * @example
 * ```ts
 * import { PspAtK } from "./psp.ts";
 * // label 0 is common (p = 0.5), label 1 rare (p = 0.1)
 * const m = new PspAtK(Float64Array.of(0.5, 0.1), [1]);
 * m.add(Int32Array.of(0), Int32Array.of(0, 1)); // got weight 2, best was 10
 * console.log(m.result()); // { "PSP@1": 20 }
 * ```
 */
export class PspAtK {
  /** The cut-offs reported, increasing. */
  readonly ks: readonly number[];
  readonly #maxK: number;
  readonly #weights: Float64Array;
  readonly #num: Float64Array;
  readonly #den: Float64Array;
  readonly #best: Float64Array;
  #rows = 0;

  /**
   * @param propensities one propensity per label (see `propensities`), all > 0
   * @param ks cut-offs, default [1, 3, 5]
   */
  constructor(propensities: ArrayLike<number>, ks: readonly number[] = [1, 3, 5]) {
    this.ks = normaliseKs(ks);
    this.#maxK = this.ks[this.ks.length - 1];
    this.#weights = inversePropensities(propensities);
    this.#num = new Float64Array(this.ks.length);
    this.#den = new Float64Array(this.ks.length);
    this.#best = new Float64Array(this.#maxK);
  }

  /** Number of rows added. */
  get rows(): number {
    return this.#rows;
  }

  /** Adds one row: predicted labels best first, true labels strictly increasing. */
  add(top: ArrayLike<number>, labels: ArrayLike<number>): void {
    this.#rows++;
    if (labels.length === 0) return;
    const w = this.#weights;
    const nBest = topWeights(labels, w, this.#best);
    let got = 0;
    let best = 0;
    let ki = 0;
    const n = Math.min(top.length, this.#maxK);
    for (let j = 0; j < this.#maxK && ki < this.ks.length; j++) {
      if (j < n) {
        const l = top[j];
        if (containsSorted(labels, l)) got += w[l];
      }
      if (j < nBest) best += this.#best[j];
      while (ki < this.ks.length && this.ks[ki] === j + 1) {
        this.#num[ki] += got;
        this.#den[ki] += best;
        ki++;
      }
    }
  }

  /** `{ "PSP@k": percent }` for each k (0 when no row had a true label). */
  result(): Record<string, number> {
    const out: Record<string, number> = {};
    this.ks.forEach((k, i) => {
      out[`PSP@${k}`] = this.#den[i] > 0 ? (100 * this.#num[i]) / this.#den[i] : 0;
    });
    return out;
  }
}
