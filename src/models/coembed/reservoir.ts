/**
 * A bounded, seeded reservoir of training rows for the streaming CoEmbed learner: it keeps a
 * uniform sample (Vitter's Algorithm R) of at most `capacity` of the rows seen so far, and hands
 * out a few of them with every new minibatch ("replay"). Replaying old rows next to new ones
 * keeps one pass over a stream whose order drifts (files sorted by label, bursts of one topic)
 * from forgetting what it learned earlier, at a fixed memory cost: it never holds more than
 * `capacity` rows, whatever the length of the stream.
 *
 * @module
 */
import type { Batch } from "../../data/types.ts";
import { SmallRng } from "../leml/rng.ts";

/** One stored row: feature indices and values, positive labels. */
interface StoredRow {
  xi: Int32Array;
  xv: Float32Array;
  y: Int32Array;
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
  #rows: StoredRow[] = [];
  #order = new Int32Array(0);

  /** @param capacity rows kept (0 keeps none); @param seed seed of the sampling. */
  constructor(capacity: number, seed: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`RowReservoir: capacity ${capacity} must be an integer >= 0`);
    }
    this.capacity = capacity;
    this.#rng = new SmallRng(Math.imul(seed | 0, 0x2c1b3c6d) ^ 0x297a2d39);
  }

  /** Rows currently kept. */
  get size(): number {
    return this.#rows.length;
  }

  /** Offers every row of `batch` (copies are kept; the batch is not mutated). */
  addRows(batch: Batch): void {
    const { x, y } = batch;
    for (let i = 0; i < x.numRows; i++) {
      this.seen++;
      let slot = this.#rows.length;
      if (slot >= this.capacity) {
        slot = this.#rng.nextInt(this.seen); // Algorithm R: keep with probability capacity/seen
        if (slot >= this.capacity) continue;
      }
      const row: StoredRow = {
        xi: x.indices.slice(x.indptr[i], x.indptr[i + 1]),
        xv: x.values.slice(x.indptr[i], x.indptr[i + 1]),
        y: y.indices.slice(y.indptr[i], y.indptr[i + 1]),
      };
      if (slot === this.#rows.length) this.#rows.push(row);
      else this.#rows[slot] = row;
    }
  }

  /**
   * Up to `count` distinct kept rows, drawn uniformly, as a batch (`numCols` is the largest index
   * + 1 of the rows drawn).
   */
  sample(count: number): Batch {
    const n = this.#rows.length, m = Math.max(0, Math.min(count, n));
    if (this.#order.length < n) this.#order = new Int32Array(Math.max(n, 2 * this.#order.length));
    const order = this.#order;
    for (let i = 0; i < n; i++) order[i] = i;
    let nx = 0, ny = 0;
    for (let i = 0; i < m; i++) { // partial Fisher–Yates
      const j = i + this.#rng.nextInt(n - i);
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
      nx += this.#rows[order[i]].xi.length;
      ny += this.#rows[order[i]].y.length;
    }
    const xp = new Int32Array(m + 1), yp = new Int32Array(m + 1);
    const xi = new Int32Array(nx), xv = new Float32Array(nx), yi = new Int32Array(ny);
    let D = 0, L = 0;
    for (let i = 0; i < m; i++) {
      const r = this.#rows[order[i]];
      xi.set(r.xi, xp[i]);
      xv.set(r.xv, xp[i]);
      yi.set(r.y, yp[i]);
      xp[i + 1] = xp[i] + r.xi.length;
      yp[i + 1] = yp[i] + r.y.length;
      if (r.xi.length) D = Math.max(D, r.xi[r.xi.length - 1] + 1);
      if (r.y.length) L = Math.max(L, r.y[r.y.length - 1] + 1);
    }
    return {
      x: { numRows: m, numCols: D, indptr: xp, indices: xi, values: xv },
      y: { numRows: m, numCols: L, indptr: yp, indices: yi },
    };
  }

  /** The reservoir's full state: kept rows (CSR) plus the counters, for checkpoints. */
  toState(): {
    scalars: { seen: number; rngState: number };
    tensors: Record<string, Int32Array | Float32Array>;
  } {
    const all = this.#sampleInOrder();
    return {
      scalars: { seen: this.seen, rngState: this.#rng.state },
      tensors: {
        resXIndptr: all.x.indptr,
        resXIndices: all.x.indices,
        resXValues: all.x.values,
        resYIndptr: all.y.indptr,
        resYIndices: all.y.indices,
      },
    };
  }

  /** Every kept row, in slot order. */
  #sampleInOrder(): Batch {
    const rows = this.#rows;
    const xp = new Int32Array(rows.length + 1), yp = new Int32Array(rows.length + 1);
    rows.forEach((r, i) => {
      xp[i + 1] = xp[i] + r.xi.length;
      yp[i + 1] = yp[i] + r.y.length;
    });
    const xi = new Int32Array(xp[rows.length]), xv = new Float32Array(xp[rows.length]);
    const yi = new Int32Array(yp[rows.length]);
    rows.forEach((r, i) => {
      xi.set(r.xi, xp[i]);
      xv.set(r.xv, xp[i]);
      yi.set(r.y, yp[i]);
    });
    return {
      x: { numRows: rows.length, numCols: 0, indptr: xp, indices: xi, values: xv },
      y: { numRows: rows.length, numCols: 0, indptr: yp, indices: yi },
    };
  }

  /**
   * Rebuilds a reservoir from {@linkcode toState} output (rows restored in slot order, so the
   * restored reservoir continues exactly as the original).
   */
  static fromState(
    capacity: number,
    seed: number,
    scalars: Record<string, number>,
    tensors: Record<string, ArrayLike<number> | undefined>,
  ): RowReservoir {
    const r = new RowReservoir(capacity, seed);
    const xp = tensors.resXIndptr, xi = tensors.resXIndices, xv = tensors.resXValues;
    const yp = tensors.resYIndptr, yi = tensors.resYIndices;
    if (!xp || !xi || !xv || !yp || !yi) {
      throw new RangeError("CoEmbed restore: the replay reservoir tensors are missing");
    }
    const n = xp.length - 1;
    if (n > capacity || yp.length !== n + 1 || xp[n] !== xi.length || xi.length !== xv.length) {
      throw new RangeError("CoEmbed restore: the replay reservoir tensors are inconsistent");
    }
    for (let i = 0; i < n; i++) {
      r.#rows.push({
        xi: Int32Array.from({ length: xp[i + 1] - xp[i] }, (_, p) => xi[xp[i] + p]),
        xv: Float32Array.from({ length: xp[i + 1] - xp[i] }, (_, p) => xv[xp[i] + p]),
        y: Int32Array.from({ length: yp[i + 1] - yp[i] }, (_, p) => yi[yp[i] + p]),
      });
    }
    r.seen = scalars.seen ?? n;
    r.#rng.state = (scalars.rngState ?? r.#rng.state) >>> 0;
    return r;
  }
}
