/**
 * A log of what learning changes in an {@linkcode InvertedWeights} model and its per-label
 * arrays, between two deltas: the (feature, label) weights written (O(1) each: a bit per pool
 * slot says the slot is logged already), the labels whose per-label values moved, and the
 * features whose block lost entries (sent whole). The "ova" estimator keeps one for its
 * prediction replica and one for incremental checkpoints, each read and cleared at its own pace.
 *
 * @module
 */
import type { InvertedWeights } from "./inverted_weights.ts";

/**
 * One change log (see the module doc).
 *
 * @example
 * ```ts
 * import { ChangeLog } from "./change_log.ts";
 * import { InvertedWeights } from "./inverted_weights.ts";
 * const w = new InvertedWeights();
 * w.ensureFeatures(4);
 * const log = new ChangeLog(8);
 * const slot = w.findOrInsert(2, 5);
 * log.logEntry(2, 5, slot, w);
 * log.logEntry(2, 5, slot, w); // logged once
 * log.markLabel(5);
 * const slots = log.compact(w);
 * console.log(log.size, slots.length, [...log.takeLabels()]); // 1 1 [ 5 ]
 * ```
 */
export class ChangeLog {
  /** The delta sequence number the log is at (the `deltaBase` of its next delta). */
  seq = 0;
  #j = new Int32Array(1 << 12);
  #l = new Int32Array(1 << 12);
  #n = 0;
  #labelFlag: Uint8Array;
  #labels: Int32Array;
  #labelN = 0;
  #blockFlag = new Uint8Array(0);
  #blocks: number[] = [];
  #bits = new Int32Array(0);
  #layout = -1;
  #reuseSeq = 0;

  /** A log for models of up to `labelCapacity` labels (grown by `growLabels`). */
  constructor(labelCapacity: number) {
    this.#labelFlag = new Uint8Array(labelCapacity);
    this.#labels = new Int32Array(labelCapacity);
  }

  /** Weight entries logged (after `compact`: distinct ones). */
  get size(): number {
    return this.#n;
  }

  /** The features of the logged entries (a view: valid until the log changes). */
  get features(): Int32Array {
    return this.#j.subarray(0, this.#n);
  }

  /** The labels of the logged entries (a view: valid until the log changes). */
  get labels(): Int32Array {
    return this.#l.subarray(0, this.#n);
  }

  /** Sizes the per-label flags to `capacity` labels. */
  growLabels(capacity: number): void {
    if (this.#labelFlag.length >= capacity) return;
    const f = new Uint8Array(capacity);
    f.set(this.#labelFlag);
    const b = new Int32Array(capacity);
    b.set(this.#labels.subarray(0, this.#labelN));
    this.#labelFlag = f;
    this.#labels = b;
  }

  /** Notes that label `l`'s per-label values changed. */
  markLabel(l: number): void {
    if (this.#labelFlag[l] === 0) {
      this.#labelFlag[l] = 1;
      this.#labels[this.#labelN++] = l;
    }
  }

  /** Notes that feature `j`'s block lost entries: the next delta sends it whole. */
  markBlock(j: number): void {
    if (j >= this.#blockFlag.length) {
      const f = new Uint8Array(Math.max(j + 1, 2 * this.#blockFlag.length, 1024));
      f.set(this.#blockFlag);
      this.#blockFlag = f;
    }
    if (this.#blockFlag[j] === 0) {
      this.#blockFlag[j] = 1;
      this.#blocks.push(j);
    }
  }

  /** Whether feature `j`'s whole block is to be sent. */
  isBlockMarked(j: number): boolean {
    return j < this.#blockFlag.length && this.#blockFlag[j] !== 0;
  }

  /** The features whose whole block is to be sent, increasing (a fresh array). */
  markedBlocks(): Int32Array {
    return Int32Array.from(this.#blocks).sort();
  }

  /**
   * Logs a write of feature `j`'s weight for label `l` at pool `slot` of `w`, once per slot
   * between deltas (a new layout of the pools, after a growth or compaction, resets the bits:
   * the pair may then be logged twice, which `compact` removes). Returns false, logging nothing,
   * when the log's storage is full: the caller then `grow`s it and logs again, or stops it (a
   * full state is cheaper than a delta that big).
   */
  logEntry(j: number, l: number, slot: number, w: InvertedWeights): boolean {
    if (w.layout !== this.#layout) this.#resetBits(w);
    else if (w.reuseSeq !== this.#reuseSeq) this.#forgetReused(w);
    const i = slot >>> 5, bit = 1 << (slot & 31), bits = this.#bits;
    if ((bits[i] & bit) !== 0) return true;
    if (this.#n === this.#j.length) return false;
    bits[i] |= bit;
    this.#j[this.#n] = j;
    this.#l[this.#n++] = l;
    return true;
  }

  /** Doubles the entries' storage (after `logEntry` said it is full). */
  grow(): void {
    const j2 = new Int32Array(this.#j.length * 2), l2 = new Int32Array(this.#j.length * 2);
    j2.set(this.#j);
    l2.set(this.#l);
    this.#j = j2;
    this.#l = l2;
  }

  #resetBits(w: InvertedWeights): void {
    const n = (w.keys.length + 31) >>> 5;
    if (this.#bits.length === n) this.#bits.fill(0);
    else this.#bits = new Int32Array(n);
    this.#layout = w.layout;
    this.#reuseSeq = w.reuseSeq;
  }

  /**
   * Clears the bits of the slots of blocks reused since the log last looked: they held another
   * feature's entries, and a write of the new owner's must not pass for one already logged.
   */
  #forgetReused(w: InvertedWeights): void {
    const bits = this.#bits;
    const listed = w.reusedSince(this.#reuseSeq, (first, length) => {
      for (let s = first; s < first + length; s++) bits[s >>> 5] &= ~(1 << (s & 31));
    });
    if (listed) this.#reuseSeq = w.reuseSeq;
    else this.#resetBits(w);
  }

  /**
   * Deduplicates the logged entries in place (by their slot in `w` now, first write first),
   * leaving out the features whose whole block is sent; an entry whose weight is gone (only an
   * eviction removes one between prunes) marks its block instead. Returns the slot of each
   * entry left.
   */
  compact(w: InvertedWeights): Int32Array {
    const n = this.#n, jj = this.#j, ll = this.#l;
    this.#resetBits(w);
    const bits = this.#bits, slots = new Int32Array(n);
    let k = 0;
    for (let i = 0; i < n; i++) {
      const j = jj[i], l = ll[i];
      if (this.isBlockMarked(j)) continue;
      const slot = w.find(j, l);
      if (slot < 0) {
        this.markBlock(j);
        continue;
      }
      const b = slot >>> 5, bit = 1 << (slot & 31);
      if ((bits[b] & bit) !== 0) continue;
      bits[b] |= bit;
      jj[k] = j;
      ll[k] = l;
      slots[k++] = slot;
    }
    this.#n = k;
    bits.fill(0);
    // an entry of a block marked after it was kept is sent with the block
    if (this.#blocks.length > 0) {
      let m = 0;
      for (let i = 0; i < k; i++) {
        if (this.isBlockMarked(jj[i])) continue;
        jj[m] = jj[i];
        ll[m] = ll[i];
        slots[m++] = slots[i];
      }
      this.#n = m;
      return slots.slice(0, m);
    }
    return slots.subarray(0, k);
  }

  /** Labels marked since the last call, in marking order (a fresh array); clears the marks. */
  takeLabels(): Int32Array {
    const out = this.#labels.slice(0, this.#labelN);
    for (let i = 0; i < this.#labelN; i++) this.#labelFlag[out[i]] = 0;
    this.#labelN = 0;
    return out;
  }

  /** Labels marked so far (without clearing them). */
  get labelCount(): number {
    return this.#labelN;
  }

  /** Clears the entries and blocks (labels: `takeLabels`), after a delta was made. */
  clear(): void {
    this.#n = 0;
    for (const j of this.#blocks) this.#blockFlag[j] = 0;
    this.#blocks = [];
    this.#bits.fill(0);
  }

  /** Clears everything (a restart of the log). */
  reset(): void {
    this.clear();
    this.takeLabels();
  }
}
