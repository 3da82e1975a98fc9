/**
 * Precision@k as in the Extreme Classification Repository: per row, the number of true labels
 * among the top k predictions divided by k (a row with no true label scores 0; a top-k list
 * shorter than k counts the missing entries as misses), averaged over rows, in percent.
 *
 * @module
 */
import { RankGainAtK } from "./rank_gain.ts";

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
export class PrecisionAtK extends RankGainAtK {
  /** @param ks cut-offs (positive integers), default [1, 3, 5] */
  constructor(ks: readonly number[] = [1, 3, 5]) {
    super("P", ks, { discounted: false, normaliser: "k" });
  }
}
