/**
 * The fast path of the NDJSON event parser: the common event line read straight from its UTF-8
 * bytes, without decoding it or calling `JSON.parse` — index feature keys in increasing order
 * (or hashed feature names), label names without escapes, ASCII only (but hashed feature
 * names: any well-formed UTF-8). A line outside that subset, or an invalid one, is left to the
 * slow path (`NdjsonParser.parse`), which gives the result or the error; the fast path changes
 * nothing then.
 *
 * @module
 */
import type { FeatureHasher } from "./hashing.ts";
import { hashBucket, hashSign } from "./feature_hash.ts";
import { murmur3 } from "../../sdk/internal.ts";
import type { NdjsonSettings } from "./ndjson_options.ts";
import type { EventFeatures } from "./ndjson_features.ts";
import type { JsonCursor } from "./json_cursor.ts";
import {
  endOfPlainString,
  endOfUtf8String,
  isJsonNull as isNull,
  latin1,
  skipJsonWhitespace as skipWs,
} from "./json_text.ts";

const OPEN_BRACE = 123, CLOSE_BRACE = 125, OPEN_BRACKET = 91, CLOSE_BRACKET = 93;
const QUOTE = 34, COLON = 58, COMMA = 44;
const F_ID = 1, F_FEATURES = 2, F_LABELS = 4, F_NEGATIVES = 8;

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

/**
 * Scans event lines (and `features` objects) from bytes into an {@linkcode EventFeatures} and
 * its own `id`, `labels` and `negatives`, through a shared {@linkcode JsonCursor}. Checks
 * everything the slow path checks except what needs the whole line (labels ∩ negatives,
 * vocabulary room), which the parser checks before mapping.
 *
 * @example
 * ```ts
 * import { EventLineScanner } from "./ndjson_fast_path.ts";
 * import { EventFeatures } from "./ndjson_features.ts";
 * import { JsonCursor } from "./json_cursor.ts";
 * import { resolveNdjsonOptions } from "./ndjson_options.ts";
 * const s = resolveNdjsonOptions();
 * const scanner = new EventLineScanner(s, new EventFeatures(s), new JsonCursor());
 * const b = new TextEncoder().encode('{"id": "e1", "features": {"2": 1}, "labels": ["a"]}');
 * console.log(scanner.scanEvent(b, 0, b.length), scanner.id, scanner.labels); // true e1 [ "a" ]
 * console.log(scanner.scanEvent(new TextEncoder().encode('{"x": 1}'), 0, 8)); // false
 * ```
 */
export class EventLineScanner {
  /** The `id` of the line scanned last (undefined: none). */
  id: string | undefined;
  /** Its labels (names or integers). */
  labels: (string | number)[] | undefined;
  /** Its negatives (undefined: none). */
  negatives: (string | number)[] | undefined;
  readonly #s: NdjsonSettings;
  readonly #line: EventFeatures;
  readonly #cur: JsonCursor;

  /**
   * A scanner writing into `line`, reading numbers through `cursor`.
   *
   * @param settings the parser's settings
   * @param line where the features go
   * @param cursor the number reader over the bytes
   */
  constructor(settings: NdjsonSettings, line: EventFeatures, cursor: JsonCursor) {
    this.#s = settings;
    this.#line = line;
    this.#cur = cursor;
  }

  /**
   * Scans the event line `bytes[start, end)`: true when it is inside the subset and valid so
   * far (features in the {@linkcode EventFeatures}; `id`, `labels`, `negatives` set), false
   * otherwise. Only with `featureKeys: "index"` or hashing (the caller checks the key modes).
   */
  scanEvent(bytes: Uint8Array, start: number, end: number): boolean {
    this.#cur.reset(bytes, end);
    this.#line.prehashed = false;
    let p = skipWs(bytes, start, end);
    if (p >= end || bytes[p] !== OPEN_BRACE) return false;
    p = skipWs(bytes, p + 1, end);
    let id: string | undefined;
    let seen = 0; // bits: 1 id, 2 features, 4 labels, 8 negatives
    let lab: (string | number)[] | undefined;
    let neg: (string | number)[] | undefined;
    if (p < end && bytes[p] === CLOSE_BRACE) return false; // no features: the slow path errs
    while (true) {
      if (p >= end || bytes[p] !== QUOTE) return false;
      const k0 = p + 1;
      const k1 = endOfPlainString(bytes, k0, end);
      if (k1 < 0) return false;
      const field = fieldOf(bytes, k0, k1);
      if (field === 0 || (seen & field) !== 0) return false; // unknown or repeated field
      seen |= field;
      p = skipWs(bytes, k1 + 1, end);
      if (p >= end || bytes[p] !== COLON) return false;
      p = skipWs(bytes, p + 1, end);
      if (p >= end) return false;
      if (field === F_ID) {
        if (bytes[p] === QUOTE) {
          const e = endOfPlainString(bytes, p + 1, end);
          if (e < 0 || e - p - 1 > this.#s.maxNameLength) return false;
          id = latin1(bytes, p + 1, e);
          p = e + 1;
        } else if (isNull(bytes, p, end)) {
          p += 4;
        } else return false; // numeric ids: the slow path formats them
      } else if (field === F_FEATURES) {
        p = this.scanFeatures(p);
        if (p < 0) return false;
      } else {
        if (field === F_NEGATIVES && isNull(bytes, p, end)) {
          p += 4;
        } else {
          const names: (string | number)[] = [];
          p = this.#scanNames(p, names);
          if (p < 0) return false;
          if (field === F_LABELS) lab = names;
          else neg = names;
        }
      }
      p = skipWs(bytes, p, end);
      if (p >= end) return false;
      if (bytes[p] === COMMA) {
        p = skipWs(bytes, p + 1, end);
        continue;
      }
      if (bytes[p] !== CLOSE_BRACE) return false;
      if (skipWs(bytes, p + 1, end) !== end) return false;
      break;
    }
    if ((seen & F_FEATURES) === 0 || lab === undefined) return false;
    this.id = id;
    this.labels = lab;
    this.negatives = neg;
    return true;
  }

  /**
   * Scans `{"<index>": number, ...}` with increasing indices (or, hashing, any names) from its
   * `{` at `p` of the cursor's bytes into the row builder: the position after it, or -1 (bail).
   */
  scanFeatures(p: number): number {
    const cur = this.#cur;
    const bytes = cur.bytes, end = cur.end;
    if (bytes[p] !== OPEN_BRACE) return -1;
    const line = this.#line, s = this.#s;
    const row = line.row;
    row.clear();
    line.keys.length = 0;
    line.vals.length = 0;
    if (s.hasher !== undefined) return this.#scanHashedFeatures(p, s.hasher);
    let prev = -1, count = 0;
    p = skipWs(bytes, p + 1, end);
    if (p < end && bytes[p] === CLOSE_BRACE) {
      line.pendingMax = -1;
      return p + 1;
    }
    while (true) {
      if (p >= end || bytes[p] !== QUOTE) return -1;
      const j = cur.index(p + 1), q = cur.numEnd;
      if (j < 0 || q >= end || bytes[q] !== QUOTE) return -1;
      if (j <= prev || j >= s.numFeatures || ++count > s.maxFeaturesPerEvent) return -1;
      prev = j;
      const v = cur.memberValue(q);
      if (v !== v) return -1;
      row.push(j, v);
      p = cur.nextMember();
      if (p < 0) return -1;
      if (!cur.atClose) continue;
      line.pendingMax = prev;
      return p;
    }
  }

  /**
   * `scanFeatures` with hashed names, from the object's `{` at `p` (the row builder cleared):
   * each plain-string key is hashed from its bytes (the
   * UTF-8 the slow path hashes); -1 when two keys fall into one column (the slow path then
   * sums, or keeps JSON's last duplicate, in its own order) or the object is outside the subset.
   */
  #scanHashedFeatures(p: number, hasher: FeatureHasher): number {
    const cur = this.#cur;
    const bytes = cur.bytes, end = cur.end;
    const line = this.#line;
    const row = line.row;
    const maxPerEvent = this.#s.maxFeaturesPerEvent;
    line.pendingMax = -1;
    const dim = hasher.dim, seed = hasher.seed, signed = hasher.signed;
    let cols = line.hashedCols, count = 0;
    p = skipWs(bytes, p + 1, end);
    if (p < end && bytes[p] === CLOSE_BRACE) {
      line.prehashed = true;
      return p + 1;
    }
    while (true) {
      if (p >= end || bytes[p] !== QUOTE) return -1;
      const k0 = p + 1;
      // any well-formed UTF-8 name: its bytes are the UTF-8 the slow path hashes
      const k1 = endOfUtf8String(bytes, k0, end);
      if (k1 < 0 || ++count > maxPerEvent) return -1;
      const v = cur.memberValue(k1);
      if (v !== v) return -1;
      const h = murmur3(bytes, seed, k1 - k0, k0);
      const col = hashBucket(h, dim);
      if (count > cols.length) {
        const next = new Int32Array(cols.length * 2);
        next.set(cols);
        cols = line.hashedCols = next;
      }
      cols[count - 1] = col;
      row.push(col, signed ? hashSign(h) * v : v);
      p = cur.nextMember();
      if (p < 0) return -1;
      if (!cur.atClose) continue;
      const used = cols.subarray(0, count).sort();
      for (let i = 1; i < count; i++) if (used[i] === used[i - 1]) return -1;
      line.prehashed = true;
      return p;
    }
  }

  /** Scans an array of plain label names or non-negative integers into `out`; -1: bail. */
  #scanNames(p: number, out: (string | number)[]): number {
    const cur = this.#cur;
    const bytes = cur.bytes, end = cur.end;
    const s = this.#s;
    if (bytes[p] !== OPEN_BRACKET) return -1;
    p = skipWs(bytes, p + 1, end);
    if (p < end && bytes[p] === CLOSE_BRACKET) return p + 1;
    while (true) {
      if (p >= end) return -1;
      if (bytes[p] === QUOTE) {
        const e = endOfPlainString(bytes, p + 1, end);
        const len = e - p - 1;
        if (e < 0 || len === 0 || len > s.maxNameLength) return -1;
        const name = latin1(bytes, p + 1, e);
        if (!s.growLabels && s.labels.idOf(name, false) < 0) return -1;
        out.push(name);
        p = e + 1;
      } else {
        // a plain non-negative integer (no sign, fraction or exponent), up to 15 digits
        let q = p, v = 0;
        while (q < end && bytes[q] >= 48 && bytes[q] <= 57) v = v * 10 + (bytes[q++] - 48);
        const nd = q - p;
        if (nd === 0 || nd > 15 || (nd > 1 && bytes[p] === 48)) return -1;
        if (q < end && (bytes[q] === 46 || bytes[q] === 101 || bytes[q] === 69)) return -1;
        if (!s.growLabels && s.labels.idOf(String(v), false) < 0) return -1;
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
}
