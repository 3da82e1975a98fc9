/**
 * The rows of `/predict` bodies: a fast path for the common one-row bodies in ASCII
 * ({@linkcode predictBodyAscii}) and the mapping of the compact `{indices, values}` row form
 * ({@linkcode rowForPredict}). `EventParser` offers both as methods.
 *
 * @module
 */
import type { SparseVector } from "../data/types.ts";
import { type FeatureKeys, type NdjsonParser, skipJsonWhitespace } from "../data/ndjson.ts";

/**
 * A fast path for the one-row `/predict` bodies, `{"features": {...}, "k": N}` and the compact
 * `{"indices": [...], "values": [...], "k": N}` (`values` optional; fields in any order, `k`
 * optional) in ASCII, with index keys (features) or indices in increasing order: the row
 * mapped as `ndjson.featuresForPredict` or {@linkcode rowForPredict} maps it, and `k`;
 * `undefined` for any other body (the caller then parses the JSON, which also reports errors).
 * The compact form needs `featureKeys: "index"`.
 *
 * @example
 * ```ts
 * import { predictBodyAscii } from "./predict_rows.ts";
 * import { NdjsonParser } from "../data/ndjson.ts";
 * const p = new NdjsonParser();
 * const enc = (s: string) => new TextEncoder().encode(s);
 * const r = predictBodyAscii(p, "index", enc('{"features": {"1": 1, "7": 2}, "k": 3}'), 5)!;
 * console.log([...r.x.indices], r.k); // [ 1 ] 3
 * console.log(predictBodyAscii(p, "index", enc('{"rows": []}'), 5)); // undefined
 * ```
 */
export function predictBodyAscii(
  ndjson: NdjsonParser,
  featureKeys: FeatureKeys,
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
      const r = ndjson.featuresForPredictAscii(bytes, p, end, numFeatures);
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
      if (featureKeys !== "index" || (isIndices ? indices : values) !== undefined) {
        return undefined;
      }
      const r = ndjson.numberArrayAscii(bytes, p, end, isIndices);
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
 * or beyond `numFeatures` and zero values are dropped, as `featuresForPredict` drops them.
 * Index keys only. Throws a TypeError naming the bad field.
 *
 * @example
 * ```ts
 * import { rowForPredict } from "./predict_rows.ts";
 * const x = rowForPredict("index", [7, 1, 3], [2, 1, 0.5], 5);
 * console.log([...x.indices], [...x.values]); // [ 1, 3 ] [ 1, 0.5 ]
 * ```
 */
export function rowForPredict(
  featureKeys: FeatureKeys,
  indices: unknown,
  values: unknown,
  numFeatures: number,
): SparseVector {
  if (featureKeys !== "index") {
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
 * The compact row (increasing indices, values or all 1) as {@linkcode rowForPredict}
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
