/**
 * The kNN baseline's store: L2-normalised training rows with their labels, and an inverted
 * index (feature → rows) for exact cosine nearest-neighbour search.
 *
 * @module
 */
import type { SparseVector } from "../../data/types.ts";
import { checkCsr, checkRowEntries } from "../../data/batch_check.ts";
import { checkK, checkRow } from "../query_check.ts";
import { FloatList, IntList } from "./growable.ts";

/**
 * Nearest neighbours of a query: rows by decreasing cosine similarity (ties: smaller row index).
 *
 * @example
 * ```ts
 * import type { Neighbours } from "./index.ts";
 * const n: Neighbours = { rows: Int32Array.of(3), sims: Float32Array.of(0.9) };
 * console.log(n.rows[0]); // 3
 * ```
 */
export interface Neighbours {
  readonly rows: Int32Array;
  readonly sims: Float32Array;
}

/**
 * An append-only set of L2-normalised sparse rows with labels, searchable by cosine similarity
 * in O(Σ postings of the query's features + candidates · k).
 *
 * @example
 * ```ts
 * import { CosineIndex } from "./index.ts";
 * const idx = new CosineIndex();
 * idx.add({ indices: Int32Array.of(0), values: Float32Array.of(2) }, Int32Array.of(1));
 * idx.add({ indices: Int32Array.of(1), values: Float32Array.of(1) }, Int32Array.of(0));
 * const n = idx.neighbours({ indices: Int32Array.of(0, 1), values: Float32Array.of(3, 1) }, 2);
 * console.log([...n.rows], n.sims[0].toFixed(3)); // [0, 1] 0.949
 * ```
 */
export class CosineIndex {
  readonly #rowPtr = new IntList();
  readonly #rowIdx = new IntList();
  readonly #rowVal = new FloatList();
  readonly #labelPtr = new IntList();
  readonly #labelIdx = new IntList();
  #postRows: (IntList | undefined)[] = [];
  #postVals: (FloatList | undefined)[] = [];
  // prediction scratch (not model state)
  #acc = new Float64Array(0);
  #stamp = new Int32Array(0);
  #touched = new Int32Array(0);
  #query = 0;

  constructor() {
    this.#rowPtr.push(0);
    this.#labelPtr.push(0);
  }

  /** Number of stored rows. */
  get numRows(): number {
    return this.#rowPtr.length - 1;
  }

  /** Number of stored (row, feature) entries. */
  get nnz(): number {
    return this.#rowIdx.length;
  }

  /**
   * Stores a row (normalised to unit L2 norm; a zero row is stored but never matches) and its
   * positive labels (strictly increasing). Inputs are copied, never mutated.
   *
   * @throws {RangeError} naming the entry when `x` is not a well-formed row (indices
   * non-negative and strictly increasing, finite values) or `labels` are not non-negative and
   * strictly increasing (a NaN value was stored as a NaN similarity that kept better rows out
   * of every later answer)
   */
  add(x: SparseVector, labels: ArrayLike<number>): void {
    checkRow(x, "CosineIndex.add");
    checkRowEntries(labels, undefined, 0, labels.length, () => "CosineIndex.add: labels", "label");
    let sq = 0;
    for (let i = 0; i < x.values.length; i++) sq += x.values[i] * x.values[i];
    const inv = sq > 0 ? 1 / Math.sqrt(sq) : 0;
    const values = new Float32Array(x.values.length);
    for (let i = 0; i < values.length; i++) values[i] = x.values[i] * inv;
    this.#addNormalised(x.indices, values, labels);
  }

  /** The labels of stored row `r` (a view). */
  labelsOf(r: number): Int32Array {
    const p = this.#labelPtr.data;
    return this.#labelIdx.data.subarray(p[r], p[r + 1]);
  }

  /**
   * The (at most) `k` stored rows most cosine-similar to `x` among rows sharing a feature with
   * it; features at or beyond `numFeatures` are ignored (also in the query's norm).
   *
   * @throws {RangeError} naming the entry when `x` is not a well-formed row, or when `k` is not
   * an integer >= 0
   */
  neighbours(x: SparseVector, k: number, numFeatures = Infinity): Neighbours {
    checkRow(x, "CosineIndex.neighbours");
    checkK(k, "CosineIndex.neighbours");
    const n = this.numRows;
    if (this.#acc.length < n) {
      const cap = Math.max(n, 2 * this.#acc.length);
      this.#acc = new Float64Array(cap);
      const stamp = new Int32Array(cap);
      stamp.set(this.#stamp);
      this.#stamp = stamp;
      this.#touched = new Int32Array(cap);
    }
    const acc = this.#acc, stamp = this.#stamp, touched = this.#touched;
    const q = ++this.#query;
    let sq = 0;
    for (let i = 0; i < x.indices.length; i++) {
      if (x.indices[i] < numFeatures) sq += x.values[i] * x.values[i];
    }
    const inv = sq > 0 ? 1 / Math.sqrt(sq) : 0;
    let nt = 0;
    if (inv > 0) {
      for (let i = 0; i < x.indices.length; i++) {
        const j = x.indices[i];
        if (j >= numFeatures) continue;
        const pr = this.#postRows[j];
        if (pr === undefined) continue;
        const rows = pr.data, vals = this.#postVals[j]!.data;
        const xv = x.values[i] * inv;
        for (let p = 0, end = pr.length; p < end; p++) {
          const r = rows[p];
          if (stamp[r] !== q) {
            stamp[r] = q;
            acc[r] = 0;
            touched[nt++] = r;
          }
          acc[r] += xv * vals[p];
        }
      }
    }
    // top-k candidates by (similarity desc, row asc)
    const cap = Math.min(k, nt);
    const outRows = new Int32Array(cap);
    const outSims = new Float64Array(cap);
    let m = 0;
    for (let t = 0; t < nt; t++) {
      const r = touched[t];
      const s = acc[r];
      if (
        m === cap && !(s > outSims[cap - 1] || (s === outSims[cap - 1] && r < outRows[cap - 1]))
      ) {
        continue;
      }
      let pos = m < cap ? m : cap - 1;
      while (
        pos > 0 && (outSims[pos - 1] < s || (outSims[pos - 1] === s && outRows[pos - 1] > r))
      ) {
        outRows[pos] = outRows[pos - 1];
        outSims[pos] = outSims[pos - 1];
        pos--;
      }
      outRows[pos] = r;
      outSims[pos] = s;
      if (m < cap) m++;
    }
    return { rows: outRows, sims: Float32Array.from(outSims) };
  }

  /** Copies of the stored rows and labels (CSR), for checkpoints. */
  toArrays(): {
    rowPtr: Int32Array;
    rowIdx: Int32Array;
    rowVal: Float32Array;
    labelPtr: Int32Array;
    labelIdx: Int32Array;
  } {
    return {
      rowPtr: this.#rowPtr.view().slice(),
      rowIdx: this.#rowIdx.view().slice(),
      rowVal: this.#rowVal.view().slice(),
      labelPtr: this.#labelPtr.view().slice(),
      labelIdx: this.#labelIdx.view().slice(),
    };
  }

  /**
   * Rebuilds an index from {@linkcode CosineIndex.toArrays} (rows are already normalised, so
   * they are stored as they are).
   *
   * @throws {RangeError} naming the part when the arrays do not hold together: row pointers
   * that are not offsets into their entries, indices that are negative or not strictly
   * increasing within a row, or a value that is not finite
   */
  static fromArrays(a: {
    rowPtr: Int32Array;
    rowIdx: Int32Array;
    rowVal: Float32Array;
    labelPtr: Int32Array;
    labelIdx: Int32Array;
  }): CosineIndex {
    const idx = new CosineIndex();
    const n = a.rowPtr.length - 1;
    if (n < 0 || a.labelPtr.length !== n + 1) {
      throw new RangeError(
        `CosineIndex.fromArrays: rowPtr has ${a.rowPtr.length} entries, labelPtr ${a.labelPtr.length}`,
      );
    }
    const where = "CosineIndex.fromArrays", row = (i: number) => `stored row ${i}`;
    checkCsr(a.rowPtr, a.rowIdx, n, 0, "rows", "feature", where, row, a.rowVal);
    checkCsr(a.labelPtr, a.labelIdx, n, 0, "labels", "label", where, row);
    for (let r = 0; r < n; r++) {
      const s = a.rowPtr[r], e = a.rowPtr[r + 1];
      idx.#addNormalised(
        a.rowIdx.subarray(s, e),
        a.rowVal.subarray(s, e),
        a.labelIdx.subarray(a.labelPtr[r], a.labelPtr[r + 1]),
      );
    }
    return idx;
  }

  #addNormalised(
    indices: ArrayLike<number>,
    values: Float32Array,
    labels: ArrayLike<number>,
  ): void {
    const row = this.numRows;
    for (let i = 0; i < indices.length; i++) {
      const j = indices[i], v = values[i];
      this.#rowIdx.push(j);
      this.#rowVal.push(v);
      if (v === 0) continue;
      if (this.#postRows[j] === undefined) {
        while (this.#postRows.length < j) {
          this.#postRows.push(undefined);
          this.#postVals.push(undefined);
        }
        this.#postRows[j] = new IntList(4);
        this.#postVals[j] = new FloatList(4);
      }
      this.#postRows[j]!.push(row);
      this.#postVals[j]!.push(v);
    }
    this.#rowPtr.push(this.#rowIdx.length);
    this.#labelIdx.pushAll(labels);
    this.#labelPtr.push(this.#labelIdx.length);
  }
}
