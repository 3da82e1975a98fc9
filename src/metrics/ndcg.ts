/**
 * nDCG@k as in the Extreme Classification Repository: per row, DCG@k = Σ_{j<k} rel_j /
 * log2(j + 2) divided by the ideal DCG of min(k, |y|) relevant labels; rows with no true label
 * score 0; averaged over rows, in percent.
 *
 * @module
 */
import { normaliseKs } from "./precision.ts";
import { containsSorted, discounts } from "./relevance.ts";

/**
 * Streaming nDCG@k accumulator for several k at once. O(k log |y|) per row.
 *
 * @example
 * ```ts
 * import { NdcgAtK } from "./ndcg.ts";
 * const m = new NdcgAtK([1, 2]);
 * m.add(Int32Array.of(3, 1), Int32Array.of(1)); // the only true label at rank 2
 * const r = m.result();
 * console.log(r["nDCG@1"], r["nDCG@2"].toFixed(2)); // 0 63.09
 * ```
 */
export class NdcgAtK {
  /** The cut-offs reported, increasing. */
  readonly ks: readonly number[];
  readonly #maxK: number;
  readonly #sums: Float64Array;
  readonly #discount: Float64Array;
  readonly #ideal: Float64Array;
  #rows = 0;

  /** @param ks cut-offs (positive integers), default [1, 3, 5] */
  constructor(ks: readonly number[] = [1, 3, 5]) {
    this.ks = normaliseKs(ks);
    this.#maxK = this.ks[this.ks.length - 1];
    this.#sums = new Float64Array(this.ks.length);
    const d = discounts(this.#maxK);
    this.#discount = d.discount;
    this.#ideal = d.ideal;
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
    let dcg = 0;
    let ki = 0;
    const n = Math.min(top.length, this.#maxK);
    for (let j = 0; j < this.#maxK && ki < this.ks.length; j++) {
      if (j < n && containsSorted(labels, top[j])) dcg += this.#discount[j];
      while (ki < this.ks.length && this.ks[ki] === j + 1) {
        this.#sums[ki] += dcg / this.#ideal[Math.min(j + 1, numTrue)];
        ki++;
      }
    }
  }

  /** `{ "nDCG@k": percent }` for each k. */
  result(): Record<string, number> {
    const out: Record<string, number> = {};
    this.ks.forEach((k, i) => {
      out[`nDCG@${k}`] = this.#rows === 0 ? 0 : (100 * this.#sums[i]) / this.#rows;
    });
    return out;
  }
}
