/**
 * Precision@k as in the Extreme Classification Repository: per row, the number of true labels
 * among the top k predictions divided by k (a row with no true label scores 0; a top-k list
 * shorter than k counts the missing entries as misses), averaged over rows, in percent.
 *
 * @module
 */
import { containsSorted } from "./relevance.ts";

/**
 * Streaming P@k accumulator for several k at once. O(k log |y|) per row.
 *
 * @example
 * ```ts
 * import { PrecisionAtK } from "./precision.ts";
 * const p = new PrecisionAtK([1, 3]);
 * p.add(Int32Array.of(2, 0, 5), Int32Array.of(0, 2)); // hits at ranks 1 and 2
 * p.add(Int32Array.of(1, 0, 4), Int32Array.of(4)); // hit at rank 3
 * console.log(p.result()); // { "P@1": 50, "P@3": 50 }
 * ```
 */
export class PrecisionAtK {
  /** The cut-offs reported, increasing. */
  readonly ks: readonly number[];
  readonly #maxK: number;
  readonly #sums: Float64Array;
  #rows = 0;

  /** @param ks cut-offs (positive integers), default [1, 3, 5] */
  constructor(ks: readonly number[] = [1, 3, 5]) {
    this.ks = normaliseKs(ks);
    this.#maxK = this.ks[this.ks.length - 1];
    this.#sums = new Float64Array(this.ks.length);
  }

  /** Number of rows added. */
  get rows(): number {
    return this.#rows;
  }

  /**
   * Adds one row: `top` = predicted labels best first (at least max k of them when the label
   * space allows), `labels` = the row's true labels, strictly increasing.
   */
  add(top: ArrayLike<number>, labels: ArrayLike<number>): void {
    this.#rows++;
    if (labels.length === 0) return;
    let hits = 0;
    let ki = 0;
    const n = Math.min(top.length, this.#maxK);
    for (let j = 0; j < this.#maxK && ki < this.ks.length; j++) {
      if (j < n && containsSorted(labels, top[j])) hits++;
      while (ki < this.ks.length && this.ks[ki] === j + 1) {
        this.#sums[ki] += hits / (j + 1);
        ki++;
      }
    }
  }

  /** `{ "P@k": percent }` for each k (0 when no row was added). */
  result(): Record<string, number> {
    const out: Record<string, number> = {};
    this.ks.forEach((k, i) => {
      out[`P@${k}`] = this.#rows === 0 ? 0 : (100 * this.#sums[i]) / this.#rows;
    });
    return out;
  }
}

/**
 * Validates, sorts and de-duplicates metric cut-offs.
 *
 * @example
 * ```ts
 * import { normaliseKs } from "./precision.ts";
 * console.log(normaliseKs([5, 1, 3, 1])); // [1, 3, 5]
 * ```
 */
export function normaliseKs(ks: readonly number[]): number[] {
  if (ks.length === 0) throw new RangeError("metric cut-offs: at least one k is required");
  for (const k of ks) {
    if (!Number.isInteger(k) || k < 1) {
      throw new RangeError(`metric cut-offs: k must be a positive integer, got ${k}`);
    }
  }
  return [...new Set(ks)].sort((a, b) => a - b);
}
