/**
 * The bound that keeps an optimiser's float32 state finite on any finite input: every gradient
 * element is clipped to ±{@linkcode GRADIENT_LIMIT} before it enters a moment, a sum of squares
 * or a step. Ordinary gradients are many orders of magnitude below it, so clipping never
 * changes ordinary training (bit for bit); a row with raw feature values near 1e30 produces
 * gradients near 1e30 and more, whose squares (1e60) do not fit a float32 (3.4e38): stored
 * unclipped, an Adam second moment or an AdaGrad sum became Infinity, then the step
 * Infinity/Infinity = NaN, and the whole model NaN.
 *
 * Where a learner cannot learn such rows correctly even with finite state (the squared loss and
 * SGD on raw, unnormalised values: see src/models/leml/value_limit.ts), it refuses a row with a
 * value past {@linkcode RAW_VALUE_LIMIT} before anything changes ({@linkcode checkRawValues}).
 *
 * @module
 */
import type { Batch } from "../data/types.ts";

/**
 * The largest gradient element an optimiser uses (1e18): its square (1e36) and an AdaGrad sum
 * of a hundred of them fit a float32 (largest finite 3.4e38).
 *
 * @example
 * ```ts
 * import { GRADIENT_LIMIT } from "./limits.ts";
 * console.log(GRADIENT_LIMIT * GRADIENT_LIMIT < 3.4e38); // true
 * ```
 */
export const GRADIENT_LIMIT = 1e18;

/**
 * The largest finite float32 (3.4028234663852886e38): where a float32 sum of squares saturates.
 *
 * @example
 * ```ts
 * import { FLOAT32_MAX } from "./limits.ts";
 * console.log(Math.fround(FLOAT32_MAX) === FLOAT32_MAX, Math.fround(FLOAT32_MAX * 2)); // true Infinity
 * ```
 */
export const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * `g` clipped to [−{@linkcode GRADIENT_LIMIT}, {@linkcode GRADIENT_LIMIT}] (NaN stays NaN).
 *
 * @example
 * ```ts
 * import { clipGradient } from "./limits.ts";
 * console.log(clipGradient(0.5), clipGradient(-1e30) === -1e18, clipGradient(1e300) === 1e18); // 0.5 true true
 * ```
 */
export function clipGradient(g: number): number {
  return g > GRADIENT_LIMIT ? GRADIENT_LIMIT : g < -GRADIENT_LIMIT ? -GRADIENT_LIMIT : g;
}

/**
 * The largest raw (not L2-normalised) feature magnitude, 1e15, that the learners which cannot
 * learn larger ones correctly accept (see {@linkcode checkRawValues}).
 *
 * @example
 * ```ts
 * import { RAW_VALUE_LIMIT } from "./limits.ts";
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
 * import { rawValueRefusal } from "./limits.ts";
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
 * import { checkRawValues } from "./limits.ts";
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
