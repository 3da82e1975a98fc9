/**
 * NDJSON events, one JSON object per line:
 * `{"id": "...", "features": {"<name or index>": value, ...}, "labels": ["<name>", ...],
 * "negatives": ["<name>", ...]}`. `id` and `negatives` are optional. Feature keys are column
 * indices (`featureKeys: "index"`, the default), names mapped through a growing
 * {@linkcode Vocabulary} (`"name"`), or hashed (`hashing`). Labels are names (strings or
 * integers, mapped through the label vocabulary) or, with `labelKeys: "index"`, label indices.
 * A line is validated completely before any new name is added, so a rejected line never grows
 * a vocabulary.
 *
 * @module
 */
import type { Example, SparseVector } from "./types.ts";
import { Vocabulary } from "./vocabulary.ts";
import { FeatureHasher, type HashingOptions } from "./hashing.ts";
import { RowBuilder } from "./sparse_row.ts";

/**
 * How NDJSON feature keys are read.
 *
 * @example
 * ```ts
 * import type { FeatureKeys } from "./ndjson.ts";
 * const k: FeatureKeys = "name";
 * console.log(k); // "name"
 * ```
 */
export type FeatureKeys = "index" | "name";

/**
 * Options of {@linkcode NdjsonParser}.
 *
 * @example
 * ```ts
 * import type { NdjsonOptions } from "./ndjson.ts";
 * const o: NdjsonOptions = { featureKeys: "name", growLabels: false };
 * console.log(o.featureKeys); // "name"
 * ```
 */
export interface NdjsonOptions {
  /** `"index"` (default): keys are non-negative integers; `"name"`: names. Ignored with hashing. */
  featureKeys?: FeatureKeys;
  /** `"name"` (default): labels go through the label vocabulary; `"index"`: label indices. */
  labelKeys?: "name" | "index";
  /** Feature-name vocabulary to use and grow (default: a new one). */
  features?: Vocabulary;
  /** Label-name vocabulary to use and grow (default: a new one). */
  labels?: Vocabulary;
  /** Add new feature names (default true); when false unknown feature names are dropped. */
  growFeatures?: boolean;
  /** Add new label names (default true); when false an unknown label is an error. */
  growLabels?: boolean;
  /** Hash feature keys into a fixed dimension instead of indexing them. */
  hashing?: HashingOptions;
  /** Exclusive bound on index keys (`featureKeys: "index"`); default none. */
  numFeatures?: number;
  /** Exclusive bound on label indices (`labelKeys: "index"`); default none. */
  numLabels?: number;
  /** Ignore fields other than id/features/labels/negatives (default false: they are errors). */
  allowExtraFields?: boolean;
  /** Longest feature name, label name or id (default 1024). */
  maxNameLength?: number;
  /** Most features in one event (default unbounded). */
  maxFeaturesPerEvent?: number;
}

const ALLOWED = new Set(["id", "features", "labels", "negatives"]);
const MAX_INDEX = 2147483647;

/** The value of a canonical decimal index key (`0`, `17`; no sign, no leading zero), else -1. */
function parseIndex(key: string): number {
  const n = key.length;
  if (n === 0 || n > 10 || (n > 1 && key.charCodeAt(0) === 48)) return -1;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = key.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v <= MAX_INDEX ? v : -1;
}

function show(s: string): string {
  return JSON.stringify(s.length > 40 ? s.slice(0, 37) + "..." : s);
}

/**
 * Parses event lines into {@linkcode Example}s. Errors are thrown as `SyntaxError` (malformed
 * JSON), `TypeError` (wrong field type) or `RangeError` (bad index or value) with a message
 * naming the field; the reader adds `Cannot parse line N of SOURCE:`.
 *
 * @example
 * ```ts
 * import { NdjsonParser } from "./ndjson.ts";
 * const p = new NdjsonParser({ featureKeys: "name" });
 * const e = p.parse('{"id": "a", "features": {"red": 1, "big": 0.5}, "labels": ["toy"], "negatives": ["food"]}');
 * console.log(e.id, [...e.x.indices], [...e.labels], [...e.negatives!], p.labels.names); // a [ 0, 1 ] [ 0 ] [ 1 ] [ "toy", "food" ]
 * ```
 */
export class NdjsonParser {
  /** Feature-name vocabulary (used with `featureKeys: "name"`). */
  readonly features: Vocabulary;
  /** Label-name vocabulary (used with `labelKeys: "name"`). */
  readonly labels: Vocabulary;
  /** Feature key mode. */
  readonly featureKeys: FeatureKeys;
  /** Label key mode. */
  readonly labelKeys: "name" | "index";
  /** The hasher, when hashing. */
  readonly hasher: FeatureHasher | undefined;
  /** Largest feature index seen + 1 (index keys). */
  maxFeatureIndex = 0;
  /** Largest label index seen + 1 (index labels). */
  maxLabelIndex = 0;
  readonly #growFeatures: boolean;
  readonly #growLabels: boolean;
  readonly #numFeatures: number;
  readonly #numLabels: number;
  readonly #extra: boolean;
  readonly #maxName: number;
  readonly #maxPerEvent: number;
  readonly #row = new RowBuilder();
  readonly #keys: string[] = [];
  readonly #vals: number[] = [];
  #pendingMax = -1;

  /** @param options key modes, vocabularies, hashing and bounds */
  constructor(options: NdjsonOptions = {}) {
    this.featureKeys = options.featureKeys ?? "index";
    if (this.featureKeys !== "index" && this.featureKeys !== "name") {
      throw new TypeError(
        `ndjson: featureKeys must be "index" or "name", got '${this.featureKeys}'`,
      );
    }
    this.labelKeys = options.labelKeys ?? "name";
    if (this.labelKeys !== "index" && this.labelKeys !== "name") {
      throw new TypeError(`ndjson: labelKeys must be "index" or "name", got '${this.labelKeys}'`);
    }
    this.features = options.features ?? new Vocabulary();
    this.labels = options.labels ?? new Vocabulary();
    this.#growFeatures = options.growFeatures ?? true;
    this.#growLabels = options.growLabels ?? true;
    this.hasher = options.hashing ? new FeatureHasher(options.hashing) : undefined;
    this.#numFeatures = options.numFeatures ?? Infinity;
    this.#numLabels = options.numLabels ?? Infinity;
    this.#extra = options.allowExtraFields ?? false;
    this.#maxName = options.maxNameLength ?? 1024;
    this.#maxPerEvent = options.maxFeaturesPerEvent ?? Infinity;
  }

  /** The current feature-space size: hashed dimension, vocabulary size, or largest index + 1. */
  get numFeatures(): number {
    if (this.hasher) return this.hasher.dim;
    if (this.featureKeys === "name") return this.features.size;
    return Number.isFinite(this.#numFeatures) ? this.#numFeatures : this.maxFeatureIndex;
  }

  /** The current label-space size. */
  get numLabels(): number {
    if (this.labelKeys === "name") return this.labels.size;
    return Number.isFinite(this.#numLabels) ? this.#numLabels : this.maxLabelIndex;
  }

  /** Parses one line (without its newline). */
  parse(line: string): Example {
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      throw new SyntaxError(`malformed JSON (${(e as Error).message})`);
    }
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
      throw new TypeError("an event must be a JSON object");
    }
    const rec = obj as Record<string, unknown>;
    if (!this.#extra) {
      for (const key in rec) {
        if (!ALLOWED.has(key)) {
          throw new TypeError(
            `unknown field ${show(key)} (allowed: id, features, labels, negatives)`,
          );
        }
      }
    }
    let id: string | undefined;
    if (rec.id !== undefined && rec.id !== null) {
      if (typeof rec.id === "string") id = rec.id;
      else if (typeof rec.id === "number" && Number.isFinite(rec.id)) id = String(rec.id);
      else throw new TypeError("field 'id' must be a string or a finite number");
      if (id.length > this.#maxName) {
        throw new RangeError(`field 'id' is longer than ${this.#maxName} characters`);
      }
    }
    this.#checkFeatures(rec.features);
    if (rec.labels === undefined) throw new TypeError("field 'labels' is required (an array)");
    const lab = this.#labelKeys(rec.labels, "labels");
    const neg = rec.negatives === undefined || rec.negatives === null
      ? undefined
      : this.#labelKeys(rec.negatives, "negatives");
    this.#checkRoom(lab, neg);
    // all checks passed: map (this may grow the vocabularies)
    const x = this.#mapFeatures();
    const labels = this.#mapLabels(lab);
    const example: { -readonly [K in keyof Example]: Example[K] } = { x, labels };
    if (id !== undefined) example.id = id;
    if (neg !== undefined) {
      example.negatives = this.#mapLabels(neg);
    }
    return example;
  }

  /** Throws when the new names of a line would overflow a vocabulary, or labels ∩ negatives. */
  #checkRoom(lab: readonly (string | number)[], neg: readonly (string | number)[] | undefined) {
    if (neg !== undefined && neg.length > 0 && lab.length > 0) {
      const pos = new Set(lab.map(String));
      for (const n of neg) {
        if (pos.has(String(n))) {
          throw new RangeError(`label ${show(String(n))} is both in 'labels' and in 'negatives'`);
        }
      }
    }
    if (this.hasher === undefined && this.featureKeys === "name" && this.#growFeatures) {
      const v = this.features;
      if (Number.isFinite(v.maxSize)) {
        let fresh = 0;
        for (const k of this.#keys) if (v.idOf(k, false) < 0) fresh++;
        if (v.size + fresh > v.maxSize) {
          throw new RangeError(`the feature vocabulary is full (${v.maxSize} names)`);
        }
      }
    }
    if (this.labelKeys === "name" && this.#growLabels && Number.isFinite(this.labels.maxSize)) {
      const fresh = new Set<string>();
      for (const n of [...lab, ...(neg ?? [])]) {
        if (this.labels.idOf(String(n), false) < 0) fresh.add(String(n));
      }
      if (this.labels.size + fresh.size > this.labels.maxSize) {
        throw new RangeError(`the label vocabulary is full (${this.labels.maxSize} names)`);
      }
    }
  }

  #checkFeatures(f: unknown): void {
    if (f === null || typeof f !== "object" || Array.isArray(f)) {
      throw new TypeError("field 'features' must be an object {key: number}");
    }
    const fv = f as Record<string, unknown>;
    const keys = this.#keys, vals = this.#vals;
    keys.length = 0;
    vals.length = 0;
    // index keys go straight into the row builder (nothing grows until the line is accepted)
    const direct = this.hasher === undefined && this.featureKeys === "index";
    const row = this.#row;
    row.clear();
    let maxIndex = -1;
    let count = 0;
    for (const key in fv) {
      if (++count > this.#maxPerEvent) {
        throw new RangeError(`features: more than ${this.#maxPerEvent} features in one event`);
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
        const j = parseIndex(key);
        if (j < 0) {
          throw new RangeError(
            `features: key ${show(key)} is not a feature index (a non-negative integer)`,
          );
        }
        if (j >= this.#numFeatures) {
          throw new RangeError(`feature index ${j} is out of range [0, ${this.#numFeatures})`);
        }
        if (j > maxIndex) maxIndex = j;
        row.push(j, v);
        continue;
      }
      if (this.hasher === undefined && (key.length === 0 || key.length > this.#maxName)) {
        throw new RangeError(`features: name length must be 1..${this.#maxName}`);
      }
      keys.push(key);
      vals.push(v);
    }
    this.#pendingMax = maxIndex;
  }

  #mapFeatures(): SparseVector {
    const keys = this.#keys, vals = this.#vals;
    if (this.hasher) return this.hasher.hashNamed(keys, vals);
    const row = this.#row;
    if (this.featureKeys === "index") {
      if (this.#pendingMax + 1 > this.maxFeatureIndex) this.maxFeatureIndex = this.#pendingMax + 1;
      return row.build();
    }
    row.clear();
    for (let k = 0; k < keys.length; k++) {
      const j = this.features.idOf(keys[k], this.#growFeatures);
      if (j >= 0) row.push(j, vals[k]);
    }
    return row.build();
  }

  /**
   * Maps a `features` object for prediction without growing anything: unknown names and indices
   * outside `[0, numFeatures)` are dropped; with hashing the keys are hashed. Throws a TypeError
   * naming the key of a non-numeric or non-finite value.
   *
   * @example
   * ```ts
   * import { NdjsonParser } from "./ndjson.ts";
   * import { Vocabulary } from "./vocabulary.ts";
   * const p = new NdjsonParser({ featureKeys: "name", features: new Vocabulary(["a", "b"]) });
   * const x = p.featuresForPredict({ b: 2, zzz: 1 }, 2);
   * console.log([...x.indices], [...x.values], p.features.size); // [ 1 ] [ 2 ] 2
   * ```
   */
  featuresForPredict(f: unknown, numFeatures: number): SparseVector {
    if (f === null || typeof f !== "object" || Array.isArray(f)) {
      throw new TypeError("field 'features' must be an object {key: number}");
    }
    const fv = f as Record<string, unknown>;
    const keys: string[] = [], vals: number[] = [];
    const row = this.#row;
    row.clear();
    for (const key in fv) {
      const v = fv[key];
      if (typeof v !== "number" || !Number.isFinite(Math.fround(v))) {
        throw new TypeError(`features[${show(key)}]: value must be a finite number`);
      }
      if (this.hasher) {
        keys.push(key);
        vals.push(v);
        continue;
      }
      const j = this.featureKeys === "index" ? parseIndex(key) : this.features.idOf(key, false);
      if (this.featureKeys === "index" && j < 0) {
        throw new TypeError(`features: key ${show(key)} is not a feature index`);
      }
      if (j >= 0 && j < numFeatures) row.push(j, v);
    }
    if (this.hasher) {
      row.clear();
      return this.hasher.hashNamed(keys, vals);
    }
    return row.build();
  }

  #labelKeys(v: unknown, field: string): (string | number)[] {
    if (!Array.isArray(v)) throw new TypeError(`field '${field}' must be an array`);
    for (let i = 0; i < v.length; i++) {
      const n = v[i];
      if (this.labelKeys === "index") {
        if (!(typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= MAX_INDEX)) {
          throw new RangeError(`${field}[${i}]: ${JSON.stringify(n)} is not a label index`);
        }
        if (n >= this.#numLabels) {
          throw new RangeError(`label index ${n} is out of range [0, ${this.#numLabels})`);
        }
      } else if (typeof n === "string") {
        if (n.length === 0 || n.length > this.#maxName) {
          throw new RangeError(`${field}[${i}]: name length must be 1..${this.#maxName}`);
        }
        if (!this.#growLabels && this.labels.idOf(n, false) < 0) {
          throw new RangeError(`${field}[${i}]: unknown label ${show(n)}`);
        }
      } else if (typeof n === "number" && Number.isInteger(n) && n >= 0) {
        if (!this.#growLabels && this.labels.idOf(String(n), false) < 0) {
          throw new RangeError(`${field}[${i}]: unknown label ${n}`);
        }
      } else {
        throw new TypeError(
          `${field}[${i}]: a label must be a name (string) or a non-negative integer`,
        );
      }
    }
    return v as (string | number)[];
  }

  #mapLabels(names: readonly (string | number)[]): Int32Array {
    const out = new Int32Array(names.length);
    for (let i = 0; i < names.length; i++) {
      const n = names[i];
      if (this.labelKeys === "index") {
        out[i] = n as number;
        if ((n as number) + 1 > this.maxLabelIndex) this.maxLabelIndex = (n as number) + 1;
      } else {
        out[i] = this.labels.idOf(String(n), this.#growLabels);
      }
    }
    out.sort();
    let m = 0;
    for (let i = 0; i < out.length; i++) if (i === 0 || out[i] !== out[i - 1]) out[m++] = out[i];
    return m === out.length ? out : out.slice(0, m);
  }
}
