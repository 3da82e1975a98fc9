/**
 * A bounded, seeded reservoir of training rows, shared by the streaming learners that replay
 * earlier rows next to new ones (CoEmbed, LEML). It keeps a uniform sample (Vitter's Algorithm R)
 * of at most `capacity` of the rows offered so far and hands out a few of them with every new
 * minibatch ("experience replay"). Replay lets one pass over a stream reuse what it has seen —
 * more optimiser progress per row, and no forgetting when the stream's order drifts (files
 * sorted by label, bursts of one topic) — at a fixed memory cost: never more than `capacity`
 * rows, whatever the length of the stream.
 *
 * Rows keep their observed-label mask (a batch's `observed` / `fullyObserved`), so a row with
 * missing labels is replayed with the same missing labels. The whole state (kept rows, counter,
 * RNG) serialises to typed arrays ({@linkcode RowReservoir.toState}) and restores bit for bit.
 *
 * @module
 */
import type { Batch, BinaryCsr } from "./types.ts";
import { concatRows } from "./dataset_subsets.ts";
import { SmallRng } from "../random/mod.ts";

/**
 * Variable-length rows of one typed array kind in a slab: slot r holds `len[r]` entries from
 * `off[r]` (−1: no row). Replaced rows leave garbage that is compacted away when it outweighs
 * the live entries, so the slab stays within a constant factor of the live data and a long
 * stream allocates no per-row objects. The slot tables grow with the slots used, up to `slots`,
 * so a large capacity costs nothing until rows fill it.
 */
class Slab<T extends Int32Array | Float32Array> {
  data: T;
  end = 0;
  live = 0;
  off: Int32Array;
  len: Int32Array;
  readonly #slots: number;
  readonly #make: (n: number) => T;
  constructor(slots: number, make: (n: number) => T) {
    this.#make = make;
    this.#slots = slots;
    this.data = make(16);
    this.off = new Int32Array(Math.min(slots, 16)).fill(-1);
    this.len = new Int32Array(this.off.length);
  }
  /** Whether `slot` holds a row. */
  has(slot: number): boolean {
    return slot < this.off.length && this.off[slot] >= 0;
  }
  /** The length of the row in `slot` (0 for none). */
  lengthOf(slot: number): number {
    return this.has(slot) ? this.len[slot] : 0;
  }
  /** Stores `src[a..b)` in `slot` (replacing what it held). */
  put(slot: number, src: ArrayLike<number>, a: number, b: number): void {
    const n = b - a;
    this.clear(slot);
    if (this.end + n > this.data.length) this.#repack(n);
    const d = this.data, o = this.end;
    for (let p = 0; p < n; p++) d[o + p] = src[a + p];
    this.off[slot] = o;
    this.len[slot] = n;
    this.end += n;
    this.live += n;
  }
  /** Marks `slot` as holding no row. */
  clear(slot: number): void {
    if (slot >= this.off.length) this.#growSlots(slot + 1);
    if (this.off[slot] >= 0) this.live -= this.len[slot];
    this.off[slot] = -1;
    this.len[slot] = 0;
  }
  #growSlots(need: number): void {
    const n = Math.min(this.#slots, Math.max(need, 2 * this.off.length));
    const off = new Int32Array(n).fill(-1), len = new Int32Array(n);
    off.set(this.off);
    len.set(this.len);
    this.off = off;
    this.len = len;
  }
  /** Compacts the live rows into an array with room for `extra` more entries. */
  #repack(extra: number): void {
    const cap = Math.max(16, 2 * (this.live + extra));
    const next = this.#make(cap);
    let e = 0;
    for (let r = 0; r < this.off.length; r++) {
      const o = this.off[r];
      if (o < 0) continue;
      next.set(this.data.subarray(o, o + this.len[r]), e);
      this.off[r] = e;
      e += this.len[r];
    }
    this.data = next;
    this.end = e;
  }
  /** The entries of `slot` (a view, valid until the next `put`). */
  view(slot: number): T {
    const o = this.off[slot];
    return this.data.subarray(o, o + this.len[slot]) as T;
  }
}

/**
 * The serialisable state of a {@linkcode RowReservoir}: the kept rows as CSR arrays in slot order
 * plus the counters.
 *
 * @example
 * ```ts
 * import { RowReservoir, type ReservoirState } from "./reservoir.ts";
 * const s: ReservoirState = new RowReservoir(4, 1).toState();
 * console.log(s.scalars.seen, s.tensors.resXIndptr.length); // 0 1
 * ```
 */
export interface ReservoirState {
  /** `seen`: rows offered so far; `rngState`: the sampler's generator state. */
  scalars: { seen: number; rngState: number };
  /**
   * `resXIndptr`, `resXIndices`, `resXValues` (features), `resYIndptr`, `resYIndices` (labels),
   * `resOIndptr`, `resOIndices` (mask rows), `resFull` (1 = fully observed row).
   */
  tensors: Record<string, Int32Array | Float32Array | Uint8Array>;
}

/**
 * The reservoir.
 *
 * @example
 * ```ts
 * import { RowReservoir } from "./reservoir.ts";
 * const r = new RowReservoir(2, 7);
 * const batch = {
 *   x: { numRows: 3, numCols: 2, indptr: Int32Array.of(0, 1, 2, 3), indices: Int32Array.of(0, 1, 0), values: Float32Array.of(1, 2, 3) },
 *   y: { numRows: 3, numCols: 2, indptr: Int32Array.of(0, 1, 1, 2), indices: Int32Array.of(1, 0) },
 * };
 * r.addRows(batch);
 * console.log(r.size, r.seen, r.sample(5).x.numRows); // 2 3 2
 * ```
 */
export class RowReservoir {
  /** Maximum number of rows kept. */
  readonly capacity: number;
  /** Rows offered so far. */
  seen = 0;
  readonly #rng: SmallRng;
  #size = 0;
  readonly #xi: Slab<Int32Array>;
  readonly #xv: Slab<Float32Array>;
  readonly #y: Slab<Int32Array>;
  /** Observed labels besides the positives of a masked row; no row (−1) when fully observed. */
  readonly #obs: Slab<Int32Array>;
  #order = new Int32Array(0);

  /**
   * @param capacity rows kept (0 keeps none).
   * @param seed seed of the sampling.
   */
  constructor(capacity: number, seed: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`RowReservoir: capacity ${capacity} must be an integer >= 0`);
    }
    this.capacity = capacity;
    this.#rng = new SmallRng(Math.imul(seed | 0, 0x2c1b3c6d) ^ 0x297a2d39);
    const ints = (n: number) => new Int32Array(n);
    this.#xi = new Slab(capacity, ints);
    this.#xv = new Slab(capacity, (n) => new Float32Array(n));
    this.#y = new Slab(capacity, ints);
    this.#obs = new Slab(capacity, ints);
  }

  /**
   * Rows currently kept.
   *
   * @example
   * ```ts
   * import { RowReservoir } from "./reservoir.ts";
   * console.log(new RowReservoir(3, 0).size); // 0
   * ```
   */
  get size(): number {
    return this.#size;
  }

  /**
   * The state of the generator {@linkcode sample} and {@linkcode addRows} draw from (what
   * {@linkcode toState} saves as `rngState`). Setting a saved value back undoes the draws made
   * since: a learner that refuses a batch after sampling its replay rows leaves the reservoir as
   * it was.
   *
   * @example
   * ```ts
   * import { RowReservoir } from "./reservoir.ts";
   * const r = new RowReservoir(2, 1);
   * const s = r.rngState;
   * r.sample(1);
   * r.rngState = s;
   * console.log(r.rngState === s); // true
   * ```
   */
  get rngState(): number {
    return this.#rng.state;
  }

  set rngState(state: number) {
    this.#rng.state = state >>> 0;
  }

  /**
   * Offers every row of `batch` (copies are kept; the batch is not mutated). Each row ends up
   * kept with probability capacity/seen, independently of when it came.
   *
   * @example
   * ```ts
   * import { RowReservoir } from "./reservoir.ts";
   * const r = new RowReservoir(1, 0);
   * r.addRows({
   *   x: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(2) },
   *   y: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 0), indices: new Int32Array(0) },
   * });
   * console.log(r.size, r.seen); // 1 1
   * ```
   */
  addRows(batch: Batch): void {
    const { x, y, observed, fullyObserved } = batch;
    for (let i = 0; i < x.numRows; i++) {
      this.seen++;
      let slot = this.#size;
      if (slot >= this.capacity) {
        slot = this.#rng.nextInt(this.seen); // Algorithm R: keep with probability capacity/seen
        if (slot >= this.capacity) continue;
      } else this.#size++;
      const masked = observed !== undefined && !(fullyObserved !== undefined &&
        fullyObserved[i] === 1);
      this.#put(
        slot,
        x.indices,
        x.values,
        x.indptr[i],
        x.indptr[i + 1],
        y.indices,
        y.indptr[i],
        y.indptr[i + 1],
      );
      if (masked) this.#obs.put(slot, observed.indices, observed.indptr[i], observed.indptr[i + 1]);
      else this.#obs.clear(slot);
    }
  }

  #put(
    slot: number,
    xi: ArrayLike<number>,
    xv: ArrayLike<number>,
    xa: number,
    xb: number,
    yi: ArrayLike<number>,
    ya: number,
    yb: number,
  ): void {
    this.#xi.put(slot, xi, xa, xb);
    this.#xv.put(slot, xv, xa, xb);
    this.#y.put(slot, yi, ya, yb);
  }

  /**
   * Up to `count` distinct kept rows, drawn uniformly, as a batch (`numCols` is the largest index
   * + 1 of the rows drawn; `observed` and `fullyObserved` are set when a drawn row is masked).
   *
   * @example
   * ```ts
   * import { RowReservoir } from "./reservoir.ts";
   * const r = new RowReservoir(5, 3);
   * console.log(r.sample(2).x.numRows); // 0
   * ```
   */
  sample(count: number): Batch {
    const n = this.#size, m = Math.max(0, Math.min(Math.floor(count), n));
    if (this.#order.length < n) this.#order = new Int32Array(Math.max(n, 2 * this.#order.length));
    const order = this.#order;
    for (let i = 0; i < n; i++) order[i] = i;
    for (let i = 0; i < m; i++) { // partial Fisher–Yates
      const j = i + this.#rng.nextInt(n - i);
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return this.#gather(order.subarray(0, m), true);
  }

  /**
   * Every kept row, in slot order, as a batch (like {@linkcode sample} of all of them, but
   * without drawing from the generator: the sampling that follows is unchanged). For work on
   * the whole bounded sample, e.g. an initialisation or a consolidation pass over it. With
   * `count` below the size: that many rows, evenly spaced over the slots (still no draw).
   *
   * @example
   * ```ts
   * import { RowReservoir } from "./reservoir.ts";
   * const r = new RowReservoir(3, 1);
   * r.addRows({
   *   x: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 2) },
   *   y: { numRows: 2, numCols: 1, indptr: Int32Array.of(0, 1, 1), indices: Int32Array.of(0) },
   * });
   * const all = r.rows();
   * console.log(all.x.numRows, [...all.x.values], [...r.rows(1).x.values]); // 2 [ 1, 2 ] [ 1 ]
   * ```
   */
  rows(count: number = this.#size): Batch {
    const n = this.#size, m = Math.max(0, Math.min(Math.floor(count), n));
    return this.#gather(Int32Array.from({ length: m }, (_, i) => Math.floor((i * n) / m)), true);
  }

  /**
   * The rows at `slots` as a batch (with `observed` / `fullyObserved` when some row is masked;
   * `numCols` from the rows, or 0).
   */
  #gather(slots: Int32Array, numColsFromRows: boolean): Batch {
    const m = slots.length, X = this.#xi, Y = this.#y, O = this.#obs;
    let nx = 0, ny = 0, no = 0, anyMasked = false;
    for (let i = 0; i < m; i++) {
      const r = slots[i];
      nx += X.lengthOf(r);
      ny += Y.lengthOf(r);
      if (O.has(r)) {
        anyMasked = true;
        no += O.lengthOf(r);
      }
    }
    const xp = new Int32Array(m + 1), yp = new Int32Array(m + 1);
    const xi = new Int32Array(nx), xv = new Float32Array(nx), yi = new Int32Array(ny);
    const op = anyMasked ? new Int32Array(m + 1) : undefined;
    const oi = anyMasked ? new Int32Array(no) : undefined;
    const full = anyMasked ? new Uint8Array(m) : undefined;
    let D = 0, L = 0;
    for (let i = 0; i < m; i++) {
      const r = slots[i];
      const rx = X.view(r), ry = Y.view(r);
      xi.set(rx, xp[i]);
      xv.set(this.#xv.view(r), xp[i]);
      yi.set(ry, yp[i]);
      xp[i + 1] = xp[i] + rx.length;
      yp[i + 1] = yp[i] + ry.length;
      if (rx.length) D = Math.max(D, rx[rx.length - 1] + 1);
      if (ry.length) L = Math.max(L, ry[ry.length - 1] + 1);
      if (op && oi && full) {
        const isMasked = O.has(r);
        const o = isMasked ? O.view(r) : new Int32Array(0);
        oi.set(o, op[i]);
        op[i + 1] = op[i] + o.length;
        full[i] = isMasked ? 0 : 1;
        if (o.length) L = Math.max(L, o[o.length - 1] + 1);
      }
    }
    if (!numColsFromRows) D = L = 0;
    const batch: Batch = {
      x: { numRows: m, numCols: D, indptr: xp, indices: xi, values: xv },
      y: { numRows: m, numCols: L, indptr: yp, indices: yi },
    };
    if (op && oi && full) {
      return {
        ...batch,
        observed: { numRows: m, numCols: L, indptr: op, indices: oi },
        fullyObserved: full,
      };
    }
    return batch;
  }

  /**
   * The reservoir's full state (kept rows in slot order, as CSR arrays, plus the counters), for
   * checkpoints.
   *
   * @example
   * ```ts
   * import { RowReservoir } from "./reservoir.ts";
   * const s = new RowReservoir(2, 0).toState();
   * console.log(Object.keys(s.tensors).length, s.scalars.seen); // 8 0
   * ```
   */
  toState(): ReservoirState {
    const slots = Int32Array.from({ length: this.#size }, (_, i) => i);
    const all = this.#gather(slots, false);
    const m = slots.length;
    const op = new Int32Array(m + 1), full = new Uint8Array(m).fill(1);
    let oi: Int32Array = new Int32Array(0);
    if (all.observed && all.fullyObserved) {
      op.set(all.observed.indptr);
      oi = all.observed.indices;
      full.set(all.fullyObserved);
    }
    return {
      scalars: { seen: this.seen, rngState: this.#rng.state },
      tensors: {
        resXIndptr: all.x.indptr,
        resXIndices: all.x.indices,
        resXValues: all.x.values,
        resYIndptr: all.y.indptr,
        resYIndices: all.y.indices,
        resOIndptr: op,
        resOIndices: oi,
        resFull: full,
      },
    };
  }

  /**
   * Rebuilds a reservoir from {@linkcode toState} output (rows restored in slot order, so the
   * restored reservoir continues exactly as the original). The mask tensors may be absent
   * (every row fully observed). `owner` names the caller in error messages.
   *
   * @example
   * ```ts
   * import { RowReservoir } from "./reservoir.ts";
   * const a = new RowReservoir(2, 5);
   * const s = a.toState();
   * const b = RowReservoir.fromState(2, 5, s.scalars, s.tensors);
   * console.log(b.size, b.capacity); // 0 2
   * ```
   */
  static fromState(
    capacity: number,
    seed: number,
    scalars: Record<string, number | undefined>,
    tensors: Record<string, ArrayLike<number> | undefined>,
    owner = "RowReservoir",
  ): RowReservoir {
    const r = new RowReservoir(capacity, seed);
    const xp = tensors.resXIndptr, xi = tensors.resXIndices, xv = tensors.resXValues;
    const yp = tensors.resYIndptr, yi = tensors.resYIndices;
    const op = tensors.resOIndptr, oi = tensors.resOIndices, full = tensors.resFull;
    if (!xp || !xi || !xv || !yp || !yi) {
      throw new RangeError(`${owner} restore: the replay reservoir tensors are missing`);
    }
    const n = xp.length - 1;
    const masksOk = (!op && !oi && !full) ||
      (op !== undefined && oi !== undefined && full !== undefined && op.length === n + 1 &&
        full.length === n && op[n] === oi.length);
    if (
      n < 0 || n > capacity || yp.length !== n + 1 || xp[n] !== xi.length ||
      xi.length !== xv.length || yp[n] !== yi.length || !masksOk
    ) {
      throw new RangeError(`${owner} restore: the replay reservoir tensors are inconsistent`);
    }
    for (let i = 0; i < n; i++) {
      r.#put(i, xi, xv, xp[i], xp[i + 1], yi, yp[i], yp[i + 1]);
      if (full !== undefined && full[i] === 0) r.#obs.put(i, oi!, op![i], op![i + 1]);
    }
    r.#size = n;
    r.seen = scalars.seen ?? n;
    r.#rng.state = (scalars.rngState ?? r.#rng.state) >>> 0;
    return r;
  }
}

/**
 * The rows of `batch` followed by the rows of `replay` (e.g. a {@linkcode RowReservoir.sample}),
 * as one batch: spaces are the larger of the two; observed-label masks are kept (a fully
 * observed side gets `fullyObserved` = 1 rows). Returns `batch` itself when `replay` is empty.
 * Neither input is mutated.
 *
 * @example
 * ```ts
 * import { withReplay } from "./reservoir.ts";
 * const one = (f: number, l: number) => ({
 *   x: { numRows: 1, numCols: f + 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(f), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: l + 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(l) },
 * });
 * const b = withReplay(one(0, 2), one(3, 0));
 * console.log(b.x.numRows, b.x.numCols, b.y.numCols, [...b.y.indices]); // 2 4 3 [ 2, 0 ]
 * ```
 */
export function withReplay(batch: Batch, replay: Batch): Batch {
  const nb = batch.x.numRows, nr = replay.x.numRows;
  if (nr === 0) return batch;
  const ds = (b: Batch, name: string) => ({
    name,
    numFeatures: b.x.numCols,
    numLabels: b.y.numCols,
    x: b.x,
    y: b.y,
  });
  const cat = concatRows(ds(batch, "batch"), ds(replay, "replay"));
  const out: Batch = { x: cat.x, y: cat.y };
  if (!batch.observed && !replay.observed) return out;
  // masks: a side without one is fully observed
  const maskOf = (b: Batch, n: number): { m: BinaryCsr; full: Uint8Array } =>
    b.observed ? { m: b.observed, full: b.fullyObserved ?? new Uint8Array(n) } : {
      m: { numRows: n, numCols: 0, indptr: new Int32Array(n + 1), indices: new Int32Array(0) },
      full: new Uint8Array(n).fill(1),
    };
  const a = maskOf(batch, nb), r = maskOf(replay, nr);
  const L = Math.max(cat.y.numCols, a.m.numCols, r.m.numCols);
  const ma = ds({ x: batch.x, y: a.m }, "batch"), mr = ds({ x: replay.x, y: r.m }, "replay");
  const masks = concatRows(ma, mr).y;
  const full = new Uint8Array(nb + nr);
  full.set(a.full.subarray(0, nb));
  full.set(r.full.subarray(0, nr), nb);
  return {
    x: cat.x,
    y: { ...cat.y, numCols: L },
    observed: { ...masks, numCols: L },
    fullyObserved: full,
  };
}
