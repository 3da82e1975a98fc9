/**
 * The check every model's `learnMany` runs before it changes anything: the minibatch is what
 * {@linkcode Batch} promises (row counts that agree, row pointers that fit, indices strictly
 * increasing and non-negative within a row, finite feature values). A batch that is not is
 * refused whole, with the part, the row (and its event id, when the batch carries ids) and the
 * entry at fault, so a model never learns half a batch or a NaN.
 *
 * @module
 */
import type { Batch } from "./types.ts";

/**
 * Validates a batch for `where` (e.g. `"br.learnMany"`); returns the feature and label space
 * sizes it needs: the largest index + 1, at least the declared `numCols` of `x` and of `y` (and
 * `observed`).
 *
 * @throws {TypeError} when `batch` is not an object holding `x` and `y`
 * @throws {RangeError} naming the part, the row and the entry at fault
 *
 * @example
 * ```ts
 * import { checkBatch } from "./batch_check.ts";
 * const x = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(4), values: Float32Array.of(1) };
 * const y = { numRows: 1, numCols: 3, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) };
 * console.log(checkBatch({ x, y }, "demo")); // [ 5, 3 ]
 * try {
 *   checkBatch({ x: { ...x, values: Float32Array.of(NaN) }, y }, "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // "demo: row 0 of x: non-finite value at feature 4 (NaN)"
 * }
 * ```
 */
export function checkBatch(batch: Batch, where: string, limits?: SpaceLimits): [number, number] {
  if (batch === null || typeof batch !== "object" || !isObject(batch.x) || !isObject(batch.y)) {
    throw new TypeError(
      `${where}: the batch must be an object { x, y } of two CSR matrices, got ${
        batch === null || typeof batch !== "object" ? String(batch) : "an object without x or y"
      }`,
    );
  }
  const { x, y, observed, fullyObserved, ids } = batch;
  const n = x.numRows;
  if (!(Number.isInteger(n) && n >= 0)) {
    throw new RangeError(`${where}: x.numRows must be a non-negative integer, got ${n}`);
  }
  if (y.numRows !== n) throw new RangeError(`${where}: x has ${n} rows but y has ${y.numRows}`);
  if (observed && observed.numRows !== n) {
    throw new RangeError(`${where}: observed has ${observed.numRows} rows, x has ${n}`);
  }
  if (fullyObserved && fullyObserved.length !== n) {
    throw new RangeError(
      `${where}: fullyObserved has ${fullyObserved.length} entries, x has ${n} rows`,
    );
  }
  const row = (i: number) => ids?.[i] === undefined ? `row ${i}` : `row ${i} (event ${ids[i]})`;
  const needD = checkCsr(x.indptr, x.indices, n, x.numCols, "x", "feature", where, row, x.values);
  let needL = checkCsr(y.indptr, y.indices, n, y.numCols, "y", "label", where, row);
  if (observed) {
    const o = checkCsr(
      observed.indptr,
      observed.indices,
      n,
      observed.numCols,
      "observed",
      "label",
      where,
      row,
    );
    if (o > needL) needL = o;
  }
  if (limits !== undefined) {
    const { maxFeatures, maxLabels } = limits;
    if (needD > maxFeatures) pastLimit(x, "x", "feature", maxFeatures, "maxFeatures", where, row);
    if (needL > maxLabels) {
      pastLimit(y, "y", "label", maxLabels, "maxLabels", where, row);
      if (observed) pastLimit(observed, "observed", "label", maxLabels, "maxLabels", where, row);
    }
  }
  return [needD, needL];
}

/**
 * The largest feature and label spaces a model may grow to (its `maxFeatures` and `maxLabels`
 * settings): {@linkcode checkBatch} refuses a batch that needs more.
 *
 * @example
 * ```ts
 * import type { SpaceLimits } from "./batch_check.ts";
 * const l: SpaceLimits = { maxFeatures: 1 << 24, maxLabels: 1 << 21 };
 * console.log(l.maxLabels); // 2097152
 * ```
 */
export interface SpaceLimits {
  /** Feature indices must be below it (and x.numCols at most it). */
  readonly maxFeatures: number;
  /** Label indices must be below it (and y.numCols at most it). */
  readonly maxLabels: number;
}

/**
 * The first entry of `m` at or past `size`, as [row, index], or undefined when there is none.
 *
 * @example
 * ```ts
 * import { firstPast } from "./batch_check.ts";
 * const y = { numRows: 2, indptr: Int32Array.of(0, 1, 3), indices: Int32Array.of(0, 1, 7) };
 * console.log(firstPast(y, 5)); // [ 1, 7 ]
 * ```
 */
export function firstPast(
  m: { readonly numRows: number; readonly indptr: Int32Array; readonly indices: Int32Array },
  size: number,
): [number, number] | undefined {
  for (let i = 0; i < m.numRows; i++) {
    for (let p = m.indptr[i]; p < m.indptr[i + 1]; p++) {
      if (m.indices[p] >= size) return [i, m.indices[p]];
    }
  }
  return undefined;
}

// Throws for a batch part that needs more than the model's limit `setting`: names its first index
// past the limit, else its declared width.
function pastLimit(
  m: {
    readonly numRows: number;
    readonly numCols: number;
    indptr: Int32Array;
    indices: Int32Array;
  },
  what: string,
  entity: string,
  limit: number,
  setting: string,
  where: string,
  row: (i: number) => string,
): void {
  const past = firstPast(m, limit);
  const above = `above the model's ${setting} ${limit}`;
  if (past !== undefined) {
    throw new RangeError(
      `${where}: ${row(past[0])} of ${what}: ${entity} index ${
        past[1]
      } is out of range [0, ${limit}): ${above}`,
    );
  }
  if (m.numCols > limit) {
    throw new RangeError(`${where}: ${what} declares ${m.numCols} ${entity}s: ${above}`);
  }
}

/**
 * Validates one CSR part of a batch: a row pointer of `n + 1` non-decreasing entries from 0
 * within `indices`, and within each row non-negative integer indices in strictly increasing
 * order ({@linkcode checkRowEntries}), with finite `values` when they are given. Returns the
 * space size it needs: the largest index + 1, at least `numCols`.
 *
 * @param what the part's name in errors ("x", "y", "observed")
 * @param entity what its indices are ("feature", "label")
 * @param row how errors name row i (default `row i`)
 * @param values the part's values (x), checked finite
 * @throws {RangeError} for a bad row pointer, too few values, indices that are negative or do
 * not increase, or a value that is not finite
 *
 * @example
 * ```ts
 * import { checkCsr } from "./batch_check.ts";
 * console.log(checkCsr(Int32Array.of(0, 2), Int32Array.of(1, 6), 1, 3, "x", "feature", "demo")); // 7
 * ```
 */
export function checkCsr(
  indptr: Int32Array,
  indices: Int32Array,
  n: number,
  numCols: number,
  what: string,
  entity: string,
  where: string,
  row: (i: number) => string = (i) => `row ${i}`,
  values?: ArrayLike<number>,
): number {
  if (indptr.length !== n + 1 || indptr[0] !== 0 || indptr[n] > indices.length) {
    throw new RangeError(`${where}: ${what}.indptr is not a valid row pointer for ${n} rows`);
  }
  if (values && values.length < indptr[n]) {
    throw new RangeError(`${where}: ${what} has ${indptr[n]} entries but ${values.length} values`);
  }
  let need = numCols;
  for (let i = 0; i < n; i++) {
    const p1 = indptr[i + 1];
    if (p1 < indptr[i]) throw new RangeError(`${where}: ${what}.indptr decreases at ${row(i)}`);
    const at = () => `${where}: ${row(i)} of ${what}`; // built only for an error
    const last = checkRowEntries(indices, values, indptr[i], p1, at, entity);
    if (last + 1 > need) need = last + 1;
  }
  return need;
}

/**
 * Checks the entries `[p0, p1)` of one sparse row: indices non-negative and strictly
 * increasing, and `values` (when given) finite; errors begin with `at()`. Returns the last index
 * (−1 for an empty row). The one entry check of batches ({@linkcode checkCsr}) and of the
 * models' queries (`checkRow`, src/models/query_check.ts).
 *
 * @throws {RangeError} naming `at`, the index and, for a value, the feature
 *
 * @example
 * ```ts
 * import { checkRowEntries } from "./batch_check.ts";
 * console.log(checkRowEntries(Int32Array.of(2, 5), Float32Array.of(1, 1), 0, 2, () => "demo", "feature")); // 5
 * try {
 *   checkRowEntries(Int32Array.of(2, 5), Float32Array.of(1, NaN), 0, 2, () => "demo", "feature");
 * } catch (e) {
 *   console.log((e as Error).message); // "demo: non-finite value at feature 5 (NaN)"
 * }
 * ```
 */
export function checkRowEntries(
  indices: ArrayLike<number>,
  values: ArrayLike<number> | undefined,
  p0: number,
  p1: number,
  at: () => string,
  entity: string,
): number {
  let prev = -1;
  for (let p = p0; p < p1; p++) {
    const j = indices[p];
    if (j < 0) throw new RangeError(`${at()}: ${entity} index ${j} is negative`);
    if (!(j > prev)) {
      throw new RangeError(
        `${at()}: ${entity} indices are not strictly increasing (${j} after ${prev})`,
      );
    }
    if (values && !Number.isFinite(values[p])) {
      throw new RangeError(`${at()}: non-finite value at ${entity} ${j} (${values[p]})`);
    }
    prev = j;
  }
  return prev;
}

const isObject = (v: unknown): boolean => v !== null && typeof v === "object";
