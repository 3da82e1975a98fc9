/**
 * The minibatch of one example, as every model's `learnOne` hands it to its `learnMany`.
 *
 * @module
 */
import type { Batch, SparseVector } from "./types.ts";

/**
 * A one-row {@linkcode Batch} of `x` and the positive labels `y`, which may come in any order and
 * with repeats (sorted, each kept once). `numCols` of each part is its largest index + 1. The
 * row's features are passed as they are: `learnMany`'s {@linkcode checkBatch} refuses them if
 * they are not strictly increasing, non-negative and finite.
 *
 * @param where the caller, for errors (e.g. `"br.learnOne"`)
 * @throws {TypeError} when `y` is not an array (a bare label number, say)
 * @throws {RangeError} for a label that is not a non-negative integer
 *
 * @example
 * ```ts
 * import { oneRowBatch } from "./one_row_batch.ts";
 * const b = oneRowBatch({ indices: Int32Array.of(2, 9), values: Float32Array.of(1, 1) }, [4, 1, 4], "demo");
 * console.log(b.y.indices, b.y.numCols, b.x.numCols); // Int32Array(2) [ 1, 4 ] 5 10
 * ```
 */
export function oneRowBatch(x: SparseVector, y: ArrayLike<number>, where: string): Batch {
  // a bare number (`learnOne(x, 3)`) has no length: it would be read as no labels at all
  if (
    y === null || typeof y !== "object" || !Number.isSafeInteger((y as { length?: unknown }).length)
  ) {
    throw new TypeError(
      `${where}: y must be an array of label indices, got ${
        y === null ? "null" : typeof y === "object" ? "an object without a length" : typeof y
      }`,
    );
  }
  for (let i = 0; i < y.length; i++) {
    const v: unknown = y[i];
    if (typeof v !== "number") {
      throw new TypeError(
        `${where}: y[${i}] must be a label index (a number), got ${
          typeof v === "string" ? `${JSON.stringify(v)} (a string)` : String(v)
        }`,
      );
    }
    if (!(Number.isInteger(v) && v >= 0 && v <= 0x7fffffff)) {
      throw new RangeError(`${where}: label ${v} is not a non-negative integer`);
    }
  }
  const sorted = Int32Array.from(y).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
  }
  const labels = sorted.slice(0, n);
  let numFeatures = 0;
  for (let p = 0; p < x.indices.length; p++) numFeatures = Math.max(numFeatures, x.indices[p] + 1);
  return {
    x: {
      numRows: 1,
      numCols: numFeatures,
      indptr: Int32Array.of(0, x.indices.length),
      indices: x.indices,
      values: x.values,
    },
    y: {
      numRows: 1,
      numCols: n ? labels[n - 1] + 1 : 0,
      indptr: Int32Array.of(0, n),
      indices: labels,
    },
  };
}
