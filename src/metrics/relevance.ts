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
 * Checks that a row's true labels are strictly increasing integers in `[0, numLabels)`.
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
  let prev = -1;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i];
    if (!Number.isInteger(l) || l < 0 || l >= numLabels) {
      throw new RangeError(`${where}: true label ${l} is out of range [0, ${numLabels})`);
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
 * Inverse propensities `1 / p_l` (the weights the propensity-scored metrics use).
 *
 * @example
 * ```ts
 * import { inversePropensities } from "./relevance.ts";
 * console.log([...inversePropensities(Float64Array.of(0.5, 0.25))]); // [2, 4]
 * ```
 */
export function inversePropensities(propensities: ArrayLike<number>): Float64Array {
  const w = new Float64Array(propensities.length);
  for (let l = 0; l < w.length; l++) {
    const p = propensities[l];
    if (!(p > 0)) throw new RangeError(`propensity of label ${l} must be > 0, got ${p}`);
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
 * @example
 * ```ts
 * import { normaliseKs } from "./relevance.ts";
 * console.log(normaliseKs([5, 1, 3, 1])); // [1, 3, 5]
 * ```
 */
export function normaliseKs(ks: readonly number[]): number[] {
  if (ks.length === 0) throw new RangeError("metric cut-offs: at least one k is required");
  for (const k of ks) {
    if (!Number.isInteger(k) || k < 1) {
      throw new RangeError(`metric cut-offs: k must be a positive integer, got ${k}`);
    }
  }
  return [...new Set(ks)].sort((a, b) => a - b);
}
