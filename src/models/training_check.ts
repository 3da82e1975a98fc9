/**
 * The check the batch trainers (`trainLemlBatch`, `trainDcd`/`trainBr`, `trainSleec`) run on
 * their training set before any work: the rows are what a {@linkcode Batch} promises (the
 * minibatch check, {@linkcode checkBatch}) and, since a batch trainer sizes its model by the
 * declared `numCols`, every feature and label index is below them.
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../data/types.ts";
import { checkBatch, checkCsr, firstPast } from "../data/batch_check.ts";

/**
 * Options of {@linkcode checkTrainingSet}.
 *
 * @example
 * ```ts
 * import type { TrainingSetCheck } from "./training_check.ts";
 * const o: TrainingSetCheck = { anyLabelOrder: true };
 * console.log(o.anyLabelOrder); // true
 * ```
 */
export interface TrainingSetCheck {
  /** The observed label entries of a training set with missing labels (checked like `y`). */
  observed?: BinaryCsr;
  /** With `observed`: 1 where a row is fully observed (one entry per row). */
  fullyObserved?: Uint8Array;
  /**
   * The trainer takes a row's labels in any order and repeated (it sorts them itself and checks
   * their range): only `y`'s row pointer is checked.
   */
  anyLabelOrder?: boolean;
}

/**
 * Throws a `RangeError` naming `where`, the part and the row unless `x` and `y` are a
 * well-formed training set whose indices fit `x.numCols` and `y.numCols` (with the observed
 * label entries of a training set with missing labels, when given).
 *
 * @example
 * ```ts
 * import { checkTrainingSet } from "./training_check.ts";
 * const x = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1), values: Float32Array.of(1) };
 * const y = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
 * checkTrainingSet(x, y, "demo"); // fine
 * try {
 *   checkTrainingSet({ ...x, indices: Int32Array.of(5) }, y, "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // "demo: row 0 of x: feature index 5 is out of range [0, 2)"
 * }
 * ```
 */
export function checkTrainingSet(
  x: CsrMatrix,
  y: BinaryCsr,
  where: string,
  options: TrainingSetCheck = {},
): void {
  const { observed, fullyObserved } = options;
  if (options.anyLabelOrder) {
    if (x.numRows !== y.numRows) {
      throw new RangeError(`${where}: x has ${x.numRows} rows but y has ${y.numRows}`);
    }
    const needX = checkCsr(
      x.indptr,
      x.indices,
      x.numRows,
      x.numCols,
      "x",
      "feature",
      where,
      undefined,
      x.values,
    );
    if (needX > x.numCols) outOfRange(x, "x", "feature", x.numCols, where);
    const n = y.numRows, ptr = y.indptr;
    let ok = ptr.length === n + 1 && ptr[0] === 0 && ptr[n] <= y.indices.length;
    for (let i = 0; ok && i < n; i++) ok = ptr[i + 1] >= ptr[i];
    if (!ok) throw new RangeError(`${where}: y.indptr is not a valid row pointer for ${n} rows`);
    return;
  }
  const [needD, needL] = checkBatch({ x, y, observed, fullyObserved }, where);
  if (needD > x.numCols) outOfRange(x, "x", "feature", x.numCols, where);
  if (needL > y.numCols) {
    outOfRange(y, "y", "label", y.numCols, where);
    if (observed) outOfRange(observed, "observed", "label", y.numCols, where);
  }
}

function outOfRange(
  m: CsrMatrix | BinaryCsr,
  part: string,
  entity: string,
  size: number,
  where: string,
): void {
  const past = firstPast(m, size);
  if (past !== undefined) {
    throw new RangeError(
      `${where}: row ${past[0]} of ${part}: ${entity} index ${
        past[1]
      } is out of range [0, ${size})`,
    );
  }
}
