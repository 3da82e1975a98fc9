/**
 * The checks every trainer model runs on what a caller hands it: the row of `predictTopK`,
 * `predictScores` and `learnOne` is what {@linkcode SparseVector} promises (as many values as
 * indices, indices non-negative and strictly increasing, finite values; {@linkcode checkRow}),
 * and `k` is a count. Feature indices at or beyond the model's feature space are allowed in a
 * query: a model ignores features it has not seen.
 *
 * @module
 */
import type { SparseVector } from "../data/types.ts";
import { checkRowEntries } from "../data/batch_check.ts";

/**
 * The one check of a sparse row a caller hands a model: `predictTopK`/`predictScores` (a query)
 * and `learnOne` (a row to learn). Throws a `TypeError` naming `where` when `x` is not an object
 * (`got null`, `got 5`), a `RangeError` when it has not as many values as indices, and then:
 *
 * - `"query"` (default): a `TypeError` when it has no `indices` or `values`; a `RangeError`
 *   naming the entry at fault unless its indices are non-negative and strictly increasing and
 *   its values finite (any array of numbers is read: a query is only read).
 * - `"learn"`: a `TypeError` unless `indices` is an `Int32Array` and `values` a `Float32Array`
 *   (a learned row is stored as a batch's arrays: `x.indices must be an Int32Array, got
 *   Array`); its entries are left to the model's `learnMany`, which checks them with the same
 *   words (`learnOneVia` of ./learn_one.ts names `learnOne`), so a learned row is not read twice.
 *
 * @example
 * ```ts
 * import { checkRow } from "./query_check.ts";
 * checkRow({ indices: Int32Array.of(0, 7), values: Float32Array.of(1, 0.5) }, "demo"); // fine
 * for (const f of [
 *   () => checkRow({ indices: Int32Array.of(7, 0), values: Float32Array.of(1, 0.5) }, "demo"),
 *   () => checkRow({ indices: [0], values: [1] } as never, "demo.learnOne", "learn"),
 * ]) {
 *   try { f(); } catch (e) { console.log((e as Error).message); }
 * }
 * // demo: x: feature indices are not strictly increasing (0 after 7)
 * // demo.learnOne: x.indices must be an Int32Array, got Array
 * ```
 */
export function checkRow(
  x: SparseVector,
  where: string,
  purpose: "query" | "learn" = "query",
): void {
  if (x === null || typeof x !== "object") {
    throw new TypeError(`${where}: x must be a sparse row { indices, values }, got ${String(x)}`);
  }
  if (purpose === "learn") {
    if (!(x.indices instanceof Int32Array)) {
      notTyped(x.indices, "x.indices", "an Int32Array", where);
    }
    if (!(x.values instanceof Float32Array)) {
      notTyped(x.values, "x.values", "a Float32Array", where);
    }
  } else if (x.indices == null || x.values == null) {
    throw new TypeError(
      `${where}: x must be a sparse row { indices, values }, got an object without indices or values`,
    );
  }
  const { indices, values } = x;
  if (values.length !== indices.length) {
    throw new RangeError(`${where}: x has ${indices.length} indices but ${values.length} values`);
  }
  if (purpose === "query") {
    checkRowEntries(indices, values, 0, indices.length, () => `${where}: x`, "feature");
  }
}

function notTyped(v: unknown, field: string, type: string, where: string): never {
  const got = v === undefined || v === null
    ? String(v)
    : typeof v === "object"
    ? v.constructor?.name ?? "object"
    : typeof v;
  throw new TypeError(`${where}: ${field} must be ${type}, got ${got}`);
}

/**
 * Throws a `RangeError` naming `where` unless `k` is a non-negative integer (a `TypeError` when it
 * is not a number: a string "2" is not read as 2).
 *
 * @example
 * ```ts
 * import { checkK } from "./query_check.ts";
 * checkK(5, "demo"); // fine
 * try {
 *   checkK(1.5, "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // "demo: k must be an integer >= 0, got 1.5"
 * }
 * ```
 */
export function checkK(k: number, where: string): void {
  if (typeof k !== "number") {
    throw new TypeError(
      `${where}: k must be an integer >= 0, got ${
        typeof k === "string" ? JSON.stringify(k) : String(k)
      } (a ${typeof k})`,
    );
  }
  if (!Number.isInteger(k) || k < 0) {
    throw new RangeError(`${where}: k must be an integer >= 0, got ${k}`);
  }
}

/**
 * Throws a `RangeError` naming `where` unless `probes` (a `predictTopK` option: the label index's
 * leaves to probe) is absent (`undefined` or `null`: the index's calibrated count) or an integer
 * in [1, 2³²), as the SDK requires (NaN scanned every label and 2.5 or 0 were clamped, silently).
 *
 * @example
 * ```ts
 * import { checkProbes } from "./query_check.ts";
 * checkProbes(undefined, "demo"); // fine
 * checkProbes(8, "demo"); // fine
 * try {
 *   checkProbes(Number.NaN, "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // "demo: probes must be an integer in [1, 4294967295], got NaN"
 * }
 * ```
 */
export function checkProbes(probes: number | undefined | null, where: string): void {
  if (probes === undefined || probes === null) return;
  if (!(Number.isInteger(probes) && probes >= 1 && probes < 2 ** 32)) {
    throw new RangeError(`${where}: probes must be an integer in [1, 4294967295], got ${probes}`);
  }
}

/**
 * The array `predictScores` writes into: the first `numLabels` entries of `out` when given (a
 * `RangeError` naming `where` when it is shorter), else a new one.
 *
 * @example
 * ```ts
 * import { scoresOut } from "./query_check.ts";
 * console.log(scoresOut(new Float32Array(5), 3, "demo").length); // 3
 * try {
 *   scoresOut(new Float32Array(1), 3, "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // "demo: out has length 1, need 3"
 * }
 * ```
 */
export function scoresOut(
  out: Float32Array | undefined,
  numLabels: number,
  where: string,
): Float32Array {
  if (out === undefined) return new Float32Array(numLabels);
  if (!(out instanceof Float32Array) || out.length < numLabels) {
    throw new RangeError(
      `${where}: out has length ${out?.length}, need ${numLabels}${
        out instanceof Float32Array ? "" : " (a Float32Array)"
      }`,
    );
  }
  return out.length === numLabels ? out : out.subarray(0, numLabels);
}
