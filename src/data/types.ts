/**
 * The sparse data contracts every part of Tagstream shares: sparse rows, CSR matrices, label
 * matrices, minibatches, streamed examples and in-memory datasets. All index arrays are
 * `Int32Array`, all values `Float32Array`; indices inside a row are strictly increasing.
 *
 * @module
 */

/**
 * One sparse row: column indices (strictly increasing) and their values.
 *
 * @example
 * ```ts
 * import type { SparseVector } from "./types.ts";
 * const x: SparseVector = { indices: Int32Array.of(0, 7), values: Float32Array.of(1, 0.5) };
 * console.log(x.indices.length); // 2
 * ```
 */
export interface SparseVector {
  /** Column indices, strictly increasing. */
  readonly indices: Int32Array;
  /** The value of each listed column. */
  readonly values: Float32Array;
}

/**
 * A real-valued sparse matrix in compressed sparse row form: row `i` holds entries
 * `indptr[i] .. indptr[i + 1]` of `indices`/`values`.
 *
 * @example
 * ```ts
 * import type { CsrMatrix } from "./types.ts";
 * const m: CsrMatrix = {
 *   numRows: 2, numCols: 3,
 *   indptr: Int32Array.of(0, 1, 3), indices: Int32Array.of(2, 0, 1), values: Float32Array.of(1, 2, 3),
 * };
 * console.log(m.indptr[m.numRows]); // 3
 * ```
 */
export interface CsrMatrix {
  /** Number of rows. */
  readonly numRows: number;
  /** Number of columns (every index is below it). */
  readonly numCols: number;
  /** Row pointers, length `numRows + 1`, starting at 0. */
  readonly indptr: Int32Array;
  /** Column indices of the stored entries, row by row. */
  readonly indices: Int32Array;
  /** Values of the stored entries. */
  readonly values: Float32Array;
}

/**
 * A 0/1 sparse matrix in CSR form (the stored entries are the ones): positive labels per row, or
 * an observed-entry mask.
 *
 * @example
 * ```ts
 * import type { BinaryCsr } from "./types.ts";
 * const y: BinaryCsr = { numRows: 2, numCols: 4, indptr: Int32Array.of(0, 0, 2), indices: Int32Array.of(1, 3) };
 * console.log(y.indptr[2] - y.indptr[1]); // 2
 * ```
 */
export interface BinaryCsr {
  /** Number of rows. */
  readonly numRows: number;
  /** Number of columns (labels). */
  readonly numCols: number;
  /** Row pointers, length `numRows + 1`, starting at 0. */
  readonly indptr: Int32Array;
  /** Column indices of the ones, row by row, strictly increasing within a row. */
  readonly indices: Int32Array;
}

/**
 * A minibatch: features `x`, positive labels `y` and, for partially observed labels, the
 * observed entries of each row (`observed`, always containing the row's positives) with
 * `fullyObserved[i] = 1` for rows whose labels are all known (their `observed` row is empty).
 * Without `observed` every entry is observed: labels not in `y` are negatives.
 *
 * @example
 * ```ts
 * import type { Batch } from "./types.ts";
 * const b: Batch = {
 *   x: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 3, indptr: Int32Array.of(0, 1), indices: Int32Array.of(2) },
 * };
 * console.log(b.observed === undefined); // true
 * ```
 */
export interface Batch {
  /** Features, one row per example. */
  readonly x: CsrMatrix;
  /** Positive labels, one row per example. */
  readonly y: BinaryCsr;
  /** Observed label entries per row (positives included); absent: every entry is observed. */
  readonly observed?: BinaryCsr;
  /** With `observed`: 1 for rows whose labels are all known. */
  readonly fullyObserved?: Uint8Array;
  /** Event ids of the rows, when the source carries them (for logs and dead-letter lists). */
  readonly ids?: readonly (string | undefined)[];
}

/**
 * One streamed example, as the readers produce it (feature and label names already mapped to
 * indices). `negatives` lists labels known to be absent; when it is given the row's labels are
 * only partially observed (observed = labels ∪ negatives).
 *
 * @example
 * ```ts
 * import type { Example } from "./types.ts";
 * const e: Example = {
 *   id: "doc-1",
 *   x: { indices: Int32Array.of(3), values: Float32Array.of(1) },
 *   labels: Int32Array.of(0, 4),
 * };
 * console.log(e.labels.length); // 2
 * ```
 */
export interface Example {
  /** Event id, when the source carries one. */
  readonly id?: string;
  /** Features, indices strictly increasing. */
  readonly x: SparseVector;
  /** Positive labels, strictly increasing. */
  readonly labels: Int32Array;
  /** Labels known to be absent, strictly increasing. */
  readonly negatives?: Int32Array;
  /** 1-based line number in its source, for error messages. */
  readonly line?: number;
}

/**
 * A dataset held in memory: features as CSR, positive labels as binary CSR.
 *
 * @example
 * ```ts
 * import type { Dataset } from "./types.ts";
 * const ds: Dataset = {
 *   name: "tiny", numFeatures: 2, numLabels: 1,
 *   x: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) },
 * };
 * console.log(ds.x.numRows); // 1
 * ```
 */
export interface Dataset {
  /** Name (file base name without `.txt`/`.gz` for `loadXcFile`; the dataset name for
   * `loadDataset`). */
  name: string;
  /** Feature-space size (D). */
  numFeatures: number;
  /** Label-space size (L). */
  numLabels: number;
  /** Features, `numRows x numFeatures`. */
  x: CsrMatrix;
  /** Positive labels, `numRows x numLabels`. */
  y: BinaryCsr;
}
