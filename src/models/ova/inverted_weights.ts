/**
 * Feature-major sparse weights of a linear multi-label model, whose memory follows their
 * non-zeros: every feature owns a small open-addressing hash table (label → weight, AdaGrad sum)
 * in one shared pool of typed arrays, so a row's scores for every label with a weight on its
 * features are one sequential sweep of its features' tables ({@linkcode InvertedWeights.accumulate}),
 * whatever the number of labels.
 *
 * A feature's table is a power-of-two region of the pool, probed linearly from a Fibonacci hash
 * of the label index; it is at most 5/8 full and moves to a region twice as large when it fills.
 * Freed regions are reclaimed by compacting the pool once they make up half of it, so memory is
 * about 1.6–3.2 slots of 12 bytes per stored weight. {@linkcode InvertedWeights.evictSmallest}
 * bounds a feature's labels, {@linkcode InvertedWeights.prune} the total.
 *
 * @module
 */

const EMPTY = -1;
const MIN_LOG = 3;
const GOLDEN = 0x9e3779b1 | 0;

/**
 * Feature-major sparse weight tables (see the module doc): `find(j, l)` is the slot of feature
 * `j`'s weight for label `l`.
 *
 * @example
 * ```ts
 * import { InvertedWeights } from "./inverted_weights.ts";
 * const t = new InvertedWeights();
 * t.ensureFeatures(2);
 * const s = t.findOrInsert(1, 42);
 * t.weights[s] = 0.5;
 * console.log(t.find(1, 42) === s, t.find(0, 42), t.size); // true -1 1
 * ```
 */
export class InvertedWeights {
  /** Label index of each pool slot (-1: empty). */
  keys: Int32Array;
  /** Weight of each pool slot. */
  weights: Float32Array;
  /** AdaGrad sum of squared gradients of each pool slot. */
  sums: Float32Array;
  #off: Int32Array;
  #log: Uint8Array;
  #count: Int32Array;
  #owners = 0;
  #used = 0;
  #waste = 0;
  #size = 0;

  /** @param featureCapacity initial feature capacity; @param poolCapacity initial pool slots */
  constructor(featureCapacity = 16, poolCapacity = 1024) {
    this.keys = new Int32Array(poolCapacity).fill(EMPTY);
    this.weights = new Float32Array(poolCapacity);
    this.sums = new Float32Array(poolCapacity);
    this.#off = new Int32Array(featureCapacity).fill(-1);
    this.#log = new Uint8Array(featureCapacity);
    this.#count = new Int32Array(featureCapacity);
  }

  /** Features `[0, numFeatures)` are addressable. */
  get numFeatures(): number {
    return this.#owners;
  }

  /** Stored weights, all features. */
  get size(): number {
    return this.#size;
  }

  /** Pool slots in use (live regions plus not yet reclaimed ones). */
  get poolSlots(): number {
    return this.#used;
  }

  /** Bytes held by the pool and the per-feature arrays. */
  get bytes(): number {
    return this.keys.length * 12 + this.#off.length * 9;
  }

  /** Stored weights (labels) of feature `j`. */
  countOf(j: number): number {
    return this.#count[j];
  }

  /** Makes features `[0, n)` addressable (new ones start empty). */
  ensureFeatures(n: number): void {
    if (n <= this.#owners) return;
    if (n > this.#off.length) {
      let cap = this.#off.length;
      while (cap < n) cap *= 2;
      const off = new Int32Array(cap).fill(-1);
      off.set(this.#off);
      const log = new Uint8Array(cap);
      log.set(this.#log);
      const count = new Int32Array(cap);
      count.set(this.#count);
      this.#off = off;
      this.#log = log;
      this.#count = count;
    }
    this.#owners = n;
  }

  /** The slot of feature `j`'s weight for label `l`, or -1 when there is none. */
  find(j: number, l: number): number {
    const off = this.#off[j];
    if (off < 0) return -1;
    const lg = this.#log[j], mask = (1 << lg) - 1, keys = this.keys;
    let i = Math.imul(l, GOLDEN) >>> (32 - lg);
    for (;;) {
      const k = keys[off + i];
      if (k === l) return off + i;
      if (k === EMPTY) return -1;
      i = (i + 1) & mask;
    }
  }

  /**
   * The slot of feature `j`'s weight for label `l`, inserted with weight 0 and sum 0 when
   * absent. The insertion may move feature `j`'s table: its slots found before are then stale.
   */
  findOrInsert(j: number, l: number): number {
    let off = this.#off[j];
    if (off < 0) {
      off = this.#alloc(j, MIN_LOG);
    } else if ((this.#count[j] + 1) * 8 > 5 << this.#log[j]) {
      this.#rehash(j, this.#log[j] + 1);
      off = this.#off[j];
    }
    const lg = this.#log[j], mask = (1 << lg) - 1, keys = this.keys;
    let i = Math.imul(l, GOLDEN) >>> (32 - lg);
    for (;;) {
      const k = keys[off + i];
      if (k === l) return off + i;
      if (k === EMPTY) {
        keys[off + i] = l;
        this.weights[off + i] = 0;
        this.sums[off + i] = 0;
        this.#count[j]++;
        this.#size++;
        return off + i;
      }
      i = (i + 1) & mask;
    }
  }

  /**
   * Adds `values[p] · w(indices[p], l)` into `acc[l]` for every label `l` with a weight on a
   * feature `indices[p]` (`p < n`; features beyond the tables are skipped), in the order of the
   * row's entries. Labels seen for the first time (their `stamp` differs from `mark`) are reset
   * to 0 first and appended to `touched`. Returns the new number of touched labels.
   */
  accumulate(
    indices: Int32Array,
    values: Float64Array,
    n: number,
    acc: Float64Array,
    stamp: Int32Array,
    mark: number,
    touched: Int32Array,
    numTouched: number,
  ): number {
    const keys = this.keys, w = this.weights, F = this.#owners;
    let t = numTouched;
    for (let p = 0; p < n; p++) {
      const j = indices[p];
      if (j >= F) continue;
      const off = this.#off[j];
      if (off < 0) continue;
      const v = values[p], end = off + (1 << this.#log[j]);
      for (let s = off; s < end; s++) {
        const l = keys[s];
        if (l === EMPTY) continue;
        if (stamp[l] !== mark) {
          stamp[l] = mark;
          acc[l] = 0;
          touched[t++] = l;
        }
        acc[l] += v * w[s];
      }
    }
    return t;
  }

  /**
   * Drops the `fraction` of feature `j`'s weights with the smallest magnitude (at least one when
   * it has any); its table keeps its size. Returns how many were dropped.
   */
  evictSmallest(j: number, fraction: number): number {
    const off = this.#off[j];
    if (off < 0 || this.#count[j] === 0) return 0;
    const cap = 1 << this.#log[j], n = this.#count[j];
    const mags = new Float64Array(n);
    let e = 0;
    for (let s = off; s < off + cap; s++) {
      if (this.keys[s] !== EMPTY) mags[e++] = Math.abs(this.weights[s]);
    }
    mags.sort();
    const drop = Math.max(1, Math.min(n, Math.floor(n * fraction)));
    const threshold = mags[drop - 1];
    // keep entries above the threshold, and as many ties as leaves exactly n - drop
    let tiesToDrop = 0;
    for (let q = 0; q < drop; q++) if (mags[q] === threshold) tiesToDrop++;
    const fk = new Int32Array(n - drop),
      fw = new Float32Array(n - drop),
      fs = new Float32Array(n - drop);
    let k = 0;
    for (let s = off; s < off + cap; s++) {
      const l = this.keys[s];
      if (l === EMPTY) continue;
      const m = Math.abs(this.weights[s]);
      this.keys[s] = EMPTY;
      if (m < threshold) continue;
      if (m === threshold && tiesToDrop > 0) {
        tiesToDrop--;
        continue;
      }
      fk[k] = l;
      fw[k] = this.weights[s];
      fs[k] = this.sums[s];
      k++;
    }
    this.#count[j] = 0;
    this.#size -= n;
    for (let q = 0; q < k; q++) {
      const s = this.findOrInsert(j, fk[q]);
      this.weights[s] = fw[q];
      this.sums[s] = fs[q];
    }
    return n - k;
  }

  /**
   * Calls `fn(label, slot)` for every stored weight of feature `j` (in table order).
   */
  forEachOf(j: number, fn: (label: number, slot: number) => void): void {
    const off = this.#off[j];
    if (off < 0) return;
    const end = off + (1 << this.#log[j]);
    for (let s = off; s < end; s++) if (this.keys[s] !== EMPTY) fn(this.keys[s], s);
  }

  /**
   * Calls `fn(feature, label, slot)` for every stored weight of features `[0, numFeatures)` in
   * increasing feature order.
   */
  forEachFeature(
    fn: (feature: number, label: number, slot: number) => void,
    numFeatures: number,
  ): void {
    const F = Math.min(numFeatures, this.#owners);
    for (let j = 0; j < F; j++) {
      const off = this.#off[j];
      if (off < 0) continue;
      const end = off + (1 << this.#log[j]);
      for (let s = off; s < end; s++) if (this.keys[s] !== EMPTY) fn(j, this.keys[s], s);
    }
  }

  /**
   * Drops every weight with `|w| < threshold` (and features' tables shrink to fit); the pool is
   * compacted. Returns the number of weights dropped.
   */
  prune(threshold: number): number {
    const before = this.#size;
    this.#compact(threshold);
    return before - this.#size;
  }

  /** The `q`-quantile of `|w|` over stored weights, estimated from up to `sample` slots. */
  magnitudeQuantile(q: number, sample = 4096): number {
    const vals: number[] = [];
    const n = this.#used;
    if (n === 0) return 0;
    const stride = Math.max(1, Math.floor(n / (sample * 2)));
    for (let s = 0; s < n && vals.length < sample; s += stride) {
      if (this.keys[s] !== EMPTY) vals.push(Math.abs(this.weights[s]));
    }
    if (vals.length === 0) return 0;
    vals.sort((a, b) => a - b);
    return vals[Math.min(vals.length - 1, Math.floor(q * vals.length))];
  }

  /**
   * A compact copy: per feature the stored labels, weights and (optionally) AdaGrad sums, with
   * feature pointers and table sizes. {@linkcode InvertedWeights.fromCompact} rebuilds the same
   * tables, slot for slot within each feature's table.
   */
  toCompact(withSums: boolean): {
    ptr: Int32Array;
    keys: Int32Array;
    weights: Float32Array;
    sums?: Float32Array;
    logs: Uint8Array;
  } {
    const L = this.#owners;
    const ptr = new Int32Array(L + 1);
    const keys = new Int32Array(this.#size);
    const weights = new Float32Array(this.#size);
    const sums = withSums ? new Float32Array(this.#size) : undefined;
    const logs = this.#log.slice(0, L);
    let e = 0;
    for (let l = 0; l < L; l++) {
      const off = this.#off[l];
      if (off >= 0) {
        // walk the table from just after an empty slot: re-inserting in this order rebuilds
        // the same layout (no cluster of linear probing wraps past an empty slot)
        const mask = (1 << this.#log[l]) - 1;
        let e0 = 0;
        while (this.keys[off + e0] !== EMPTY) e0++;
        for (let r = 1; r <= mask + 1; r++) {
          const s = off + ((e0 + r) & mask);
          if (this.keys[s] === EMPTY) continue;
          keys[e] = this.keys[s];
          weights[e] = this.weights[s];
          if (sums) sums[e] = this.sums[s];
          e++;
        }
      }
      ptr[l + 1] = e;
    }
    return sums ? { ptr, keys, weights, sums, logs } : { ptr, keys, weights, logs };
  }

  /**
   * Rebuilds tables from {@linkcode InvertedWeights.toCompact}'s arrays: entries are re-inserted in
   * their stored order into tables of the stored sizes, which gives the original layout.
   *
   * @throws {RangeError} when the arrays are inconsistent
   */
  static fromCompact(
    ptr: Int32Array,
    keys: Int32Array,
    weights: Float32Array,
    sums: Float32Array | undefined,
    logs: Uint8Array,
  ): InvertedWeights {
    const L = ptr.length - 1;
    const n = ptr[L] ?? 0;
    if (L < 0 || logs.length !== L || keys.length !== n || weights.length !== n) {
      throw new RangeError(
        `InvertedWeights.fromCompact: ${L} features, ${logs.length} table sizes, ${keys.length} labels, ${weights.length} weights, ${n} expected`,
      );
    }
    if (sums && sums.length !== n) {
      throw new RangeError(`InvertedWeights.fromCompact: ${sums.length} sums, ${n} expected`);
    }
    let slots = 0;
    for (let l = 0; l < L; l++) {
      const c = ptr[l + 1] - ptr[l];
      if (c < 0) throw new RangeError(`InvertedWeights.fromCompact: ptr decreases at ${l}`);
      if (c > 0 || logs[l] > 0) {
        if (logs[l] < MIN_LOG || logs[l] > 30 || c * 8 > 5 << logs[l]) {
          throw new RangeError(
            `InvertedWeights.fromCompact: feature ${l} has ${c} weights in a table of 2^${logs[l]}`,
          );
        }
        slots += 1 << logs[l];
      }
    }
    const t = new InvertedWeights(Math.max(16, L), Math.max(1024, slots));
    t.ensureFeatures(L);
    for (let l = 0; l < L; l++) {
      const s0 = ptr[l], s1 = ptr[l + 1];
      if (s1 === s0 && logs[l] === 0) continue;
      t.#alloc(l, logs[l]);
      for (let e = s0; e < s1; e++) {
        const j = keys[e];
        if (!(j >= 0)) throw new RangeError(`InvertedWeights.fromCompact: label ${j} at ${e}`);
        const s = t.findOrInsert(l, j);
        t.weights[s] = weights[e];
        if (sums) t.sums[s] = sums[e];
      }
    }
    return t;
  }

  #alloc(j: number, lg: number): number {
    const cap = 1 << lg;
    if (this.#used + cap > this.keys.length && this.#waste * 2 > this.#used) this.#compact(0);
    if (this.#used + cap > this.keys.length) this.#growPool(this.#used + cap);
    const off = this.#used;
    this.#used += cap;
    this.#off[j] = off;
    this.#log[j] = lg;
    return off;
  }

  #growPool(need: number): void {
    let cap = this.keys.length;
    while (cap < need) cap *= 2;
    const keys = new Int32Array(cap).fill(EMPTY);
    keys.set(this.keys.subarray(0, this.#used));
    const w = new Float32Array(cap);
    w.set(this.weights.subarray(0, this.#used));
    const g = new Float32Array(cap);
    g.set(this.sums.subarray(0, this.#used));
    this.keys = keys;
    this.weights = w;
    this.sums = g;
  }

  #rehash(j: number, lg: number): void {
    const oldOff = this.#off[j], oldCap = 1 << this.#log[j];
    // copy the old entries out first: allocating may grow or compact the pool
    const n = this.#count[j];
    const fk = new Int32Array(n), fw = new Float32Array(n), fs = new Float32Array(n);
    let e = 0;
    for (let s = oldOff; s < oldOff + oldCap; s++) {
      if (this.keys[s] === EMPTY) continue;
      fk[e] = this.keys[s];
      fw[e] = this.weights[s];
      fs[e] = this.sums[s];
      this.keys[s] = EMPTY;
      e++;
    }
    this.#off[j] = -1;
    this.#waste += oldCap;
    this.#count[j] = 0;
    this.#size -= n;
    this.#alloc(j, lg);
    for (let i = 0; i < n; i++) {
      const s = this.findOrInsert(j, fk[i]);
      this.weights[s] = fw[i];
      this.sums[s] = fs[i];
    }
  }

  /** Re-lays every feature's table contiguously, dropping weights with |w| < threshold. */
  #compact(threshold: number): void {
    const L = this.#owners;
    let slots = 0;
    const newLog = new Uint8Array(L);
    const keep = new Int32Array(L);
    for (let l = 0; l < L; l++) {
      const off = this.#off[l];
      if (off < 0) continue;
      let c = 0;
      const end = off + (1 << this.#log[l]);
      for (let s = off; s < end; s++) {
        if (this.keys[s] !== EMPTY && !(Math.abs(this.weights[s]) < threshold)) c++;
      }
      keep[l] = c;
      let lg = MIN_LOG;
      while (c * 8 > 5 << lg) lg++;
      newLog[l] = c === 0 ? 0 : lg;
      if (c > 0) slots += 1 << lg;
    }
    let cap = 1024;
    while (cap < slots * 1.25) cap *= 2;
    const keys = new Int32Array(cap).fill(EMPTY);
    const w = new Float32Array(cap);
    const g = new Float32Array(cap);
    let used = 0, size = 0;
    for (let l = 0; l < L; l++) {
      const off = this.#off[l];
      if (off < 0 || keep[l] === 0) {
        this.#off[l] = -1;
        this.#log[l] = 0;
        this.#count[l] = 0;
        continue;
      }
      const lg = newLog[l], mask = (1 << lg) - 1, shift = 32 - lg, base = used;
      const end = off + (1 << this.#log[l]);
      for (let s = off; s < end; s++) {
        const j = this.keys[s];
        if (j === EMPTY || Math.abs(this.weights[s]) < threshold) continue;
        let i = Math.imul(j, GOLDEN) >>> shift;
        while (keys[base + i] !== EMPTY) i = (i + 1) & mask;
        keys[base + i] = j;
        w[base + i] = this.weights[s];
        g[base + i] = this.sums[s];
      }
      this.#off[l] = base;
      this.#log[l] = lg;
      this.#count[l] = keep[l];
      size += keep[l];
      used += 1 << lg;
    }
    this.keys = keys;
    this.weights = w;
    this.sums = g;
    this.#used = used;
    this.#waste = 0;
    this.#size = size;
  }
}
