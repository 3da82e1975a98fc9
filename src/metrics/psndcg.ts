/**
 * Propensity-scored nDCG, PSnDCG@k (Extreme Classification Repository convention): per row,
 * psDCG@k = Σ_{j<k} rel_j / (p_{top_j} log2(j + 2)) divided by the plain ideal DCG of
 * min(k, |y|) labels; the metric is Σ_rows of that over Σ_rows of the same quantity for the best
 * attainable ranking (true labels by decreasing 1/p), in percent, so it lies in [0, 100].
 *
 * @module
 */
import { normaliseKs } from "./precision.ts";
import { inversePropensities } from "./psp.ts";
import { containsSorted, discounts, topWeights } from "./relevance.ts";

/**
 * Streaming PSnDCG@k accumulator for several k at once. O(k log |y| + |y| k) per row.
 *
 * @example
 * ```ts
 * import { PsNdcgAtK } from "./psndcg.ts";
 * const m = new PsNdcgAtK(Float64Array.of(0.5, 0.1), [2]);
 * // predicted [0, 1]: 2/1 + 10/log2(3); best [1, 0]: 10/1 + 2/log2(3)
 * m.add(Int32Array.of(0, 1), Int32Array.of(0, 1));
 * console.log(m.result()["PSnDCG@2"].toFixed(2)); // 73.78
 * ```
 */
export class PsNdcgAtK {
  /** The cut-offs reported, increasing. */
  readonly ks: readonly number[];
  readonly #maxK: number;
  readonly #weights: Float64Array;
  readonly #discount: Float64Array;
  readonly #ideal: Float64Array;
  readonly #num: Float64Array;
  readonly #den: Float64Array;
  readonly #best: Float64Array;
  #rows = 0;

  /**
   * @param propensities one propensity per label, all > 0
   * @param ks cut-offs, default [1, 3, 5]
   */
  constructor(propensities: ArrayLike<number>, ks: readonly number[] = [1, 3, 5]) {
    this.ks = normaliseKs(ks);
    this.#maxK = this.ks[this.ks.length - 1];
    this.#weights = inversePropensities(propensities);
    const d = discounts(this.#maxK);
    this.#discount = d.discount;
    this.#ideal = d.ideal;
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
    const numTrue = labels.length;
    if (numTrue === 0) return;
    const w = this.#weights;
    const nBest = topWeights(labels, w, this.#best);
    let got = 0;
    let best = 0;
    let ki = 0;
    const n = Math.min(top.length, this.#maxK);
    for (let j = 0; j < this.#maxK && ki < this.ks.length; j++) {
      if (j < n) {
        const l = top[j];
        if (containsSorted(labels, l)) got += w[l] * this.#discount[j];
      }
      if (j < nBest) best += this.#best[j] * this.#discount[j];
      while (ki < this.ks.length && this.ks[ki] === j + 1) {
        const norm = this.#ideal[Math.min(j + 1, numTrue)];
        this.#num[ki] += got / norm;
        this.#den[ki] += best / norm;
        ki++;
      }
    }
  }

  /** `{ "PSnDCG@k": percent }` for each k (0 when no row had a true label). */
  result(): Record<string, number> {
    const out: Record<string, number> = {};
    this.ks.forEach((k, i) => {
      out[`PSnDCG@${k}`] = this.#den[i] > 0 ? (100 * this.#num[i]) / this.#den[i] : 0;
    });
    return out;
  }
}
