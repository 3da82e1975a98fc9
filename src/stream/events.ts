/**
 * Per-line validation of NDJSON events for the learning service, on top of the data layer's
 * {@linkcode NdjsonParser} (`{"id": "...", "features": {"<index or name>": value, ...},
 * "labels": ["<name>", ...], "negatives": ["<name>", ...], "text": "..."}`; `text` with a
 * tokenizer, `limits.text`; other fields are ignored unless `strictFields`): a bad line gets a
 * reason instead of an exception, lines are bounded in length, vocabularies in size, and
 * prediction rows are mapped without growing anything.
 *
 * @module
 */
import type { Example, SparseVector } from "../data/types.ts";
import { Vocabulary } from "../data/vocabulary.ts";
import { type FeatureKeys, NdjsonParser, skipJsonWhitespace } from "../data/ndjson.ts";
import type { HashingOptions } from "../data/hashing.ts";
import type { FeatureSpace } from "../format/types.ts";
import type { TextSettings } from "../../sdk/tokenizer.ts";

export type { FeatureKeys } from "../data/ndjson.ts";

/**
 * Limits and key mode of {@linkcode EventParser} (all optional).
 *
 * @example
 * ```ts
 * import type { EventLimits } from "./events.ts";
 * const l: EventLimits = { featureKeys: "index", maxFeatures: 1 << 16, maxLineBytes: 1 << 16 };
 * console.log(l.maxFeatures); // 65536
 * ```
 */
export interface EventLimits {
  /**
   * `"index"` (default): keys are non-negative integer column indices; `"name"`: names (grown
   * into a vocabulary, or hashed with `hashing`).
   */
  featureKeys?: FeatureKeys;
  /**
   * Hash feature names into `dim` columns instead of growing a vocabulary (fixed memory for
   * open-ended names; implies and requires `featureKeys: "name"`). The model file then carries
   * the hashing parameters, so the SDK answers named queries the same way.
   */
  hashing?: HashingOptions;
  /** Largest feature-space size accepted (index bound, or vocabulary size). Default 2^20. */
  maxFeatures?: number;
  /** Largest label-space size accepted. Default 2^16. */
  maxLabels?: number;
  /** Longest accepted line in bytes. Default 65536. */
  maxLineBytes?: number;
  /** Longest feature or label name, in characters. Default 256. */
  maxNameLength?: number;
  /**
   * Read the events' `text` with this tokenizer (`sdk/tokenizer.ts`; needs name keys): its
   * words and n-grams become named features (beside `features`). The model file's feature
   * space carries the settings, so the SDK answers `{text}` queries the same way.
   */
  text?: TextSettings;
  /** Reject events with fields the parser does not know (default false: they are ignored). */
  strictFields?: boolean;
}

/**
 * Bounds on how fast and how far a stream may grow the model (the service's `--max-features`,
 * `--max-labels`, `--max-feature-growth`, `--max-new-labels`): an event over a bound is
 * rejected with a reason naming the flag, and nothing grows. Unlike {@linkcode EventLimits}
 * (saved in the checkpoint), they are set by the running service, so lowering a flag takes
 * effect after a restart. They apply to new events, not to the replay of events already
 * acknowledged.
 *
 * @example
 * ```ts
 * import type { GrowthLimits } from "./events.ts";
 * const g: GrowthLimits = { maxFeatures: 1 << 18, maxFeatureGrowth: 1 << 17, maxNewLabels: 256 };
 * console.log(g.maxNewLabels); // 256
 * ```
 */
export interface GrowthLimits {
  /** Largest feature-space size: index bound, or feature vocabulary size (name keys). */
  maxFeatures?: number;
  /** Largest label vocabulary. */
  maxLabels?: number;
  /**
   * Index keys: the most columns one event may add beyond the feature space so far (the
   * largest index accepted + 1, or the model's width).
   */
  maxFeatureGrowth?: number;
  /** The most new label names one event may add. */
  maxNewLabels?: number;
}

/** Deepest JSON nesting an event line needs (`{"features": {...}, "labels": [...]}`). */
export const EVENT_MAX_DEPTH = 2;

/**
 * Where JSON text nests deeper than `maxDepth` (the offset of the bracket that goes too deep),
 * or -1: a byte scan that skips strings, cheap enough to run before `JSON.parse` (whose time
 * grows with the nesting: a 1 MB body nested 500,000 deep took 1.3 s).
 *
 * @example
 * ```ts
 * import { jsonDepthExceeded } from "./events.ts";
 * const b = new TextEncoder().encode('{"a": [[1]], "s": "[[[["}');
 * console.log(jsonDepthExceeded(b, 0, b.length, 3), jsonDepthExceeded(b, 0, b.length, 2)); // -1 7
 * ```
 */
export function jsonDepthExceeded(
  bytes: Uint8Array | string,
  start: number,
  end: number,
  maxDepth: number,
): number {
  const str = typeof bytes === "string";
  let depth = 0;
  for (let i = start; i < end; i++) {
    const c = str ? bytes.charCodeAt(i) : bytes[i];
    if (c === 34) {
      // skip the string (escaped characters included)
      for (i++; i < end; i++) {
        const d = str ? bytes.charCodeAt(i) : bytes[i];
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return i;
    } else if (c === 125 || c === 93) {
      depth--;
    }
  }
  return -1;
}

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
 * Validates event lines and maps them through feature and label vocabularies (which it owns).
 *
 * @example
 * ```ts
 * import { EventParser } from "./events.ts";
 * const p = new EventParser([], [], { featureKeys: "index" });
 * const r = p.parseLine('{"features": {"3": 1, "0": 0.5}, "labels": ["cat"]}');
 * console.log(r.ok && Array.from(r.event.x.indices), p.labels.names); // [ 0, 3 ] [ "cat" ]
 * const bad = p.parseLine('{"features": {"-1": 1}, "labels": []}');
 * console.log(bad.ok ? "" : bad.reason); // features: key "-1" is not a feature index (a non-negative integer)
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
  #growth: GrowthLimits | undefined;
  /** Index keys: the largest feature index accepted + 1 (or the model's width, if larger). */
  #featureExtent = 0;

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
    this.features = new Vocabulary(featureNames, this.limits.maxFeatures);
    this.labels = new Vocabulary(labelNames, this.limits.maxLabels);
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
    this.#growth = limits === undefined ? undefined : { ...limits };
    this.#featureExtent = Math.max(this.#featureExtent, featureExtent);
  }

  /** The growth limits in force (undefined: none). */
  get growthLimits(): Readonly<GrowthLimits> | undefined {
    return this.#growth;
  }

  /**
   * Runs `parse` with the vocabularies capped as the growth limits ask (a line that would add
   * too many names is then refused by the vocabulary's own room check, before anything grows),
   * and checks index-key growth on the result.
   */
  #guarded(parse: () => Example): Example {
    const g = this.#growth;
    if (g === undefined) {
      const ev = parse();
      this.#noteExtent(ev);
      return ev;
    }
    type Capped = { maxSize: number };
    const labels = this.labels as unknown as Capped;
    const features = this.features as unknown as Capped;
    const labelCap = labels.maxSize, featureCap = features.maxSize;
    const labelBudget = Math.min(
      g.maxLabels ?? Infinity,
      this.labels.size + (g.maxNewLabels ?? Infinity),
    );
    labels.maxSize = Math.min(labelCap, labelBudget);
    const namedFeatures = this.featureKeys === "name" && this.limits.hashing === undefined;
    if (namedFeatures) features.maxSize = Math.min(featureCap, g.maxFeatures ?? Infinity);
    let ev: Example;
    try {
      ev = parse();
    } catch (e) {
      const m = (e as Error).message;
      if (/label vocabulary is full/.test(m) && labels.maxSize < labelCap) {
        throw new RangeError(
          this.labels.size + (g.maxNewLabels ?? Infinity) <= (g.maxLabels ?? Infinity)
            ? `the event adds more than --max-new-labels ${g.maxNewLabels} new labels`
            : `the label vocabulary is full: --max-labels ${g.maxLabels} names`,
        );
      }
      if (/feature vocabulary is full/.test(m) && features.maxSize < featureCap) {
        throw new RangeError(`the feature vocabulary is full: --max-features ${g.maxFeatures}`);
      }
      throw e;
    } finally {
      labels.maxSize = labelCap;
      features.maxSize = featureCap;
    }
    if (this.featureKeys === "index") {
      const n = ev.x.indices.length;
      const top = n > 0 ? ev.x.indices[n - 1] + 1 : 0;
      if (top > (g.maxFeatures ?? Infinity)) {
        throw new RangeError(
          `feature index ${top - 1} is beyond the limit --max-features ${g.maxFeatures}`,
        );
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

  #noteExtent(ev: Example): void {
    const n = ev.x.indices.length;
    if (n > 0 && ev.x.indices[n - 1] >= this.#featureExtent) {
      this.#featureExtent = ev.x.indices[n - 1] + 1;
    }
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
      return { ok: false, reason: `line is longer than ${this.limits.maxLineBytes} bytes` };
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
      return { ok: true, event: this.#guarded(() => this.#ndjson.parse(line)) };
    } catch (e) {
      return { ok: false, reason: (e as Error).message };
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
      this.#guarded(() => {
        ev = this.#ndjson.parseAscii(bytes, start, end);
        return ev ?? EMPTY_EVENT;
      });
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
    const end = bytes.length;
    const ws = (p: number) => skipJsonWhitespace(bytes, p, end);
    let p = ws(0);
    if (bytes[p] !== 123) return undefined;
    let x: SparseVector | undefined, k: number | undefined;
    let indices: number[] | undefined, values: number[] | undefined;
    p = ws(p + 1);
    while (p < end) {
      if (bytes[p] !== 34) return undefined;
      const key = predictKeyAt(bytes, p + 1, end);
      if (key === undefined) return undefined;
      p = ws(p + 2 + key.length);
      if (bytes[p] !== 58) return undefined;
      p = ws(p + 1);
      if (key === "features") {
        if (x !== undefined) return undefined;
        const r = this.#ndjson.featuresForPredictAscii(bytes, p, end, numFeatures);
        if (r === undefined) return undefined;
        x = r.x;
        p = r.next;
      } else if (key === "k") {
        if (k !== undefined) return undefined;
        let v = 0;
        const d0 = p;
        while (p < end && bytes[p] >= 48 && bytes[p] <= 57 && p - d0 < 6) {
          v = v * 10 + bytes[p++] - 48;
        }
        if (p === d0 || (p - d0 > 1 && bytes[d0] === 48)) return undefined;
        k = v;
      } else {
        const isIndices = key === "indices";
        if (this.featureKeys !== "index" || (isIndices ? indices : values) !== undefined) {
          return undefined;
        }
        const r = this.#ndjson.numberArrayAscii(bytes, p, end, isIndices);
        if (r === undefined) return undefined;
        if (isIndices) indices = r.values;
        else values = r.values;
        p = r.next;
      }
      p = ws(p);
      if (bytes[p] === 44) {
        p = ws(p + 1);
        continue;
      }
      if (bytes[p] !== 125 || ws(p + 1) !== end) return undefined;
      if (indices !== undefined) {
        if (x !== undefined || (values !== undefined && values.length !== indices.length)) {
          return undefined;
        }
        x = compactRow(indices, values, numFeatures);
        if (x === undefined) return undefined;
      } else if (x === undefined || values !== undefined) return undefined;
      return { x, k };
    }
    return undefined;
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
    if (this.featureKeys !== "index") {
      throw new TypeError("the 'indices' form needs index feature keys; send 'features'");
    }
    if (!Array.isArray(indices)) throw new TypeError("field 'indices' must be an array");
    const n = indices.length;
    if (values !== undefined && (!Array.isArray(values) || values.length !== n)) {
      throw new TypeError(`field 'values' must be an array as long as 'indices' (${n})`);
    }
    const vals = values as unknown[] | undefined;
    const idx = new Int32Array(n), val = new Float32Array(n);
    let m = 0, sorted = true;
    for (let i = 0; i < n; i++) {
      const j = indices[i];
      if (typeof j !== "number" || !Number.isInteger(j) || j < 0 || j > 2147483647) {
        throw new TypeError(
          `indices[${i}]: must be a feature index (a non-negative integer), got ${
            JSON.stringify(j)?.slice(0, 20)
          }`,
        );
      }
      const v = vals === undefined ? 1 : vals[i];
      if (typeof v !== "number" || !Number.isFinite(Math.fround(v))) {
        throw new TypeError(
          `values[${i}]: must be a finite number, got ${
            typeof v === "number" ? v : JSON.stringify(v)?.slice(0, 20)
          }`,
        );
      }
      if (j >= numFeatures || v === 0) continue;
      if (m > 0 && j <= idx[m - 1]) sorted = false;
      idx[m] = j;
      val[m++] = v;
    }
    if (sorted) return { indices: idx.subarray(0, m), values: val.subarray(0, m) };
    const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => idx[a] - idx[b]);
    const indicesOut = new Int32Array(m), valuesOut = new Float32Array(m);
    for (let i = 0; i < m; i++) {
      indicesOut[i] = idx[order[i]];
      valuesOut[i] = val[order[i]];
      if (i > 0 && indicesOut[i] === indicesOut[i - 1]) {
        throw new TypeError(`indices: feature ${indicesOut[i]} is listed twice`);
      }
    }
    return { indices: indicesOut, values: valuesOut };
  }
}

const EMPTY_EVENT: Example = {
  x: { indices: new Int32Array(0), values: new Float32Array(0) },
  labels: new Int32Array(0),
};

const PREDICT_KEYS = ["features", "indices", "values", "k"] as const;

/** Which `/predict` field the quoted key starting at `p` (after its quote) is, or undefined. */
function predictKeyAt(
  bytes: Uint8Array,
  p: number,
  end: number,
): (typeof PREDICT_KEYS)[number] | undefined {
  for (const key of PREDICT_KEYS) {
    const n = key.length;
    if (p + n >= end || bytes[p + n] !== 34) continue;
    let i = 0;
    while (i < n && bytes[p + i] === key.charCodeAt(i)) i++;
    if (i === n) return key;
  }
  return undefined;
}

/**
 * The compact row (increasing indices, values or all 1) as {@linkcode EventParser.rowForPredict}
 * maps it: indices at or beyond `numFeatures` and zero values dropped; undefined when a value is
 * not finite in float32 (the full path reports it).
 */
function compactRow(
  indices: number[],
  values: number[] | undefined,
  numFeatures: number,
): SparseVector | undefined {
  const n = indices.length;
  const idx = new Int32Array(n), val = new Float32Array(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const v = values === undefined ? 1 : values[i];
    if (!Number.isFinite(Math.fround(v))) return undefined;
    if (indices[i] >= numFeatures || v === 0) continue;
    idx[m] = indices[i];
    val[m++] = v;
  }
  return { indices: idx.subarray(0, m), values: val.subarray(0, m) };
}
