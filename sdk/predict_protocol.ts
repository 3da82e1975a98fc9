/**
 * The one `POST /predict` protocol of Tagstream, shared by the learning service
 * (`tagstream serve`) and the SDK's edge handler (`./http.ts`: Deno Deploy, Cloudflare Workers):
 * request parsing and validation, limits, errors and the answer's shape, so that the same body
 * gets the same status and JSON everywhere. {@linkcode PREDICT_SCHEMA} is the JSON Schema of
 * both, served at `GET /schema/predict.json`.
 *
 * Request: one row — `{"features": {name: value}}`, `{"indices": [...], "values": [...]}`
 * (`values` omitted: all 1), `{"text": "...", "features"?: {...}}` — or `{"rows": [row, ...]}`,
 * with an optional `"k"` (integer in [1, 100], default 5). Unknown fields are refused.
 * Answer: `{"labels": [name, ...], "scores": [...]}`, or `{"results": [{labels, scores}, ...]}`
 * for `rows`, preceded by `"modelVersion"` when the server knows it. Errors: `{"error": "..."}`
 * with 400 (bad request), 404 (not POST), 413 (body over 1 MiB), 503 (no model).
 *
 * What the client cannot know is dropped, not refused: feature names the model never saw and
 * indices at or beyond its width (a streaming model grows; an edge copy lags behind it). What
 * is malformed is refused everywhere: a non-integer or negative index, a repeated index, a
 * non-finite value, a key that is not an index in an index feature space, text for a model not
 * trained on text.
 *
 * Imports nothing: Web APIs only.
 *
 * @module
 */

/**
 * The protocol's limits.
 *
 * @example
 * ```ts
 * import { PREDICT_LIMITS } from "./predict_protocol.ts";
 * console.log(PREDICT_LIMITS.maxK, PREDICT_LIMITS.maxRows); // 100 1000
 * ```
 */
export const PREDICT_LIMITS = {
  /** k when the request does not say. */
  defaultK: 5,
  /** Largest k. */
  maxK: 100,
  /** Most rows in one request. */
  maxRows: 1000,
  /** Largest body, in bytes. */
  maxBodyBytes: 1 << 20,
  /** Deepest JSON nesting (`{"rows": [{"features": {...}}]}`), checked before parsing. */
  maxDepth: 4,
} as const;

/**
 * A validated row: sorted unique `indices` with finite `values`, named `features`, or `text`
 * (with optional `features`).
 *
 * @example
 * ```ts
 * import type { PredictRow } from "./predict_protocol.ts";
 * const r: PredictRow = { text: "hello" };
 * console.log("text" in r); // true
 * ```
 */
export type PredictRow =
  | { readonly indices: Int32Array; readonly values: Float32Array }
  | { readonly features: Readonly<Record<string, number>> }
  | { readonly text: string; readonly features?: Readonly<Record<string, number>> };

/**
 * A validated request: `k`, its rows, and whether it was a `rows` batch.
 *
 * @example
 * ```ts
 * import type { PredictRequest } from "./predict_protocol.ts";
 * const r: PredictRequest = { k: 5, rows: [{ features: { a: 1 } }], batch: false };
 * console.log(r.rows.length); // 1
 * ```
 */
export interface PredictRequest {
  readonly k: number;
  readonly rows: PredictRow[];
  readonly batch: boolean;
}

/**
 * What validation needs to know of the model: whether its feature keys are column indices
 * (then a `features` key must be a non-negative integer) and whether it reads text.
 *
 * @example
 * ```ts
 * import type { FeatureRules } from "./predict_protocol.ts";
 * const rules: FeatureRules = { indexKeys: true, text: false };
 * console.log(rules.indexKeys); // true
 * ```
 */
export interface FeatureRules {
  readonly indexKeys: boolean;
  readonly text: boolean;
}

/**
 * A refused request: its HTTP status and message (the body is `{"error": message}`).
 *
 * @example
 * ```ts
 * import { PredictError } from "./predict_protocol.ts";
 * const e = new PredictError(413, "too large");
 * console.log(e.status, e.message); // 413 too large
 * ```
 */
export class PredictError extends Error {
  /** The HTTP status: 400, 404, 413 or 503. */
  readonly status: number;
  /** An error of `status` with `message`. */
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const bad = (message: string) => new PredictError(400, message);

/**
 * The 400 for a query row whose values are each finite but whose names sharing a hashed model
 * column add up past float32 (the model refuses the row as not finite: `detail`, its message);
 * `at` names the row of a batch (`"rows[1]: "`, or `""`). The edge handler and the learning
 * service answer it alike.
 *
 * @example
 * ```ts
 * import { columnOverflow } from "./predict_protocol.ts";
 * const e = columnOverflow("rows[1]: ", "x values must be finite, got Infinity");
 * console.log(e.status, e.message.startsWith("rows[1]: features: the values of names")); // 400 true
 * ```
 */
export function columnOverflow(at: string, detail: string): PredictError {
  return bad(
    `${at}features: the values of names sharing a model column must add up to a finite ` +
      `float32 (${detail})`,
  );
}
const show = (s: string) => JSON.stringify(s.length > 40 ? s.slice(0, 37) + "..." : s);
const got = (v: unknown) => typeof v === "number" ? `${v}` : `${JSON.stringify(v)}`.slice(0, 20);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const ROW_FIELDS = ["features", "indices", "values", "text"];
const FIELDS = [...ROW_FIELDS, "rows", "k"];
const MAX_INDEX = 2147483647;
// what a refused index key adds: what this model reads, and what to send instead
const INDEX_HINT =
  `; this model reads feature indices: send {"indices": [...], "values": [...]}, ` +
  "or named features to a model trained with --feature-keys name or hash";

/**
 * Where JSON text nests deeper than `maxDepth` (the offset of the bracket that goes too deep),
 * or -1; strings are skipped.
 *
 * @example
 * ```ts
 * import { jsonTooDeep } from "./predict_protocol.ts";
 * const b = new TextEncoder().encode('{"a": [[1]], "s": "[[[["}');
 * console.log(jsonTooDeep(b, 3), jsonTooDeep(b, 2)); // -1 7
 * ```
 */
export function jsonTooDeep(bytes: Uint8Array, maxDepth: number): number {
  for (let i = 0, depth = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 34) {
      for (i++; i < bytes.length && bytes[i] !== 34; i++) if (bytes[i] === 92) i++;
    } else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return i;
    } else if (c === 125 || c === 93) depth--;
  }
  return -1;
}

/**
 * Parses a `/predict` body: UTF-8, nesting, JSON, then {@linkcode validatePredict}.
 *
 * @throws {PredictError} 400 naming what is wrong.
 *
 * @example
 * ```ts
 * import { parsePredictBody } from "./predict_protocol.ts";
 * const body = new TextEncoder().encode('{"indices": [7, 2], "k": 3}');
 * const r = parsePredictBody(body, { indexKeys: true, text: false });
 * console.log(r.k, r.rows[0]); // 3 { indices: Int32Array(2) [ 2, 7 ], values: Float32Array(2) [ 1, 1 ] }
 * ```
 */
export function parsePredictBody(
  bytes: Uint8Array,
  rules: FeatureRules,
  limits: { maxK?: number; maxRows?: number } = {},
): PredictRequest {
  let text = "", ascii = bytes.length <= 65536;
  for (let i = 0; ascii && i < bytes.length; i++) ascii = bytes[i] < 128;
  // small ASCII bodies without a TextDecoder call (several µs per request)
  for (let i = 0; ascii && i < bytes.length; i += 4096) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 4096) as unknown as number[]);
  }
  if (!ascii) {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw bad("/predict body is not valid UTF-8");
    }
  }
  const deep = jsonTooDeep(bytes, PREDICT_LIMITS.maxDepth);
  if (deep >= 0) {
    throw bad(
      `/predict body is nested deeper than ${PREDICT_LIMITS.maxDepth} levels (at byte ${deep})`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw bad("/predict body is malformed JSON");
  }
  return validatePredict(body, rules, limits);
}

/**
 * Validates a parsed `/predict` body against the protocol and the model's
 * {@linkcode FeatureRules}.
 *
 * @throws {PredictError} 400 naming the field (`rows[3]: values[1]: must be a finite number`).
 *
 * @example
 * ```ts
 * import { validatePredict } from "./predict_protocol.ts";
 * const rules = { indexKeys: false, text: true };
 * console.log(validatePredict({ rows: [{ text: "hi" }], k: 2 }, rules)); // { k: 2, rows: [ { text: "hi" } ], batch: true }
 * try {
 *   validatePredict({ features: { a: "x" } }, rules);
 * } catch (e) {
 *   console.log((e as Error).message); // features["a"]: value must be a finite number, got "x"
 * }
 * ```
 */
export function validatePredict(
  body: unknown,
  rules: FeatureRules,
  limits: { maxK?: number; maxRows?: number } = {},
): PredictRequest {
  const maxK = limits.maxK ?? PREDICT_LIMITS.maxK,
    maxRows = limits.maxRows ?? PREDICT_LIMITS.maxRows;
  if (!isObject(body)) throw bad("/predict body must be a JSON object");
  for (const key in body) {
    if (!FIELDS.includes(key)) {
      throw bad(`unknown field ${show(key)} (allowed: ${FIELDS.join(", ")})`);
    }
  }
  // absent: the default, or the maximum when that is lower (a client that never sent k was
  // refused by a server whose maximum is below 5)
  // (null is not absent: the schema's k is an integer, and a client sending null meant something)
  const k = body.k === undefined ? Math.min(PREDICT_LIMITS.defaultK, maxK) : body.k;
  if (!Number.isInteger(k) || (k as number) < 1 || (k as number) > maxK) {
    throw bad(`field 'k' must be an integer in [1, ${maxK}], got ${got(k)}`);
  }
  const hasRow = ROW_FIELDS.some((f) => body[f] !== undefined);
  if (body.rows === undefined) {
    if (!hasRow) {
      throw bad("field 'features' (or 'indices', or 'text') for one row, or 'rows', is required");
    }
    return { k: k as number, rows: [row(body, "", rules)], batch: false };
  }
  if (hasRow) {
    throw bad("give either one row ('features', 'indices' or 'text') or 'rows', not both");
  }
  const rows = body.rows;
  if (!Array.isArray(rows)) throw bad("field 'rows' must be an array");
  if (rows.length > maxRows) throw bad(`at most ${maxRows} rows per request, got ${rows.length}`);
  return {
    k: k as number,
    batch: true,
    rows: rows.map((r, i) => {
      const where = `rows[${i}]: `;
      if (!isObject(r)) {
        throw bad(`${where}must be an object {"features": {...}} or {"indices": [...]}`);
      }
      for (const key in r) {
        if (!ROW_FIELDS.includes(key)) throw bad(`${where}unknown field ${show(key)}`);
      }
      return row(r, where, rules);
    }),
  };
}

function row(r: Record<string, unknown>, where: string, rules: FeatureRules): PredictRow {
  const { features, indices, values, text } = r;
  if (text !== undefined) {
    if (indices !== undefined || values !== undefined) {
      throw bad(`${where}give 'text' (and 'features'), not 'indices'`);
    }
    if (typeof text !== "string") throw bad(`${where}field 'text' must be a string`);
    if (!rules.text) throw bad(`${where}this model was not trained on text`);
    return features === undefined ? { text } : { text, features: named(features, where, rules) };
  }
  if (features !== undefined) {
    if (indices !== undefined || values !== undefined) {
      throw bad(`${where}give either 'features' or 'indices' (and 'values')`);
    }
    return { features: named(features, where, rules) };
  }
  if (indices === undefined) throw bad(`${where}field 'values' needs 'indices'`);
  if (!Array.isArray(indices)) throw bad(`${where}field 'indices' must be an array`);
  const n = indices.length;
  if (values !== undefined && (!Array.isArray(values) || values.length !== n)) {
    throw bad(`${where}field 'values' must be an array as long as 'indices' (${n})`);
  }
  const order: number[] = [];
  for (let i = 0; i < n; i++) {
    const j = indices[i], v = values === undefined ? 1 : (values as unknown[])[i];
    if (!Number.isInteger(j) || j < 0 || j > MAX_INDEX) {
      throw bad(
        `${where}indices[${i}]: must be a feature index (a non-negative integer), got ${got(j)}`,
      );
    }
    if (typeof v !== "number" || !Number.isFinite(Math.fround(v))) {
      throw bad(`${where}values[${i}]: must be a finite number, got ${got(v)}`);
    }
    order.push(i);
  }
  order.sort((a, b) => indices[a] - indices[b]);
  const idx = new Int32Array(n), val = new Float32Array(n);
  for (let p = 0; p < n; p++) {
    idx[p] = indices[order[p]];
    val[p] = values === undefined ? 1 : (values as number[])[order[p]];
    if (p > 0 && idx[p] === idx[p - 1]) {
      throw bad(`${where}indices: feature ${idx[p]} is listed twice`);
    }
  }
  return { indices: idx, values: val };
}

function named(f: unknown, where: string, rules: FeatureRules): Record<string, number> {
  if (!isObject(f)) throw bad(`${where}field 'features' must be an object {key: number}`);
  for (const key in f) {
    const v = f[key];
    if (typeof v !== "number" || !Number.isFinite(Math.fround(v))) {
      throw bad(`${where}features[${show(key)}]: value must be a finite number, got ${got(v)}`);
    }
    if (rules.indexKeys && !(/^(0|[1-9]\d{0,9})$/.test(key) && +key <= MAX_INDEX)) {
      throw bad(
        `${where}features: key ${show(key)} is not a feature index (a non-negative integer)` +
          INDEX_HINT,
      );
    }
  }
  return f as Record<string, number>;
}

/**
 * One row's answer: label names and scores, best first.
 *
 * @example
 * ```ts
 * import type { PredictAnswer } from "./predict_protocol.ts";
 * const a: PredictAnswer = { labels: ["sports"], scores: [0.9] };
 * console.log(a.labels[0]); // sports
 * ```
 */
export interface PredictAnswer {
  readonly labels: readonly string[];
  readonly scores: readonly number[];
}

/**
 * A score as JSON carries it: ±Infinity (a float32 score that overflowed, e.g. a raw query near
 * 3e38 on a model without L2 normalisation) as ±3.4028234663852886e38, the largest float32
 * (JSON has no Infinity: it wrote null, which the answer's schema refuses); any other score as it
 * is. The order of an answer's scores is kept (ties may appear where both overflowed).
 *
 * @example
 * ```ts
 * import { jsonScore } from "./predict_protocol.ts";
 * console.log(jsonScore(0.5), jsonScore(Infinity), jsonScore(-Infinity)); // 0.5 3.4028234663852886e+38 -3.4028234663852886e+38
 * ```
 */
export const jsonScore = (s: number): number =>
  s === Infinity ? 3.4028234663852886e38 : s === -Infinity ? -3.4028234663852886e38 : s;

/**
 * The answer's JSON body: `{modelVersion?, labels, scores}` for one row, `{modelVersion?,
 * results}` for a batch.
 *
 * @example
 * ```ts
 * import { predictBody } from "./predict_protocol.ts";
 * const a = { labels: ["x"], scores: [1] };
 * console.log(predictBody([a], false, 3)); // { modelVersion: 3, labels: [ "x" ], scores: [ 1 ] }
 * console.log(predictBody([a, a], true)); // { results: [ { labels: [ "x" ], scores: [ 1 ] }, { labels: [ "x" ], scores: [ 1 ] } ] }
 * ```
 */
export function predictBody(
  answers: readonly PredictAnswer[],
  batch: boolean,
  modelVersion?: number,
): Record<string, unknown> {
  const v = modelVersion === undefined ? {} : { modelVersion };
  return batch ? { ...v, results: answers } : { ...v, ...answers[0] };
}

/**
 * A JSON response.
 *
 * @example
 * ```ts
 * import { jsonResponse } from "./predict_protocol.ts";
 * const r = jsonResponse({ error: "no" }, 400, { "x-model-etag": "v1" });
 * console.log(r.status, r.headers.get("content-type")); // 400 application/json
 * ```
 */
export function jsonResponse(
  body: unknown,
  status: number,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, "content-type": "application/json" },
  });
}

/**
 * Reads a request body of at most `limit` bytes (a declared or actual longer one: 413, read no
 * further than the limit when no length is declared); a body that breaks off is a 400.
 *
 * @example
 * ```ts
 * import { readPredictBody } from "./predict_protocol.ts";
 * const bytes = await readPredictBody(new Request("http://x/predict", { method: "POST", body: "{}" }));
 * console.log(bytes.length); // 2
 * ```
 */
export async function readPredictBody(
  request: Request,
  limit: number = PREDICT_LIMITS.maxBodyBytes,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new PredictError(413, `/predict body is larger than the limit of ${limit} bytes`);
  const unreadable = (e: unknown) =>
    new PredictError(400, `/predict body could not be read: ${(e as Error)?.message ?? e}`);
  const declared = request.headers.get("content-length");
  if (Number(declared ?? 0) > limit) {
    await request.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (declared !== null && /^\d+$/.test(declared)) {
    // a declared length within the limit bounds the body (HTTP framing): read it in one go
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await request.arrayBuffer());
    } catch (e) {
      throw unreadable(e);
    }
    if (bytes.length > limit) throw tooLarge();
    return bytes;
  }
  const body = request.body;
  if (!body) return new Uint8Array(0);
  // read chunk by chunk: a body without a length (chunked) is refused as soon as it passes the
  // limit, not buffered whole first; a body that breaks off (the client went away) is a 400
  const reader = body.getReader(), parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (e) {
      throw unreadable(e);
    }
    if (chunk.done) break;
    total += chunk.value.length;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    parts.push(chunk.value);
  }
  if (parts.length === 1) return parts[0];
  const bytes = new Uint8Array(total);
  for (let i = 0, at = 0; i < parts.length; at += parts[i++].length) bytes.set(parts[i], at);
  return bytes;
}

/**
 * The `GET /schema/predict.json` answer: {@linkcode PREDICT_SCHEMA}.
 *
 * @example
 * ```ts
 * import { schemaResponse } from "./predict_protocol.ts";
 * console.log((await schemaResponse().json()).title); // Tagstream POST /predict
 * ```
 */
export function schemaResponse(): Response {
  return jsonResponse(PREDICT_SCHEMA, 200, { "cache-control": "max-age=300" });
}

const num = { type: "number" };
const features = {
  type: "object",
  description: "named features; in an index feature space the names are column indices",
  additionalProperties: num,
};
const indices = {
  type: "array",
  items: { type: "integer", minimum: 0, maximum: MAX_INDEX },
  uniqueItems: true,
};
const req = (...fields: string[]) => fields.map((f) => ({ required: [f] }));
const rowForms = [
  { required: ["features"], not: { anyOf: req("indices", "values", "text") } },
  { required: ["indices"], not: { anyOf: req("features", "text") } },
  { required: ["text"], not: { anyOf: req("indices", "values") } },
];
const answer = {
  type: "object",
  required: ["labels", "scores"],
  properties: {
    labels: { type: "array", items: { type: "string" } },
    scores: { type: "array", items: num },
  },
};
const error = { type: "object", required: ["error"], properties: { error: { type: "string" } } };

/**
 * The JSON Schema (2020-12) of `POST /predict`: `request`, `response` and `error` definitions.
 * Served at `GET /schema/predict.json` by the service and the edge handler.
 *
 * @example
 * ```ts
 * import { PREDICT_SCHEMA } from "./predict_protocol.ts";
 * console.log(Object.keys(PREDICT_SCHEMA.$defs)); // [ "row", "request", "answer", "response", "error" ]
 * ```
 */
export const PREDICT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "/schema/predict.json",
  title: "Tagstream POST /predict",
  description:
    `Request: one row or {"rows": [...]} (at most ${PREDICT_LIMITS.maxRows}), body at most ${PREDICT_LIMITS.maxBodyBytes} bytes, nesting at most ${PREDICT_LIMITS.maxDepth}. ` +
    "Feature names unknown to the model and indices beyond its width are dropped. " +
    "Errors: 400 bad request, 404 not POST, 413 body too large, 503 no model.",
  $ref: "#/$defs/request",
  $defs: {
    row: {
      type: "object",
      properties: {
        features,
        indices,
        values: { type: "array", items: num, description: "as long as indices; omitted: all 1" },
        text: { type: "string", description: "for models trained on text" },
      },
      additionalProperties: false,
      oneOf: rowForms,
    },
    request: {
      type: "object",
      properties: {
        features,
        indices,
        values: { type: "array", items: num },
        text: { type: "string" },
        rows: { type: "array", items: { $ref: "#/$defs/row" }, maxItems: PREDICT_LIMITS.maxRows },
        k: {
          type: "integer",
          minimum: 1,
          maximum: PREDICT_LIMITS.maxK,
          default: PREDICT_LIMITS.defaultK,
        },
      },
      additionalProperties: false,
      oneOf: [
        { required: ["rows"], not: { anyOf: req(...ROW_FIELDS) } },
        { not: { required: ["rows"] }, oneOf: rowForms },
      ],
    },
    answer,
    response: {
      type: "object",
      properties: {
        modelVersion: { type: "integer", description: "when the server knows it" },
        labels: answer.properties.labels,
        scores: answer.properties.scores,
        results: { type: "array", items: answer },
      },
      oneOf: [{ required: ["labels", "scores"] }, { required: ["results"] }],
    },
    error,
  },
} as const;
