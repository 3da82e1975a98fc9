/**
 * Per-instance AUC as in the LEML paper's "average AUC": for each row, the fraction of
 * (true label, other label) pairs the scores order correctly, ties counting one half; averaged
 * over the rows that have at least one true label and at least one other label (rows without
 * are left out).
 *
 * @module
 */
import { pairAuc } from "./auc.ts";
import {
  checkDenseScores,
  checkLabels,
  checkListed,
  checkUnlisted,
  indexOfSorted,
  ROW_CHECKED,
  type RowChecked,
} from "./relevance.ts";

/**
 * Streaming per-instance AUC. Exact: each row sorts its negatives' scores once
 * (O(L log L) per dense row; O(m log m + |y| log m) per sparse row with m listed scores).
 *
 * @example
 * ```ts
 * import { InstanceAuc } from "./instance_auc.ts";
 * const a = new InstanceAuc();
 * a.addDense(Float32Array.of(0.9, 0.2, 0.2, 0.1), Int32Array.of(0, 2)); // pairs won 2 + 1.5 of 4
 * a.addDense(Float32Array.of(1, 2), Int32Array.of()); // no true label: left out
 * console.log(a.result(), a.rows, a.validRows); // 0.875 2 1
 * ```
 */
export class InstanceAuc {
  #sum = 0;
  #valid = 0;
  #rows = 0;
  #neg = new Float64Array(64);
  #pos = new Float64Array(16);

  /** Number of rows added. */
  get rows(): number {
    return this.#rows;
  }

  /** Number of rows counted in the average (with a positive and a negative). */
  get validRows(): number {
    return this.#valid;
  }

  /**
   * Adds a row from one score per label (no NaN; ±Infinity are fine) and its strictly increasing
   * true labels, each below `scores.length`. A row with no true label, or with every label true,
   * is counted in `rows` but not in `validRows`. Nothing is counted when it throws.
   *
   * @param checked `ROW_CHECKED` (./relevance.ts) from a caller that has checked the row as this
   *   method would, which then skips its checks; leave it out
   * @throws {RangeError} on a NaN score or a bad true label, naming it
   */
  addDense(scores: ArrayLike<number>, labels: ArrayLike<number>, checked?: RowChecked): void {
    if (checked !== ROW_CHECKED) {
      checkDenseScores(scores, "InstanceAuc.addDense");
      checkLabels(labels, scores.length, "InstanceAuc.addDense");
    }
    const numLabels = scores.length;
    this.#rows++;
    const numPos = labels.length;
    if (numPos === 0 || numPos >= numLabels) return;
    const neg = this.#buffer("neg", numLabels - numPos);
    const pos = this.#buffer("pos", numPos);
    let p = 0;
    let n = 0;
    for (let l = 0; l < numLabels; l++) {
      const s = scores[l];
      if (p < numPos && labels[p] === l) pos[p++] = s;
      else neg[n++] = s + 0; // + 0 turns -0 into 0
    }
    neg.sort();
    this.#sum += pairAuc(pos, neg, 0);
    this.#valid++;
  }

  /**
   * Adds a row from listed (label, score) pairs over `numLabels` labels (an integer >= 1):
   * `indices` and `scores` of the same length, no label listed twice, every label below
   * `numLabels`, no NaN score; true labels strictly increasing, below `numLabels`. Every
   * unlisted label scores 0, or, when `unlisted` is `"unscored"`, has no score: it ranks below
   * every listed label (as -Infinity), unlisted labels tying with each other. Nothing is counted
   * when it throws.
   *
   * @param checked `ROW_CHECKED` (./relevance.ts) from a caller that has checked the row as this
   *   method would, which then skips its checks; leave it out
   * @throws {RangeError} when the row breaks one of these rules, naming the culprit
   * @throws {TypeError} when `unlisted` is neither `"zero"` nor `"unscored"`
   *
   * @example
   * ```ts
   * import { InstanceAuc } from "./instance_auc.ts";
   * // 4 labels, true label 1 listed at -1, label 0 listed at 2, labels 2 and 3 unlisted
   * const zero = new InstanceAuc(), unscored = new InstanceAuc();
   * zero.addSparse(Int32Array.of(0, 1), Float64Array.of(2, -1), 4, Int32Array.of(1));
   * unscored.addSparse(Int32Array.of(0, 1), Float64Array.of(2, -1), 4, Int32Array.of(1), "unscored");
   * console.log(zero.result(), unscored.result()); // 0 0.6666666666666666
   * ```
   */
  addSparse(
    indices: ArrayLike<number>,
    scores: ArrayLike<number>,
    numLabels: number,
    labels: ArrayLike<number>,
    unlisted: "zero" | "unscored" = "zero",
    checked?: RowChecked,
  ): void {
    if (checked !== ROW_CHECKED) {
      checkUnlisted(unlisted, "InstanceAuc.addSparse");
      checkListed(indices, scores, numLabels, "InstanceAuc.addSparse");
      checkLabels(labels, numLabels, "InstanceAuc.addSparse");
    }
    this.#rows++;
    const numPos = labels.length;
    if (numPos === 0 || numPos >= numLabels) return;
    const pos = this.#buffer("pos", numPos);
    pos.fill(unlisted === "unscored" ? -Infinity : 0); // positives not listed
    const neg = this.#buffer("neg", indices.length);
    let n = 0;
    for (let j = 0; j < indices.length; j++) {
      const s = scores[j];
      const at = indexOfSorted(labels, indices[j]);
      if (at >= 0) pos[at] = s;
      else neg[n++] = s + 0;
    }
    const listedNeg = neg.subarray(0, n);
    listedNeg.sort();
    const unlistedNeg = numLabels - numPos - n;
    this.#sum += unlisted === "unscored"
      ? pairAuc(pos, listedNeg, 0, unlistedNeg)
      : pairAuc(pos, listedNeg, unlistedNeg);
    this.#valid++;
  }

  #buffer(which: "neg" | "pos", n: number): Float64Array {
    let b = which === "neg" ? this.#neg : this.#pos;
    if (b.length < n) {
      b = new Float64Array(Math.max(n, 2 * b.length));
      if (which === "neg") this.#neg = b;
      else this.#pos = b;
    }
    return b.subarray(0, n);
  }

  /** Mean AUC over valid rows, a fraction in [0, 1] (NaN when there is none). */
  result(): number {
    return this.#valid === 0 ? NaN : this.#sum / this.#valid;
  }
}
