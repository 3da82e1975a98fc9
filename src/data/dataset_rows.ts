/**
 * Row access to in-memory datasets without copying: one row's features or labels, a range of
 * rows as a minibatch, and consecutive minibatches.
 *
 * @module
 */
import type { Batch, BinaryCsr, CsrMatrix, Dataset, SparseVector } from "./types.ts";
import { numberOption, shown } from "./option_check.ts";

/** Throws unless `i` is a row of a matrix of `n` rows: a TypeError for a non-number, else a RangeError. */
function checkRow(where: string, i: unknown, n: number): void {
  if (typeof i !== "number") {
    throw new TypeError(`${where}: row must be an integer in [0, ${n}), got ${shown(i)}`);
  }
  // (a fraction read indptr[0.5], undefined: the whole matrix)
  if (!(Number.isInteger(i) && i >= 0 && i < n)) {
    throw new RangeError(`${where}: row ${i} is out of range [0, ${n})`);
  }
}

/**
 * Row `i` of a CSR matrix as a {@link SparseVector} of subarray views (no copy). A row that is not
 * an integer in [0, numRows) is a RangeError (a TypeError for a non-number).
 *
 * @example
 * ```ts
 * import { rowView } from "./dataset_rows.ts";
 * const m = { numRows: 2, numCols: 3, indptr: Int32Array.of(0, 1, 3), indices: Int32Array.of(0, 1, 2), values: Float32Array.of(1, 2, 3) };
 * console.log([...rowView(m, 1).values]); // [ 2, 3 ]
 * ```
 */
export function rowView(m: CsrMatrix, i: number): SparseVector {
  checkRow("rowView", i, m.numRows);
  const a = m.indptr[i], b = m.indptr[i + 1];
  return { indices: m.indices.subarray(a, b), values: m.values.subarray(a, b) };
}

/**
 * The label indices of row `i` (a subarray view, no copy). A row that is not an integer in
 * [0, numRows) is a RangeError (a TypeError for a non-number).
 *
 * @example
 * ```ts
 * import { labelsOf } from "./dataset_rows.ts";
 * const y = { numRows: 2, numCols: 4, indptr: Int32Array.of(0, 0, 2), indices: Int32Array.of(1, 3) };
 * console.log([...labelsOf(y, 1)]); // [ 1, 3 ]
 * ```
 */
export function labelsOf(y: BinaryCsr, i: number): Int32Array {
  checkRow("labelsOf", i, y.numRows);
  return y.indices.subarray(y.indptr[i], y.indptr[i + 1]);
}

/**
 * Rows `[from, to)` of CSR features and labels as a minibatch: index and value arrays are views
 * into the inputs (no copy); only `indptr` is new (rebased to 0). No `observed` mask.
 *
 * @throws {RangeError} unless `0 <= from <= to <= rows`
 *
 * @example
 * ```ts
 * import { rowsOf } from "./dataset_rows.ts";
 * import { loadXcBytes } from "./dataset_load.ts";
 * const ds = loadXcBytes(new TextEncoder().encode("3 2 1\n0 0:1\n0 1:1\n0 0:1 1:1\n"), "t");
 * const b = rowsOf(ds, 1, 3);
 * console.log(b.x.numRows, [...b.x.indptr], [...b.x.indices]); // 2 [ 0, 1, 3 ] [ 1, 0, 1 ]
 * ```
 */
export function rowsOf(data: { x: CsrMatrix; y: BinaryCsr }, from: number, to: number): Batch {
  const n = data.x.numRows;
  if (!(Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from <= to && to <= n)) {
    throw new RangeError(`rowsOf: rows [${from}, ${to}) are not within [0, ${n})`);
  }
  const rebase = (ptr: Int32Array): Int32Array => {
    const out = new Int32Array(to - from + 1);
    const o = ptr[from];
    for (let i = from; i <= to; i++) out[i - from] = ptr[i] - o;
    return out;
  };
  const x = data.x, y = data.y;
  const xa = x.indptr[from], xb = x.indptr[to];
  const ya = y.indptr[from], yb = y.indptr[to];
  return {
    x: {
      numRows: to - from,
      numCols: x.numCols,
      indptr: rebase(x.indptr),
      indices: x.indices.subarray(xa, xb),
      values: x.values.subarray(xa, xb),
    },
    y: {
      numRows: to - from,
      numCols: y.numCols,
      indptr: rebase(y.indptr),
      indices: y.indices.subarray(ya, yb),
    },
  };
}

/**
 * Consecutive minibatches of `batchSize` rows in row order (the last one may be smaller), as
 * {@linkcode rowsOf} gives them (views; fully observed). Checked when called, not at the first
 * batch.
 *
 * @throws {TypeError} when `ds` has no CSR `x` and `y` or `batchSize` is not a number
 * @throws {RangeError} for a `batchSize` that is not an integer in [1, 2^31 − 1]
 *
 * @example
 * ```ts
 * import { batchesOf } from "./dataset_rows.ts";
 * import { loadXcBytes } from "./dataset_load.ts";
 * const ds = loadXcBytes(new TextEncoder().encode("3 2 1\n0 0:1\n0 1:1\n0 0:1 1:1\n"), "t");
 * console.log([...batchesOf(ds, 2)].map((b) => b.x.numRows)); // [ 2, 1 ]
 * ```
 */
export function batchesOf(ds: Dataset, batchSize: number): IterableIterator<Batch> {
  const where = "batchesOf";
  if (typeof ds?.x?.numRows !== "number" || typeof ds?.y?.numRows !== "number") {
    throw new TypeError(
      `${where}: expected a dataset with CSR x and y, got ${ds === null ? "null" : typeof ds}`,
    );
  }
  if (batchSize === undefined) throw new TypeError(`${where}: batchSize is required`);
  const size = numberOption(where, "batchSize", batchSize, 1, 1, 2 ** 31 - 1, true);
  const n = ds.x.numRows;
  return (function* () {
    for (let s = 0; s < n; s += size) yield rowsOf(ds, s, Math.min(n, s + size));
  })();
}
