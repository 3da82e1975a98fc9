/**
 * nDCG@k as in the Extreme Classification Repository: per row, DCG@k = Σ_{j<k} rel_j /
 * log2(j + 2) divided by the ideal DCG of min(k, |y|) relevant labels; rows with no true label
 * score 0; averaged over rows, in percent.
 *
 * @module
 */
import { RankGainAtK } from "./rank_gain.ts";

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
export class NdcgAtK extends RankGainAtK {
  /** @param ks cut-offs (positive integers), default [1, 3, 5] */
  constructor(ks: readonly number[] = [1, 3, 5]) {
    super("nDCG", ks, { discounted: true, normaliser: "ideal" });
  }
}
