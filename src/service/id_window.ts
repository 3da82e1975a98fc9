/**
 * The deduplication window of event ids: the 64-bit hashes of the last `capacity` distinct ids
 * applied, in a ring buffer (oldest first out) indexed by an open-addressing hash set, both on
 * typed arrays. It makes `POST /events` (and the Redis and file sources) idempotent by id: an
 * event whose id is in the window is acknowledged and not applied again. It is part of the
 * learner's checkpoint, and the write-ahead-log replay after a crash records the replayed ids
 * again in log order, so the window after a restart is exactly the one before.
 *
 * Bound: once `capacity` ids are held, each new id pushes the oldest one out; an event sent
 * again after its id fell out is applied again. An id met again inside the window does not move
 * (the window holds the last `capacity` ids *applied*).
 *
 * Memory: 8 bytes per id in the ring plus 4 bytes per slot of the set, whose slot count is the
 * power of two at or above twice the ids held (load ≤ 1/2): 16-24 bytes per id, 16.4 MB at the
 * default 1,000,000 ids. Both grow with the ids held (nothing is allocated up front), and a
 * checkpoint stores the ring only (8 bytes per id).
 *
 * Hashes, not ids, are compared: a new id is taken for a duplicate when its 64-bit hash equals
 * one of the `n` hashes in the window, with probability about n / 2^64 per event (5.4·10⁻¹⁴ at
 * 10⁶ ids: once in about 1.8·10¹³ events). The hash (cyrb53's mixing, both 32-bit lanes kept) is
 * not cryptographic: a client that can choose ids could craft one that silences another's event
 * (ids come from clients holding the token).
 *
 * @module
 */

/**
 * The window size `serve` uses unless `--dedup-window` says otherwise.
 *
 * @example
 * ```ts
 * import { DEFAULT_ID_WINDOW } from "./id_window.ts";
 * console.log(DEFAULT_ID_WINDOW); // 1000000
 * ```
 */
export const DEFAULT_ID_WINDOW = 1_000_000;

/**
 * An {@linkcode IdWindow} as stored in a checkpoint: its capacity and the hashes it holds,
 * oldest first, two 32-bit words per id (high, low).
 *
 * @example
 * ```ts
 * import { IdWindow, type IdWindowState } from "./id_window.ts";
 * const w = new IdWindow(4);
 * w.add("a");
 * const s: IdWindowState = w.toState();
 * console.log(s.capacity, s.hashes.length); // 4 2
 * ```
 */
export interface IdWindowState {
  /** Most ids held. */
  capacity: number;
  /** The hashes held, oldest first: `[hi0, lo0, hi1, lo1, ...]`. */
  hashes: Uint32Array;
}

let hashHi = 0, hashLo = 0;

/** 64-bit hash of `s` into `hashHi`/`hashLo` (no allocation). */
function hash64(s: string): void {
  let h1 = 0xdeadbeef ^ s.length, h2 = 0x41c6ce57 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  hashHi = h1 >>> 0;
  hashLo = h2 >>> 0;
}

const MIN_RING = 1024;

/**
 * The last `capacity` distinct event ids applied, as 64-bit hashes (see the module doc for the
 * memory and the collision odds). A capacity of 0 turns deduplication off.
 *
 * @example
 * ```ts
 * import { IdWindow } from "./id_window.ts";
 * const w = new IdWindow(2);
 * console.log(w.add("a"), w.add("b"), w.add("a")); // true true false
 * w.add("c"); // "a" falls out
 * console.log(w.has("a"), w.has("b"), w.size); // false true 2
 * ```
 */
export class IdWindow {
  /** Most ids held (0: deduplication off). */
  readonly capacity: number;
  /** Ring of hashes: `ring[2p]` high word, `ring[2p + 1]` low word of position p. */
  #ring: Uint32Array;
  /** Positions in the ring that hold an id (`#count` of them), the oldest at `#head`. */
  #count = 0;
  #head = 0;
  /** Open addressing, linear probing: ring position + 1, 0 for an empty slot. */
  #table: Int32Array;
  #mask: number;
  /** Ids inserted since this window was made or restored (for {@linkcode IdWindow.newest}). */
  #inserted = 0;

  /**
   * An empty window of `capacity` ids (16 KB allocated up front; it grows as ids arrive).
   *
   * @throws {RangeError} when `capacity` is not an integer in [0, 2^28]
   */
  constructor(capacity: number = DEFAULT_ID_WINDOW) {
    if (!Number.isInteger(capacity) || capacity < 0 || capacity > 2 ** 28) {
      throw new RangeError(`dedup window must be an integer in [0, 2^28], got ${capacity}`);
    }
    this.capacity = capacity;
    const ring = Math.min(capacity, MIN_RING);
    this.#ring = new Uint32Array(2 * ring);
    this.#table = new Int32Array(tableSlots(ring));
    this.#mask = this.#table.length - 1;
  }

  /** Ids held. */
  get size(): number {
    return this.#count;
  }

  /** Bytes allocated now (ring and set). */
  get bytes(): number {
    return this.#ring.byteLength + this.#table.byteLength;
  }

  /** Whether `id` is in the window. */
  has(id: string): boolean {
    if (this.capacity === 0) return false;
    hash64(id);
    return this.#find(hashHi, hashLo) >= 0;
  }

  /**
   * Records `id`: true when it was not in the window (it is now, the oldest id falling out
   * when the window is full), false when it was (a duplicate: nothing changes). Always true
   * with a capacity of 0.
   */
  add(id: string): boolean {
    if (this.capacity === 0) return true;
    hash64(id);
    if (this.#find(hashHi, hashLo) >= 0) return false;
    this.#insert(hashHi, hashLo);
    return true;
  }

  /** Ids inserted since this window was made or restored (it only grows). */
  get inserted(): number {
    return this.#inserted;
  }

  /**
   * The hashes of the newest `n` ids, oldest first (two words each, as in
   * {@linkcode IdWindowState}), for a checkpoint delta: {@linkcode IdWindow.pushHashes} of them
   * on a copy of this window as it was `n` insertions ago makes it this window. `undefined` when
   * the window does not hold `n` ids.
   *
   * @example
   * ```ts
   * import { IdWindow } from "./id_window.ts";
   * const a = new IdWindow(3);
   * a.add("x");
   * const b = IdWindow.fromState(a.toState());
   * const mark = a.inserted;
   * a.add("y");
   * a.add("z");
   * a.add("w"); // "x" falls out
   * b.pushHashes(a.newest(a.inserted - mark)!);
   * console.log(b.has("x"), b.has("w"), b.toState().hashes.join() === a.toState().hashes.join()); // false true true
   * ```
   */
  newest(n: number): Uint32Array | undefined {
    if (!(n >= 0 && n <= this.#count)) return undefined;
    const slots = this.#ring.length >>> 1, out = new Uint32Array(2 * n);
    for (let i = 0; i < n; i++) {
      const p = (this.#head + this.#count - n + i) % slots;
      out[2 * i] = this.#ring[2 * p];
      out[2 * i + 1] = this.#ring[2 * p + 1];
    }
    return out;
  }

  /**
   * Inserts ids by their hashes (from {@linkcode IdWindow.newest}), oldest first; hashes held
   * already are skipped.
   *
   * @throws {RangeError} when `hashes` is not a Uint32Array of an even length
   */
  pushHashes(hashes: Uint32Array): void {
    if (!(hashes instanceof Uint32Array) || hashes.length % 2 !== 0) {
      throw new RangeError("IdWindow.pushHashes: expected a Uint32Array of hash pairs");
    }
    if (this.capacity === 0) return;
    for (let i = 0; i < hashes.length; i += 2) {
      if (this.#find(hashes[i], hashes[i + 1]) < 0) this.#insert(hashes[i], hashes[i + 1]);
    }
  }

  /** Ring position of the hash, or -1. */
  #find(hi: number, lo: number): number {
    const t = this.#table, r = this.#ring, mask = this.#mask;
    let s = lo & mask;
    while (true) {
      const v = t[s];
      if (v === 0) return -1;
      const p = v - 1;
      if (r[2 * p + 1] === lo && r[2 * p] === hi) return p;
      s = (s + 1) & mask;
    }
  }

  #insert(hi: number, lo: number): void {
    this.#inserted++;
    let slots = this.#ring.length >>> 1;
    if (this.#count === slots && slots < this.capacity) {
      this.#grow(Math.min(this.capacity, 2 * slots));
      slots = this.#ring.length >>> 1;
    }
    if (this.#count === slots) {
      // full: the oldest falls out, its position takes the new hash
      const p = this.#head;
      this.#remove(p);
      this.#head = (p + 1) % slots;
      this.#put(p, hi, lo);
    } else {
      this.#put((this.#head + this.#count) % slots, hi, lo);
      this.#count++;
    }
  }

  #put(p: number, hi: number, lo: number): void {
    this.#ring[2 * p] = hi;
    this.#ring[2 * p + 1] = lo;
    const t = this.#table, mask = this.#mask;
    let s = lo & mask;
    while (t[s] !== 0) s = (s + 1) & mask;
    t[s] = p + 1;
  }

  /** Removes ring position `p` from the set (backward-shift deletion: no tombstones). */
  #remove(p: number): void {
    const t = this.#table, r = this.#ring, mask = this.#mask;
    let s = r[2 * p + 1] & mask;
    while (t[s] !== p + 1) s = (s + 1) & mask;
    let hole = s;
    let j = (hole + 1) & mask;
    while (t[j] !== 0) {
      const home = r[2 * (t[j] - 1) + 1] & mask;
      // move t[j] into the hole unless its home lies cyclically in (hole, j]
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        t[hole] = t[j];
        hole = j;
      }
      j = (j + 1) & mask;
    }
    t[hole] = 0;
  }

  /** Reallocates the ring for `ids` positions (oldest first at 0) and rebuilds the set. */
  #grow(ids: number): void {
    const old = this.#ring, oldSlots = old.length >>> 1;
    const ring = new Uint32Array(2 * ids);
    for (let i = 0; i < this.#count; i++) {
      const p = (this.#head + i) % oldSlots;
      ring[2 * i] = old[2 * p];
      ring[2 * i + 1] = old[2 * p + 1];
    }
    this.#ring = ring;
    this.#head = 0;
    this.#table = new Int32Array(tableSlots(ids));
    this.#mask = this.#table.length - 1;
    const t = this.#table, mask = this.#mask;
    for (let p = 0; p < this.#count; p++) {
      let s = ring[2 * p + 1] & mask;
      while (t[s] !== 0) s = (s + 1) & mask;
      t[s] = p + 1;
    }
  }

  /** The window for a checkpoint (a fresh array: the hashes held, oldest first). */
  toState(): IdWindowState {
    const n = this.#count, slots = this.#ring.length >>> 1;
    const hashes = new Uint32Array(2 * n);
    for (let i = 0; i < n; i++) {
      const p = (this.#head + i) % slots;
      hashes[2 * i] = this.#ring[2 * p];
      hashes[2 * i + 1] = this.#ring[2 * p + 1];
    }
    return { capacity: this.capacity, hashes };
  }

  /**
   * A window from {@linkcode IdWindow.toState} output, with the capacity it had or `capacity`
   * (a smaller one keeps the newest ids).
   *
   * @example
   * ```ts
   * import { IdWindow } from "./id_window.ts";
   * const w = new IdWindow(3);
   * for (const id of ["a", "b", "c"]) w.add(id);
   * const v = IdWindow.fromState(w.toState(), 2);
   * console.log(v.has("a"), v.has("b"), v.has("c")); // false true true
   * ```
   */
  static fromState(state: IdWindowState, capacity?: number): IdWindow {
    if (
      state === null || typeof state !== "object" || !(state.hashes instanceof Uint32Array) ||
      state.hashes.length % 2 !== 0
    ) {
      throw new TypeError("Checkpoint: the id window must hold a Uint32Array of hash pairs");
    }
    const w = new IdWindow(capacity ?? state.capacity);
    const h = state.hashes, n = h.length / 2;
    if (w.capacity === 0) return w;
    const keep = Math.min(n, w.capacity);
    const start = n - keep;
    if (keep > w.#ring.length / 2) w.#grow(keep);
    for (let i = start; i < n; i++) {
      // duplicates in a stored window (impossible unless edited) are kept once
      if (w.#find(h[2 * i], h[2 * i + 1]) < 0) w.#insert(h[2 * i], h[2 * i + 1]);
    }
    return w;
  }
}

/** Set slots for `ids` ids: the power of two at or above twice as many (at least 16). */
function tableSlots(ids: number): number {
  let s = 16;
  while (s < 2 * ids) s *= 2;
  return s;
}
