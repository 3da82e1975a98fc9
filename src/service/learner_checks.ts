/**
 * Helpers of the learner's checkpoints and deltas: chain ids, queued events from a checkpoint,
 * and the checks of the vocabulary names and label counts a delta brings.
 *
 * @module
 */
import type { Example } from "../data/types.ts";
import type { Vocabulary } from "../data/vocabulary.ts";
import type { LearnerCheckpoint } from "./learner_types.ts";
import { shown } from "../data/option_check.ts";

/**
 * A new chain id: 64 random bits in hex.
 *
 * @example
 * ```ts
 * import { chainId } from "./learner_checks.ts";
 * console.log(/^[0-9a-f]{16}$/.test(chainId())); // true
 * ```
 */
export function chainId(): string {
  const b = crypto.getRandomValues(new Uint32Array(2));
  return b[0].toString(16).padStart(8, "0") + b[1].toString(16).padStart(8, "0");
}

/**
 * The queued events of a checkpoint (or delta) as examples.
 *
 * @example
 * ```ts
 * import { pendingFrom } from "./learner_checks.ts";
 * const [e] = pendingFrom([{ id: "a", indices: Int32Array.of(1), values: Float32Array.of(2), labels: Int32Array.of(0) }]);
 * console.log(e.id, e.x.indices[0], e.labels[0]); // a 1 0
 * ```
 */
export function pendingFrom(pending: LearnerCheckpoint["pending"]): Example[] {
  return pending.map((p) => {
    const e: { id?: string; x: Example["x"]; labels: Int32Array; negatives?: Int32Array } = {
      x: { indices: p.indices, values: p.values },
      labels: p.labels,
    };
    if (p.id !== undefined) e.id = p.id;
    if (p.negatives !== undefined) e.negatives = p.negatives;
    return e;
  });
}

/**
 * The names of `add` that `v` does not have yet, after checking that `add` follows `v` (names
 * it has already must agree). `what` starts the error messages. A fresh name `v` has already is
 * refused, unless `v`'s names are still packed (`Vocabulary.adoptPacked`: looking it up would
 * unpack them, building the name → index map of up to 10⁶ names; the learner's vocabulary,
 * which made them, never adds a name twice); a name twice among the fresh ones always is.
 *
 * @example
 * ```ts
 * import { Vocabulary } from "../data/vocabulary.ts";
 * import { newNames } from "./learner_checks.ts";
 * const v = new Vocabulary(["a", "b"]);
 * console.log(newNames(v, { from: 1, names: ["b", "c"] }, "delta: label")); // [ "c" ]
 * ```
 */
export function newNames(
  v: Vocabulary,
  add: { from: number; names: string[] },
  what: string,
): string[] {
  if (
    !add || !Number.isInteger(add.from) || add.from < 0 || add.from > v.size ||
    !Array.isArray(add.names)
  ) {
    throw new RangeError(`${what} names must follow ${v.size} names`);
  }
  // names the learner already has (a full snapshot newer than the delta's base) must agree
  const known = Math.min(v.size, add.from + add.names.length);
  for (let i = add.from; i < known; i++) {
    if (add.names[i - add.from] !== v.nameOf(i)) {
      throw new RangeError(`${what} name ${i} differs from the one here`);
    }
  }
  const fresh = add.names.slice(known - add.from);
  const seen = new Set<string>();
  for (const n of fresh) {
    if (typeof n !== "string") throw new RangeError(`${what} name ${shown(n)} is not a string`);
    if (seen.has(n) || (!v.packed && v.idOf(n, false) >= 0)) {
      throw new RangeError(`${what} name '${String(n).slice(0, 40)}' twice`);
    }
    seen.add(n);
  }
  if (v.size + fresh.length > v.maxSize) {
    throw new RangeError(`${what}: more than ${v.maxSize} names`);
  }
  return fresh;
}

/**
 * Checks a delta's label counts: increasing labels in [0, numLabels), one count each.
 *
 * @example
 * ```ts
 * import { checkLabelCounts } from "./learner_checks.ts";
 * try {
 *   checkLabelCounts({ labels: Int32Array.of(3), counts: Float64Array.of(1) }, 2, "delta");
 * } catch (e) {
 *   console.log((e as Error).message.startsWith("delta: labelCounts label 3")); // true
 * }
 * ```
 */
export function checkLabelCounts(
  lc: { labels: Int32Array; counts: Float64Array },
  numLabels: number,
  what: string,
): void {
  if (
    !lc || !(lc.labels instanceof Int32Array) || !(lc.counts instanceof Float64Array) ||
    lc.counts.length !== lc.labels.length
  ) {
    throw new RangeError(`${what}: labelCounts must be labels and counts of one length`);
  }
  for (let i = 0; i < lc.labels.length; i++) {
    if (
      !(lc.labels[i] >= 0 && lc.labels[i] < numLabels) ||
      (i > 0 && lc.labels[i] <= lc.labels[i - 1])
    ) {
      throw new RangeError(
        `${what}: labelCounts label ${
          lc.labels[i]
        } is out of range [0, ${numLabels}) or out of order`,
      );
    }
  }
}
