/**
 * Feature-major sparse weights of a linear multi-label model, whose memory follows their
 * non-zeros: every feature owns a dense block of (label, weight, AdaGrad sum) entries and a small
 * open-addressing hash index over them, both carved out of shared pools of typed arrays. A row's
 * scores for every label with a weight on one of its features are one sequential sweep of its
 * features' blocks ({@linkcode InvertedWeights.accumulate}), whatever the number of labels.
 *
 * A feature's block holds up to `2^log` entries, dense at its front; its index has `2^(log+1)`
 * slots (at most half full), probed linearly from a Fibonacci hash of the label. A full block
 * moves to one twice as large; the block it leaves goes to the next block of its size (the change
 * logs learn of the reuse through {@linkcode InvertedWeights.reusedSince}), and freed blocks left
 * over are reclaimed by compacting the pools once they make up a third of them. A compaction (or
 * a `prune`) slides the blocks down in pool order (found by a radix sort of their offsets) and
 * moves each index with its block; only blocks that lost entries or shrank are rehashed. (At 10⁶
 * labels compactions came every ~10,000 rows, and a comparator sort and rehashing every block
 * made them a fifth of the learning time.)
 * Memory is 20–40 bytes per stored weight (12 in the block, 8 in the index, half-full at worst).
 * {@linkcode InvertedWeights.evictSmallest} bounds a feature's labels,
 * {@linkcode InvertedWeights.prune} the total.
 *
 * @module
 */

const MIN_LOG = 1;
const GOLDEN = 0x9e3779b1 | 0;
/** How many of the latest block reuses {@linkcode InvertedWeights.reusedSince} can list. */
const REUSE_RING = 1024;

/**
 * Feature-major sparse weight blocks (see the module doc): `find(j, l)` is the slot of feature
 * `j`'s weight for label `l` in {@linkcode InvertedWeights.weights} and
 * {@linkcode InvertedWeights.sums}.
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
  /** Label of each entry slot. */
  keys: Int32Array;
  /** Weight of each entry slot. */
  weights: Float32Array;
  /** AdaGrad sum of squared gradients of each entry slot. */
  sums: Float32Array;
  /**
   * Changes whenever entries may have changed slots other than by a block's move to fresh
   * slots (a pool growth or a compaction): a log of slots is stale then. A move into a freed
   * block is announced by {@linkcode InvertedWeights.reuseSeq} instead.
   */
  layout = 0;
  /**
   * Counts the moves into freed blocks (their slots held another feature's entries before):
   * {@linkcode InvertedWeights.reusedSince} lists the latest ones.
   */
  reuseSeq = 0;
  #reuseStart = new Int32Array(REUSE_RING);
  #reuseLength = new Int32Array(REUSE_RING);
  // freed blocks by size (log2), reused before the pools' end grows: growing blocks then leave
  // little waste behind, and compactions come less often
  #free: number[][] = [];
  #index: Int32Array;
  #eOff: Int32Array;
  #iOff: Int32Array;
  #log: Uint8Array;
  #count: Int32Array;
  #owners = 0;
  #eUsed = 0;
  #iUsed = 0;
  #waste = 0;
  #size = 0;
  // the features that may own a block (every owner, and features whose block went since the
  // last compaction), so that a compaction or a threshold visits the blocks, not the whole
  // feature space: with a budget far below the features (maxWeights 1024 at 10⁶ features) every
  // prune (after almost every row) scanned all of them: 14.4 ms a row, 1.2 ms without the scan
  #listed = new Int32Array(16);
  #listedN = 0;
  #isListed: Uint8Array;
  #visits = 0;
  // scratch for moving one block
  #tk = new Int32Array(16);
  #tw = new Float32Array(16);
  #ts = new Float32Array(16);

  /** @param featureCapacity initial feature capacity; @param poolCapacity initial entry slots */
  constructor(featureCapacity = 16, poolCapacity = 1024) {
    this.keys = new Int32Array(poolCapacity);
    this.weights = new Float32Array(poolCapacity);
    this.sums = new Float32Array(poolCapacity);
    this.#index = new Int32Array(2 * poolCapacity);
    this.#eOff = new Int32Array(featureCapacity).fill(-1);
    this.#iOff = new Int32Array(featureCapacity);
    this.#log = new Uint8Array(featureCapacity);
    this.#count = new Int32Array(featureCapacity);
    this.#isListed = new Uint8Array(featureCapacity);
  }

  /**
   * Per-feature steps taken so far by compactions, prunes and
   * {@linkcode InvertedWeights.thresholdKeeping}: they follow the features that own blocks, not
   * the feature space (a cost counter, for tests and benchmarks).
   */
  get featureVisits(): number {
    return this.#visits;
  }

  /** Features `[0, numFeatures)` are addressable. */
  get numFeatures(): number {
    return this.#owners;
  }

  /** Stored weights, all features. */
  get size(): number {
    return this.#size;
  }

  /** Bytes held by the pools and the per-feature arrays. */
  get bytes(): number {
    return this.keys.length * 12 + this.#index.length * 4 + this.#eOff.length * 13;
  }

  /** Stored weights (labels) of feature `j`. */
  countOf(j: number): number {
    return this.#count[j];
  }

  /** The first slot of feature `j`'s block (its `countOf(j)` weights follow), or -1. */
  blockStart(j: number): number {
    return j < this.#owners ? this.#eOff[j] : -1;
  }

  /** Makes features `[0, n)` addressable (new ones start empty). */
  ensureFeatures(n: number): void {
    if (n <= this.#owners) return;
    if (n > this.#eOff.length) {
      let cap = this.#eOff.length;
      while (cap < n) cap *= 2;
      const eOff = new Int32Array(cap).fill(-1);
      eOff.set(this.#eOff);
      const iOff = new Int32Array(cap);
      iOff.set(this.#iOff);
      const log = new Uint8Array(cap);
      log.set(this.#log);
      const count = new Int32Array(cap);
      count.set(this.#count);
      const isListed = new Uint8Array(cap);
      isListed.set(this.#isListed);
      this.#eOff = eOff;
      this.#iOff = iOff;
      this.#log = log;
      this.#count = count;
      this.#isListed = isListed;
    }
    this.#owners = n;
  }

  /** The slot of feature `j`'s weight for label `l`, or -1 when there is none. */
  find(j: number, l: number): number {
    const eOff = this.#eOff[j];
    if (eOff < 0) return -1;
    const lg = this.#log[j] + 1, mask = (1 << lg) - 1, iOff = this.#iOff[j];
    const index = this.#index, keys = this.keys;
    let i = Math.imul(l, GOLDEN) >>> (32 - lg);
    for (;;) {
      const e = index[iOff + i];
      if (e < 0) return -1;
      if (keys[eOff + e] === l) return eOff + e;
      i = (i + 1) & mask;
    }
  }

  /**
   * The slot of feature `j`'s weight for label `l`, inserted with weight 0 and sum 0 when
   * absent. The insertion may move feature `j`'s block: its slots found before are then stale.
   */
  findOrInsert(j: number, l: number): number {
    let eOff = this.#eOff[j];
    if (eOff < 0) {
      this.#alloc(j, MIN_LOG);
      eOff = this.#eOff[j];
    }
    const lg = this.#log[j] + 1, mask = (1 << lg) - 1, iOff = this.#iOff[j];
    const index = this.#index, keys = this.keys;
    let i = Math.imul(l, GOLDEN) >>> (32 - lg);
    for (;;) {
      const e = index[iOff + i];
      if (e < 0) break;
      if (keys[eOff + e] === l) return eOff + e;
      i = (i + 1) & mask;
    }
    if (this.#count[j] === 1 << this.#log[j]) {
      this.#move(j, this.#log[j] + 1);
      return this.#append(j, l);
    }
    const e = this.#count[j]++;
    index[iOff + i] = e;
    keys[eOff + e] = l;
    this.weights[eOff + e] = 0;
    this.sums[eOff + e] = 0;
    this.#size++;
    return eOff + e;
  }

  /** Appends label `l` (known absent, with room in the block) to feature `j`. */
  #append(j: number, l: number): number {
    const eOff = this.#eOff[j], iOff = this.#iOff[j];
    const lg = this.#log[j] + 1, mask = (1 << lg) - 1, index = this.#index;
    let i = Math.imul(l, GOLDEN) >>> (32 - lg);
    while (index[iOff + i] >= 0) i = (i + 1) & mask;
    const e = this.#count[j]++;
    index[iOff + i] = e;
    this.keys[eOff + e] = l;
    this.weights[eOff + e] = 0;
    this.sums[eOff + e] = 0;
    this.#size++;
    return eOff + e;
  }

  /**
   * Adds `values[p] · w(indices[p], l)` into `acc[l]` for every label `l` with a weight on a
   * feature `indices[p]` (`p < n`; features beyond the tables are skipped), in the order of the
   * row's entries and then of the feature's block. Labels seen for the first time (their
   * `stamp` differs from `mark`) are reset to 0 first and appended to `touched`. Returns the
   * new number of touched labels.
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
      const off = this.#eOff[j];
      if (off < 0) continue;
      const v = values[p], end = off + this.#count[j];
      for (let s = off; s < end; s++) {
        const l = keys[s];
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
   * it has any; ties: the later entries go first); the others keep their order. Returns how
   * many were dropped.
   */
  evictSmallest(j: number, fraction: number): number {
    const n = this.#count[j];
    if (n === 0) return 0;
    const off = this.#eOff[j];
    const drop = Math.max(1, Math.min(n, Math.floor(n * fraction)));
    if (drop === n) {
      // all of them (NaN weights too, which no threshold compares below)
      this.#count[j] = 0;
      this.#size -= n;
      this.#reindex(j);
      return n;
    }
    const mags = new Float64Array(n);
    for (let e = 0; e < n; e++) mags[e] = Math.abs(this.weights[off + e]);
    mags.sort();
    const threshold = mags[drop - 1];
    let ties = 0;
    for (let q = 0; q < drop; q++) if (mags[q] === threshold) ties++;
    // ties at the threshold: drop the last ones, keep the first ones
    let tiesSeen = 0, totalTies = 0;
    for (let e = 0; e < n; e++) if (Math.abs(this.weights[off + e]) === threshold) totalTies++;
    const keepTies = totalTies - ties;
    let k = 0;
    for (let e = 0; e < n; e++) {
      const m = Math.abs(this.weights[off + e]);
      if (m < threshold) continue;
      if (m === threshold && tiesSeen++ >= keepTies) continue;
      this.keys[off + k] = this.keys[off + e];
      this.weights[off + k] = this.weights[off + e];
      this.sums[off + k] = this.sums[off + e];
      k++;
    }
    this.#count[j] = k;
    this.#size -= n - k;
    this.#reindex(j);
    return n - k;
  }

  /** Rebuilds feature `j`'s index from its block. */
  #reindex(j: number): void {
    const iOff = this.#iOff[j], lg = this.#log[j] + 1, mask = (1 << lg) - 1;
    const index = this.#index, keys = this.keys, eOff = this.#eOff[j];
    index.fill(-1, iOff, iOff + (1 << lg));
    for (let e = 0; e < this.#count[j]; e++) {
      let i = Math.imul(keys[eOff + e], GOLDEN) >>> (32 - lg);
      while (index[iOff + i] >= 0) i = (i + 1) & mask;
      index[iOff + i] = e;
    }
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
      const off = this.#eOff[j];
      if (off < 0) continue;
      const end = off + this.#count[j];
      for (let s = off; s < end; s++) fn(j, this.keys[s], s);
    }
  }

  /**
   * Drops every weight with `|w| < threshold` (blocks shrink to fit; the pools are compacted).
   * Returns the number of weights dropped.
   */
  prune(threshold: number): number {
    const before = this.#size;
    this.#compact(threshold);
    return before - this.#size;
  }

  /**
   * The smallest threshold t at which at most `keep` stored weights have |w| ≥ t, so that
   * `prune(t)` keeps at most `keep` of them: the next float32 above the (keep + 1)-th largest
   * |w|, found exactly by two counting passes over the bit patterns of |w| (in the order of the
   * values), their high 16 bits and then the low 16 of that bin. Weights of the same magnitude as
   * the (keep + 1)-th largest all go. 0 when at most `keep` weights are stored.
   */
  thresholdKeeping(keep: number): number {
    if (this.#size <= keep) return 0;
    const bits = new Uint32Array(this.weights.buffer, this.weights.byteOffset, this.weights.length);
    const count = new Int32Array(65536);
    const listed = this.#listed, m = this.#listedN, eOff = this.#eOff, n = this.#count;
    this.#visits += 2 * m;
    for (let q = 0; q < m; q++) {
      const j = listed[q];
      for (let e = eOff[j], end = e + (e < 0 ? 0 : n[j]); e < end; e++) {
        count[(bits[e] & 0x7fffffff) >>> 16]++;
      }
    }
    // the bin of the (keep + 1)-th largest, then its place among the bin's low halves
    let rank = keep + 1, hi = 65535;
    while (count[hi] < rank) rank -= count[hi--];
    count.fill(0);
    for (let q = 0; q < m; q++) {
      const j = listed[q];
      for (let e = eOff[j], end = e + (e < 0 ? 0 : n[j]); e < end; e++) {
        const b = bits[e] & 0x7fffffff;
        if (b >>> 16 === hi) count[b & 0xffff]++;
      }
    }
    let lo = 65535;
    while (count[lo] < rank) rank -= count[lo--];
    const next = new Uint32Array([((hi << 16) | lo) + 1]);
    return new Float32Array(next.buffer)[0];
  }

  /**
   * A compact copy: per feature its labels, weights and (optionally) AdaGrad sums in block
   * order, with feature pointers and block sizes. {@linkcode InvertedWeights.fromCompact}
   * rebuilds the same blocks and indexes.
   */
  toCompact(withSums: boolean): {
    ptr: Int32Array;
    keys: Int32Array;
    weights: Float32Array;
    sums?: Float32Array;
    logs: Uint8Array;
  } {
    const F = this.#owners;
    const ptr = new Int32Array(F + 1);
    const keys = new Int32Array(this.#size);
    const weights = new Float32Array(this.#size);
    const sums = withSums ? new Float32Array(this.#size) : undefined;
    const logs = new Uint8Array(F);
    const K = this.keys, W = this.weights, S = this.sums;
    let e = 0;
    for (let j = 0; j < F; j++) {
      const off = this.#eOff[j], n = this.#count[j];
      if (off >= 0) {
        logs[j] = this.#log[j];
        if (n <= 64) {
          // most blocks are short: a loop, not three views (a view each was most of the time)
          for (let i = 0; i < n; i++) {
            keys[e + i] = K[off + i];
            weights[e + i] = W[off + i];
          }
          if (sums) { for (let i = 0; i < n; i++) sums[e + i] = S[off + i]; }
        } else {
          keys.set(K.subarray(off, off + n), e);
          weights.set(W.subarray(off, off + n), e);
          if (sums) sums.set(S.subarray(off, off + n), e);
        }
        e += n;
      }
      ptr[j + 1] = e;
    }
    return sums ? { ptr, keys, weights, sums, logs } : { ptr, keys, weights, logs };
  }

  /**
   * Rebuilds blocks from {@linkcode InvertedWeights.toCompact}'s arrays (entries in the stored
   * order, blocks of the stored sizes, so every index is the original's).
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
    const steps = InvertedWeights.fromCompactSteps(ptr, keys, weights, sums, logs, Infinity);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }

  /**
   * {@linkcode InvertedWeights.fromCompact} in steps: the generator yields after about `step`
   * features checked or entries placed, and returns the same blocks. A caller that must stay
   * responsive (the serving thread rebuilding its replica) runs a few steps at a time; the
   * arrays must not change meanwhile. `headroom`: free slots past the blocks, as a fraction of
   * theirs (a replica's first deltas then grow no pool: at 10⁶ labels a growth copied about
   * 250 MB on the serving thread, 100-170 ms).
   *
   * @throws {RangeError} (from `next()`) when the arrays are inconsistent
   *
   * @example
   * ```ts
   * import { InvertedWeights } from "./inverted_weights.ts";
   * const t = new InvertedWeights();
   * t.ensureFeatures(3);
   * for (let l = 0; l < 5; l++) t.weights[t.findOrInsert(l % 3, l)] = l + 1;
   * const c = t.toCompact(false);
   * const steps = InvertedWeights.fromCompactSteps(c.ptr, c.keys, c.weights, undefined, c.logs, 1);
   * let r = steps.next(), yields = 0;
   * for (; !r.done; r = steps.next()) yields++;
   * console.log(yields > 1, r.value.weights[r.value.find(1, 4)]); // true 5
   * ```
   */
  static *fromCompactSteps(
    ptr: Int32Array,
    keys: Int32Array,
    weights: Float32Array,
    sums: Float32Array | undefined,
    logs: Uint8Array,
    step = 1 << 16,
    headroom = 0,
  ): Generator<void, InvertedWeights, void> {
    const F = ptr.length - 1;
    const n = ptr[F] ?? 0;
    if (F < 0 || logs.length !== F || keys.length !== n || weights.length !== n || ptr[0] !== 0) {
      throw new RangeError(
        `InvertedWeights.fromCompact: ${F} features, ${logs.length} block sizes, ${keys.length} labels, ${weights.length} weights, ${n} expected`,
      );
    }
    if (sums && sums.length !== n) {
      throw new RangeError(`InvertedWeights.fromCompact: ${sums.length} sums, ${n} expected`);
    }
    let slots = 0, work = 0;
    for (let j = 0; j < F; j++) {
      const c = ptr[j + 1] - ptr[j];
      if (c < 0) throw new RangeError(`InvertedWeights.fromCompact: ptr decreases at ${j}`);
      if (c > 0 || logs[j] > 0) {
        if (logs[j] < MIN_LOG || logs[j] > 29 || c > 1 << logs[j]) {
          throw new RangeError(
            `InvertedWeights.fromCompact: feature ${j} has ${c} weights in a block of 2^${logs[j]}`,
          );
        }
        slots += 1 << logs[j];
      }
      if (++work >= step) {
        work = 0;
        yield;
      }
    }
    const t = new InvertedWeights(
      Math.max(16, F),
      Math.max(1024, slots + Math.ceil(headroom * slots)),
    );
    t.ensureFeatures(F);
    for (let j = 0; j < F; j++) {
      const s0 = ptr[j], s1 = ptr[j + 1];
      if (s1 === s0 && logs[j] === 0) continue;
      t.#alloc(j, logs[j]);
      for (let e = s0; e < s1; e++) {
        const l = keys[e];
        if (!(l >= 0)) throw new RangeError(`InvertedWeights.fromCompact: label ${l} at ${e}`);
        if (t.find(j, l) >= 0) {
          throw new RangeError(`InvertedWeights.fromCompact: label ${l} twice in feature ${j}`);
        }
        const s = t.#append(j, l);
        t.weights[s] = weights[e];
        if (sums) t.sums[s] = sums[e];
      }
      work += 1 + s1 - s0;
      if (work >= step) {
        work = 0;
        yield;
      }
    }
    return t;
  }

  /**
   * Calls `fn(firstSlot, length)` for each freed block reused after the `seq`-th reuse (see
   * {@linkcode InvertedWeights.reuseSeq}), oldest first. Returns false, calling nothing, when
   * more than the last 1024 are asked for: the caller must then forget every slot it knows.
   */
  reusedSince(seq: number, fn: (firstSlot: number, length: number) => void): boolean {
    if (this.reuseSeq - seq > REUSE_RING) return false;
    for (let s = seq + 1; s <= this.reuseSeq; s++) {
      fn(this.#reuseStart[s % REUSE_RING], this.#reuseLength[s % REUSE_RING]);
    }
    return true;
  }

  /** Gives feature `j` an empty block of 2^lg entries (and its index): a freed one if any. */
  #alloc(j: number, lg: number): void {
    const cap = 1 << lg, free = this.#free[lg];
    if (free !== undefined && free.length > 0) {
      const e = free.pop()!, s = ++this.reuseSeq % REUSE_RING;
      this.#reuseStart[s] = e;
      this.#reuseLength[s] = cap;
      this.#waste -= cap;
      this.#eOff[j] = e;
      this.#iOff[j] = 2 * e;
      this.#log[j] = lg;
      this.#count[j] = 0;
      this.#index.fill(-1, 2 * e, 2 * e + 2 * cap);
      this.#list(j);
      return;
    }
    if (this.#eUsed + cap > this.keys.length && this.#waste * 3 > this.#eUsed) this.#compact(0);
    if (this.#eUsed + cap > this.keys.length) this.#growPool(this.#eUsed + cap);
    this.#eOff[j] = this.#eUsed;
    this.#iOff[j] = this.#iUsed;
    this.#log[j] = lg;
    this.#count[j] = 0;
    this.#index.fill(-1, this.#iUsed, this.#iUsed + 2 * cap);
    this.#eUsed += cap;
    this.#iUsed += 2 * cap;
    // (after the compaction above, which lists only the features that keep a block)
    this.#list(j);
  }

  /** Lists feature `j` among the features that may own a block (once). */
  #list(j: number): void {
    if (this.#isListed[j] === 1) return;
    if (this.#listedN === this.#listed.length) {
      const bigger = new Int32Array(2 * this.#listed.length);
      bigger.set(this.#listed);
      this.#listed = bigger;
    }
    this.#listed[this.#listedN++] = j;
    this.#isListed[j] = 1;
  }

  #growPool(need: number): void {
    this.layout++;
    let cap = this.keys.length;
    while (cap < need) cap = Math.ceil(cap * 1.5);
    const keys = new Int32Array(cap);
    keys.set(this.keys.subarray(0, this.#eUsed));
    const w = new Float32Array(cap);
    w.set(this.weights.subarray(0, this.#eUsed));
    const g = new Float32Array(cap);
    g.set(this.sums.subarray(0, this.#eUsed));
    const index = new Int32Array(2 * cap);
    index.set(this.#index.subarray(0, this.#iUsed));
    this.keys = keys;
    this.weights = w;
    this.sums = g;
    this.#index = index;
  }

  /** Moves feature `j`'s entries into a new block of 2^lg. */
  #move(j: number, lg: number): void {
    const off = this.#eOff[j], n = this.#count[j];
    if (this.#tk.length < n) {
      let c = this.#tk.length;
      while (c < n) c *= 2;
      this.#tk = new Int32Array(c);
      this.#tw = new Float32Array(c);
      this.#ts = new Float32Array(c);
    }
    const tk = this.#tk, tw = this.#tw, ts = this.#ts;
    tk.set(this.keys.subarray(off, off + n));
    tw.set(this.weights.subarray(off, off + n));
    ts.set(this.sums.subarray(off, off + n));
    this.#waste += 1 << this.#log[j];
    (this.#free[this.#log[j]] ??= []).push(off);
    this.#eOff[j] = -1;
    this.#count[j] = 0;
    this.#size -= n; // (a compaction inside #alloc recounts without these)
    this.#alloc(j, lg);
    this.#size += n;
    const eOff = this.#eOff[j];
    this.keys.set(tk.subarray(0, n), eOff);
    this.weights.set(tw.subarray(0, n), eOff);
    this.sums.set(ts.subarray(0, n), eOff);
    this.#count[j] = n;
    this.#reindex(j);
  }

  /**
   * Re-lays every feature's block contiguously, dropping weights with |w| < threshold, in place:
   * blocks are moved left in the order of their offsets (a block's new offset is never past its
   * old one), so a compaction allocates nothing but an order of the features (allocating new
   * pools each time left garbage that took the process to 3.9 GB of RSS at 10⁶ labels).
   */
  #compact(threshold: number): void {
    this.layout++;
    const order = this.#blocksInPoolOrder();
    const live = order.length;
    const eOff = this.#eOff, index = this.#index;
    const keys = this.keys, w = this.weights, g = this.sums;
    // features whose block lost entries or shrank; the others' indexes move as they are (an
    // index depends only on the block's labels in order and its size)
    const rehash = new Int32Array(live);
    let nRehash = 0, eUsed = 0, size = 0;
    // the features listed from now on: those that keep a block
    for (let q = 0; q < this.#listedN; q++) this.#isListed[this.#listed[q]] = 0;
    this.#listedN = 0;
    this.#visits += live;
    for (let q = 0; q < live; q++) {
      const j = order[q], off = eOff[j], n = this.#count[j];
      let k = 0;
      for (let e = off; e < off + n; e++) {
        if (Math.abs(w[e]) < threshold) continue;
        keys[eUsed + k] = keys[e];
        w[eUsed + k] = w[e];
        g[eUsed + k] = g[e];
        k++;
      }
      if (k === 0) {
        eOff[j] = -1;
        this.#log[j] = 0;
        this.#count[j] = 0;
        continue;
      }
      this.#listed[this.#listedN++] = j;
      this.#isListed[j] = 1;
      // keep the block's size unless it is over four times what is left
      const was = this.#log[j];
      let lg = was;
      while (lg > MIN_LOG && k * 4 <= 1 << lg) lg--;
      // blocks move down in pool order, so a block's index is read before anything lands on it
      if (k === n && lg === was) index.copyWithin(2 * eUsed, 2 * off, 2 * off + (2 << lg));
      else rehash[nRehash++] = j;
      eOff[j] = eUsed;
      this.#iOff[j] = 2 * eUsed;
      this.#log[j] = lg;
      this.#count[j] = k;
      size += k;
      eUsed += 1 << lg;
    }
    this.#eUsed = eUsed;
    this.#iUsed = 2 * eUsed;
    this.#waste = 0;
    this.#free = [];
    this.#size = size;
    for (let q = 0; q < nRehash; q++) this.#reindex(rehash[q]);
  }

  /**
   * The features that own a block, by the block's place in the pool: a radix sort of their
   * offsets, three passes of 11 bits (a comparator sort took a third of a compaction at 10⁶
   * features, a native sort of packed doubles still 70 ms). Found among the listed features,
   * not by a scan of the feature space.
   */
  #blocksInPoolOrder(): Int32Array {
    const eOff = this.#eOff, listed = this.#listed, m = this.#listedN;
    this.#visits += m;
    let live = 0;
    for (let q = 0; q < m; q++) if (eOff[listed[q]] >= 0) live++;
    let a = new Int32Array(live), b = new Int32Array(live);
    let q = 0;
    for (let r = 0; r < m; r++) if (eOff[listed[r]] >= 0) a[q++] = listed[r];
    const count = new Int32Array(2049);
    for (let shift = 0; shift < 33; shift += 11) {
      count.fill(0);
      for (let i = 0; i < live; i++) count[((eOff[a[i]] >>> shift) & 2047) + 1]++;
      for (let d = 1; d < 2049; d++) count[d] += count[d - 1];
      for (let i = 0; i < live; i++) b[count[(eOff[a[i]] >>> shift) & 2047]++] = a[i];
      [a, b] = [b, a];
    }
    return a;
  }
}
