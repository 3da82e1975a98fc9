/**
 * The pair-counting core shared by the per-instance and the macro AUC: given the scores of the
 * positives and of the negatives of one ranking problem, the fraction of (positive, negative)
 * pairs ordered correctly, ties counting one half: the Mann-Whitney statistic with tied scores
 * given their average rank.
 *
 * @module
 */

/** Number of entries of the sorted `a` that are `< v` (lower bound). */
function countLess(a: Float64Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Number of entries of the sorted `a` that are `<= v` (upper bound). */
function countLessEqual(a: Float64Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function checkCount(name: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0) {
    throw new RangeError(`pairAuc: ${name} must be an integer >= 0, got ${v}`);
  }
}

/**
 * AUC = (#{(p, n): s_p > s_n} + ½ #{(p, n): s_p = s_n}) / (P · N), where the negatives are
 * the entries of `sortedNegatives` plus `zeroNegatives` further negatives of score exactly 0
 * and `unscoredNegatives` negatives the model could not score, which rank below every score
 * (as -Infinity: a positive beats them unless it is unscored too, a tie counting one half).
 * Exact (no binning): O(P log N + N) after the caller's sort. Returns NaN when there is no
 * positive or no negative (the AUC is undefined; such problems are left out of AUC averages).
 *
 * @param positives scores of the positives (any order), no NaN (±Infinity are fine)
 * @param sortedNegatives scores of the explicit negatives, sorted increasingly, no NaN
 * @param zeroNegatives number of further negatives whose score is 0 (an integer >= 0)
 * @param unscoredNegatives number of further negatives that have no score (-Infinity; an
 *   integer >= 0)
 * @throws {RangeError} on a NaN score, unsorted negatives or a bad count
 *
 * @example
 * ```ts
 * import { pairAuc } from "./auc.ts";
 * // positives 0.9 and 0.2; negatives 0.2, 0.5 and two zeros: pairs won 4 + 2.5 of 8
 * console.log(pairAuc([0.9, 0.2], Float64Array.of(0.2, 0.5), 2)); // 0.8125
 * // positive -1 and an unscored positive; one unscored negative: pairs won 1 + 0.5 of 2
 * console.log(pairAuc([-1, -Infinity], new Float64Array(0), 0, 1)); // 0.75
 * ```
 */
export function pairAuc(
  positives: ArrayLike<number>,
  sortedNegatives: Float64Array,
  zeroNegatives = 0,
  unscoredNegatives = 0,
): number {
  checkCount("zeroNegatives", zeroNegatives);
  checkCount("unscoredNegatives", unscoredNegatives);
  for (let i = 0; i < sortedNegatives.length; i++) {
    const s = sortedNegatives[i];
    if (s !== s) throw new RangeError(`pairAuc: negative ${i}'s score is NaN`);
    if (i > 0 && s < sortedNegatives[i - 1]) {
      throw new RangeError(
        `pairAuc: sortedNegatives must be sorted increasingly, got ${sortedNegatives[i - 1]} ` +
          `then ${s} at ${i}`,
      );
    }
  }
  const numPos = positives.length;
  const numNeg = sortedNegatives.length + zeroNegatives + unscoredNegatives;
  if (numPos === 0 || numNeg === 0) return NaN;
  let won = 0;
  for (let i = 0; i < numPos; i++) {
    const s = positives[i];
    if (s !== s) throw new RangeError(`pairAuc: positive ${i}'s score is NaN`);
    const less = countLess(sortedNegatives, s);
    const lessEq = countLessEqual(sortedNegatives, s);
    won += less + 0.5 * (lessEq - less);
    if (s > 0) won += zeroNegatives;
    else if (s === 0) won += 0.5 * zeroNegatives;
    if (s > -Infinity) won += unscoredNegatives;
    else won += 0.5 * unscoredNegatives;
  }
  return won / (numPos * numNeg);
}
