/**
 * The raw feature values a learner that cannot learn huge ones accepts: at most
 * {@linkcode RAW_VALUE_LIMIT} in magnitude. The squared loss and SGD on raw (not L2-normalised)
 * values are such learners (../optim/limits.ts keeps every optimiser's state finite, but their
 * scores need weights near 1/value, or diverge); they refuse a row past the limit before
 * anything changes ({@linkcode checkRawValues}), and say so for one row
 * ({@linkcode rawValueRefusal}, behind `Estimator.learnRefusal`).
 *
 * @module
 */
import type { Batch } from "../data/types.ts";

/**
 * The largest raw (not L2-normalised) feature magnitude, 1e15, that the learners which cannot
 * learn larger ones correctly accept (see {@linkcode checkRawValues}).
 *
 * @example
 * ```ts
 * import { RAW_VALUE_LIMIT } from "./raw_value_limit.ts";
 * console.log(RAW_VALUE_LIMIT.toExponential()); // 1e+15
 * ```
 */
export const RAW_VALUE_LIMIT = 1e15;

/**
 * Why a row with features `x` cannot be learned when `reason` is set (what cannot learn large
 * raw values, for the message): the first feature whose value's magnitude exceeds
 * {@linkcode RAW_VALUE_LIMIT}, its value and the limit; undefined when `reason` is undefined or
 * every value is within the limit. Reads `x` only.
 *
 * @example
 * ```ts
 * import { rawValueRefusal } from "./raw_value_limit.ts";
 * const x = { indices: Int32Array.of(0, 7), values: Float32Array.of(1, -1e30) };
 * console.log(rawValueRefusal(x, undefined), rawValueRefusal(x, "SGD")?.slice(0, 58)); // undefined feature 7 has value -1e+30, above the limit 1e+15 for
 * ```
 */
export function rawValueRefusal(
  x: { indices: ArrayLike<number>; values: ArrayLike<number> },
  reason: string | undefined,
): string | undefined {
  if (reason === undefined) return undefined;
  const { indices, values } = x, lim = RAW_VALUE_LIMIT;
  for (let p = 0; p < values.length; p++) {
    const a = values[p];
    if (a <= lim && a >= -lim) continue;
    const shown = Number(a.toPrecision(7)).toExponential(); // float32: 7 significant digits
    return `feature ${indices[p]} has value ${shown}, above the limit ${lim.toExponential()} ` +
      `for raw feature values of ${reason} (rows are learned as given: set l2Normalize: true, ` +
      `or scale the features)`;
  }
  return undefined;
}

/**
 * When `reason` is set (what cannot learn larger values, for the message), throws a
 * `RangeError` naming the first row of the batch (its index, and its event when the batch has
 * ids) with a value whose magnitude exceeds {@linkcode RAW_VALUE_LIMIT}, as
 * {@linkcode rawValueRefusal} words it; reads the batch only. Learners call it with their batch
 * check, before anything changes.
 *
 * @example
 * ```ts
 * import { checkRawValues } from "./raw_value_limit.ts";
 * const batch = {
 *   x: { numRows: 2, numCols: 3, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 2), values: Float32Array.of(1, 1e30) },
 *   y: { numRows: 2, numCols: 1, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 0) },
 * };
 * checkRawValues(batch, "demo", undefined); // no limit: nothing to check
 * try {
 *   checkRawValues(batch, "demo", "SGD");
 * } catch (e) {
 *   console.log((e as Error).message.slice(0, 86)); // demo: cannot learn row 1 of the batch: feature 2 has value 1e+30, above the limit 1e+15
 * }
 * ```
 */
export function checkRawValues(batch: Batch, where: string, reason: string | undefined): void {
  if (reason === undefined) return;
  const { x, ids } = batch, v = x.values, lim = RAW_VALUE_LIMIT;
  const end = x.indptr[x.numRows];
  for (let p = 0; p < end; p++) {
    const a = v[p];
    if (a <= lim && a >= -lim) continue;
    let i = 0;
    while (x.indptr[i + 1] <= p) i++;
    const event = ids?.[i] === undefined ? "" : ` (event ${ids[i]})`;
    const why = rawValueRefusal({
      indices: x.indices.subarray(p, p + 1),
      values: v.subarray(p, p + 1),
    }, reason);
    throw new RangeError(
      `${where}: cannot learn row ${i}${event} of the batch: ${why}; nothing was learned`,
    );
  }
}
