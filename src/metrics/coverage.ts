/**
 * Label coverage@k: the share of the labels that occur in the evaluated rows' truth which are
 * predicted correctly (in a row's top k, for a row carrying them) at least once, in percent.
 * It shows how much of the label space, tail labels included, a model can actually recover.
 *
 * @module
 */
import { checkLabels, checkTop, containsSorted, normaliseKs } from "./relevance.ts";

/** Label indices are int32 (as everywhere in the project): the per-label arrays stop there. */
const MAX_LABELS = 2 ** 31 - 1;

/**
 * Streaming coverage@k accumulator for several k at once. O(k log |y| + |y|) per row plus one
 * byte and one int per label.
 *
 * @example
 * ```ts
 * import { LabelCoverage } from "./coverage.ts";
 * const c = new LabelCoverage([1, 2]);
 * c.add(Int32Array.of(0, 1), Int32Array.of(1, 2)); // label 1 found at rank 2
 * c.add(Int32Array.of(2, 0), Int32Array.of(2)); // label 2 found at rank 1
 * console.log(c.result()); // { "coverage@1": 50, "coverage@2": 100 }
 * ```
 */
export class LabelCoverage {
  /** The cut-offs reported, increasing. */
  readonly ks: readonly number[];
  readonly #maxK: number;
  /** Best (smallest) 1-based rank at which a label was found; 0 = never. */
  #bestRank = new Int32Array(16);
  #seen = new Uint8Array(16);

  /** @param ks cut-offs (integers >= 1), default [5] */
  constructor(ks: readonly number[] = [5]) {
    this.ks = normaliseKs(ks, "LabelCoverage");
    this.#maxK = this.ks[this.ks.length - 1];
  }

  #ensure(l: number): void {
    if (l < this.#seen.length) return;
    const size = Math.max(l + 1, 2 * this.#seen.length);
    const rank = new Int32Array(size);
    rank.set(this.#bestRank);
    const seen = new Uint8Array(size);
    seen.set(this.#seen);
    this.#bestRank = rank;
    this.#seen = seen;
  }

  /**
   * Adds one row: predicted labels best first (integers >= 0; a repeat changes nothing, as only a
   * label's best rank counts), true labels
   * strictly increasing integers in [0, 2^31 - 1). Nothing is counted when it throws.
   *
   * @throws {RangeError} on a bad predicted or true label, naming it
   */
  add(top: ArrayLike<number>, labels: ArrayLike<number>): void {
    checkTop(top, this.#maxK, "LabelCoverage.add", true);
    checkLabels(labels, Infinity, "LabelCoverage.add");
    // grown once, to the largest (last) label, before anything is marked
    const last = labels.length > 0 ? labels[labels.length - 1] : -1;
    if (last >= MAX_LABELS) {
      throw new RangeError(
        `LabelCoverage.add: true label ${last} is out of range [0, ${MAX_LABELS}) (an int32 index)`,
      );
    }
    if (last >= 0) this.#ensure(last);
    for (let i = 0; i < labels.length; i++) this.#seen[labels[i]] = 1;
    const n = Math.min(top.length, this.#maxK);
    for (let j = 0; j < n; j++) {
      const l = top[j];
      if (!containsSorted(labels, l)) continue;
      const r = this.#bestRank[l];
      if (r === 0 || j + 1 < r) this.#bestRank[l] = j + 1;
    }
  }

  /** `{ "coverage@k": percent }` for each k (0 when no label was seen). */
  result(): Record<string, number> {
    let seen = 0;
    const found = new Float64Array(this.ks.length);
    for (let l = 0; l < this.#seen.length; l++) {
      if (this.#seen[l] === 0) continue;
      seen++;
      const r = this.#bestRank[l];
      if (r === 0) continue;
      for (let i = 0; i < this.ks.length; i++) if (r <= this.ks[i]) found[i]++;
    }
    const out: Record<string, number> = {};
    this.ks.forEach((k, i) => {
      out[`coverage@${k}`] = seen === 0 ? 0 : (100 * found[i]) / seen;
    });
    return out;
  }
}
