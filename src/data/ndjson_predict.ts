/**
 * Feature rows for prediction from the NDJSON event vocabulary, without growing anything:
 * a `features` object ({@linkcode featuresForPredict}, and its fast path from bytes,
 * {@linkcode featuresForPredictAscii}) and a text with optional features beside it
 * ({@linkcode textForPredict}). Unknown names and indices outside the model's feature space
 * are dropped; a bad value is a TypeError naming its key.
 *
 * @module
 */
import type { SparseVector } from "./types.ts";
import { textFeatures } from "../../sdk/internal.ts";
import type { NdjsonSettings } from "./ndjson_options.ts";
import type { RowBuilder } from "./sparse_row.ts";
import type { EventLineScanner } from "./ndjson_fast_path.ts";
import type { JsonCursor } from "./json_cursor.ts";
import { parseIndexKey, showName as show } from "./json_text.ts";

/**
 * Maps a `features` object for prediction without growing anything: unknown names and indices
 * outside `[0, numFeatures)` are dropped; with hashing the keys are hashed. Throws a TypeError
 * naming the key of a non-numeric or non-finite value. `row` is scratch space.
 *
 * @example
 * ```ts
 * import { featuresForPredict } from "./ndjson_predict.ts";
 * import { resolveNdjsonOptions } from "./ndjson_options.ts";
 * import { RowBuilder } from "./sparse_row.ts";
 * const s = resolveNdjsonOptions();
 * const x = featuresForPredict(s, new RowBuilder(), { "7": 2, "1": 1 }, 5);
 * console.log([...x.indices], [...x.values]); // [ 1 ] [ 1 ]
 * ```
 */
export function featuresForPredict(
  s: NdjsonSettings,
  row: RowBuilder,
  f: unknown,
  numFeatures: number,
): SparseVector {
  if (f === null || typeof f !== "object" || Array.isArray(f)) {
    throw new TypeError("field 'features' must be an object {key: number}");
  }
  const fv = f as Record<string, unknown>;
  const keys: string[] = [], vals: number[] = [];
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
    if (s.hasher) {
      keys.push(key);
      vals.push(v);
      continue;
    }
    const j = s.featureKeys === "index" ? parseIndexKey(key) : s.features.idOf(key, false);
    if (s.featureKeys === "index" && j < 0) {
      throw new TypeError(
        `features: key ${show(key)} is not a feature index (a non-negative integer)`,
      );
    }
    if (j >= 0 && j < numFeatures) row.push(j, v);
  }
  if (s.hasher) {
    row.clear();
    return s.hasher.hashNamed(keys, vals);
  }
  return row.build();
}

/**
 * Maps a text (and optional `features` beside it) for prediction, without growing anything:
 * the named features of `sdk/tokenizer.ts`'s `textFeatures` mapped as
 * {@linkcode featuresForPredict} maps names. Throws a TypeError when the settings read no
 * text or `text` is not a string, or naming a bad feature. `row` is scratch space.
 *
 * @example
 * ```ts
 * import { textForPredict } from "./ndjson_predict.ts";
 * import { resolveNdjsonOptions } from "./ndjson_options.ts";
 * import { RowBuilder } from "./sparse_row.ts";
 * const s = resolveNdjsonOptions({ hashing: { dim: 64 }, text: {} });
 * console.log(textForPredict(s, new RowBuilder(), "Hello, hello!", undefined, 64).values); // Float32Array(1) [ 2 ]
 * ```
 */
export function textForPredict(
  s: NdjsonSettings,
  row: RowBuilder,
  text: unknown,
  features: unknown,
  numFeatures: number,
): SparseVector {
  const t = s.text;
  if (!t) throw new TypeError("this model was not trained on text");
  if (typeof text !== "string") throw new TypeError("field 'text' must be a string");
  const f = t.ignoreFeatures || features === null ? undefined : features;
  if (f !== undefined) featuresForPredict(s, row, f, numFeatures); // validates
  const m = textFeatures(text, t, f as Record<string, number> | undefined);
  row.clear();
  if (s.hasher) return s.hasher.hashNamed([...m.keys()], [...m.values()]);
  for (const [k, v] of m) {
    const j = s.features.idOf(k, false);
    if (j >= 0 && j < numFeatures) row.push(j, v);
  }
  return row.build();
}

/**
 * A fast path of {@linkcode featuresForPredict} for an index-keyed features object given as
 * ASCII bytes from `start` (its `{`) to before `end`, keys in increasing order: the same row,
 * and the position after the object; `undefined` when the object is outside that subset (the
 * caller then parses the JSON and calls `featuresForPredict`). The scanner writes into `row`.
 *
 * @example
 * ```ts
 * import { featuresForPredictAscii } from "./ndjson_predict.ts";
 * import { EventLineScanner } from "./ndjson_fast_path.ts";
 * import { EventFeatures } from "./ndjson_features.ts";
 * import { JsonCursor } from "./json_cursor.ts";
 * import { resolveNdjsonOptions } from "./ndjson_options.ts";
 * const s = resolveNdjsonOptions(), line = new EventFeatures(s), cursor = new JsonCursor();
 * const scanner = new EventLineScanner(s, line, cursor);
 * const b = new TextEncoder().encode('{"1": 2, "4": 0, "9": 1} tail');
 * const r = featuresForPredictAscii(s, scanner, cursor, line.row, b, 0, b.length, 8)!;
 * console.log([...r.x.indices], [...r.x.values], r.next); // [ 1 ] [ 2 ] 24
 * ```
 */
export function featuresForPredictAscii(
  s: NdjsonSettings,
  scanner: EventLineScanner,
  cursor: JsonCursor,
  row: RowBuilder,
  bytes: Uint8Array,
  start: number,
  end: number,
  numFeatures: number,
): { x: SparseVector; next: number } | undefined {
  if (s.hasher !== undefined || s.featureKeys !== "index") return undefined;
  cursor.reset(bytes, end);
  const next = scanner.scanFeatures(start);
  if (next < 0) {
    row.clear();
    return undefined;
  }
  const built = row.build();
  let n = built.indices.length;
  while (n > 0 && built.indices[n - 1] >= numFeatures) n--;
  const x = n === built.indices.length
    ? built
    : { indices: built.indices.slice(0, n), values: built.values.slice(0, n) };
  return { x, next };
}
