/**
 * Small helpers shared by the metrics: relevance lookup and position in a sorted label list, the
 * DCG discounts, the best attainable propensity weights of a row, and the cut-offs.
 *
 * @module
 */

/**
 * Whether `v` occurs in the strictly increasing `sorted` (binary search, O(log n)).
 *
 * @example
 * ```ts
 * import { containsSorted } from "./relevance.ts";
 * console.log(containsSorted(Int32Array.of(1, 4, 9), 4), containsSorted([1, 4, 9], 5)); // true false
 * ```
 */
export function containsSorted(sorted: ArrayLike<number>, v: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const m = sorted[mid];
    if (m === v) return true;
    if (m < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Position of `v` in the strictly increasing `sorted` (binary search, O(log n)), or -1.
 *
 * @example
 * ```ts
 * import { indexOfSorted } from "./relevance.ts";
 * console.log(indexOfSorted(Int32Array.of(1, 4, 9), 9), indexOfSorted([1, 4, 9], 5)); // 2 -1
 * ```
 */
export function indexOfSorted(sorted: ArrayLike<number>, v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo] === v ? lo : -1;
}

/**
 * Checks that `value` is array-like (an object with a numeric `length`, such as an array or a
 * typed array): the first check of every helper here that takes an array from a caller.
 *
 * @param value what the caller passed
 * @param who names the caller (or the row) in the error message
 * @param what what `value` must be, as the message says it
 * @throws {TypeError} `${who}: ${what}, got ${value}` when it is not
 *
 * @example
 * ```ts
 * import { checkArrayLike } from "./relevance.ts";
 * checkArrayLike(Int32Array.of(1, 2), "row 0", "labels must be an array"); // fine
 * try {
 *   checkArrayLike(7, "row 1", "labels must be an array");
 * } catch (e) {
 *   console.log((e as Error).message); // row 1: labels must be an array, got 7
 * }
 * ```
 */
export function checkArrayLike(
  value: unknown,
  who: string,
  what: string,
): asserts value is ArrayLike<unknown> {
  const v = value as { length?: unknown } | null;
  if (v === null || typeof v !== "object" || typeof v.length !== "number") {
    // (an object was shown as "[object Object]", a function as its whole source)
    const got = typeof value === "string"
      ? JSON.stringify(value.slice(0, 40))
      : v === null || (typeof v !== "object" && typeof v !== "function")
      ? String(value)
      : typeof v === "function"
      ? "a function"
      : "an object without a length";
    throw new TypeError(`${who}: ${what}, got ${got}`);
  }
}

/**
 * Checks that a row's true labels are strictly increasing integers in `[0, numLabels)`
 * (`numLabels` may be `Infinity` when the label space has no known size).
 *
 * @param labels the row's positive labels
 * @param numLabels size of the label space
 * @param where names the row in the error message, e.g. "row 12"
 * @throws {RangeError} when they are not
 *
 * @example
 * ```ts
 * import { checkLabels } from "./relevance.ts";
 * checkLabels(Int32Array.of(0, 3), 5, "row 0"); // fine
 * try {
 *   checkLabels([3, 0], 5, "row 1");
 * } catch (e) {
 *   console.log((e as Error).message); // row 1: true labels must be strictly increasing ...
 * }
 * ```
 */
export function checkLabels(labels: ArrayLike<number>, numLabels: number, where: string): void {
  checkArrayLike(labels, where, "true labels must be an array of label indices");
  let prev = -1;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i];
    if (!Number.isInteger(l) || l < 0 || l >= numLabels) {
      throw new RangeError(
        numLabels === Infinity
          ? `${where}: true label ${l} must be an integer >= 0`
          : `${where}: true label ${l} is out of range [0, ${numLabels})`,
      );
    }
    if (l <= prev) {
      throw new RangeError(
        `${where}: true labels must be strictly increasing, got ${prev} then ${l}`,
      );
    }
    prev = l;
  }
}

/**
 * Checks a predicted top-k list (best first): integer label indices `>= 0`, none repeated (a
 * repeated true label would count as two hits) unless `repeats` allows it. Only the first
 * `limit` entries are read, as the metrics read no further. O(n²) for short lists, O(n) with a
 * set beyond 32 entries.
 *
 * @param top predicted labels, best first
 * @param limit how many leading entries to check (the largest cut-off)
 * @param where names the caller in the error message
 * @param repeats whether a label may occur twice (for metrics a repeat cannot inflate)
 * @throws {RangeError} on a negative, fractional or NaN entry or a repeated label
 * @throws {TypeError} when `top` is not an array
 *
 * @example
 * ```ts
 * import { checkTop } from "./relevance.ts";
 * checkTop(Int32Array.of(4, 1, 7), 5, "PrecisionAtK.add"); // fine
 * try {
 *   checkTop([4, 4], 5, "PrecisionAtK.add");
 * } catch (e) {
 *   console.log((e as Error).message); // PrecisionAtK.add: predicted label 4 is repeated ...
 * }
 * ```
 */
export function checkTop(
  top: ArrayLike<number>,
  limit: number,
  where: string,
  repeats = false,
): void {
  checkArrayLike(top, where, "predicted labels must be an array of label indices");
  const n = Math.min(top.length, limit);
  const seen = n > 32 && !repeats ? new Set<number>() : undefined;
  for (let j = 0; j < n; j++) {
    const l = top[j];
    if (!Number.isInteger(l) || l < 0) {
      throw new RangeError(
        `${where}: predicted label ${l} at rank ${j + 1} must be an integer >= 0 ` +
          `(a list shorter than k needs no padding: missing entries are misses)`,
      );
    }
    let repeated = false;
    if (repeats) continue;
    if (seen !== undefined) {
      repeated = seen.has(l);
      seen.add(l);
    } else {
      for (let i = 0; i < j && !repeated; i++) repeated = top[i] === l;
    }
    if (repeated) {
      throw new RangeError(
        `${where}: predicted label ${l} is repeated at rank ${j + 1} (a top-k list ranks each ` +
          `label once)`,
      );
    }
  }
}

/**
 * Checks a row given as listed (label, score) pairs over `numLabels` labels: as many scores as
 * labels, integer labels in `[0, numLabels)`, none listed twice, no NaN score. O(m) when the
 * labels are listed in increasing order, else O(m log m).
 *
 * @param indices the listed labels, any order
 * @param scores their scores
 * @param numLabels size of the row's label space (an integer >= 1)
 * @param where names the row in the error message
 * @throws {RangeError} when one of these does not hold
 *
 * @example
 * ```ts
 * import { checkListed } from "./relevance.ts";
 * checkListed(Int32Array.of(3, 0), Float64Array.of(0.5, -1), 4, "row 0"); // fine
 * try {
 *   checkListed([1, 1], [0.5, 0.2], 4, "row 1");
 * } catch (e) {
 *   console.log((e as Error).message); // row 1: label 1 is listed twice
 * }
 * ```
 */
export function checkListed(
  indices: ArrayLike<number>,
  scores: ArrayLike<number>,
  numLabels: number,
  where: string,
): void {
  if (!Number.isInteger(numLabels) || numLabels < 1) {
    throw new RangeError(`${where}: numLabels must be an integer >= 1, got ${numLabels}`);
  }
  const m = indices.length;
  if (scores.length !== m) {
    throw new RangeError(`${where}: ${m} listed labels but ${scores.length} scores`);
  }
  for (let j = 0; j < m; j++) {
    const l = indices[j];
    if (!Number.isInteger(l) || l < 0 || l >= numLabels) {
      throw new RangeError(`${where}: listed label ${l} is out of range [0, ${numLabels})`);
    }
    if (scores[j] !== scores[j]) throw new RangeError(`${where}: score of label ${l} is NaN`);
  }
  let increasing = true; // then no label is listed twice, without a sort
  for (let j = 1; j < m && increasing; j++) increasing = indices[j - 1] < indices[j];
  if (!increasing) {
    const sorted = Float64Array.from(indices).sort();
    for (let j = 1; j < m; j++) {
      if (sorted[j - 1] === sorted[j]) {
        throw new RangeError(`${where}: label ${sorted[j]} is listed twice`);
      }
    }
  }
}

/**
 * Checks the `unlisted` argument of the sparse AUC methods (a JavaScript caller could pass any
 * string, which would silently mean `"zero"`).
 *
 * @throws {TypeError} when it is neither `"zero"` nor `"unscored"`
 *
 * @example
 * ```ts
 * import { checkUnlisted } from "./relevance.ts";
 * checkUnlisted("unscored", "InstanceAuc.addSparse"); // fine
 * try {
 *   checkUnlisted("none", "InstanceAuc.addSparse");
 * } catch (e) {
 *   console.log((e as Error).message); // InstanceAuc.addSparse: unlisted must be "zero" or ...
 * }
 * ```
 */
export function checkUnlisted(unlisted: unknown, where: string): void {
  if (unlisted !== "zero" && unlisted !== "unscored") {
    throw new TypeError(`${where}: unlisted must be "zero" or "unscored", got ${unlisted}`);
  }
}

/**
 * Checks that no entry of a dense score vector is NaN (±Infinity are scores like any other).
 *
 * @param scores one score per label
 * @param where names the row in the error message
 * @throws {RangeError} naming the first NaN label
 *
 * @example
 * ```ts
 * import { checkDenseScores } from "./relevance.ts";
 * checkDenseScores(Float32Array.of(1, -Infinity), "row 0"); // fine
 * try {
 *   checkDenseScores([0.5, NaN], "row 3");
 * } catch (e) {
 *   console.log((e as Error).message); // row 3: score of label 1 is NaN
 * }
 * ```
 */
export function checkDenseScores(scores: ArrayLike<number>, where: string): void {
  checkArrayLike(scores, where, "scores must be an array of numbers");
  for (let l = 0; l < scores.length; l++) {
    if (scores[l] !== scores[l]) throw new RangeError(`${where}: score of label ${l} is NaN`);
  }
}

/**
 * Passed as the last argument of an accumulator's `addDense` or `addSparse` (`HammingLoss`,
 * `InstanceAuc`, `MacroAuc`) by a caller that has already checked the row as that method would
 * (`Evaluator`, which checks each row once for all its accumulators): the method then skips its
 * own checks. Any other caller leaves that argument out.
 *
 * @example
 * ```ts
 * import { checkDenseScores, checkLabels, ROW_CHECKED } from "./relevance.ts";
 * import { HammingLoss } from "./hamming.ts";
 * const h = new HammingLoss(), scores = Float32Array.of(0.7, -1, 2), labels = Int32Array.of(0);
 * checkDenseScores(scores, "row 0"); // the checks addDense would make
 * checkLabels(labels, scores.length, "row 0");
 * h.addDense(scores, labels, ROW_CHECKED); // label 2 is wrong
 * console.log(h.result().toFixed(4)); // 0.3333
 * ```
 */
export const ROW_CHECKED: unique symbol = Symbol("row checked");

/**
 * The type of {@linkcode ROW_CHECKED}, the accumulators' last, optional argument.
 *
 * @example
 * ```ts
 * import { ROW_CHECKED, type RowChecked } from "./relevance.ts";
 * const skip = (checked?: RowChecked) => checked === ROW_CHECKED;
 * console.log(skip(), skip(ROW_CHECKED)); // false true
 * ```
 */
export type RowChecked = typeof ROW_CHECKED;

/**
 * DCG discounts `1 / log2(j + 2)` for ranks `j = 0..n-1`, and their prefix sums (the ideal DCG
 * of `i` relevant labels is `ideal[i]`, with `ideal[0] = 0`).
 *
 * @example
 * ```ts
 * import { discounts } from "./relevance.ts";
 * const d = discounts(2);
 * console.log(d.discount[1].toFixed(4), d.ideal[2].toFixed(4)); // 0.6309 1.6309
 * ```
 */
export function discounts(n: number): { discount: Float64Array; ideal: Float64Array } {
  const discount = new Float64Array(n);
  const ideal = new Float64Array(n + 1);
  for (let j = 0; j < n; j++) {
    discount[j] = 1 / Math.log2(j + 2);
    ideal[j + 1] = ideal[j] + discount[j];
  }
  return { discount, ideal };
}

/**
 * Inverse propensities `1 / p_l` (the weights the propensity-scored metrics use). Propensities
 * are probabilities in (0, 1]: values above 1 are refused, as they are what one gets by passing
 * inverse propensities (pyxclib's `compute_inv_propesity`) where propensities are expected,
 * which would silently weigh the frequent labels most.
 *
 * @param propensities one propensity per label, each in (0, 1]
 * @param who names the caller in the error message
 * @throws {RangeError} on a propensity that is not in (0, 1]
 *
 * @example
 * ```ts
 * import { inversePropensities } from "./relevance.ts";
 * console.log([...inversePropensities(Float64Array.of(0.5, 0.25))]); // [2, 4]
 * ```
 */
export function inversePropensities(
  propensities: ArrayLike<number>,
  who = "inversePropensities",
): Float64Array {
  checkArrayLike(propensities, who, "propensities must be an array of numbers");
  const w = new Float64Array(propensities.length);
  for (let l = 0; l < w.length; l++) {
    const p = propensities[l];
    if (!(p > 0 && p <= 1)) {
      throw new RangeError(
        `${who}: propensity of label ${l} must be in (0, 1], got ${p}` +
          (p > 1 ? " (inverse propensities 1/p given where propensities p are expected?)" : ""),
      );
    }
    w[l] = 1 / p;
  }
  return w;
}

/**
 * Writes the `out.length` largest values of `weights[l]` over the row's labels `l` into `out`,
 * decreasing, and returns how many there were (`min(out.length, labels.length)`). This is the
 * best attainable ranking for the propensity-scored metrics. O(|labels| · out.length).
 *
 * @example
 * ```ts
 * import { topWeights } from "./relevance.ts";
 * const out = new Float64Array(2);
 * const n = topWeights([0, 2, 3], Float64Array.of(1.5, 9, 4, 2.5), out);
 * console.log(n, [...out]); // 2 [4, 2.5]
 * ```
 */
export function topWeights(
  labels: ArrayLike<number>,
  weights: Float64Array,
  out: Float64Array,
): number {
  const cap = out.length;
  let n = 0;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i];
    if (l >= weights.length) {
      throw new RangeError(
        `true label ${l} has no propensity (propensities cover ${weights.length} labels)`,
      );
    }
    const w = weights[l];
    if (n === cap && !(w > out[cap - 1])) continue;
    let pos = n < cap ? n : cap - 1;
    while (pos > 0 && out[pos - 1] < w) {
      out[pos] = out[pos - 1];
      pos--;
    }
    out[pos] = w;
    if (n < cap) n++;
  }
  return n;
}

/**
 * Validates, sorts and de-duplicates metric cut-offs.
 *
 * @param ks the cut-offs: a non-empty array of integers >= 1
 * @param who names the caller in the error message
 * @throws {TypeError} when `ks` is not an array
 * @throws {RangeError} when it is empty or holds anything but integers >= 1
 *
 * @example
 * ```ts
 * import { normaliseKs } from "./relevance.ts";
 * console.log(normaliseKs([5, 1, 3, 1])); // [1, 3, 5]
 * ```
 */
export function normaliseKs(ks: readonly number[], who = "metric cut-offs"): number[] {
  checkArrayLike(ks, who, "ks must be an array of cut-offs such as [1, 3, 5]");
  if (ks.length === 0) throw new RangeError(`${who}: at least one k is required`);
  for (const k of ks) {
    if (!Number.isSafeInteger(k) || k < 1) {
      throw new RangeError(`${who}: k must be an integer >= 1, got ${k}`);
    }
  }
  return [...new Set(ks)].sort((a, b) => a - b);
}
