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
 * The parser is split by concept, one module each: the options (`ndjson_options.ts`), byte
 * helpers and a number reader over JSON text (`json_text.ts`, `json_cursor.ts`), the checked
 * features of the line being parsed (`ndjson_features.ts`), its labels (`ndjson_labels.ts`),
 * the fast path straight from bytes (`ndjson_fast_path.ts`) and the rows for prediction
 * (`ndjson_predict.ts`). {@linkcode NdjsonParser} ties them together; this module re-exports
 * the options and `skipJsonWhitespace`.
 *
 * @module
 */
import type { Example, SparseVector } from "./types.ts";
import type { Vocabulary } from "./vocabulary.ts";
import type { FeatureHasher } from "./hashing.ts";
import { textFeatures, type TextSettings } from "../../sdk/internal.ts";
import {
  type FeatureKeys,
  type NdjsonOptions,
  type NdjsonSettings,
  resolveNdjsonOptions,
} from "./ndjson_options.ts";
import { EventFeatures } from "./ndjson_features.ts";
import { checkLabelOverlap, checkLabelRoom, checkLabels, mapLabels } from "./ndjson_labels.ts";
import { EventLineScanner } from "./ndjson_fast_path.ts";
import { featuresForPredict, featuresForPredictAscii, textForPredict } from "./ndjson_predict.ts";
import { JsonCursor } from "./json_cursor.ts";
import { showName as show } from "./json_text.ts";

export type { FeatureKeys, NdjsonOptions } from "./ndjson_options.ts";
export { skipJsonWhitespace } from "./json_text.ts";

const ALLOWED = new Set(["id", "features", "labels", "negatives"]);

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
  /** The tokenizer settings of `text` fields, when text is read. */
  readonly text: TextSettings | undefined;
  /** Unknown fields ignored so far, by name (at most 64 names; then `"…"` counts the rest). */
  readonly ignoredFields: Map<string, number> = new Map();
  readonly #s: NdjsonSettings;
  /** The checked features of the line being parsed. */
  readonly #line: EventFeatures;
  readonly #cursor: JsonCursor = new JsonCursor();
  readonly #fast: EventLineScanner;

  /**
   * A parser with the given options (checked: a bad key mode or text setting is a TypeError).
   *
   * @param options key modes, vocabularies, hashing and bounds
   */
  constructor(options: NdjsonOptions = {}) {
    const s = resolveNdjsonOptions(options);
    this.#s = s;
    this.featureKeys = s.featureKeys;
    this.labelKeys = s.labelKeys;
    this.features = s.features;
    this.labels = s.labels;
    this.hasher = s.hasher;
    this.text = s.text;
    this.#line = new EventFeatures(s);
    this.#fast = new EventLineScanner(s, this.#line, this.#cursor);
  }

  /** The current feature-space size: hashed dimension, vocabulary size, or largest index + 1. */
  get numFeatures(): number {
    if (this.hasher) return this.hasher.dim;
    if (this.featureKeys === "name") return this.features.size;
    const n = this.#s.numFeatures;
    return Number.isFinite(n) ? n : this.maxFeatureIndex;
  }

  /** The current label-space size. */
  get numLabels(): number {
    if (this.labelKeys === "name") return this.labels.size;
    const n = this.#s.numLabels;
    return Number.isFinite(n) ? n : this.maxLabelIndex;
  }

  /** Parses one line (without its newline). */
  parse(line: string): Example {
    const s = this.#s;
    if (line.charCodeAt(0) === 0xfeff) {
      // a BOM means something only as the first character of the input (readers drop it there)
      throw new SyntaxError(
        "malformed JSON (a byte-order mark U+FEFF begins the line; one is allowed only at the start of the input)",
      );
    }
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
      if (s.strictFields) {
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
      if (id.length > s.maxNameLength) {
        throw new RangeError(`field 'id' is longer than ${s.maxNameLength} characters`);
      }
    }
    if (text && rec.text !== undefined && rec.text !== null) {
      if (typeof rec.text !== "string") throw new TypeError("field 'text' must be a string");
      const f = text.ignoreFeatures || rec.features === null ? undefined : rec.features;
      this.#line.check(f ?? {});
      this.#line.useText(textFeatures(rec.text, text, f as Record<string, number> | undefined));
    } else if (rec.features === undefined && text) {
      throw new TypeError("field 'features' or 'text' is required");
    } else if (rec.features === undefined && typeof rec.text === "string") {
      // (the plain "must be an object" did not say why an event of raw text was refused)
      throw new TypeError(
        "field 'features' is required: this event has only 'text', and reading text needs a " +
          "tokenizer (--text)",
      );
    } else this.#line.check(rec.features);
    if (rec.labels === undefined) throw new TypeError("field 'labels' is required (an array)");
    const lab = checkLabels(s, rec.labels, "labels");
    const neg = rec.negatives === undefined || rec.negatives === null
      ? undefined
      : checkLabels(s, rec.negatives, "negatives");
    return this.#finish(id, lab, neg);
  }

  /** The common end of both parsers: room checks, then mapping (may grow the vocabularies). */
  #finish(
    id: string | undefined,
    lab: readonly (string | number)[],
    neg: readonly (string | number)[] | undefined,
  ): Example {
    const s = this.#s;
    checkLabelOverlap(lab, neg);
    this.#line.checkRoom();
    checkLabelRoom(s, lab, neg);
    // all checks passed: map (this may grow the vocabularies)
    const x = this.#mapFeatures();
    const labels = mapLabels(s, lab, this);
    const example: { -readonly [K in keyof Example]: Example[K] } = { x, labels };
    if (id !== undefined) example.id = id;
    if (neg !== undefined) {
      example.negatives = mapLabels(s, neg, this);
    }
    return example;
  }

  /** The accepted line's features as a row (index keys: notes the largest index). */
  #mapFeatures(): SparseVector {
    const line = this.#line;
    if (!line.prehashed && this.hasher === undefined && this.featureKeys === "index") {
      if (line.pendingMax + 1 > this.maxFeatureIndex) this.maxFeatureIndex = line.pendingMax + 1;
    }
    return line.map();
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
    const fast = this.#fast;
    if (!fast.scanEvent(bytes, start, end)) return undefined;
    try {
      return this.#finish(fast.id, fast.labels!, fast.negatives);
    } catch {
      // labels ∩ negatives or a full vocabulary: nothing was added, parse reports it
      this.#line.row.clear();
      this.#line.prehashed = false;
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
    return featuresForPredictAscii(
      this.#s,
      this.#fast,
      this.#cursor,
      this.#line.row,
      bytes,
      start,
      end,
      numFeatures,
    );
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
    this.#cursor.reset(bytes, end);
    return this.#cursor.numberArray(start, indices);
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
    return textForPredict(this.#s, this.#line.row, text, features, numFeatures);
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
    return featuresForPredict(this.#s, this.#line.row, f, numFeatures);
  }
}
