/**
 * The value rules a model checks a state against before it restores it (a full state, a
 * replica state, or a delta): one function per rule, so a full restore and a delta refuse the
 * same values with the same words. A corrupted or hostile state (a NaN weight, a negative
 * AdaGrad sum, a fractional count, a generator state past 32 bits, a replay row with a feature
 * past the model's) is refused with a `RangeError` naming `where`, the field and the entry, and
 * nothing of it is applied; a value of the wrong type (a state of another kind, a missing scalar,
 * a tensor missing or of the wrong array class) is a `TypeError`.
 *
 * Every check is one pass over its array, run once per restore or delta, never per prediction.
 *
 * @module
 */
import { checkRowEntries } from "../data/batch_check.ts";
import { shown } from "../data/option_check.ts";

/**
 * A class of typed arrays (`Float32Array`, `Int32Array`, ...), as {@linkcode requireTensor}
 * takes it.
 *
 * @example
 * ```ts
 * import type { ArrayClass } from "./state_check.ts";
 * const c: ArrayClass<Float64Array> = Float64Array;
 * console.log(c.name); // Float64Array
 * ```
 */
export type ArrayClass<T> = { new (length: number): T; readonly name: string };

/**
 * The kind of a state (or of a delta) a model restores: `state.kind` must be `kind`. A missing
 * state (null, undefined) is refused the same way, not with a bare property error.
 *
 * @throws {TypeError} `<where>: state kind is "x", not "<kind>"`
 *
 * @example
 * ```ts
 * import { checkStateKind } from "./state_check.ts";
 * checkStateKind({ kind: "br" }, "br", "br.restore"); // fine
 * try {
 *   checkStateKind({ kind: "ova" }, "br", "br.restore");
 * } catch (e) {
 *   console.log((e as Error).message); // br.restore: state kind is "ova", not "br"
 * }
 * ```
 */
export function checkStateKind(state: unknown, kind: string, where: string): void {
  const got = (state as { kind?: unknown } | null | undefined)?.kind;
  if (got !== kind) throw new TypeError(`${where}: state kind is ${shown(got)}, not "${kind}"`);
}

/**
 * The tensor `name` of a state: an instance of `type` (of `length` entries when given). Returns
 * it. `tensors` may be missing (a state without tensors): the first tensor asked for is then
 * refused as missing. Every model's restore asks for its tensors with it, so that the same damage
 * gets the same words in every model.
 *
 * @param lengthOf where `length` comes from, shown after it (e.g. "[numLabels, rank] = 3 × 8")
 * @throws {TypeError} `<where>: tensor <name> must be a <type>[ of length n[ (lengthOf)]], got
 * <what>` when it is missing or of another class
 * @throws {RangeError} `<where>: tensor <name> must be a <type> of length n[ (lengthOf)], got
 * length m`
 *
 * @example
 * ```ts
 * import { requireTensor } from "./state_check.ts";
 * const t = { w: Float32Array.of(1, 2), n: Float64Array.of(3) };
 * console.log(requireTensor(t, "w", Float32Array, "demo", 2).length); // 2
 * for (const f of [() => requireTensor(t, "n", Float32Array, "demo"), () => requireTensor(t, "w", Float32Array, "demo", 3)]) {
 *   try { f(); } catch (e) { console.log((e as Error).message); }
 * }
 * // demo: tensor n must be a Float32Array, got Float64Array
 * // demo: tensor w must be a Float32Array of length 3, got length 2
 * ```
 */
export function requireTensor<T extends ArrayLike<number>>(
  tensors: Readonly<Record<string, unknown>> | undefined,
  name: string,
  type: ArrayClass<T>,
  where: string,
  length?: number,
  lengthOf?: string,
): T {
  const a = tensors?.[name];
  const want = `${where}: tensor ${name} must be a ${type.name}${
    length === undefined ? "" : ` of length ${length}${lengthOf ? ` (${lengthOf})` : ""}`
  }`;
  if (!(a instanceof type)) {
    const got = a === undefined || a === null
      ? "none"
      : typeof a === "object"
      ? (a.constructor?.name ?? "an object")
      : typeof a;
    throw new TypeError(`${want}, got ${got}`);
  }
  if (length !== undefined && a.length !== length) {
    throw new RangeError(`${want}, got length ${a.length}`);
  }
  return a;
}

/** Throws a RangeError at the first entry of `a` that `ok` refuses. */
function each(
  a: ArrayLike<number>,
  field: string,
  where: string,
  ok: (v: number) => boolean,
  what: string,
): void {
  for (let i = 0; i < a.length; i++) {
    if (!ok(a[i])) throw new RangeError(`${where}: ${field}[${i}] = ${a[i]} ${what}`);
  }
}

/**
 * Weights, biases, factors, moments: every entry finite (no NaN, no ±Infinity).
 *
 * @throws {RangeError} `<where>: <field>[i] = NaN is not finite`
 *
 * @example
 * ```ts
 * import { checkFinite } from "./state_check.ts";
 * try {
 *   checkFinite(Float32Array.of(1, NaN), "weights", "ova.restore");
 * } catch (e) {
 *   console.log((e as Error).message); // ova.restore: weights[1] = NaN is not finite
 * }
 * ```
 */
export function checkFinite(a: ArrayLike<number>, field: string, where: string): void {
  each(a, field, where, Number.isFinite, "is not finite");
}

/**
 * Indices (features, labels): every entry in `[0, size)`.
 *
 * @throws {RangeError} `<where>: <field>[i] = v is out of range [0, size)`
 *
 * @example
 * ```ts
 * import { checkIndices } from "./state_check.ts";
 * try {
 *   checkIndices(Int32Array.of(0, 7), "window", 5, "ova.restore");
 * } catch (e) {
 *   console.log((e as Error).message); // ova.restore: window[1] = 7 is out of range [0, 5)
 * }
 * ```
 */
export function checkIndices(a: ArrayLike<number>, field: string, size: number, where: string) {
  each(a, field, where, (v) => v >= 0 && v < size, `is out of range [0, ${size})`);
}

/**
 * Sums of squares (AdaGrad sums, Adam's second moments): every entry `>= 0`. A sum may overflow
 * to +Infinity in learning (huge feature values); it never goes below 0 or NaN.
 *
 * @throws {RangeError} `<where>: <field>[i] = v is not a sum >= 0`
 *
 * @example
 * ```ts
 * import { checkSums } from "./state_check.ts";
 * checkSums(Float32Array.of(0, Infinity), "sums", "demo"); // fine
 * try {
 *   checkSums(Float32Array.of(-1), "sums", "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // demo: sums[0] = -1 is not a sum >= 0
 * }
 * ```
 */
export function checkSums(a: ArrayLike<number>, field: string, where: string): void {
  each(a, field, where, (v) => v >= 0, "is not a sum >= 0");
}

/**
 * Counts (label counts, rows): every entry a non-negative integer.
 *
 * @throws {RangeError} `<where>: <field>[i] = v is not a count`
 *
 * @example
 * ```ts
 * import { checkCounts } from "./state_check.ts";
 * try {
 *   checkCounts(Float64Array.of(3, 0.5), "counts", "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // demo: counts[1] = 0.5 is not a count
 * }
 * ```
 */
export function checkCounts(a: ArrayLike<number>, field: string, where: string): void {
  each(a, field, where, (v) => Number.isInteger(v) && v >= 0, "is not a count");
}

/**
 * A scalar counter or size of `scalars`: an integer `>= min`, and `<= max` when given (a
 * sequence number that must follow another, a size a limit bounds). Returns it.
 *
 * @throws {TypeError} when it is missing or not a number
 * @throws {RangeError} `<where>: scalar <name> must be an integer >= min, got v` (or `<= max`)
 *
 * @example
 * ```ts
 * import { checkScalar } from "./state_check.ts";
 * console.log(checkScalar({ step: 4 }, "step", "demo")); // 4
 * try {
 *   checkScalar({ step: 2.5 }, "step", "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // demo: scalar step must be an integer >= 0, got 2.5
 * }
 * ```
 */
export function checkScalar(
  scalars: Readonly<Record<string, unknown>>,
  name: string,
  where: string,
  min = 0,
  max = Infinity,
): number {
  const v = scalars[name];
  if (typeof v !== "number") {
    throw new TypeError(`${where}: scalar ${name} must be a number, got ${typeof v}`);
  }
  if (!Number.isInteger(v) || v < min) {
    throw new RangeError(`${where}: scalar ${name} must be an integer >= ${min}, got ${v}`);
  }
  if (v > max) {
    throw new RangeError(`${where}: scalar ${name} must be an integer <= ${max}, got ${v}`);
  }
  return v;
}

/**
 * A generator's state (`SmallRng.state`): an integer in `[0, 2^32)`. Returns it.
 *
 * @throws {RangeError} `<where>: scalar <name> v is not a generator state`
 *
 * @example
 * ```ts
 * import { checkGeneratorState } from "./state_check.ts";
 * console.log(checkGeneratorState({ rng: 7 }, "rng", "demo")); // 7
 * try {
 *   checkGeneratorState({ rng: -1 }, "rng", "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // demo: scalar rng -1 is not a generator state
 * }
 * ```
 */
export function checkGeneratorState(
  scalars: Readonly<Record<string, unknown>>,
  name: string,
  where: string,
): number {
  const v = scalars[name];
  if (!(typeof v === "number" && Number.isInteger(v) && v >= 0 && v < 2 ** 32)) {
    throw new RangeError(`${where}: scalar ${name} ${v} is not a generator state`);
  }
  return v;
}

/**
 * The rows of a replay reservoir's state (`RowReservoir.toState` tensors: `resXIndptr`,
 * `resXIndices`, `resXValues`, `resYIndptr`, `resYIndices` and, when present, the masks
 * `resOIndptr`, `resOIndices`, `resFull`), checked as the model's `learnMany` checked them
 * when they entered the reservoir: row pointers from 0, non-decreasing and within their
 * indices; within a row, indices strictly increasing (the reservoir takes a row's last index
 * as its largest), feature indices below `numFeatures`, label indices below `numLabels`,
 * values finite; `resFull` entries 0 or 1. A state without reservoir tensors passes (the
 * caller decides whether it needs them). `RowReservoir.fromState` checks the rest (row count
 * against the capacity, lengths that agree).
 *
 * @throws {TypeError} when a reservoir tensor is not the array class its rows need
 * @throws {RangeError} naming the field, the row and the entry at fault
 *
 * @example
 * ```ts
 * import { checkReservoirRows } from "./state_check.ts";
 * const tensors = {
 *   resXIndptr: Int32Array.of(0, 1), resXIndices: Int32Array.of(9), resXValues: Float32Array.of(1),
 *   resYIndptr: Int32Array.of(0, 1), resYIndices: Int32Array.of(0),
 * };
 * try {
 *   checkReservoirRows(tensors, 5, 2, "ova.restore");
 * } catch (e) {
 *   console.log((e as Error).message); // ova.restore: resXIndices/resXValues row 0: feature index 9 is out of range [0, 5)
 * }
 * ```
 */
export function checkReservoirRows(
  tensors: Readonly<Record<string, unknown>>,
  numFeatures: number,
  numLabels: number,
  where: string,
): void {
  if (tensors.resXIndptr === undefined) return;
  const typed = <T extends ArrayLike<number>>(name: string, type: ArrayClass<T>): T =>
    requireTensor(tensors, name, type, where);
  const xp = typed("resXIndptr", Int32Array);
  const n = xp.length - 1;
  const rows = (
    ptrName: string,
    idxName: string,
    valName: string | undefined,
    entity: string,
    size: number,
    skip?: Uint8Array,
  ): void => {
    const ptr = typed(ptrName, Int32Array), idx = typed(idxName, Int32Array);
    const val = valName === undefined ? undefined : typed(valName, Float32Array);
    if (ptr.length !== n + 1 || ptr[0] !== 0 || !(ptr[n] <= idx.length)) {
      throw new RangeError(
        `${where}: ${ptrName} is not a row pointer of ${n} rows into ${idxName}`,
      );
    }
    if (val !== undefined && val.length !== idx.length) {
      throw new RangeError(
        `${where}: ${valName} has ${val.length} values, ${idxName} ${idx.length}`,
      );
    }
    for (let i = 0; i < n; i++) {
      if (!(ptr[i + 1] >= ptr[i])) {
        throw new RangeError(`${where}: ${ptrName} decreases at reservoir row ${i}`);
      }
      if (skip !== undefined && skip[i] !== 0) continue;
      // built only for an error
      const at = () => `${where}: ${valName ? `${idxName}/${valName}` : idxName} row ${i}`;
      const last = checkRowEntries(idx, val, ptr[i], ptr[i + 1], at, entity);
      if (last >= size) {
        throw new RangeError(`${at()}: ${entity} index ${last} is out of range [0, ${size})`);
      }
    }
  };
  rows("resXIndptr", "resXIndices", "resXValues", "feature", numFeatures);
  rows("resYIndptr", "resYIndices", undefined, "label", numLabels);
  if (tensors.resFull !== undefined) {
    const full = typed("resFull", Uint8Array);
    if (full.length !== n) {
      throw new RangeError(`${where}: resFull has ${full.length} entries for ${n} reservoir rows`);
    }
    each(full, "resFull", where, (v) => v === 0 || v === 1, "is not 0 or 1");
    // a fully observed row's mask row is empty, and never read
    rows("resOIndptr", "resOIndices", undefined, "label", numLabels, full);
  }
}
