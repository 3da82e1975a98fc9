/**
 * Prequential (test-then-train) precision over a sliding window of the last scored events, with
 * a serialisable state for checkpoints. P@k follows `src/metrics/precision.ts` (hits among the
 * top k divided by k), in percent.
 *
 * @module
 */
import { containsSorted } from "../metrics/relevance.ts";

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
  size: number;
  next: number;
  filled: number;
  p1: Float32Array;
  p5: Float32Array;
  totalScored: number;
  totalP1: number;
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
  readonly size: number;
  #next = 0;
  #filled = 0;
  readonly #p1: Float32Array;
  readonly #p5: Float32Array;
  #totalScored = 0;
  #totalP1 = 0;
  #totalP5 = 0;

  constructor(size = 1000) {
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`PrequentialWindow: size must be a positive integer, got ${size}`);
    }
    this.size = size;
    this.#p1 = new Float32Array(size);
    this.#p5 = new Float32Array(size);
  }

  /**
   * Records one scored event: `predicted` in decreasing score order, `truth` strictly
   * increasing (an event without true labels scores 0, as in the metrics).
   */
  record(predicted: Int32Array, truth: Int32Array): void {
    let hits = 0, first = 0;
    const k = Math.min(5, predicted.length);
    for (let r = 0; r < k; r++) {
      if (containsSorted(truth, predicted[r])) {
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
    return this.#mean(this.#p5);
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
    return this.#totalScored === 0 ? NaN : (100 * this.#totalP5) / this.#totalScored;
  }

  #mean(a: Float32Array): number {
    if (this.#filled === 0) return NaN;
    let s = 0;
    for (let i = 0; i < this.#filled; i++) s += a[i];
    return (100 * s) / this.#filled;
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
   * Rebuilds a window from {@linkcode PrequentialWindow.toState}.
   *
   * @example
   * ```ts
   * import { PrequentialWindow } from "./prequential.ts";
   * const w = PrequentialWindow.fromState(new PrequentialWindow(2).toState());
   * console.log(w.size); // 2
   * ```
   */
  static fromState(s: PrequentialState): PrequentialWindow {
    const w = new PrequentialWindow(s.size);
    if (s.p1.length !== s.size || s.p5.length !== s.size) {
      throw new RangeError("PrequentialWindow.fromState: buffer lengths do not match the size");
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
