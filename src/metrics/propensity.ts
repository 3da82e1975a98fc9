/**
 * Inverse label propensities as in Jain, Prabhu and Varma (2016), the Extreme Classification
 * Repository's convention for the propensity-scored metrics (PSP@k, PSnDCG@k).
 *
 * @module
 */

/**
 * Label propensities `p_l = 1 / (1 + C (N_l + B)^-A)` with `C = (ln N − 1)(B + 1)^A`, where
 * `N_l` is the number of training rows carrying label `l` and `N` the number of training rows.
 * The repository's defaults are `A = 0.55, B = 1.5` (Wikipedia-LSHTC uses 0.5, 0.4; Amazon 0.6,
 * 2.6). Rare labels get small propensities, i.e. large weights `1 / p_l`. With fewer than 3
 * training rows (`ln N < 1`) `C` would be negative and the formula leave (0, 1]; `C` is then
 * taken as 0: every propensity is 1 (no weighting).
 *
 * @param labelCounts number of training rows per label (`N_l`, each a finite number >= 0), one
 *   entry per label
 * @param numTrain number of training rows (`N`), an integer >= 1
 * @param A the `A` parameter (default 0.55), a finite number > 0 (the published values are
 *   0.5 to 0.6; A <= 0 would make frequent labels no more likely to be observed than rare ones)
 * @param B the `B` parameter (default 1.5), a finite number > 0 (`N_l + B` must stay positive
 *   for unseen labels, `N_l = 0`)
 * @returns one propensity per label, in (0, 1]
 * @throws {RangeError} when `numTrain` is not an integer >= 1, `A` or `B` is out of range, or a
 *   count is negative, infinite or NaN
 *
 * @example
 * ```ts
 * import { propensities } from "./propensity.ts";
 * const p = propensities([100, 1, 0], 1000);
 * console.log(p[0] > p[1] && p[1] > p[2]); // true: frequent labels have larger propensities
 * console.log(propensities([1, 0], 1)); // Float64Array(2) [ 1, 1 ]: too few rows to weigh
 * ```
 */
export function propensities(
  labelCounts: ArrayLike<number>,
  numTrain: number,
  A = 0.55,
  B = 1.5,
): Float64Array {
  if (!Number.isSafeInteger(numTrain) || numTrain < 1) {
    throw new RangeError(
      `propensities: numTrain must be an integer >= 1 (the number of training rows), got ${numTrain}`,
    );
  }
  if (!Number.isFinite(A) || A <= 0) {
    throw new RangeError(`propensities: A must be a finite number > 0, got ${A}`);
  }
  if (!Number.isFinite(B) || B <= 0) {
    throw new RangeError(`propensities: B must be a finite number > 0, got ${B}`);
  }
  const c = Math.max(0, Math.log(numTrain) - 1) * Math.pow(B + 1, A);
  const n = labelCounts.length;
  const out = new Float64Array(n);
  for (let l = 0; l < n; l++) {
    const nl = labelCounts[l];
    if (!(nl >= 0) || nl === Infinity) {
      throw new RangeError(
        `propensities: label count ${l} is ${nl}, expected a finite number >= 0`,
      );
    }
    out[l] = 1 / (1 + c * Math.pow(nl + B, -A));
  }
  return out;
}
