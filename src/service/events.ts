/**
 * Per-line validation of NDJSON events for the learning service, on top of the data layer's
 * {@linkcode NdjsonParser} (`{"id": "...", "features": {"<index or name>": value, ...},
 * "labels": ["<name>", ...], "negatives": ["<name>", ...], "text": "..."}`; `text` with a
 * tokenizer, `limits.text`; other fields are ignored unless `strictFields`): a bad line gets a
 * reason instead of an exception, lines are bounded in length, vocabularies in size, and
 * prediction rows are mapped without growing anything.
 *
 * The parts live in their own modules and are re-exported here: the limits
 * (`event_limits.ts`), the nesting check run before parsing (`json_depth.ts`), the growth
 * limits at work (`growth_guard.ts`) and the `/predict` row forms (`predict_rows.ts`).
 *
 * @module
 */
import type { Example, SparseVector } from "../data/types.ts";
import { Vocabulary } from "../data/vocabulary.ts";
import { type FeatureKeys, NdjsonParser } from "../data/ndjson.ts";
import { NotAFeatureIndexError } from "../data/ndjson_features.ts";
import type { FeatureSpace } from "../format/types.ts";
import { type EventLimits, type GrowthLimits, lineTooLong } from "./event_limits.ts";
import { EVENT_MAX_DEPTH, jsonDepthExceeded } from "./json_depth.ts";
import { GrowthGuard } from "./growth_guard.ts";
import { predictBodyAscii, rowForPredict } from "./predict_rows.ts";

/**
 * What the reason of an event whose feature key is not an index (index mode:
 * `NotAFeatureIndexError`) adds: the stream's key mode and the modes that read names.
 */
const NAMES_HINT =
  "; this stream reads feature indices (--feature-keys index): events that name their " +
  "features need --feature-keys name or hash";

export type { FeatureKeys } from "../data/ndjson.ts";
export type { EventLimits, GrowthLimits } from "./event_limits.ts";
export { EVENT_MAX_DEPTH, jsonDepthExceeded } from "./json_depth.ts";

/**
 * The result of parsing one line: the event (features and labels mapped to indices), or why the
 * line was rejected.
 *
 * @example
 * ```ts
 * import type { LineResult } from "./events.ts";
 * function describe(r: LineResult): string {
 *   return r.ok ? `${r.event.labels.length} labels` : r.reason;
 * }
 * console.log(describe({ ok: false, reason: "malformed JSON" })); // "malformed JSON"
 * ```
 */
export type LineResult =
  | { readonly ok: true; readonly event: Example }
  | { readonly ok: false; readonly reason: string };

/**
 * What {@linkcode EventParser.mark} records: the vocabularies' sizes and the feature extent.
 *
 * @example
 * ```ts
 * import type { ParseMark } from "./events.ts";
 * const m: ParseMark = { labels: 3, features: 10, extent: 10 };
 * console.log(m.labels); // 3
 * ```
 */
export interface ParseMark {
  /** The label vocabulary's size. */
  readonly labels: number;
  /** The feature vocabulary's size. */
  readonly features: number;
  /** Index keys: the feature extent `maxFeatureGrowth` counts from. */
  readonly extent: number;
}

/**
 * Validates event lines and maps them through feature and label vocabularies (which it owns).
 *
 * @example
 * ```ts
 * import { EventParser } from "./events.ts";
 * const p = new EventParser([], [], { featureKeys: "index" });
 * const r = p.parseLine('{"features": {"3": 1, "0": 0.5}, "labels": ["cat"]}');
 * console.log(r.ok && Array.from(r.event.x.indices), p.labels.names); // [ 0, 3 ] [ "cat" ]
 * const bad = p.parseLine('{"features": {"-1": 1}, "labels": []}');
 * console.log(bad.ok ? "" : bad.reason); // features: key "-1" is not a feature index (a non-negative integer); this stream reads …
 * ```
 */
export class EventParser {
  /** Feature-name vocabulary (used in `"name"` mode). */
  readonly features: Vocabulary;
  /** Label-name vocabulary. */
  readonly labels: Vocabulary;
  /** Key mode. */
  readonly featureKeys: FeatureKeys;
  /** The limits in force (defaults filled in). */
  readonly limits: Readonly<
    & Required<Omit<EventLimits, "hashing" | "text" | "strictFields">>
    & Pick<EventLimits, "hashing" | "text" | "strictFields">
  >;
  readonly #ndjson: NdjsonParser;
  readonly #guard: GrowthGuard;
  /** The unknown fields ignored so far (the sum of `ignoredFields`). */
  #ignoredCount = 0;
  /**
   * Times the vocabularies' names may have been used or recorded so far: each event parsed (by
   * either path; it may map any name) and each checkpoint, incremental checkpoint or replica
   * snapshot taken of them (the learner counts those). A caller that awaits between adding names
   * and taking them back (`Vocabulary.truncate`) compares it: a change means the names may be in
   * use or on record elsewhere, and must stay.
   *
   * @example
   * ```ts
   * import { EventParser } from "./events.ts";
   * const p = new EventParser();
   * const before = p.namesUsed;
   * p.parseLine('{"features": {"1": 1}, "labels": ["cat"]}');
   * console.log(p.namesUsed - before); // 1
   * ```
   */
  namesUsed = 0;

  /**
   * A parser with initial vocabularies.
   *
   * @param featureNames initial feature names (name mode), in index order
   * @param labelNames initial label names, in index order
   * @param limits key mode and bounds
   */
  constructor(
    featureNames: readonly string[] = [],
    labelNames: readonly string[] = [],
    limits: EventLimits = {},
  ) {
    const featureKeys = limits.featureKeys ?? (limits.hashing ? "name" : "index");
    if (featureKeys !== "index" && featureKeys !== "name") {
      throw new TypeError(
        `EventParser: featureKeys must be "index" or "name", got '${featureKeys}'`,
      );
    }
    if (limits.hashing && featureKeys !== "name") {
      throw new TypeError(`EventParser: hashing hashes feature names: featureKeys must be "name"`);
    }
    const positive = (v: number | undefined, dflt: number, name: string): number => {
      const x = v ?? dflt;
      if (!Number.isInteger(x) || x < 1) {
        throw new RangeError(`EventParser: ${name} must be a positive integer, got ${v}`);
      }
      return x;
    };
    this.featureKeys = featureKeys;
    this.limits = {
      featureKeys,
      ...(limits.hashing ? { hashing: { ...limits.hashing } } : {}),
      ...(limits.text ? { text: { ...limits.text } } : {}),
      ...(limits.strictFields ? { strictFields: true } : {}),
      maxFeatures: positive(limits.maxFeatures, 1 << 20, "maxFeatures"),
      maxLabels: positive(limits.maxLabels, 1 << 16, "maxLabels"),
      maxLineBytes: positive(limits.maxLineBytes, 65536, "maxLineBytes"),
      maxNameLength: positive(limits.maxNameLength, 256, "maxNameLength"),
    };
    // (a restored state with more names than the limits: the error names the flag to raise)
    this.features = new Vocabulary(featureNames, this.limits.maxFeatures, {
      what: "feature",
      limitName: "--max-features",
    });
    this.labels = new Vocabulary(labelNames, this.limits.maxLabels, {
      what: "label",
      limitName: "--max-labels",
    });
    this.#ndjson = new NdjsonParser({
      featureKeys,
      features: this.features,
      labels: this.labels,
      numFeatures: featureKeys === "index" ? this.limits.maxFeatures : undefined,
      hashing: limits.hashing,
      maxNameLength: this.limits.maxNameLength,
      text: limits.text,
      strictFields: limits.strictFields,
    });
    this.#guard = new GrowthGuard(
      this.features,
      this.labels,
      featureKeys === "name" && this.limits.hashing === undefined,
      featureKeys === "index",
    );
  }

  /**
   * The feature space a model file of this stream declares: the hashing parameters when feature
   * names are hashed, the vocabulary's names (padded to `numFeatures` with `#i`) in name mode,
   * nothing (plain indices) in index mode; with a tokenizer, its settings as `text`.
   *
   * @example
   * ```ts
   * import { EventParser } from "./events.ts";
   * const p = new EventParser([], [], { hashing: { dim: 8, seed: 1 } });
   * console.log(p.featureSpace(8)); // { type: "hashing", dim: 8, seed: 1 }
   * const q = new EventParser(["red", "blue"], [], { featureKeys: "name" });
   * console.log(q.featureSpace(3)); // { type: "vocabulary", names: [ "red", "blue", "#2" ] }
   * const t = new EventParser([], [], { hashing: { dim: 8 }, text: { ngrams: 2 } });
   * console.log(t.featureSpace(8)); // { type: "hashing", dim: 8, seed: 0, text: { ngrams: 2 } }
   * ```
   */
  featureSpace(numFeatures: number): FeatureSpace | undefined {
    const h = this.#ndjson.hasher, text = this.limits.text;
    const withText = <T extends object>(fs: T) => text ? { ...fs, text: { ...text } } : fs;
    if (h !== undefined) return withText(h.featureSpace());
    if (this.featureKeys !== "name") return undefined;
    const f = this.features.names;
    return withText({
      type: "vocabulary" as const,
      names: Array.from({ length: numFeatures }, (_, i) => f[i] ?? `#${i}`),
    });
  }

  /** Unknown fields ignored so far, by name (at most 64 names; `"…"` counts the rest). */
  get ignoredFields(): ReadonlyMap<string, number> {
    return this.#ndjson.ignoredFields;
  }

  /**
   * How many unknown fields were ignored so far, in every line parsed (accepted or rejected
   * for another reason): the sum of {@linkcode EventParser.ignoredFields}.
   *
   * @example
   * ```ts
   * import { EventParser } from "./events.ts";
   * const p = new EventParser();
   * p.parseLine('{"ts": 1, "user": "u", "features": {"0": 1}, "labels": ["a"]}');
   * p.parseLine('{"ts": 2, "features": {"0": 1}, "labels": ["a"]}');
   * console.log(p.ignoredFieldCount); // 3
   * ```
   */
  get ignoredFieldCount(): number {
    return this.#ignoredCount;
  }

  /**
   * Maps `{text, features?}` for prediction, without growing anything (see
   * `NdjsonParser.textForPredict`): the same row the SDK builds from the model file. Throws a
   * TypeError when the stream reads no text, `text` is not a string, or naming a bad feature.
   *
   * @example
   * ```ts
   * import { EventParser } from "./events.ts";
   * const p = new EventParser([], [], { hashing: { dim: 64 }, text: {} });
   * console.log(p.textForPredict("Hello, hello!", undefined, 64).values); // Float32Array(1) [ 2 ]
   * ```
   */
  textForPredict(text: unknown, features: unknown, numFeatures: number): SparseVector {
    return this.#ndjson.textForPredict(text, features, numFeatures);
  }

  /** Largest line length accepted, in bytes. */
  get maxLineBytes(): number {
    return this.limits.maxLineBytes;
  }

  /**
   * Sets (or with undefined lifts) the {@linkcode GrowthLimits} checked from now on;
   * `featureExtent`: the model's current width (index keys: growth is counted beyond it).
   *
   * @example
   * ```ts
   * import { EventParser } from "./events.ts";
   * const p = new EventParser();
   * p.setGrowthLimits({ maxFeatureGrowth: 100 }, 10);
   * const r = p.parseLine('{"features": {"1048575": 1}, "labels": ["a"]}');
   * console.log(r.ok ? "" : r.reason); // feature index 1048575 would widen the feature space from 10 to 1048576 columns: more than --max-feature-growth 100 in one event
   * ```
   */
  setGrowthLimits(limits: GrowthLimits | undefined, featureExtent = 0): void {
    this.#guard.set(limits, featureExtent);
  }

  /** The growth limits in force (undefined: none). */
  get growthLimits(): Readonly<GrowthLimits> | undefined {
    return this.#guard.limits;
  }

  /**
   * What parses may have grown so far: the label and feature vocabularies' sizes and (index keys)
   * the feature extent `maxFeatureGrowth` counts from. A caller refusing events after their parse
   * gives it back to {@linkcode EventParser.rollBack}.
   *
   * @example
   * ```ts
   * import { EventParser } from "./events.ts";
   * const p = new EventParser();
   * const m = p.mark();
   * p.parseLine('{"features": {"9": 1}, "labels": ["cat"]}');
   * console.log(p.grewSince(m), p.labels.size); // true 1
   * p.rollBack(m); // the event was refused after its parse
   * console.log(p.grewSince(m), p.labels.size); // false 0
   * ```
   */
  mark(): ParseMark {
    return {
      labels: this.labels.size,
      features: this.features.size,
      extent: this.#guard.featureExtent,
    };
  }

  /** Whether a parse since `m` ({@linkcode EventParser.mark}) added names or widened the extent. */
  grewSince(m: ParseMark): boolean {
    return this.labels.size > m.labels || this.features.size > m.features ||
      this.#guard.featureExtent > m.extent;
  }

  /**
   * Takes back what the parses since `m` ({@linkcode EventParser.mark}) grew: their new names
   * (`Vocabulary.truncate`) and the feature extent, so that refused events neither keep names
   * nor widen what the next event may grow from.
   */
  rollBack(m: ParseMark): void {
    this.labels.truncate(m.labels);
    this.features.truncate(m.features);
    this.#guard.featureExtent = m.extent;
  }

  /**
   * Parses one line: a reason when it is invalid (the vocabularies are then unchanged), else the
   * event with new names added to the vocabularies. JSON nested deeper than an event needs is
   * refused before parsing.
   */
  parseLine(line: string): LineResult {
    // A UTF-16 code unit takes at least one UTF-8 byte: a cheap bound (the service also checks
    // the exact byte length before decoding).
    if (line.length > this.limits.maxLineBytes) {
      return { ok: false, reason: lineTooLong(this.limits.maxLineBytes) };
    }
    const deep = jsonDepthExceeded(line, 0, line.length, EVENT_MAX_DEPTH);
    if (deep >= 0) {
      return {
        ok: false,
        reason: `JSON nested deeper than an event needs (${EVENT_MAX_DEPTH} levels) at column ${
          deep + 1
        }`,
      };
    }
    try {
      const event = this.#guard.run(() => this.#ndjson.parse(line));
      this.namesUsed++;
      return { ok: true, event };
    } catch (e) {
      const m = (e as Error).message;
      // (the error's kind, not its text: a label or another key may say the same words)
      return { ok: false, reason: e instanceof NotAFeatureIndexError ? m + NAMES_HINT : m };
    } finally {
      // only this slow path ignores fields (the fast path leaves lines with other fields here)
      const ignored = this.#ndjson.ignoredFields;
      if (ignored.size > 0) {
        let n = 0;
        ignored.forEach((c) => n += c);
        this.#ignoredCount = n;
      }
    }
  }

  /**
   * The fast path of {@linkcode EventParser.parseLine} for a line's UTF-8 bytes `[start, end)`
   * (see `NdjsonParser.parseAscii`): the event, or `undefined` (nothing changed) when the line
   * must be decoded and given to `parseLine`. The caller checks the line length first.
   *
   * @example
   * ```ts
   * import { EventParser } from "./events.ts";
   * const p = new EventParser();
   * const b = new TextEncoder().encode('{"features": {"1": 1}, "labels": ["cat"]}');
   * console.log(p.parseAscii(b, 0, b.length)?.labels); // Int32Array(1) [ 0 ]
   * ```
   */
  parseAscii(bytes: Uint8Array, start: number, end: number): Example | undefined {
    try {
      let ev: Example | undefined;
      this.#guard.run(() => {
        ev = this.#ndjson.parseAscii(bytes, start, end);
        return ev ?? EMPTY_EVENT;
      });
      if (ev !== undefined) this.namesUsed++;
      return ev;
    } catch {
      return undefined; // parseLine reports why
    }
  }

  /**
   * Maps a feature record for prediction, without growing anything: unknown names and indices
   * at or beyond `numFeatures` are dropped. Throws a TypeError naming the bad key.
   *
   * @example
   * ```ts
   * import { EventParser } from "./events.ts";
   * const p = new EventParser();
   * console.log([...p.featuresForPredict({ "7": 2, "1": 1 }, 5).indices]); // [ 1 ]
   * ```
   */
  featuresForPredict(f: unknown, numFeatures: number): SparseVector {
    return this.#ndjson.featuresForPredict(f, numFeatures);
  }

  /**
   * A fast path for the one-row `/predict` bodies, `{"features": {...}, "k": N}` and the compact
   * `{"indices": [...], "values": [...], "k": N}` (`values` optional; fields in any order, `k`
   * optional) in ASCII, with index keys (features) or indices in increasing order: the row
   * mapped as {@linkcode EventParser.featuresForPredict} or
   * {@linkcode EventParser.rowForPredict} maps it, and `k`; `undefined` for any other body (the
   * caller then parses the JSON, which also reports errors).
   *
   * @example
   * ```ts
   * import { EventParser } from "./events.ts";
   * const p = new EventParser();
   * const enc = (s: string) => new TextEncoder().encode(s);
   * const r = p.predictBodyAscii(enc('{"features": {"1": 1, "7": 2}, "k": 3}'), 5)!;
   * console.log([...r.x.indices], r.k); // [ 1 ] 3
   * const c = p.predictBodyAscii(enc('{"indices": [1, 2, 7], "values": [1, 0, 2]}'), 5)!;
   * console.log([...c.x.indices], c.k); // [ 1 ] undefined
   * console.log(p.predictBodyAscii(enc('{"rows": []}'), 5)); // undefined
   * ```
   */
  predictBodyAscii(
    bytes: Uint8Array,
    numFeatures: number,
  ): { x: SparseVector; k: number | undefined } | undefined {
    return predictBodyAscii(this.#ndjson, this.featureKeys, bytes, numFeatures);
  }

  /**
   * Maps the compact row form for prediction: `indices` (feature indices, any order, no
   * repeats) and `values` (same length; omitted: every value is 1, binary features). Indices at
   * or beyond `numFeatures` and zero values are dropped, as in
   * {@linkcode EventParser.featuresForPredict}. Index keys only. Throws a TypeError naming the
   * bad field.
   *
   * @example
   * ```ts
   * import { EventParser } from "./events.ts";
   * const p = new EventParser();
   * const x = p.rowForPredict([7, 1, 3], [2, 1, 0.5], 5);
   * console.log([...x.indices], [...x.values]); // [ 1, 3 ] [ 1, 0.5 ]
   * console.log([...p.rowForPredict([4, 0], undefined, 5).values]); // [ 1, 1 ]
   * ```
   */
  rowForPredict(indices: unknown, values: unknown, numFeatures: number): SparseVector {
    return rowForPredict(this.featureKeys, indices, values, numFeatures);
  }
}

const EMPTY_EVENT: Example = {
  x: { indices: new Int32Array(0), values: new Float32Array(0) },
  labels: new Int32Array(0),
};
