/**
 * The service's {@linkcode GrowthLimits} at work: a parse runs with the vocabularies capped as
 * the limits ask (a line that would add too many names is refused by the vocabulary's own room
 * check, before anything grows), and index-key growth is checked on its result (a refusal then
 * takes back the names the parse added), with errors naming the flag (what they refuse is told on the service's log by
 * `GrowthRefusalLog` of ./growth_refusal_log.ts).
 *
 * @module
 */
import type { Example } from "../data/types.ts";
import type { Vocabulary } from "../data/vocabulary.ts";
import type { GrowthLimits } from "./event_limits.ts";

/** The parser's error for an index key at or beyond its width (`numFeatures`). */
const OUT_OF_RANGE = /^feature index (\d+) is out of range \[0, (\d+)\)$/;

/**
 * Checks parses against the {@linkcode GrowthLimits} in force (none at first). Owned by an
 * `EventParser`, which hands it its vocabularies.
 *
 * @example
 * ```ts
 * import { GrowthGuard } from "./growth_guard.ts";
 * import { Vocabulary } from "../data/vocabulary.ts";
 * const guard = new GrowthGuard(new Vocabulary(), new Vocabulary(), false, true);
 * guard.set({ maxFeatureGrowth: 10 });
 * const x = (j: number) => ({ indices: Int32Array.of(j), values: Float32Array.of(1) });
 * const event = (j: number) => () => ({ x: x(j), labels: new Int32Array(0) });
 * console.log(guard.run(event(5)).x.indices); // Int32Array(1) [ 5 ]
 * try {
 *   guard.run(event(100));
 * } catch (e) {
 *   console.log((e as Error).message); // feature index 100 would widen the feature space from 6 to 101 columns: more than --max-feature-growth 10 in one event
 * }
 * ```
 */
export class GrowthGuard {
  readonly #features: Vocabulary;
  readonly #labels: Vocabulary;
  /** Feature names go through the vocabulary (name keys, not hashed). */
  readonly #namedFeatures: boolean;
  /** Index keys: growth is counted in columns. */
  readonly #indexKeys: boolean;
  #growth: GrowthLimits | undefined;
  /** Index keys: the largest feature index accepted + 1 (or the model's width, if larger). */
  #featureExtent = 0;

  /**
   * A guard over the given vocabularies, with no limits yet.
   *
   * @param features the feature vocabulary (capped while a parse runs, with `namedFeatures`)
   * @param labels the label vocabulary (capped while a parse runs)
   * @param namedFeatures feature keys are names mapped through `features` (not hashed)
   * @param indexKeys feature keys are column indices
   */
  constructor(
    features: Vocabulary,
    labels: Vocabulary,
    namedFeatures: boolean,
    indexKeys: boolean,
  ) {
    this.#features = features;
    this.#labels = labels;
    this.#namedFeatures = namedFeatures;
    this.#indexKeys = indexKeys;
  }

  /**
   * Sets (or with undefined lifts) the limits checked from now on; `featureExtent`: the model's
   * current width (index keys: growth is counted beyond it).
   */
  set(limits: GrowthLimits | undefined, featureExtent = 0): void {
    this.#growth = limits === undefined ? undefined : { ...limits };
    this.#featureExtent = Math.max(this.#featureExtent, featureExtent);
  }

  /** The growth limits in force (undefined: none). */
  get limits(): Readonly<GrowthLimits> | undefined {
    return this.#growth;
  }

  /**
   * Index keys: the largest feature index of the events parsed + 1 (or the model's width, if
   * larger), which `maxFeatureGrowth` counts from. A caller refusing an event after its parse
   * sets it back to what it was before, as it takes the event's names back: a refused event
   * must not widen what the next one may grow from.
   */
  get featureExtent(): number {
    return this.#featureExtent;
  }

  set featureExtent(extent: number) {
    this.#featureExtent = extent;
  }

  /**
   * Runs `parse` with the vocabularies capped as the growth limits ask, and checks index-key
   * growth on the result (see the module doc); the parse's own errors pass through. A refused
   * event changes nothing: the names its parse added are taken back.
   */
  run(parse: () => Example): Example {
    const labels = this.#labels.size, features = this.#features.size;
    try {
      return this.#run(parse);
    } catch (e) {
      // the index-key checks refuse a parsed event: its new names must not stay
      this.#labels.truncate(labels);
      this.#features.truncate(features);
      throw e;
    }
  }

  #run(parse: () => Example): Example {
    const g = this.#growth;
    if (g === undefined) {
      const ev = parse();
      this.#noteExtent(ev);
      return ev;
    }
    type Capped = { maxSize: number };
    const labels = this.#labels as unknown as Capped;
    const features = this.#features as unknown as Capped;
    const labelCap = labels.maxSize, featureCap = features.maxSize;
    const labelBudget = Math.min(
      g.maxLabels ?? Infinity,
      this.#labels.size + (g.maxNewLabels ?? Infinity),
    );
    labels.maxSize = Math.min(labelCap, labelBudget);
    if (this.#namedFeatures) features.maxSize = Math.min(featureCap, g.maxFeatures ?? Infinity);
    let ev: Example;
    try {
      ev = parse();
    } catch (e) {
      // A limit at or below the parser's own cap is the one that binds (the cap is usually
      // the same flag): the error names the flag.
      const m = (e as Error).message;
      if (/label vocabulary is full/.test(m) && labelBudget <= labelCap) {
        throw new RangeError(
          this.#labels.size + (g.maxNewLabels ?? Infinity) <= (g.maxLabels ?? Infinity)
            ? `the event adds more than --max-new-labels ${g.maxNewLabels} new labels`
            : `the label vocabulary is full: --max-labels ${g.maxLabels} names`,
        );
      }
      const maxFeatures = g.maxFeatures ?? Infinity;
      if (/feature vocabulary is full/.test(m) && maxFeatures <= featureCap) {
        throw new RangeError(`the feature vocabulary is full: --max-features ${g.maxFeatures}`);
      }
      if (this.#indexKeys) {
        const r = OUT_OF_RANGE.exec(m);
        if (r !== null && maxFeatures <= Number(r[2])) {
          throw new RangeError(this.#aboveMaxFeatures(Number(r[1]), g));
        }
      }
      throw e;
    } finally {
      labels.maxSize = labelCap;
      features.maxSize = featureCap;
    }
    if (this.#indexKeys) {
      const n = ev.x.indices.length;
      const top = n > 0 ? ev.x.indices[n - 1] + 1 : 0;
      if (top > (g.maxFeatures ?? Infinity)) {
        throw new RangeError(this.#aboveMaxFeatures(top - 1, g));
      }
      if (top > this.#featureExtent + (g.maxFeatureGrowth ?? Infinity)) {
        throw new RangeError(
          `feature index ${
            top - 1
          } would widen the feature space from ${this.#featureExtent} to ${top} columns: more than --max-feature-growth ${g.maxFeatureGrowth} in one event`,
        );
      }
    }
    this.#noteExtent(ev);
    return ev;
  }

  /**
   * Why feature index `index` is refused by `--max-features`, naming `--max-feature-growth` too
   * when the event is over it as well: an operator starting a wide stream raised
   * `--max-features` only to find every event refused again, by the growth limit.
   */
  #aboveMaxFeatures(index: number, g: GrowthLimits): string {
    const m =
      `feature index ${index} is out of range [0, ${g.maxFeatures}): above --max-features ${g.maxFeatures}`;
    const extent = this.#featureExtent, growth = g.maxFeatureGrowth ?? Infinity;
    if (index + 1 <= extent + growth) return m;
    return `${m}, and it would widen the feature space from ${extent} to ${
      index + 1
    } columns: more than --max-feature-growth ${growth} in one event (raise both)`;
  }

  #noteExtent(ev: Example): void {
    const n = ev.x.indices.length;
    if (n > 0 && ev.x.indices[n - 1] >= this.#featureExtent) {
      this.#featureExtent = ev.x.indices[n - 1] + 1;
    }
  }
}
