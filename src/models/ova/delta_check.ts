/**
 * Checks an "ova" delta (a replica delta, `scalars.delta = 1`, or a state delta for incremental
 * checkpoints, `scalars.delta = 2`) before anything of it is applied: types, lengths, ranges,
 * block order, and that it follows the model it is applied to. See
 * `OvaEstimator.toReplicaDelta` and `OvaEstimator.toStateDelta` for the fields.
 *
 * @module
 */
import type { ModelState } from "../estimator.ts";
import type { SpaceLimits } from "../../data/batch_check.ts";
import { spaceLimits } from "../space_limits.ts";
import {
  type ArrayClass,
  checkCounts,
  checkFinite,
  checkGeneratorState,
  checkIndices,
  checkReservoirRows,
  checkScalar,
  checkStateKind,
  checkSums,
  requireTensor,
} from "../state_check.ts";

/**
 * A checked delta: its sizes, counters and tensors (the state tensors only for a state delta).
 *
 * @example
 * ```ts
 * import type { CheckedDelta } from "./delta_check.ts";
 * const seq = (d: CheckedDelta) => d.seq;
 * console.log(typeof seq); // "function"
 * ```
 */
export interface CheckedDelta {
  /** Features and labels after the delta. */
  numFeatures: number;
  numLabels: number;
  /** The delta's sequence number after it. */
  seq: number;
  /** `rows`, `prunes`, `evictions`, `updates`. */
  counters: number[];
  /** Written (feature, label) weights. */
  entryFeatures: Int32Array;
  entryLabels: Int32Array;
  entryWeights: Float32Array;
  /** Whole blocks: features (increasing), pointers into the block entries, labels, weights. */
  blockFeatures: Int32Array;
  blockPtr: Int32Array;
  blockLabels: Int32Array;
  blockWeights: Float32Array;
  /** Labels whose bias (and, in a state delta, AdaGrad bias sum and count) changed. */
  biasLabels: Int32Array;
  biasValues: Float32Array;
  /** State deltas only: the AdaGrad sums of the entries, blocks and biases, and the counts. */
  entrySums?: Float32Array;
  blockSums?: Float32Array;
  biasSums?: Float32Array;
  counts?: Float64Array;
  /** State deltas only: the frequency window's labels. */
  window?: Int32Array;
}

/**
 * Checks `delta` against a model of `numFeatures` × `numLabels` at delta sequence `seq`, which
 * grows to `limits` at the most; `state` asks for a state delta (else a replica delta). `where`
 * names the caller in messages; `counters` are the model's `rows`, `prunes`, `evictions` and
 * `updates`, which the delta's may not go below (the learner's only grow).
 *
 * @throws {TypeError} when it is not an "ova" state
 * @throws {TypeError} when a scalar is missing or not a number
 * @throws {RangeError} naming the problem (wrong base, a `deltaSeq` other than `deltaBase + 1`,
 * sizes or counters shrinking, sizes past the limits, a tensor of the wrong type or length, an index out of
 * range, a weight or bias that is not finite, an AdaGrad sum that is negative or NaN, a count
 * that is not a non-negative integer, blocks out of order, a label twice in a block, an entry on
 * a feature whose block the delta replaces)
 *
 * @example
 * ```ts
 * import { checkDelta } from "./delta_check.ts";
 * try {
 *   const limits = { maxFeatures: 10, maxLabels: 10 };
 *   checkDelta({ kind: "ova", config: {}, scalars: { delta: 1, deltaBase: 3 }, tensors: {} }, 0, 0, 0, limits, false, "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // demo: the delta follows replica 3, this replica is at 0
 * }
 * ```
 */
export function checkDelta(
  delta: ModelState,
  numFeatures: number,
  numLabels: number,
  seq: number,
  limits: SpaceLimits,
  state: boolean,
  where: string,
  counters: readonly number[] = [0, 0, 0, 0],
): CheckedDelta {
  checkStateKind(delta, "ova", where);
  const sc = delta.scalars ?? {}, t = delta.tensors ?? {};
  const want = state ? 2 : 1;
  if (sc.delta !== want) {
    throw new RangeError(
      `${where}: not a ${state ? "state" : "replica"} delta (scalar delta is ${sc.delta})`,
    );
  }
  const int = (name: string, min: number): number => checkScalar(sc, name, where, min);
  const base = int("deltaBase", 0);
  if (base !== seq) {
    const what = state ? "state" : "replica";
    throw new RangeError(
      `${where}: the delta follows ${what} ${base}, this ${state ? "model" : what} is at ${seq}`,
    );
  }
  const next = int("deltaSeq", base + 1);
  if (next !== base + 1) {
    throw new RangeError(
      `${where}: scalar deltaSeq must be deltaBase + 1 = ${base + 1}, got ${next}`,
    );
  }
  const D = int("numFeatures", numFeatures), L = int("numLabels", numLabels);
  spaceLimits(where, { numFeatures: D, numLabels: L, ...limits });
  // the learner's counters only grow: a delta's are at least the model's
  const next4 = ["rows", "prunes", "evictions", "updates"].map((name, i) =>
    int(name, counters[i] ?? 0)
  );
  const take = <T extends ArrayLike<number>>(name: string, type: ArrayClass<T>, len?: number): T =>
    requireTensor(t, name, type, where, len);
  const inRange = (a: Int32Array, name: string, max: number) => checkIndices(a, name, max, where);
  const finite = (a: Float32Array, name: string) => checkFinite(a, name, where);
  const sums = (a: Float32Array, name: string) => checkSums(a, name, where);
  const ef = take<Int32Array>("entryFeatures", Int32Array);
  const el = take<Int32Array>("entryLabels", Int32Array, ef.length);
  const ew = take<Float32Array>("entryWeights", Float32Array, ef.length);
  const bf = take<Int32Array>("blockFeatures", Int32Array);
  const bp = take<Int32Array>("blockPtr", Int32Array, bf.length + 1);
  const bl = take<Int32Array>("blockLabels", Int32Array);
  const bw = take<Float32Array>("blockWeights", Float32Array, bl.length);
  const cl = take<Int32Array>("biasLabels", Int32Array);
  const cv = take<Float32Array>("biasValues", Float32Array, cl.length);
  inRange(ef, "entryFeatures", D);
  inRange(el, "entryLabels", L);
  inRange(bf, "blockFeatures", D);
  inRange(bl, "blockLabels", L);
  inRange(cl, "biasLabels", L);
  finite(ew, "entryWeights");
  finite(bw, "blockWeights");
  finite(cv, "biasValues");
  if (bp[0] !== 0 || bp[bf.length] !== bl.length) {
    throw new RangeError(`${where}: blockPtr must run from 0 to ${bl.length}`);
  }
  const seen = new Set<number>();
  for (let b = 0; b < bf.length; b++) {
    if (b > 0 && !(bf[b] > bf[b - 1])) {
      throw new RangeError(`${where}: blockFeatures must increase (at ${b})`);
    }
    if (!(bp[b + 1] >= bp[b])) throw new RangeError(`${where}: blockPtr decreases at ${b}`);
    seen.clear();
    for (let e = bp[b]; e < bp[b + 1]; e++) {
      if (seen.has(bl[e])) {
        throw new RangeError(`${where}: label ${bl[e]} twice in the block of feature ${bf[b]}`);
      }
      seen.add(bl[e]);
    }
  }
  if (bf.length > 0) {
    const replaced = new Set(bf);
    for (let i = 0; i < ef.length; i++) {
      if (replaced.has(ef[i])) {
        throw new RangeError(
          `${where}: entry ${i} is on feature ${ef[i]}, whose whole block the delta replaces`,
        );
      }
    }
  }
  const out: CheckedDelta = {
    numFeatures: D,
    numLabels: L,
    seq: next,
    counters: next4,
    entryFeatures: ef,
    entryLabels: el,
    entryWeights: ew,
    blockFeatures: bf,
    blockPtr: bp,
    blockLabels: bl,
    blockWeights: bw,
    biasLabels: cl,
    biasValues: cv,
  };
  if (state) {
    out.entrySums = take<Float32Array>("entrySums", Float32Array, ef.length);
    out.blockSums = take<Float32Array>("blockSums", Float32Array, bl.length);
    out.biasSums = take<Float32Array>("biasSums", Float32Array, cl.length);
    out.counts = take<Float64Array>("counts", Float64Array, cl.length);
    out.window = take<Int32Array>("window", Int32Array);
    sums(out.entrySums, "entrySums");
    sums(out.blockSums, "blockSums");
    sums(out.biasSums, "biasSums");
    checkCounts(out.counts, "counts", where);
  }
  return out;
}

/**
 * The learner's own part of an "ova" state or state delta, which a prediction replica does
 * not hold, checked before anything of it is applied (by `OvaEstimator.restore` and
 * `OvaEstimator.applyStateDelta` alike): the frequency window `window` (at most
 * `windowCapacity` labels, each below `numLabels`), the scalars `windowPos` (the window fills
 * from slot 0: until it is full, its next slot is its length), `replayDebt` (in [0, 1)), `rng`
 * and, with `replay`, `reservoirRng` (generator states), `reservoirSeen` (a count, at least the
 * rows kept) and the replay reservoir's rows (features below `numFeatures`, labels below
 * `numLabels`, sorted, finite: see `checkReservoirRows`).
 *
 * @throws {TypeError} when the window or a reservoir tensor has the wrong array type
 * @throws {RangeError} naming the field and the entry at fault
 *
 * @example
 * ```ts
 * import { checkLearnerFields } from "./delta_check.ts";
 * const scalars = { windowPos: 2, replayDebt: 0, rng: 1 };
 * checkLearnerFields(scalars, { window: Int32Array.of(0, 1) }, 4, 2, 8, false, "demo"); // fine
 * try {
 *   checkLearnerFields(scalars, { window: Int32Array.of(0, 9) }, 4, 2, 8, false, "demo");
 * } catch (e) {
 *   console.log((e as Error).message); // demo: window[1] = 9 is out of range [0, 2)
 * }
 * ```
 */
export function checkLearnerFields(
  sc: Readonly<Record<string, number>>,
  t: ModelState["tensors"],
  numFeatures: number,
  numLabels: number,
  windowCapacity: number,
  replay: boolean,
  where: string,
): void {
  const win = requireTensor(t, "window", Int32Array, where);
  if (win.length > windowCapacity) {
    throw new RangeError(`${where}: window of ${win.length} > ${windowCapacity}`);
  }
  checkIndices(win, "window", numLabels, where);
  if (
    !(Number.isInteger(sc.windowPos) && sc.windowPos >= 0 && sc.windowPos < windowCapacity &&
      (win.length === windowCapacity || sc.windowPos === win.length))
  ) {
    throw new RangeError(`${where}: scalar windowPos ${sc.windowPos} is out of range`);
  }
  if (!(sc.replayDebt >= 0 && sc.replayDebt < 1)) {
    throw new RangeError(`${where}: replayDebt ${sc.replayDebt}`);
  }
  checkGeneratorState(sc, "rng", where);
  if (!replay) return;
  checkGeneratorState(sc, "reservoirRng", where);
  const kept = t.resXIndptr === undefined ? 0 : t.resXIndptr.length - 1;
  if (!(Number.isInteger(sc.reservoirSeen) && sc.reservoirSeen >= kept)) {
    throw new RangeError(`${where}: scalar reservoirSeen ${sc.reservoirSeen} is not a count`);
  }
  // the replay rows were learned from: features and labels within the model
  checkReservoirRows(t, numFeatures, numLabels, where);
}
