/**
 * The features of the event line being parsed, between checking and mapping: the NDJSON
 * parser first checks a whole line (features, then labels) and only then maps it, growing the
 * vocabularies, so that a rejected line never grows one. {@linkcode EventFeatures} holds the
 * checked features meanwhile — index keys straight in a row builder, names as key/value lists,
 * or a row the fast path already hashed — and maps them once the line is accepted.
 *
 * @module
 */
import type { SparseVector } from "./types.ts";
import { RowBuilder } from "./sparse_row.ts";
import type { NdjsonSettings } from "./ndjson_options.ts";
import { parseIndexKey, showName as show } from "./json_text.ts";
import { notWellFormed } from "./ndjson_labels.ts";

/**
 * The refusal of an event's feature key that is not a feature index, in index mode
 * (`featureKeys: "index"`, no hashing): the RangeError `features: key "…" is not a feature
 * index (a non-negative integer)`, carrying the key so that a caller tells an event that names
 * its features by the error's class, not by its message (the service then names the key modes
 * that read names).
 *
 * @example
 * ```ts
 * import { EventFeatures, NotAFeatureIndexError } from "./ndjson_features.ts";
 * import { resolveNdjsonOptions } from "./ndjson_options.ts";
 * try {
 *   new EventFeatures(resolveNdjsonOptions()).check({ direct: 1 });
 * } catch (e) {
 *   console.log(e instanceof NotAFeatureIndexError && e.key, e instanceof RangeError); // direct true
 *   console.log((e as Error).message); // features: key "direct" is not a feature index (a non-negative integer)
 * }
 * ```
 */
export class NotAFeatureIndexError extends RangeError {
  /** The key that is not a feature index. */
  readonly key: string;

  /**
   * The refusal of `key`.
   *
   * @param key the feature key of the event
   */
  constructor(key: string) {
    super(`features: key ${show(key)} is not a feature index (a non-negative integer)`);
    this.key = key;
  }
}

/**
 * The checked, not yet mapped features of one event line (reused from line to line). Index
 * keys go straight into {@linkcode EventFeatures.row} (nothing grows until the line is
 * accepted); names wait in `keys`/`vals`.
 *
 * @example
 * ```ts
 * import { EventFeatures } from "./ndjson_features.ts";
 * import { resolveNdjsonOptions } from "./ndjson_options.ts";
 * const f = new EventFeatures(resolveNdjsonOptions({ featureKeys: "name" }));
 * f.check({ red: 1, big: 0.5 });
 * console.log(f.keys, f.settings.features.size); // [ "red", "big" ] 0
 * const x = f.map();
 * console.log([...x.indices], f.settings.features.names); // [ 0, 1 ] [ "red", "big" ]
 * ```
 */
export class EventFeatures {
  /** The parser's settings. */
  readonly settings: NdjsonSettings;
  /** The row being built (index keys, or a row hashed by the fast path). */
  readonly row: RowBuilder = new RowBuilder();
  /** Feature names (or keys to hash) of the line, in order. */
  readonly keys: string[] = [];
  /** Their values. */
  readonly vals: number[] = [];
  /** Index keys: the largest index of the line (-1: none). */
  pendingMax: number = -1;
  /** The fast path hashed this line's features into the row builder already. */
  prehashed: boolean = false;
  /** Scratch: the columns of a hashed line's features (collision check). */
  hashedCols: Int32Array = new Int32Array(64);

  /**
   * Empty features for lines parsed with `settings`.
   *
   * @param settings the parser's settings (key mode, vocabulary, hasher, bounds)
   */
  constructor(settings: NdjsonSettings) {
    this.settings = settings;
  }

  /**
   * Checks a `features` object (throws naming the bad key; names of a vocabulary must be
   * well-formed Unicode) and keeps its features for {@linkcode EventFeatures.map}.
   */
  check(f: unknown): void {
    if (f === null || typeof f !== "object" || Array.isArray(f)) {
      throw new TypeError("field 'features' must be an object {key: number}");
    }
    const s = this.settings;
    const maxPerEvent = s.maxFeaturesPerEvent, maxName = s.maxNameLength;
    const fv = f as Record<string, unknown>;
    const keys = this.keys, vals = this.vals;
    keys.length = 0;
    vals.length = 0;
    this.prehashed = false;
    // index keys go straight into the row builder (nothing grows until the line is accepted)
    const direct = s.hasher === undefined && s.featureKeys === "index";
    const row = this.row;
    row.clear();
    let maxIndex = -1;
    let count = 0;
    for (const key in fv) {
      if (++count > maxPerEvent) {
        throw new RangeError(`features: more than ${maxPerEvent} features in one event`);
      }
      const v = fv[key];
      if (typeof v !== "number") {
        throw new TypeError(
          `features[${show(key)}]: value must be a number, got ${v === null ? "null" : typeof v}`,
        );
      }
      if (!Number.isFinite(Math.fround(v))) {
        throw new RangeError(`features[${show(key)}]: value ${v} is not a finite 32-bit float`);
      }
      if (direct) {
        const j = parseIndexKey(key);
        if (j < 0) throw new NotAFeatureIndexError(key);
        if (j >= s.numFeatures) {
          throw new RangeError(`feature index ${j} is out of range [0, ${s.numFeatures})`);
        }
        if (j > maxIndex) maxIndex = j;
        row.push(j, v);
        continue;
      }
      if (s.hasher === undefined) {
        if (key.length === 0 || key.length > maxName) {
          throw new RangeError(`features: name length must be 1..${maxName}, got ${key.length}`);
        }
        // a vocabulary keeps names as UTF-8: a lone surrogate would merge distinct names
        if (!key.isWellFormed()) throw new RangeError(`features: ${notWellFormed(key)}`);
      }
      keys.push(key);
      vals.push(v);
    }
    this.pendingMax = maxIndex;
  }

  /**
   * Replaces the checked features by a text's named features (`features` merged in): names
   * longer than the name limit are dropped in a vocabulary (they never enter it, so a reader
   * drops them too).
   */
  useText(m: Map<string, number>): void {
    const s = this.settings;
    const keys = this.keys, vals = this.vals, vocab = !s.hasher;
    keys.length = 0;
    vals.length = 0;
    for (const [k, v] of m) {
      if (vocab && k.length > s.maxNameLength) continue;
      keys.push(k);
      vals.push(v);
    }
    if (keys.length > s.maxFeaturesPerEvent) {
      throw new RangeError(`text: more than ${s.maxFeaturesPerEvent} features in one event`);
    }
  }

  /** Throws when the line's new feature names would overflow the (growing) vocabulary. */
  checkRoom(): void {
    const s = this.settings;
    if (s.hasher === undefined && s.featureKeys === "name" && s.growFeatures) {
      const v = s.features;
      if (Number.isFinite(v.maxSize)) {
        let fresh = 0;
        for (const k of this.keys) if (v.idOf(k, false) < 0) fresh++;
        if (v.size + fresh > v.maxSize) {
          throw new RangeError(`the feature vocabulary is full (${v.maxSize} names)`);
        }
      }
    }
  }

  /**
   * The row of the accepted line: hashed, indexed, or names mapped through the vocabulary
   * (growing it when the settings say so).
   */
  map(): SparseVector {
    const s = this.settings;
    const keys = this.keys, vals = this.vals;
    if (this.prehashed) {
      this.prehashed = false;
      return this.row.build();
    }
    if (s.hasher) return s.hasher.hashNamed(keys, vals);
    const row = this.row;
    if (s.featureKeys === "index") return row.build();
    row.clear();
    for (let k = 0; k < keys.length; k++) {
      const j = s.features.idOf(keys[k], s.growFeatures);
      if (j >= 0) row.push(j, vals[k]);
    }
    return row.build();
  }
}
