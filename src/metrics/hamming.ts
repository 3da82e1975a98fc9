/**
 * Hamming loss: the fraction of (row, label) entries where the prediction differs from the
 * truth, a label counting as predicted when its score is > 0. Averaged per row over the row's
 * label space, then over rows (equal to mismatches / (rows × L) for a fixed label space); NaN
 * before any row. The threshold is fixed at 0 (a score of exactly 0 is a negative); for another
 * threshold t, subtract t from the scores first (as the LEML experiments do with 0.5 for 0/1
 * squared-loss scores).
 *
 * @module
 */
import {
  checkDenseScores,
  checkLabels,
  checkListed,
  containsSorted,
  ROW_CHECKED,
  type RowChecked,
} from "./relevance.ts";

/**
 * Streaming Hamming-loss accumulator, from dense scores (O(L) per row) or from sparse scores
 * where unlisted labels score 0 (O(m log |y| + |y|) per row).
 *
 * @example
 * ```ts
 * import { HammingLoss } from "./hamming.ts";
 * const h = new HammingLoss();
 * h.addDense(Float32Array.of(0.7, -1, 0, 2), Int32Array.of(0, 2)); // wrong on labels 2 and 3
 * h.addSparse(Int32Array.of(1), Float64Array.of(0.5), 4, Int32Array.of(1)); // all right
 * console.log(h.result()); // 0.25
 * ```
 */
export class HammingLoss {
  #sum = 0;
  #rows = 0;

  /** Number of rows added. */
  get rows(): number {
    return this.#rows;
  }

  /**
   * Adds a row from one score per label (at least one; no NaN, which is neither above nor below
   * the threshold) and the strictly increasing true labels, each below `scores.length`.
   *
   * @param checked `ROW_CHECKED` (./relevance.ts) from a caller that has checked the row as this
   *   method would, which then skips its checks; leave it out
   * @throws {RangeError} on an empty or NaN score vector or a bad true label, naming it
   */
  addDense(scores: ArrayLike<number>, labels: ArrayLike<number>, checked?: RowChecked): void {
    if (checked !== ROW_CHECKED) {
      checkDenseScores(scores, "HammingLoss.addDense");
      if (scores.length === 0) {
        throw new RangeError("HammingLoss.addDense: a row must have at least one label");
      }
      checkLabels(labels, scores.length, "HammingLoss.addDense");
    }
    const numLabels = scores.length;
    let wrong = 0;
    let p = 0;
    for (let l = 0; l < numLabels; l++) {
      const truth = p < labels.length && labels[p] === l;
      if (truth) p++;
      if ((scores[l] > 0) !== truth) wrong++;
    }
    this.#push(wrong, numLabels);
  }

  /**
   * Adds a row from listed (label, score) pairs over `numLabels` labels (an integer >= 1),
   * unlisted ones scoring 0: `indices` and `scores` of the same length, no label listed twice,
   * every label below `numLabels`, no NaN score; true labels strictly increasing, below
   * `numLabels`.
   *
   * @param checked `ROW_CHECKED` (./relevance.ts) from a caller that has checked the row as this
   *   method would, which then skips its checks; leave it out
   * @throws {RangeError} when the row breaks one of these rules, naming the culprit
   */
  addSparse(
    indices: ArrayLike<number>,
    scores: ArrayLike<number>,
    numLabels: number,
    labels: ArrayLike<number>,
    checked?: RowChecked,
  ): void {
    if (checked !== ROW_CHECKED) {
      checkListed(indices, scores, numLabels, "HammingLoss.addSparse");
      checkLabels(labels, numLabels, "HammingLoss.addSparse");
    }
    // wrong = |predicted| + |true| - 2 |predicted ∩ true|
    let predicted = 0;
    let both = 0;
    for (let j = 0; j < indices.length; j++) {
      if (scores[j] > 0) {
        predicted++;
        if (containsSorted(labels, indices[j])) both++;
      }
    }
    this.#push(predicted + labels.length - 2 * both, numLabels);
  }

  #push(wrong: number, numLabels: number): void {
    this.#sum += wrong / numLabels;
    this.#rows++;
  }

  /**
   * The loss as a fraction in [0, 1]; NaN when no row was added (a loss of 0 would read as a
   * perfect model).
   */
  result(): number {
    return this.#rows === 0 ? NaN : this.#sum / this.#rows;
  }
}
