/**
 * The one pass over a row's top-k list that P@k, nDCG@k, PSP@k and PSnDCG@k share (Extreme
 * Classification Repository conventions). Each true label found at rank j (0-based) gains
 * `weight_l × discount_j`; at every cut-off k the row adds its gain so far divided by a per-row
 * normaliser, and, for the propensity-scored metrics, the best attainable gain (the row's true
 * labels ranked by weight) divided by the same normaliser:
 *
 * | metric  | weight   | discount          | normaliser                 | result          |
 * | ------- | -------- | ----------------- | -------------------------- | --------------- |
 * | P@k     | 1        | 1                 | k                          | mean over rows  |
 * | nDCG@k  | 1        | 1 / log2(j + 2)   | ideal DCG of min(k, \|y\|) | mean over rows  |
 * | PSP@k   | 1 / p_l  | 1                 | 1                          | Σ gain / Σ best |
 * | PSnDCG@k| 1 / p_l  | 1 / log2(j + 2)   | ideal DCG of min(k, \|y\|) | Σ gain / Σ best |
 *
 * @module
 */
import {
  checkLabels,
  checkTop,
  containsSorted,
  discounts,
  inversePropensities,
  normaliseKs,
  topWeights,
} from "./relevance.ts";

/**
 * How {@linkcode RankGainAtK} weighs, discounts and normalises (see the module table).
 *
 * @example
 * ```ts
 * import type { RankGainOptions } from "./rank_gain.ts";
 * const ndcg: RankGainOptions = { discounted: true, normaliser: "ideal" };
 * console.log(ndcg.propensities === undefined); // true
 * ```
 */
export interface RankGainOptions {
  /**
   * One propensity per label, all > 0: label l weighs 1 / p_l and the metric is Σ_rows gain over
   * Σ_rows best attainable gain. Without propensities every true label gains 1 and the metric
   * is the mean of the rows' gains.
   */
  propensities?: ArrayLike<number>;
  /** Discount rank j by 1 / log2(j + 2) (DCG), or not at all. */
  discounted: boolean;
  /** Per-row normaliser at cut-off k: k, the ideal DCG of min(k, |y|) labels, or none. */
  normaliser: "k" | "ideal" | "none";
}

const NORM_K = 0, NORM_IDEAL = 1, NORM_NONE = 2;

/**
 * Streaming accumulator of one gain-at-k metric for several cut-offs at once, reported as
 * `{ "<name>@k": percent }`. O(k log |y|) per row (plus O(|y| k) with weights); a cut-off larger
 * than the top-k list costs nothing beyond the list (the gains cannot change past its end), so
 * a large k (even beyond the label space) is cheap. Rows with no true label are counted, gain 0,
 * and are reported by {@linkcode RankGainAtK.unlabelledRows}.
 *
 * @example
 * ```ts
 * import { RankGainAtK } from "./rank_gain.ts";
 * // P@k: unit gains, no discount, divided by k
 * const p = new RankGainAtK("P", [1, 2], { discounted: false, normaliser: "k" });
 * p.add(Int32Array.of(4, 2), Int32Array.of(2)); // the only true label at rank 2
 * console.log(p.result()); // { "P@1": 0, "P@2": 50 }
 * ```
 */
export class RankGainAtK {
  /** The cut-offs reported, increasing. */
  readonly ks: readonly number[];
  readonly #who: string;
  readonly #name: string;
  readonly #maxK: number;
  readonly #weights: Float64Array | undefined;
  readonly #discounted: boolean;
  /** DCG discounts of the first ranks and the ideal DCGs, grown on demand up to `maxK`. */
  #discount: Float64Array = new Float64Array(0);
  #ideal: Float64Array = new Float64Array(1);
  readonly #normaliser: number;
  readonly #num: Float64Array;
  readonly #den: Float64Array;
  #best: Float64Array = new Float64Array(0);
  /** Per cut-off: Σ gain², Σ gain·best and Σ best² over the rows with a true label. */
  readonly #nn: Float64Array;
  readonly #nd: Float64Array;
  readonly #dd: Float64Array;
  #rows = 0;
  #labelled = 0;

  /**
   * @param name the metric's name in the result keys (`P` gives `P@1`, ...)
   * @param ks cut-offs (integers >= 1)
   * @param options propensities, discount and normaliser
   * @throws {RangeError} on a bad cut-off or a propensity outside (0, 1]
   */
  constructor(name: string, ks: readonly number[], options: RankGainOptions) {
    // the subclass's name (PrecisionAtK, PspAtK, ...) in error messages
    this.#who = new.target.name;
    this.ks = normaliseKs(ks, this.#who);
    this.#name = name;
    this.#maxK = this.ks[this.ks.length - 1];
    this.#weights = options.propensities === undefined
      ? undefined
      : inversePropensities(options.propensities, this.#who);
    this.#discounted = options.discounted;
    this.#normaliser = options.normaliser === "k"
      ? NORM_K
      : options.normaliser === "ideal"
      ? NORM_IDEAL
      : NORM_NONE;
    this.#num = new Float64Array(this.ks.length);
    this.#den = new Float64Array(this.ks.length);
    this.#nn = new Float64Array(this.ks.length);
    this.#nd = new Float64Array(this.ks.length);
    this.#dd = new Float64Array(this.ks.length);
  }

  /** Number of rows added. */
  get rows(): number {
    return this.#rows;
  }

  /**
   * Number of rows added with no true label. They count in {@linkcode RankGainAtK.result} as
   * the Extreme Classification Repository counts them: gain 0 in the mean over rows (P@k,
   * nDCG@k), and nothing on either side of the ratio (PSP@k, PSnDCG@k).
   *
   * @example
   * ```ts
   * import { PrecisionAtK } from "./precision.ts";
   * const p = new PrecisionAtK([1]);
   * p.add(Int32Array.of(0), Int32Array.of(0)); // hit
   * p.add(Int32Array.of(0), Int32Array.of()); // no true label: counts 0
   * console.log(p.result()["P@1"], p.rows, p.unlabelledRows); // 50 2 1
   * ```
   */
  get unlabelledRows(): number {
    return this.#rows - this.#labelled;
  }

  /** Makes the discounts of ranks `[0, m)` and the ideal DCGs of up to `m` labels available. */
  #ensureDiscounts(m: number): void {
    if (this.#discount.length >= m) return;
    const d = discounts(Math.min(this.#maxK, Math.max(m, 2 * this.#discount.length, 8)));
    this.#discount = d.discount;
    this.#ideal = d.ideal;
  }

  /**
   * Adds one row: `top` = predicted labels best first (integers >= 0, no label twice; a list
   * shorter than k counts the missing entries as misses, entries past the largest k are not
   * read), `labels` = the row's true labels, strictly increasing integers >= 0 (each with a
   * propensity for the propensity-scored metrics). A row with no true label adds 0 (see
   * {@linkcode RankGainAtK.unlabelledRows}). Nothing is counted when it throws.
   *
   * @throws {RangeError} on a bad predicted or true label, naming it
   */
  add(top: ArrayLike<number>, labels: ArrayLike<number>): void {
    const where = `${this.#who}.add`;
    const w = this.#weights, ks = this.ks, maxK = this.#maxK;
    checkTop(top, maxK, where);
    checkLabels(labels, Infinity, where);
    const numTrue = labels.length;
    if (w !== undefined && numTrue > 0 && labels[numTrue - 1] >= w.length) {
      throw new RangeError(
        `${where}: true label ${labels[numTrue - 1]} has no propensity ` +
          `(propensities cover ${w.length} labels)`,
      );
    }
    this.#rows++;
    if (numTrue === 0) return;
    this.#labelled++;
    const n = Math.min(top.length, maxK);
    let nBest = 0;
    if (w !== undefined) {
      const cap = Math.min(maxK, numTrue);
      if (this.#best.length < cap) {
        this.#best = new Float64Array(Math.max(cap, 2 * this.#best.length));
      }
      nBest = topWeights(
        labels,
        w,
        this.#best.length === cap ? this.#best : this.#best.subarray(0, cap),
      );
    }
    // past rank `end` the gains no longer change: the remaining cut-offs share them
    const end = Math.max(n, nBest);
    this.#ensureDiscounts(Math.max(end, Math.min(maxK, numTrue)));
    const discount = this.#discount, discounted = this.#discounted, bestW = this.#best;
    let got = 0;
    let best = 0;
    let ki = 0;
    for (let j = 0; j < end && ki < ks.length; j++) {
      const d = discounted ? discount[j] : 1;
      if (j < n) {
        const l = top[j];
        if (containsSorted(labels, l)) got += (w === undefined ? 1 : w[l]) * d;
      }
      if (j < nBest) best += bestW[j] * d;
      while (ki < ks.length && ks[ki] === j + 1) this.#emit(ki++, got, best, numTrue);
    }
    while (ki < ks.length) this.#emit(ki++, got, best, numTrue);
  }

  /** Adds a row's gain and best attainable gain at cut-off `ks[i]`. */
  #emit(i: number, got: number, best: number, numTrue: number): void {
    const k = this.ks[i];
    const norm = this.#normaliser === NORM_K
      ? k
      : this.#normaliser === NORM_IDEAL
      ? this.#ideal[Math.min(k, numTrue)]
      : 1;
    const g = got / norm, b = best / norm;
    this.#num[i] += g;
    this.#den[i] += b;
    this.#nn[i] += g * g;
    this.#nd[i] += g * b;
    this.#dd[i] += b * b;
  }

  /**
   * `{ "<name>@k": percent }` for each k: with weights Σ gain / Σ best (0 when no row had a true
   * label), else the mean over rows (0 when no row was added).
   */
  result(): Record<string, number> {
    const out: Record<string, number> = {};
    const weighted = this.#weights !== undefined;
    this.ks.forEach((k, i) => {
      out[`${this.#name}@${k}`] = weighted
        ? this.#den[i] > 0 ? (100 * this.#num[i]) / this.#den[i] : 0
        : this.#rows === 0
        ? 0
        : (100 * this.#num[i]) / this.#rows;
    });
    return out;
  }

  /**
   * The standard error of each {@linkcode RankGainAtK.result} value, in the same percent, from
   * the rows counted as independent draws. Without weights it is that of a mean over the n rows,
   * √(Σᵢ (gᵢ − R)² / (n (n − 1))); with weights, the delta-method error of the ratio R = Σ gᵢ /
   * Σ bᵢ over the n rows that have a true label (gᵢ a row's gain, bᵢ its best attainable),
   * √(Σᵢ (gᵢ − R bᵢ)² / (n (n − 1))) / (Σ bᵢ / n). 0 with fewer than two rows.
   *
   * @example
   * ```ts
   * import { RankGainAtK } from "./rank_gain.ts";
   * const p = new RankGainAtK("P", [1], { discounted: false, normaliser: "k" });
   * for (const top of [0, 1, 0, 0]) p.add(Int32Array.of(top), Int32Array.of(0)); // hits 1, 0, 1, 1
   * console.log(p.result()["P@1"], p.standardErrors()["P@1"]); // 75 25
   * ```
   */
  standardErrors(): Record<string, number> {
    const out: Record<string, number> = {};
    const weighted = this.#weights !== undefined;
    this.ks.forEach((k, i) => {
      // without weights every row (an empty one too, gaining 0) has bᵢ = 1
      const n = weighted ? this.#labelled : this.#rows;
      const sumB = weighted ? this.#den[i] : n, sumGB = weighted ? this.#nd[i] : this.#num[i];
      const sumBB = weighted ? this.#dd[i] : n;
      let se = 0;
      if (n > 1 && sumB > 0) {
        const r = this.#num[i] / sumB;
        const ss = this.#nn[i] - 2 * r * sumGB + r * r * sumBB;
        se = Math.sqrt(Math.max(0, ss) / (n * (n - 1))) / (sumB / n);
      }
      out[`${this.#name}@${k}`] = 100 * se;
    });
    return out;
  }
}
