/**
 * NDJSON events, one JSON object per line:
 * `{"id": "...", "features": {"<name or index>": value, ...}, "labels": ["<name>", ...],
 * "negatives": ["<name>", ...], "text": "..."}`. `id` and `negatives` are optional; `text` is
 * read when a tokenizer is given (`text` option: `sdk/tokenizer.ts`, words and n-grams become
 * named features beside `features`, which is then optional); other fields are ignored and
 * counted in `ignoredFields` (with `strictFields`: rejected). Feature keys are column
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
import { hashBucket, hashSign, murmur3_32 } from "./feature_hash.ts";
import { RowBuilder } from "./sparse_row.ts";
import { textFeatures, type TextSettings, textSettingsError } from "../../sdk/tokenizer.ts";

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
  /**
   * Tokenize the `text` field with these settings (`sdk/tokenizer.ts`) into named features
   * (needs `featureKeys: "name"` or hashing). Without it `text` is an unknown field.
   */
  text?: TextSettings;
  /** Reject fields other than id/features/labels/negatives/text (default false: ignored, counted). */
  strictFields?: boolean;
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

const OPEN_BRACE = 123, CLOSE_BRACE = 125, OPEN_BRACKET = 91, CLOSE_BRACKET = 93;
const QUOTE = 34, COLON = 58, COMMA = 44;
const F_ID = 1, F_FEATURES = 2, F_LABELS = 4, F_NEGATIVES = 8;
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/**
 * First index at or after `p` (and before `end`) that is not JSON whitespace (space, tab, LF,
 * CR); `end` when there is none.
 *
 * @example
 * ```ts
 * import { skipJsonWhitespace } from "./ndjson.ts";
 * const b = new TextEncoder().encode(" \t{}");
 * console.log(skipJsonWhitespace(b, 0, b.length)); // 2
 * ```
 */
export function skipJsonWhitespace(b: Uint8Array, p: number, end: number): number {
  return skipWs(b, p, end);
}

function skipWs(b: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = b[p];
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
    p++;
  }
  return p;
}

/**
 * End (the closing quote) of a string body starting at `p` made of printable ASCII without
 * backslash, or -1 (escapes, control or non-ASCII characters, no closing quote).
 */
function endOfPlainString(b: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = b[p];
    if (c === QUOTE) return p;
    if (c < 32 || c > 126 || c === 92) return -1;
    p++;
  }
  return -1;
}

/**
 * End (the closing quote) of a string body starting at `p` without escapes or control
 * characters, whose bytes are well-formed UTF-8 (exactly what a fatal `TextDecoder` accepts:
 * no overlong forms, surrogates or code points over U+10FFFF), or -1.
 */
function endOfUtf8String(b: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = b[p];
    if (c < 0x80) {
      if (c === QUOTE) return p;
      if (c < 32 || c === 92) return -1;
      p++;
      continue;
    }
    // continuation bytes after the lead byte, and the range of the first of them
    let need: number, lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0; // no overlong 3-byte forms
      else if (c === 0xed) hi = 0x9f; // no surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90; // no overlong 4-byte forms
      else if (c === 0xf4) hi = 0x8f; // nothing over U+10FFFF
    } else {
      return -1;
    }
    if (p + need >= end) return -1;
    if (b[p + 1] < lo || b[p + 1] > hi) return -1;
    for (let i = 2; i <= need; i++) if (b[p + i] < 0x80 || b[p + i] > 0xbf) return -1;
    p += need + 1;
  }
  return -1;
}

/** Which event field the key bytes `[a, b)` spell (F_*), or 0. */
function fieldOf(bytes: Uint8Array, a: number, b: number): number {
  const n = b - a;
  if (n === 2 && bytes[a] === 105 && bytes[a + 1] === 100) return F_ID;
  if (n === 8 && matches(bytes, a, "features")) return F_FEATURES;
  if (n === 6 && matches(bytes, a, "labels")) return F_LABELS;
  if (n === 9 && matches(bytes, a, "negatives")) return F_NEGATIVES;
  return 0;
}

function matches(bytes: Uint8Array, a: number, word: string): boolean {
  for (let i = 0; i < word.length; i++) if (bytes[a + i] !== word.charCodeAt(i)) return false;
  return true;
}

function isNull(b: Uint8Array, p: number, end: number): boolean {
  return p + 4 <= end && b[p] === 110 && b[p + 1] === 117 && b[p + 2] === 108 && b[p + 3] === 108;
}

/** The ASCII bytes `[a, b)` as a string. */
function latin1(b: Uint8Array, a: number, e: number): string {
  let s = "";
  for (let i = a; i < e; i++) s += String.fromCharCode(b[i]);
  return s;
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
  readonly #strict: boolean;
  /** The tokenizer settings of `text` fields, when text is read. */
  readonly text: TextSettings | undefined;
  /** Unknown fields ignored so far, by name (at most 64 names; then `"…"` counts the rest). */
  readonly ignoredFields: Map<string, number> = new Map();
  readonly #maxName: number;
  readonly #maxPerEvent: number;
  readonly #row = new RowBuilder();
  readonly #keys: string[] = [];
  readonly #vals: number[] = [];
  #pendingMax = -1;
  /** The fast path hashed this line's features into the row builder already. */
  #prehashed = false;
  /** Scratch: the columns of a hashed line's features (collision check). */
  #hashedCols = new Int32Array(64);

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
    this.#strict = options.strictFields ?? false;
    if (options.text !== undefined) {
      const bad = textSettingsError(options.text);
      if (bad !== undefined) throw new TypeError(`ndjson: text: ${bad}`);
      if (!this.hasher && this.featureKeys !== "name") {
        throw new TypeError(
          `ndjson: text needs named feature keys (featureKeys "name" or hashing)`,
        );
      }
      this.text = { ...options.text };
    }
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
    const text = this.text;
    for (const key in rec) {
      if (ALLOWED.has(key) || (key === "text" && text)) continue;
      if (this.#strict) {
        throw new TypeError(
          `unknown field ${show(key)} (allowed: id, features, labels, negatives${
            text ? ", text" : ""
          })${key === "text" ? "; reading text needs a tokenizer (--text)" : ""}`,
        );
      }
      const ignored = this.ignoredFields;
      const name = ignored.has(key) || ignored.size < 64 ? key : "…";
      ignored.set(name, (ignored.get(name) ?? 0) + 1);
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
    if (text && rec.text !== undefined && rec.text !== null) {
      if (typeof rec.text !== "string") throw new TypeError("field 'text' must be a string");
      const f = text.ignoreFeatures || rec.features === null ? undefined : rec.features;
      this.#checkFeatures(f ?? {});
      this.#textKeys(textFeatures(rec.text, text, f as Record<string, number> | undefined));
    } else if (rec.features === undefined && text) {
      throw new TypeError("field 'features' or 'text' is required");
    } else this.#checkFeatures(rec.features);
    if (rec.labels === undefined) throw new TypeError("field 'labels' is required (an array)");
    const lab = this.#labelKeys(rec.labels, "labels");
    const neg = rec.negatives === undefined || rec.negatives === null
      ? undefined
      : this.#labelKeys(rec.negatives, "negatives");
    return this.#finish(id, lab, neg);
  }

  /** The common end of both parsers: room checks, then mapping (may grow the vocabularies). */
  #finish(
    id: string | undefined,
    lab: readonly (string | number)[],
    neg: readonly (string | number)[] | undefined,
  ): Example {
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

  /**
   * A fast path for the common event line, straight from its UTF-8 bytes `bytes[start, end)`:
   * index feature keys in increasing order, names without escapes, ASCII only (but hashed
   * feature names: any well-formed UTF-8). Returns exactly
   * what {@linkcode NdjsonParser.parse} returns for the decoded line, or `undefined` (changing
   * nothing) when the line is outside that subset or invalid: the caller then decodes it and
   * calls `parse`, which gives the result or the error. Only with `labelKeys: "name"` and
   * `featureKeys: "index"` or hashing (hashed feature names: in any order, each hashed from
   * its bytes; a line where two names fall into one column takes the slow path, so that sums
   * and JSON's last-duplicate-wins are exactly the slow path's); otherwise always `undefined`.
   *
   * @example
   * ```ts
   * import { NdjsonParser } from "./ndjson.ts";
   * const p = new NdjsonParser();
   * const line = new TextEncoder().encode('{"id": "e1", "features": {"2": 1, "7": 0.5}, "labels": ["a"]}');
   * const e = p.parseAscii(line, 0, line.length)!;
   * console.log(e.id, [...e.x.indices], [...e.x.values], [...e.labels]); // e1 [ 2, 7 ] [ 1, 0.5 ] [ 0 ]
   * const odd = new TextEncoder().encode('{"features": {"7": 1, "2": 1}, "labels": []}');
   * console.log(p.parseAscii(odd, 0, odd.length)); // undefined (keys out of order: use parse)
   * ```
   */
  parseAscii(bytes: Uint8Array, start: number, end: number): Example | undefined {
    if (
      (this.hasher === undefined && this.featureKeys !== "index") || this.labelKeys !== "name"
    ) return undefined;
    const s = this.#scan;
    s.bytes = bytes;
    s.end = end;
    this.#prehashed = false;
    let p = skipWs(bytes, start, end);
    if (p >= end || bytes[p] !== OPEN_BRACE) return undefined;
    p = skipWs(bytes, p + 1, end);
    let id: string | undefined;
    let seen = 0; // bits: 1 id, 2 features, 4 labels, 8 negatives
    let lab: (string | number)[] | undefined;
    let neg: (string | number)[] | undefined;
    if (p < end && bytes[p] === CLOSE_BRACE) return undefined; // no features: the slow path errs
    while (true) {
      if (p >= end || bytes[p] !== QUOTE) return undefined;
      const k0 = p + 1;
      const k1 = endOfPlainString(bytes, k0, end);
      if (k1 < 0) return undefined;
      const field = fieldOf(bytes, k0, k1);
      if (field === 0 || (seen & field) !== 0) return undefined; // unknown or repeated field
      seen |= field;
      p = skipWs(bytes, k1 + 1, end);
      if (p >= end || bytes[p] !== COLON) return undefined;
      p = skipWs(bytes, p + 1, end);
      if (p >= end) return undefined;
      if (field === F_ID) {
        if (bytes[p] === QUOTE) {
          const e = endOfPlainString(bytes, p + 1, end);
          if (e < 0 || e - p - 1 > this.#maxName) return undefined;
          id = latin1(bytes, p + 1, e);
          p = e + 1;
        } else if (isNull(bytes, p, end)) {
          p += 4;
        } else return undefined; // numeric ids: the slow path formats them
      } else if (field === F_FEATURES) {
        p = this.#scanFeatures(p);
        if (p < 0) return undefined;
      } else {
        if (field === F_NEGATIVES && isNull(bytes, p, end)) {
          p += 4;
        } else {
          const names: (string | number)[] = [];
          p = this.#scanNames(p, names);
          if (p < 0) return undefined;
          if (field === F_LABELS) lab = names;
          else neg = names;
        }
      }
      p = skipWs(bytes, p, end);
      if (p >= end) return undefined;
      if (bytes[p] === COMMA) {
        p = skipWs(bytes, p + 1, end);
        continue;
      }
      if (bytes[p] !== CLOSE_BRACE) return undefined;
      if (skipWs(bytes, p + 1, end) !== end) return undefined;
      break;
    }
    if ((seen & F_FEATURES) === 0 || lab === undefined) return undefined;
    try {
      return this.#finish(id, lab, neg);
    } catch {
      // labels ∩ negatives or a full vocabulary: nothing was added, parse reports it
      this.#row.clear();
      this.#prehashed = false;
      return undefined;
    }
  }

  /**
   * A fast path of {@linkcode NdjsonParser.featuresForPredict} for an index-keyed features
   * object given as ASCII bytes from `start` (its `{`) to before `end`, keys in increasing
   * order: the same row, and the position after the object; `undefined` when the object is
   * outside that subset (the caller then parses the JSON and calls `featuresForPredict`).
   *
   * @example
   * ```ts
   * import { NdjsonParser } from "./ndjson.ts";
   * const p = new NdjsonParser();
   * const b = new TextEncoder().encode('{"1": 2, "4": 0, "9": 1} tail');
   * const r = p.featuresForPredictAscii(b, 0, b.length, 8)!;
   * console.log([...r.x.indices], [...r.x.values], r.next); // [ 1 ] [ 2 ] 24
   * ```
   */
  featuresForPredictAscii(
    bytes: Uint8Array,
    start: number,
    end: number,
    numFeatures: number,
  ): { x: SparseVector; next: number } | undefined {
    if (this.hasher !== undefined || this.featureKeys !== "index") return undefined;
    const s = this.#scan;
    s.bytes = bytes;
    s.end = end;
    const next = this.#scanFeatures(start);
    if (next < 0) {
      this.#row.clear();
      return undefined;
    }
    const row = this.#row.build();
    let n = row.indices.length;
    while (n > 0 && row.indices[n - 1] >= numFeatures) n--;
    const x = n === row.indices.length
      ? row
      : { indices: row.indices.slice(0, n), values: row.values.slice(0, n) };
    return { x, next };
  }

  /**
   * A JSON array of numbers as ASCII bytes from `start` (its `[`) to before `end`: the numbers
   * (as `JSON.parse` reads them) and the position after the array; with `indices`, only plain
   * non-negative integers up to 2^31 − 1 in strictly increasing order are taken. `undefined`
   * for anything else (the caller then parses the JSON, which also reports errors). The fast
   * path of the compact `/predict` row form.
   *
   * @example
   * ```ts
   * import { NdjsonParser } from "./ndjson.ts";
   * const p = new NdjsonParser();
   * const b = new TextEncoder().encode('[1, 4, 9] [0.5, -2e1]');
   * console.log(p.numberArrayAscii(b, 0, b.length, true)); // { values: [ 1, 4, 9 ], next: 9 }
   * console.log(p.numberArrayAscii(b, 10, b.length, false)?.values); // [ 0.5, -20 ]
   * console.log(p.numberArrayAscii(b, 10, b.length, true)); // undefined
   * ```
   */
  numberArrayAscii(
    bytes: Uint8Array,
    start: number,
    end: number,
    indices: boolean,
  ): { values: number[]; next: number } | undefined {
    if (bytes[start] !== OPEN_BRACKET) return undefined;
    const s = this.#scan;
    s.bytes = bytes;
    s.end = end;
    const values: number[] = [];
    let p = skipWs(bytes, start + 1, end);
    if (p < end && bytes[p] === CLOSE_BRACKET) return { values, next: p + 1 };
    let prev = -1;
    while (true) {
      let v: number;
      if (indices) {
        v = this.#scanIndex(p);
        if (v < 0 || v <= prev) return undefined;
        prev = v;
        p = this.#numEnd;
      } else {
        v = this.#scanNumber(p);
        if (v !== v) return undefined;
        p = this.#numEnd;
      }
      values.push(v);
      p = skipWs(bytes, p, end);
      if (p >= end) return undefined;
      if (bytes[p] === COMMA) {
        p = skipWs(bytes, p + 1, end);
        continue;
      }
      if (bytes[p] !== CLOSE_BRACKET) return undefined;
      return { values, next: p + 1 };
    }
  }

  readonly #scan: { bytes: Uint8Array; end: number } = { bytes: new Uint8Array(0), end: 0 };

  /**
   * A canonical index at `p` of the scanned bytes (0, or 1-9 then digits; at most 10 digits,
   * <= 2^31 - 1): its value, with `#numEnd` after its digits; -1 for anything else.
   */
  #scanIndex(p: number): number {
    const { bytes, end } = this.#scan;
    let q = p, v = 0;
    while (q < end && bytes[q] >= 48 && bytes[q] <= 57) v = v * 10 + (bytes[q++] - 48);
    const nd = q - p;
    this.#numEnd = q;
    return nd === 0 || nd > 10 || (nd > 1 && bytes[p] === 48) || v > MAX_INDEX ? -1 : v;
  }

  /** Scans `{"<index>": number, ...}` with increasing indices into the row builder; -1: bail. */
  #scanFeatures(p: number): number {
    const { bytes, end } = this.#scan;
    if (bytes[p] !== OPEN_BRACE) return -1;
    const row = this.#row;
    row.clear();
    this.#keys.length = 0;
    this.#vals.length = 0;
    if (this.hasher !== undefined) return this.#scanHashedFeatures(p, this.hasher);
    let prev = -1, count = 0;
    p = skipWs(bytes, p + 1, end);
    if (p < end && bytes[p] === CLOSE_BRACE) {
      this.#pendingMax = -1;
      return p + 1;
    }
    while (true) {
      if (p >= end || bytes[p] !== QUOTE) return -1;
      const j = this.#scanIndex(p + 1), q = this.#numEnd;
      if (j < 0 || q >= end || bytes[q] !== QUOTE) return -1;
      if (j <= prev || j >= this.#numFeatures || ++count > this.#maxPerEvent) return -1;
      prev = j;
      const v = this.#memberValue(q);
      if (v !== v) return -1;
      row.push(j, v);
      p = this.#nextMember();
      if (p < 0) return -1;
      if (!this.#atClose) continue;
      this.#pendingMax = prev;
      return p;
    }
  }

  /**
   * The value of a `"key": number` member whose key's closing quote is at `q`: NaN when the
   * colon or the number is missing or the number is not a finite 32-bit float (its end goes to
   * `#numEnd`).
   */
  #memberValue(q: number): number {
    const { bytes, end } = this.#scan;
    let p = skipWs(bytes, q + 1, end);
    if (p >= end || bytes[p] !== COLON) return NaN;
    p = skipWs(bytes, p + 1, end);
    const v = this.#scanNumber(p);
    return Number.isFinite(Math.fround(v)) ? v : NaN;
  }

  /** Set by {@linkcode NdjsonParser.#nextMember}: the object closed. */
  #atClose = false;

  /**
   * After a member's value (from `#numEnd`): the position of the next key after a comma, or the
   * position after the closing brace with `#atClose` set; -1 for anything else.
   */
  #nextMember(): number {
    const { bytes, end } = this.#scan;
    const p = skipWs(bytes, this.#numEnd, end);
    if (p >= end) return -1;
    this.#atClose = bytes[p] === CLOSE_BRACE;
    if (this.#atClose) return p + 1;
    return bytes[p] === COMMA ? skipWs(bytes, p + 1, end) : -1;
  }
  /**
   * `#scanFeatures` with hashed names, from the object's `{` at `p` (the row builder cleared):
   * each plain-string key is hashed from its bytes (the
   * UTF-8 the slow path hashes); -1 when two keys fall into one column (the slow path then
   * sums, or keeps JSON's last duplicate, in its own order) or the object is outside the subset.
   */
  #scanHashedFeatures(p: number, hasher: FeatureHasher): number {
    const { bytes, end } = this.#scan;
    const row = this.#row;
    this.#pendingMax = -1;
    const dim = hasher.dim, seed = hasher.seed, signed = hasher.signed;
    let cols = this.#hashedCols, count = 0;
    p = skipWs(bytes, p + 1, end);
    if (p < end && bytes[p] === CLOSE_BRACE) {
      this.#prehashed = true;
      return p + 1;
    }
    while (true) {
      if (p >= end || bytes[p] !== QUOTE) return -1;
      const k0 = p + 1;
      // any well-formed UTF-8 name: its bytes are the UTF-8 the slow path hashes
      const k1 = endOfUtf8String(bytes, k0, end);
      if (k1 < 0 || ++count > this.#maxPerEvent) return -1;
      const v = this.#memberValue(k1);
      if (v !== v) return -1;
      const h = murmur3_32(bytes, seed, k1 - k0, k0);
      const col = hashBucket(h, dim);
      if (count > cols.length) {
        const next = new Int32Array(cols.length * 2);
        next.set(cols);
        cols = this.#hashedCols = next;
      }
      cols[count - 1] = col;
      row.push(col, signed ? hashSign(h) * v : v);
      p = this.#nextMember();
      if (p < 0) return -1;
      if (!this.#atClose) continue;
      const used = cols.subarray(0, count).sort();
      for (let i = 1; i < count; i++) if (used[i] === used[i - 1]) return -1;
      this.#prehashed = true;
      return p;
    }
  }

  #numEnd = 0;

  /**
   * A JSON number at `p` (its end in `#numEnd`), as `JSON.parse` reads it; NaN when there is
   * none. Up to 15 significant digits and a power of ten within 10^±22 are exact in one
   * multiplication or division (so correctly rounded); other numbers go through `Number`.
   */
  #scanNumber(p: number): number {
    const { bytes, end } = this.#scan;
    const p0 = p;
    let neg = false;
    if (p < end && bytes[p] === 45) {
      neg = true;
      p++;
    }
    if (p >= end) return NaN;
    let m = 0, digits = 0, exp = 0;
    if (bytes[p] === 48) {
      p++;
    } else if (bytes[p] >= 49 && bytes[p] <= 57) {
      while (p < end && bytes[p] >= 48 && bytes[p] <= 57) {
        m = m * 10 + (bytes[p++] - 48);
        digits++;
      }
    } else return NaN;
    if (p < end && bytes[p] === 46) {
      p++;
      const f0 = p;
      while (p < end && bytes[p] >= 48 && bytes[p] <= 57) {
        m = m * 10 + (bytes[p++] - 48);
        if (m !== 0) digits++;
        exp--;
      }
      if (p === f0) return NaN;
    }
    if (p < end && (bytes[p] === 101 || bytes[p] === 69)) {
      p++;
      let eneg = false;
      if (p < end && (bytes[p] === 43 || bytes[p] === 45)) eneg = bytes[p++] === 45;
      const e0 = p;
      let e = 0;
      while (p < end && bytes[p] >= 48 && bytes[p] <= 57) {
        if (e < 100000) e = e * 10 + (bytes[p] - 48);
        p++;
      }
      if (p === e0) return NaN;
      exp += eneg ? -e : e;
    }
    this.#numEnd = p;
    let v: number;
    if (digits <= 15 && exp >= -22 && exp <= 22) {
      v = exp === 0 ? m : exp < 0 ? m / POW10[-exp] : m * POW10[exp];
    } else {
      v = Number(latin1(bytes, p0, p));
      return v;
    }
    return neg ? -v : v;
  }

  /** Scans an array of plain label names or non-negative integers into `out`; -1: bail. */
  #scanNames(p: number, out: (string | number)[]): number {
    const { bytes, end } = this.#scan;
    if (bytes[p] !== OPEN_BRACKET) return -1;
    p = skipWs(bytes, p + 1, end);
    if (p < end && bytes[p] === CLOSE_BRACKET) return p + 1;
    while (true) {
      if (p >= end) return -1;
      if (bytes[p] === QUOTE) {
        const e = endOfPlainString(bytes, p + 1, end);
        const len = e - p - 1;
        if (e < 0 || len === 0 || len > this.#maxName) return -1;
        const name = latin1(bytes, p + 1, e);
        if (!this.#growLabels && this.labels.idOf(name, false) < 0) return -1;
        out.push(name);
        p = e + 1;
      } else {
        // a plain non-negative integer (no sign, fraction or exponent), up to 15 digits
        let q = p, v = 0;
        while (q < end && bytes[q] >= 48 && bytes[q] <= 57) v = v * 10 + (bytes[q++] - 48);
        const nd = q - p;
        if (nd === 0 || nd > 15 || (nd > 1 && bytes[p] === 48)) return -1;
        if (q < end && (bytes[q] === 46 || bytes[q] === 101 || bytes[q] === 69)) return -1;
        if (!this.#growLabels && this.labels.idOf(String(v), false) < 0) return -1;
        out.push(v);
        p = q;
      }
      p = skipWs(bytes, p, end);
      if (p >= end) return -1;
      if (bytes[p] === COMMA) {
        p = skipWs(bytes, p + 1, end);
        continue;
      }
      if (bytes[p] !== CLOSE_BRACKET) return -1;
      return p + 1;
    }
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
    this.#prehashed = false;
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

  /**
   * Replaces the checked features by a text's named features (`features` merged in): names
   * longer than the name limit are dropped in a vocabulary (they never enter it, so a reader
   * drops them too).
   */
  #textKeys(m: Map<string, number>): void {
    const keys = this.#keys, vals = this.#vals, vocab = !this.hasher;
    keys.length = 0;
    vals.length = 0;
    for (const [k, v] of m) {
      if (vocab && k.length > this.#maxName) continue;
      keys.push(k);
      vals.push(v);
    }
    if (keys.length > this.#maxPerEvent) {
      throw new RangeError(`text: more than ${this.#maxPerEvent} features in one event`);
    }
  }

  /**
   * Maps a text (and optional `features` beside it) for prediction, without growing anything:
   * the named features of `sdk/tokenizer.ts`'s `textFeatures` mapped as
   * {@linkcode NdjsonParser.featuresForPredict} maps names. Throws a TypeError when the parser
   * reads no text or `text` is not a string, or naming a bad feature.
   *
   * @example
   * ```ts
   * import { NdjsonParser } from "./ndjson.ts";
   * const p = new NdjsonParser({ hashing: { dim: 1 << 20 }, text: { ngrams: 2 } });
   * const x = p.textForPredict("Fast, fast CSV parser", undefined, 1 << 20);
   * console.log(x.indices.length, [...x.values].sort()); // 5 [ 1, 1, 1, 1, 2 ]
   * ```
   */
  textForPredict(text: unknown, features: unknown, numFeatures: number): SparseVector {
    const t = this.text;
    if (!t) throw new TypeError("this model was not trained on text");
    if (typeof text !== "string") throw new TypeError("field 'text' must be a string");
    const f = t.ignoreFeatures || features === null ? undefined : features;
    if (f !== undefined) this.featuresForPredict(f, numFeatures); // validates
    const m = textFeatures(text, t, f as Record<string, number> | undefined);
    const row = this.#row;
    row.clear();
    if (this.hasher) return this.hasher.hashNamed([...m.keys()], [...m.values()]);
    for (const [k, v] of m) {
      const j = this.features.idOf(k, false);
      if (j >= 0 && j < numFeatures) row.push(j, v);
    }
    return row.build();
  }

  #mapFeatures(): SparseVector {
    const keys = this.#keys, vals = this.#vals;
    if (this.#prehashed) {
      this.#prehashed = false;
      return this.#row.build();
    }
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
        throw new TypeError(
          `features[${show(key)}]: value must be a finite number, got ${
            typeof v === "number" ? v : JSON.stringify(v)?.slice(0, 20)
          }`,
        );
      }
      if (this.hasher) {
        keys.push(key);
        vals.push(v);
        continue;
      }
      const j = this.featureKeys === "index" ? parseIndex(key) : this.features.idOf(key, false);
      if (this.featureKeys === "index" && j < 0) {
        throw new TypeError(
          `features: key ${show(key)} is not a feature index (a non-negative integer)`,
        );
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
