/**
 * Prequential ("test-then-train") evaluation of a streaming model: every row is first predicted
 * by the model as it stands, then the model learns from the row's minibatch. One sliding-window
 * accumulator ({@linkcode PrequentialWindow}: P@1 and P@5 over the last events and since the
 * start, with a serialisable state for checkpoints) serves the learning service, the demo and
 * {@linkcode prequential}; P@k follows `precision.ts` (hits among the top k divided by k), in
 * percent, and rows with no true label count 0.
 *
 * @module
 */
import type { Batch, SparseVector } from "../data/types.ts";
import type { Estimator } from "../models/estimator.ts";
import type { Progress } from "../progress/mod.ts";
import { checkLabels, checkTop, containsSorted } from "./relevance.ts";

/**
 * Serialisable form of a {@linkcode PrequentialWindow}, for checkpoints.
 *
 * @example
 * ```ts
 * import { PrequentialWindow, type PrequentialState } from "./prequential.ts";
 * const s: PrequentialState = new PrequentialWindow(3).toState();
 * console.log(s.size, s.filled); // 3 0
 * ```
 */
export interface PrequentialState {
  /** Window size in events. */
  size: number;
  /** Next slot of the ring buffers. */
  next: number;
  /** Slots in use. */
  filled: number;
  /** Per-event P@1 (0 or 1) in the window, ring order. */
  p1: Float32Array;
  /** Per-event P@5 in the window, ring order. */
  p5: Float32Array;
  /** Events scored since the start. */
  totalScored: number;
  /** Sum of P@1 since the start. */
  totalP1: number;
  /** Sum of P@5 since the start. */
  totalP5: number;
}

/**
 * Ring buffers of P@1 and P@5 of the last `size` scored events, plus running totals.
 *
 * @example
 * ```ts
 * import { PrequentialWindow } from "./prequential.ts";
 * const w = new PrequentialWindow(2);
 * w.record(Int32Array.of(3, 1), Int32Array.of(1));
 * w.record(Int32Array.of(3), Int32Array.of(3));
 * console.log(w.precisionAt1, w.precisionAt5, w.filled); // 50 20 2
 * ```
 */
export class PrequentialWindow {
  /** Sliding-window size in events. */
  readonly size: number;
  #next = 0;
  #filled = 0;
  readonly #p1: Float32Array;
  readonly #p5: Float32Array;
  #totalScored = 0;
  #totalP1 = 0;
  #totalP5 = 0;

  /**
   * An empty window.
   *
   * @param size sliding-window size in events (default 1000)
   */
  constructor(size = 1000) {
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`PrequentialWindow: size must be a positive integer, got ${size}`);
    }
    this.size = size;
    this.#p1 = new Float32Array(size);
    this.#p5 = new Float32Array(size);
  }

  /**
   * Records one scored event: `predicted` in decreasing score order (integers >= 0; only the
   * first 5 are read; a label listed again counts once, as a miss at its later rank), `truth`
   * strictly increasing integers >= 0 (an event without true labels scores 0, as in the
   * metrics). Nothing is recorded when it throws.
   *
   * @throws {RangeError} on a bad predicted or true label, naming it
   */
  record(predicted: ArrayLike<number>, truth: ArrayLike<number>): void {
    checkTop(predicted, 5, "PrequentialWindow.record", true);
    checkLabels(truth, Infinity, "PrequentialWindow.record");
    let hits = 0, first = 0;
    const k = Math.min(5, predicted.length);
    for (let r = 0; r < k; r++) {
      const l = predicted[r];
      let again = false;
      for (let q = 0; q < r && !again; q++) again = predicted[q] === l;
      if (!again && containsSorted(truth, l)) {
        hits++;
        if (r === 0) first = 1;
      }
    }
    const p5 = hits / 5;
    this.#p1[this.#next] = first;
    this.#p5[this.#next] = p5;
    this.#next = (this.#next + 1) % this.size;
    if (this.#filled < this.size) this.#filled++;
    this.#totalScored++;
    this.#totalP1 += first;
    this.#totalP5 += p5;
  }

  /** Number of events in the window. */
  get filled(): number {
    return this.#filled;
  }

  /** P@1 over the window, percent (NaN when empty). */
  get precisionAt1(): number {
    return this.#mean(this.#p1);
  }

  /** P@5 over the window, percent (NaN when empty). */
  get precisionAt5(): number {
    return this.#mean(this.#p5, 5);
  }

  /** Events scored since the beginning of the stream. */
  get totalScored(): number {
    return this.#totalScored;
  }

  /** P@1 since the beginning of the stream, percent (NaN when nothing was scored). */
  get cumulativeP1(): number {
    return this.#totalScored === 0 ? NaN : (100 * this.#totalP1) / this.#totalScored;
  }

  /** P@5 since the beginning of the stream, percent (NaN when nothing was scored). */
  get cumulativeP5(): number {
    // the sum of hits/5 recounted as hits (its float64 rounding dropped): exactly 20 for one hit
    const hits = Math.round(5 * this.#totalP5);
    return this.#totalScored === 0 ? NaN : (100 * hits) / (5 * this.#totalScored);
  }

  /**
   * The window's mean of `a`, percent. Each entry is a count over `per` (P@5: hits/5, stored as
   * float32): the counts are summed as integers, so that one hit in five reads 20, not 20.0000003.
   */
  #mean(a: Float32Array, per = 1): number {
    if (this.#filled === 0) return NaN;
    let s = 0;
    for (let i = 0; i < this.#filled; i++) s += Math.round(a[i] * per);
    return (100 * s) / (per * this.#filled);
  }

  /**
   * Serialisable copy for checkpoints.
   *
   * @example
   * ```ts
   * import { PrequentialWindow } from "./prequential.ts";
   * const w = new PrequentialWindow(4);
   * w.record(Int32Array.of(0), Int32Array.of(0));
   * const c = PrequentialWindow.fromState(w.toState());
   * console.log(c.precisionAt1, c.totalScored); // 100 1
   * ```
   */
  toState(): PrequentialState {
    return {
      size: this.size,
      next: this.#next,
      filled: this.#filled,
      p1: this.#p1.slice(),
      p5: this.#p5.slice(),
      totalScored: this.#totalScored,
      totalP1: this.#totalP1,
      totalP5: this.#totalP5,
    };
  }

  /**
   * Rebuilds a window from {@linkcode PrequentialWindow.toState}, checking that the state is
   * consistent (a corrupt checkpoint is refused rather than reporting NaN or wrong figures).
   *
   * @throws {RangeError} naming the first inconsistent field
   *
   * @example
   * ```ts
   * import { PrequentialWindow } from "./prequential.ts";
   * const w = PrequentialWindow.fromState(new PrequentialWindow(2).toState());
   * console.log(w.size); // 2
   * ```
   */
  static fromState(s: PrequentialState): PrequentialWindow {
    const bad = (what: string) => {
      throw new RangeError(`PrequentialWindow.fromState: ${what}`);
    };
    // before the window is allocated: a corrupt size failed as "Array buffer allocation failed"
    if (!Number.isSafeInteger(s.size) || s.size < 1) {
      bad(`size must be a positive integer, got ${s.size}`);
    }
    const p1 = s.p1?.length, p5 = s.p5?.length;
    if (p1 !== s.size || p5 !== s.size) {
      bad(`buffer lengths do not match the size ${s.size} (p1 has ${p1}, p5 ${p5})`);
    }
    const w = new PrequentialWindow(s.size);
    if (!Number.isInteger(s.filled) || s.filled < 0 || s.filled > s.size) {
      bad(`filled must be an integer in [0, ${s.size}], got ${s.filled}`);
    }
    if (!Number.isInteger(s.next) || s.next < 0 || s.next >= s.size) {
      bad(`next must be an integer in [0, ${s.size - 1}], got ${s.next}`);
    }
    if (s.filled < s.size && s.next !== s.filled) {
      bad(`next (${s.next}) must equal filled (${s.filled}) until the window is full`);
    }
    if (!Number.isSafeInteger(s.totalScored) || s.totalScored < s.filled) {
      bad(`totalScored must be an integer >= filled (${s.filled}), got ${s.totalScored}`);
    }
    for (const [name, v] of [["totalP1", s.totalP1], ["totalP5", s.totalP5]] as const) {
      if (!(v >= 0 && v <= s.totalScored)) {
        bad(`${name} must be in [0, totalScored = ${s.totalScored}], got ${v}`);
      }
    }
    for (let i = 0; i < s.filled; i++) {
      if (s.p1[i] !== 0 && s.p1[i] !== 1) bad(`p1[${i}] must be 0 or 1, got ${s.p1[i]}`);
      if (!(s.p5[i] >= 0 && s.p5[i] <= 1)) bad(`p5[${i}] must be in [0, 1], got ${s.p5[i]}`);
    }
    w.#p1.set(s.p1);
    w.#p5.set(s.p5);
    w.#next = s.next;
    w.#filled = s.filled;
    w.#totalScored = s.totalScored;
    w.#totalP1 = s.totalP1;
    w.#totalP5 = s.totalP5;
    return w;
  }
}

/**
 * Running P@1 over all rows and over the last `window` rows: the P@1 view of a
 * {@linkcode PrequentialWindow} fed one predicted label per row, reporting 0 (not NaN) before
 * the first row.
 *
 * @example
 * ```ts
 * import { PrequentialP1 } from "./prequential.ts";
 * const p = new PrequentialP1(2);
 * p.add(3, Int32Array.of(3)); // hit
 * p.add(1, Int32Array.of(0)); // miss
 * p.add(0, Int32Array.of(0)); // hit
 * console.log(p.p1.toFixed(2), p.windowP1, p.rows); // 66.67 50 3
 * ```
 */
export class PrequentialP1 {
  /** Size of the sliding window. */
  readonly window: number;
  readonly #w: PrequentialWindow;
  /** float64: an Int32Array read 2^32 + 3 as label 3 */
  readonly #top = new Float64Array(1);

  /** @param window sliding-window size in rows (default 1000) */
  constructor(window = 1000) {
    if (!Number.isInteger(window) || window < 1) {
      throw new RangeError(`PrequentialP1: window must be a positive integer, got ${window}`);
    }
    this.window = window;
    this.#w = new PrequentialWindow(window);
  }

  /**
   * Records one prediction: the predicted top label (an integer >= 0, or -1 for none) and the
   * true labels (strictly increasing integers >= 0).
   *
   * @throws {RangeError} on a bad `top1` or true label
   */
  add(top1: number, labels: ArrayLike<number>): void {
    if (!Number.isInteger(top1) || top1 < -1) {
      throw new RangeError(
        `PrequentialP1.add: top1 must be a label index (an integer >= 0) or -1 for none, got ${top1}`,
      );
    }
    this.#top[0] = top1;
    this.#w.record(top1 >= 0 ? this.#top : NO_LABEL, labels);
  }

  /** Rows seen. */
  get rows(): number {
    return this.#w.totalScored;
  }

  /** P@1 over all rows, percent (0 before any row). */
  get p1(): number {
    return this.rows === 0 ? 0 : this.#w.cumulativeP1;
  }

  /** P@1 over the last `window` rows, percent (0 before any row). */
  get windowP1(): number {
    return this.rows === 0 ? 0 : this.#w.precisionAt1;
  }
}

const NO_LABEL = new Int32Array(0);

/**
 * One point of a prequential curve.
 *
 * @example
 * ```ts
 * import type { PrequentialPoint } from "./prequential.ts";
 * const p: PrequentialPoint = { rows: 100, p1: 42, windowP1: 50 };
 * console.log(p.rows); // 100
 * ```
 */
export interface PrequentialPoint {
  rows: number;
  p1: number;
  windowP1: number;
}

/**
 * Options of {@linkcode prequential}.
 *
 * @example
 * ```ts
 * import type { PrequentialOptions } from "./prequential.ts";
 * const o: PrequentialOptions = { window: 500, totalRows: 10000 };
 * console.log(o.window); // 500
 * ```
 */
export interface PrequentialOptions {
  /** Sliding-window size (default 1000). */
  window?: number;
  /** Progress reporter: ticks once per row with `{ "P@1": windowP1 }`. */
  progress?: Progress;
  /** Total rows, for the progress bar's ETA. */
  totalRows?: number;
  /** Record a curve point every this many rows (an integer >= 1; default: once per batch). */
  curveEvery?: number;
}

function rowOf(b: Batch, i: number): SparseVector {
  const a = b.x.indptr[i], e = b.x.indptr[i + 1];
  return { indices: b.x.indices.subarray(a, e), values: b.x.values.subarray(a, e) };
}

/**
 * Streams `batches` through `model` test-then-train: each row of a batch is predicted (top 1)
 * before the model learns the batch. Returns the final P@1 (percent), the number of rows, and a
 * curve of running / windowed P@1.
 *
 * @example
 * ```ts
 * import { prequential } from "./prequential.ts";
 * import { factory } from "../models/knn/mod.ts";
 * const batch = {
 *   x: { numRows: 2, numCols: 1, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 0), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 1, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 0) },
 * };
 * const r = prequential(factory.create({ k: 1 }), [batch, batch]);
 * console.log(r.rows, r.p1); // 4 50 (the first batch is predicted before any learning)
 * ```
 */
export function prequential(
  model: Estimator,
  batches: Iterable<Batch>,
  options: PrequentialOptions = {},
): { p1: number; rows: number; curve: PrequentialPoint[] } {
  const every = options.curveEvery;
  if (every !== undefined && (!Number.isSafeInteger(every) || every < 1)) {
    throw new RangeError(`prequential: curveEvery must be an integer >= 1, got ${every}`);
  }
  const acc = new PrequentialP1(options.window ?? 1000);
  const curve: PrequentialPoint[] = [];
  const progress = options.progress;
  progress?.start(options.totalRows, "prequential");
  let nextPoint = options.curveEvery ?? 0;
  for (const b of batches) {
    const n = b.x.numRows;
    for (let i = 0; i < n; i++) {
      const top = model.predictTopK(rowOf(b, i), 1);
      const labels = b.y.indices.subarray(b.y.indptr[i], b.y.indptr[i + 1]);
      acc.add(top.labels.length > 0 ? top.labels[0] : -1, labels);
      if (options.curveEvery && acc.rows >= nextPoint) {
        curve.push({ rows: acc.rows, p1: acc.p1, windowP1: acc.windowP1 });
        nextPoint += options.curveEvery;
      }
    }
    model.learnMany(b);
    if (!options.curveEvery) curve.push({ rows: acc.rows, p1: acc.p1, windowP1: acc.windowP1 });
    progress?.tick(n, { "P@1": acc.windowP1 });
  }
  progress?.done();
  return { p1: acc.p1, rows: acc.rows, curve };
}
