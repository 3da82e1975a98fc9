/**
 * `learnOne` of every model: the one example as a one-row minibatch for the model's own
 * `learnMany`, with the errors naming what the caller called. A row `learnMany` refuses is
 * refused as `<model>.learnOne: x: …` instead of `<model>.learnMany: row 0 of x: …`: the caller
 * built no batch, so its "row 0" would only mislead.
 *
 * @module
 */
import type { Batch, SparseVector } from "../data/types.ts";
import { oneRowBatch } from "../data/one_row_batch.ts";
import { checkRow } from "./query_check.ts";

/**
 * Learns one example through `model.learnMany`, for a model whose `learnMany` errors begin with
 * `<name>.learnMany: `. Checks first that `x` is a sparse row to learn (`checkRow(x, where,
 * "learn")` of ./query_check.ts, the check of every query too: a `TypeError` for a value that is
 * not an object with an `Int32Array` of indices and a `Float32Array` of values, a `RangeError`
 * when their lengths differ), and `y` as {@linkcode oneRowBatch} does. An error of `learnMany`
 * is re-thrown, the same object, with its message naming `<name>.learnOne` instead and without
 * the batch's row ("row 0 of x: …" becomes "x: …", "cannot learn row 0 of the batch" becomes
 * "cannot learn the row"); an error worded otherwise passes unchanged. An example that is
 * learned costs three O(1) checks more than the one-row batch did; messages are only reworded
 * on refusal.
 *
 * @param name the model's name in its `learnMany` errors (e.g. `"br"`)
 *
 * @example
 * ```ts
 * import { learnOneVia } from "./learn_one.ts";
 * import { checkBatch } from "../data/batch_check.ts";
 * const model = { learnMany: (b: Parameters<typeof checkBatch>[0]) => void checkBatch(b, "toy.learnMany") };
 * try {
 *   learnOneVia(model, { indices: Int32Array.of(3, 1), values: Float32Array.of(1, 1) }, [0], "toy");
 * } catch (e) {
 *   console.log((e as Error).message); // toy.learnOne: x: feature indices are not strictly increasing (1 after 3)
 * }
 * ```
 */
export function learnOneVia(
  model: { learnMany(batch: Batch): void },
  x: SparseVector,
  y: ArrayLike<number>,
  name: string,
): void {
  const where = `${name}.learnOne`;
  checkRow(x, where, "learn");
  const batch = oneRowBatch(x, y, where);
  try {
    model.learnMany(batch);
  } catch (e) {
    throw renamed(e, `${name}.learnMany: `, `${where}: `);
  }
}

/** `e` with its message (and stack) worded for `learnOne` when it begins with `from`. */
function renamed(e: unknown, from: string, to: string): unknown {
  if (!(e instanceof Error) || !e.message.startsWith(from)) return e;
  const old = e.message;
  let rest = old.slice(from.length);
  if (rest.startsWith("row 0 of ")) rest = rest.slice("row 0 of ".length);
  else if (rest.startsWith("cannot learn row 0 of the batch: ")) {
    rest = `cannot learn the row: ${rest.slice("cannot learn row 0 of the batch: ".length)}`;
  }
  e.message = to + rest;
  // the stack's first line is its message when it was formatted before (V8 formats it lazily)
  if (typeof e.stack === "string") e.stack = e.stack.replace(old, e.message);
  return e;
}
