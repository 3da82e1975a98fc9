/**
 * Validation of the minibatches streaming LEML learns from: row counts, CSR structure,
 * strictly increasing indices per row, and the feature and label space sizes a batch needs.
 *
 * @module
 */
import type { Batch } from "../../data/types.ts";

/**
 * Validates a batch; returns the feature and label space sizes it needs (the largest index + 1,
 * at least the declared `numCols`).
 *
 * @throws {RangeError} naming the part and the row at fault
 *
 * @example
 * ```ts
 * import { checkBatch } from "./batch_check.ts";
 * console.log(checkBatch({
 *   x: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(4), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 3, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) },
 * })); // [ 5, 3 ]
 * ```
 */
export function checkBatch(batch: Batch): [number, number] {
  const { x, y } = batch;
  const n = x.numRows;
  if (y.numRows !== n) {
    throw new RangeError(`leml.learnMany: x has ${n} rows but y has ${y.numRows}`);
  }
  if (batch.observed && batch.observed.numRows !== n) {
    throw new RangeError(
      `leml.learnMany: observed has ${batch.observed.numRows} rows, x has ${n}`,
    );
  }
  const needD = checkCsr(x.indptr, x.indices, n, x.numCols, "x", "feature");
  const needL = Math.max(
    checkCsr(y.indptr, y.indices, n, y.numCols, "y", "label"),
    batch.observed
      ? checkCsr(
        batch.observed.indptr,
        batch.observed.indices,
        n,
        batch.observed.numCols,
        "observed",
        "label",
      )
      : 0,
  );
  return [needD, needL];
}

/**
 * Validates one CSR part of a batch; returns the space size it needs (max index + 1, numCols).
 *
 * @param what the part's name in errors ("x", "y", "observed")
 * @param entity what its indices are ("feature", "label")
 * @throws {RangeError} for a bad row pointer or indices that do not increase strictly in a row
 *
 * @example
 * ```ts
 * import { checkCsr } from "./batch_check.ts";
 * console.log(checkCsr(Int32Array.of(0, 2), Int32Array.of(1, 6), 1, 3, "x", "feature")); // 7
 * ```
 */
export function checkCsr(
  indptr: Int32Array,
  indices: Int32Array,
  n: number,
  numCols: number,
  what: string,
  entity: string,
): number {
  if (indptr.length !== n + 1 || indptr[0] !== 0 || indptr[n] > indices.length) {
    throw new RangeError(`leml.learnMany: ${what}.indptr is not a valid row pointer for ${n} rows`);
  }
  let need = numCols;
  for (let i = 0; i < n; i++) {
    let prev = -1;
    const p1 = indptr[i + 1];
    if (p1 < indptr[i]) {
      throw new RangeError(`leml.learnMany: ${what}.indptr decreases at row ${i}`);
    }
    for (let p = indptr[i]; p < p1; p++) {
      const j = indices[p];
      if (!(j > prev)) {
        throw new RangeError(
          `leml.learnMany: row ${i} of ${what}: ${entity} indices are not strictly increasing (${j} after ${prev})`,
        );
      }
      prev = j;
    }
    if (prev + 1 > need) need = prev + 1;
  }
  return need;
}
