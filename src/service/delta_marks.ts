/**
 * What a learner delta needs to know of the vocabularies and label counts: the vocabulary sizes
 * at the last delta (or base) and the labels whose count changed since. The learner keeps one
 * for its replica's deltas and one for its incremental checkpoints.
 *
 * @module
 */
import type { Vocabulary } from "../data/vocabulary.ts";
import { DirtyLabels } from "./dirty_labels.ts";
import type { LearnerDelta } from "./learner_types.ts";

/**
 * Marks since the last delta (see the module doc); off until `start`.
 *
 * @example
 * ```ts
 * import { Vocabulary } from "../data/vocabulary.ts";
 * import { DeltaMarks } from "./delta_marks.ts";
 * const features = new Vocabulary(["f0"]), labels = new Vocabulary(["a"]);
 * const m = new DeltaMarks();
 * m.start({ features, labels });
 * labels.idOf("b", true);
 * m.mark(Int32Array.of(1));
 * const d = m.take({ features, labels }, Float64Array.of(3, 1));
 * console.log(d.labels, [...d.labelCounts.labels], [...d.labelCounts.counts]); // { from: 1, names: [ "b" ] } [ 1 ] [ 1 ]
 * ```
 */
export class DeltaMarks {
  /** Whether marks are kept (between `start` and `stop`). */
  on = false;
  #features = 0;
  #labels = 0;
  #counts = new DirtyLabels();

  /** Starts (or restarts) from the vocabularies as they are. */
  start(v: { features: Vocabulary; labels: Vocabulary }): void {
    this.on = true;
    this.#features = v.features.size;
    this.#labels = v.labels.size;
    this.#counts.clear();
  }

  /** Stops keeping marks (until the next `start`). */
  stop(): void {
    this.on = false;
    this.#counts.clear();
  }

  /** Notes that the counts of `labels` changed (nothing while off). */
  mark(labels: ArrayLike<number>): void {
    if (this.on) this.#counts.mark(labels);
  }

  /**
   * The names the vocabularies gained and the changed labels with their counts in
   * `labelCounts` (fresh arrays), since `start` or the previous call; the marks move on.
   */
  take(
    v: { features: Vocabulary; labels: Vocabulary },
    labelCounts: Float64Array,
  ): Pick<LearnerDelta, "features" | "labels" | "labelCounts"> {
    const fNames = v.features.names, lNames = v.labels.names;
    const labels = this.#counts.take(), counts = new Float64Array(labels.length);
    for (let i = 0; i < labels.length; i++) counts[i] = labelCounts[labels[i]];
    const out = {
      features: { from: this.#features, names: fNames.slice(this.#features) },
      labels: { from: this.#labels, names: lNames.slice(this.#labels) },
      labelCounts: { labels, counts },
    };
    this.#features = fNames.length;
    this.#labels = lNames.length;
    return out;
  }
}
