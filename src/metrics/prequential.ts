/**
 * Prequential ("test-then-train") evaluation of a streaming model: every row is first predicted
 * by the model as it stands, then the model learns from the row's minibatch. Reports P@1 over
 * all rows so far and over a sliding window, in percent (rows with no true label count 0).
 *
 * @module
 */
import type { Batch, SparseVector } from "../data/types.ts";
import type { Estimator } from "../models/estimator.ts";
import type { Progress } from "../cli/progress.ts";
import { containsSorted } from "./relevance.ts";

/**
 * Running P@1 over all rows and over the last `window` rows.
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
  #hits = 0;
  #rows = 0;
  #ring: Uint8Array;
  #windowHits = 0;

  /** @param window sliding-window size in rows (default 1000) */
  constructor(window = 1000) {
    if (!Number.isInteger(window) || window < 1) {
      throw new RangeError(`PrequentialP1: window must be a positive integer, got ${window}`);
    }
    this.window = window;
    this.#ring = new Uint8Array(window);
  }

  /** Records one prediction: the predicted top label (-1 for none) and the true labels. */
  add(top1: number, labels: ArrayLike<number>): void {
    const hit = top1 >= 0 && containsSorted(labels, top1) ? 1 : 0;
    const slot = this.#rows % this.window;
    if (this.#rows >= this.window) this.#windowHits -= this.#ring[slot];
    this.#ring[slot] = hit;
    this.#windowHits += hit;
    this.#hits += hit;
    this.#rows++;
  }

  /** Rows seen. */
  get rows(): number {
    return this.#rows;
  }

  /** P@1 over all rows, percent (0 before any row). */
  get p1(): number {
    return this.#rows === 0 ? 0 : (100 * this.#hits) / this.#rows;
  }

  /** P@1 over the last `window` rows, percent. */
  get windowP1(): number {
    const n = Math.min(this.#rows, this.window);
    return n === 0 ? 0 : (100 * this.#windowHits) / n;
  }
}

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
  /** Record a curve point every this many rows (default: once per batch). */
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
