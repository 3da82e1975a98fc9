/**
 * Macro-averaged AUC over labels, as in the CoEmbed paper: for each label, the AUC of ranking
 * the rows by that label's score (positives = rows carrying the label), ties counting one half;
 * averaged over the labels that have at least one positive and one negative row.
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

/** A growable Float64 list (no per-element allocation). */
class F64List {
  data = new Float64Array(8);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

/**
 * Streaming macro AUC. Exact: it keeps, per label, the scores of its positive rows and the
 * non-zero scores of its negative rows (zero scores are only counted), and sorts each label's
 * negatives once in {@linkcode MacroAuc.result}. Memory is one float64 per non-zero score (so
 * N × L for a model whose scores are all non-zero).
 *
 * A row covers the labels below its label-space size (the length of its dense score vector, or
 * `numLabels` for a sparse row); a label a row does not cover is neither positive nor negative
 * there.
 *
 * @example
 * ```ts
 * import { MacroAuc } from "./macro_auc.ts";
 * const m = new MacroAuc();
 * m.addDense(Float32Array.of(0.9, 0.1), Int32Array.of(0));
 * m.addDense(Float32Array.of(0.4, 0.3), Int32Array.of(1));
 * m.addSparse(Int32Array.of(1), Float64Array.of(0.5), 2, Int32Array.of(0, 1));
 * // label 0: positives 0.9, 0 vs negative 0.4 -> 0.5; label 1: positives 0.3, 0.5 vs 0.1 -> 1
 * console.log(m.result(), m.validLabels); // 0.75 2
 * ```
 */
export class MacroAuc {
  #pos: (F64List | undefined)[] = [];
  #neg: (F64List | undefined)[] = [];
  #rowsByWidth = new Map<number, number>();
  /** Rows added with unscored unlisted labels, by label-space size. */
  #unscoredRowsByWidth = new Map<number, number>();
  /** Per label: the rows added with unscored unlisted labels that listed it or made it true. */
  #touched: number[] = [];
  #rows = 0;
  #valid = 0;
  #skipped = 0;
  #flags = new Uint8Array(16);

  /** Number of rows added. */
  get rows(): number {
    return this.#rows;
  }

  /** Number of labels counted in the last {@linkcode MacroAuc.result}. */
  get validLabels(): number {
    return this.#valid;
  }

  /**
   * Number of labels of the label space (below the widest row's) left out of the last
   * {@linkcode MacroAuc.result} because no row carries them or every row covering them does:
   * their AUC is undefined (no positive or no negative to compare).
   *
   * @example
   * ```ts
   * import { MacroAuc } from "./macro_auc.ts";
   * const m = new MacroAuc();
   * m.addDense(Float32Array.of(0.9, 0.1, 0.5), Int32Array.of(0, 1));
   * m.addDense(Float32Array.of(0.4, 0.3, 0.2), Int32Array.of(1));
   * // label 0 counts; label 1 is true in every row, label 2 in none
   * console.log(m.result(), m.validLabels, m.skippedLabels); // 1 1 2
   * ```
   */
  get skippedLabels(): number {
    return this.#skipped;
  }

  #list(lists: (F64List | undefined)[], l: number): F64List {
    let x = lists[l];
    if (x === undefined) {
      while (lists.length < l) lists.push(undefined);
      x = new F64List();
      lists[l] = x;
    }
    return x;
  }

  #countRow(numLabels: number): void {
    this.#rows++;
    this.#rowsByWidth.set(numLabels, (this.#rowsByWidth.get(numLabels) ?? 0) + 1);
  }

  /**
   * Adds a row from one score per label (no NaN; ±Infinity are fine) and its strictly increasing
   * true labels, each below `scores.length`. Nothing is counted when it throws.
   *
   * @param checked `ROW_CHECKED` (./relevance.ts) from a caller that has checked the row as this
   *   method would, which then skips its checks; leave it out
   * @throws {RangeError} on a NaN score or a bad true label, naming it
   */
  addDense(scores: ArrayLike<number>, labels: ArrayLike<number>, checked?: RowChecked): void {
    if (checked !== ROW_CHECKED) {
      checkDenseScores(scores, "MacroAuc.addDense");
      checkLabels(labels, scores.length, "MacroAuc.addDense");
    }
    const numLabels = scores.length;
    let p = 0;
    for (let l = 0; l < numLabels; l++) {
      const s = scores[l];
      if (p < labels.length && labels[p] === l) {
        p++;
        this.#list(this.#pos, l).push(s + 0);
      } else if (s !== 0) {
        this.#list(this.#neg, l).push(s);
      }
    }
    this.#countRow(numLabels);
  }

  /**
   * Adds a row from listed (label, score) pairs over `numLabels` labels (an integer >= 1):
   * `indices` and `scores` of the same length, no label listed twice, every label below
   * `numLabels`, no NaN score; true labels strictly increasing, below `numLabels`. Every
   * unlisted label scores 0, or, when `unlisted` is `"unscored"`, has no score: in its label's
   * ranking of the rows it comes below every scored row (as -Infinity), tying with the other
   * unscored rows. Nothing is counted when it throws.
   *
   * @param checked `ROW_CHECKED` (./relevance.ts) from a caller that has checked the row as this
   *   method would, which then skips its checks; leave it out
   * @throws {RangeError} when the row breaks one of these rules, naming the culprit
   * @throws {TypeError} when `unlisted` is neither `"zero"` nor `"unscored"`
   *
   * @example
   * ```ts
   * import { MacroAuc } from "./macro_auc.ts";
   * // label 0 is true in row 0 (listed at -1); row 1 does not list label 0
   * const zero = new MacroAuc(), unscored = new MacroAuc();
   * for (const m of [zero, unscored]) {
   *   const how = m === zero ? "zero" : "unscored";
   *   m.addSparse(Int32Array.of(0), Float64Array.of(-1), 1, Int32Array.of(0), how);
   *   m.addSparse(new Int32Array(0), new Float64Array(0), 1, new Int32Array(0), how);
   * }
   * console.log(zero.result(), unscored.result()); // 0 1
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
      checkUnlisted(unlisted, "MacroAuc.addSparse");
      checkListed(indices, scores, numLabels, "MacroAuc.addSparse");
      checkLabels(labels, numLabels, "MacroAuc.addSparse");
    }
    const unscored = unlisted === "unscored";
    const numPos = labels.length;
    if (this.#flags.length < numPos) this.#flags = new Uint8Array(2 * numPos);
    const listed = this.#flags;
    listed.fill(0, 0, numPos);
    for (let j = 0; j < indices.length; j++) {
      const l = indices[j];
      const s = scores[j];
      const at = indexOfSorted(labels, l);
      if (unscored) this.#touched[l] = (this.#touched[l] ?? 0) + 1;
      if (at >= 0) {
        listed[at] = 1;
        this.#list(this.#pos, l).push(s + 0);
      } else if (s !== 0) {
        this.#list(this.#neg, l).push(s);
      }
    }
    for (let i = 0; i < numPos; i++) {
      if (listed[i] !== 0) continue;
      this.#list(this.#pos, labels[i]).push(unscored ? -Infinity : 0);
      if (unscored) this.#touched[labels[i]] = (this.#touched[labels[i]] ?? 0) + 1;
    }
    this.#countRow(numLabels);
    if (unscored) {
      const n = this.#unscoredRowsByWidth.get(numLabels) ?? 0;
      this.#unscoredRowsByWidth.set(numLabels, n + 1);
    }
  }

  /**
   * Mean AUC over valid labels, a fraction in [0, 1] (NaN when there is none, e.g. before any
   * row). The labels left out are counted by {@linkcode MacroAuc.skippedLabels}.
   */
  result(): number {
    // a loop, not Math.max(...widths): 200,000 distinct widths overflowed the call stack
    let numLabels = Math.max(this.#pos.length, this.#neg.length);
    for (const width of this.#rowsByWidth.keys()) numLabels = Math.max(numLabels, width);
    // covering[l] = number of rows whose label space includes l
    const covering = new Float64Array(numLabels + 1);
    for (const [width, count] of this.#rowsByWidth) covering[width] += count;
    for (let l = numLabels - 1; l >= 0; l--) covering[l] += covering[l + 1];
    // covering[l] now counts rows with width >= l; rows with width > l cover l
    const unscoredCovering = new Float64Array(numLabels + 1);
    for (const [width, count] of this.#unscoredRowsByWidth) unscoredCovering[width] += count;
    for (let l = numLabels - 1; l >= 0; l--) unscoredCovering[l] += unscoredCovering[l + 1];
    let sum = 0;
    let valid = 0;
    for (let l = 0; l < numLabels; l++) {
      const rows = covering[l + 1];
      const pos = this.#pos[l];
      const numPos = pos?.length ?? 0;
      if (numPos === 0 || numPos >= rows) continue;
      const negList = this.#neg[l];
      const neg = negList ? negList.data.slice(0, negList.length).sort() : new Float64Array(0);
      // rows that could not score l and where l is not true
      const unscoredNeg = unscoredCovering[l + 1] - (this.#touched[l] ?? 0);
      const zeroNeg = rows - numPos - neg.length - unscoredNeg;
      sum += pairAuc(pos!.data.subarray(0, numPos), neg, zeroNeg, unscoredNeg);
      valid++;
    }
    this.#valid = valid;
    this.#skipped = numLabels - valid;
    return valid === 0 ? NaN : sum / valid;
  }
}
