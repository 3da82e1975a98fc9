/**
 * Propensity-scored nDCG, PSnDCG@k (Extreme Classification Repository convention): per row,
 * psDCG@k = Σ_{j<k} rel_j / (p_{top_j} log2(j + 2)) divided by the plain ideal DCG of
 * min(k, |y|) labels; the metric is Σ_rows of that over Σ_rows of the same quantity for the best
 * attainable ranking (true labels by decreasing 1/p), in percent, so it lies in [0, 100]. As
 * pyxclib's `psndcg`: a ratio of sums over rows, not the mean of per-row ratios; rows with no
 * true label add 0 to both sums.
 *
 * @module
 */
import { RankGainAtK } from "./rank_gain.ts";

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
export class PsNdcgAtK extends RankGainAtK {
  /**
   * @param propensities one propensity per label, all > 0
   * @param ks cut-offs, default [1, 3, 5]
   */
  constructor(propensities: ArrayLike<number>, ks: readonly number[] = [1, 3, 5]) {
    super("PSnDCG", ks, { propensities, discounted: true, normaliser: "ideal" });
  }
}
