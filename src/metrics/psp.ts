/**
 * Propensity-scored precision PSP@k (Jain et al. 2016, Extreme Classification Repository
 * convention): Σ_rows Σ_{j<k} rel_j / p_{top_j} divided by Σ_rows of the best attainable value
 * (the row's true labels ranked by 1/p, at most k of them), in percent, so it lies in [0, 100].
 * (The 1/k factors of both sides cancel.) Rows with no true label add 0 to both sums. This is
 * pyxclib's `psprecision` (the mean over rows of the gains divided by the mean over rows of the
 * best gains), not the mean of per-row ratios: a row weighs by its best attainable gain, so rows
 * with rare true labels count more.
 *
 * @module
 */
import { RankGainAtK } from "./rank_gain.ts";

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
export class PspAtK extends RankGainAtK {
  /**
   * @param propensities one propensity per label (see `propensities`), all > 0
   * @param ks cut-offs, default [1, 3, 5]
   */
  constructor(propensities: ArrayLike<number>, ks: readonly number[] = [1, 3, 5]) {
    super("PSP", ks, { propensities, discounted: false, normaliser: "none" });
  }
}
