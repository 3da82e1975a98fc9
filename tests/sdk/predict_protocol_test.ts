/**
 * The shared `/predict` protocol (sdk/predict_protocol.ts): validation results and messages,
 * the rows it builds, body parsing (UTF-8, nesting), the answer's shape, and that the JSON
 * Schema it serves agrees with the validator on a table of valid and invalid requests (checked
 * by a small validator of the schema keywords it uses).
 */
import {
  parsePredictBody,
  PREDICT_LIMITS,
  PREDICT_SCHEMA,
  predictBody,
  PredictError,
  readPredictBody,
  validatePredict,
} from "../../sdk/predict_protocol.ts";
import { assert } from "./helpers.ts";

const NAMES = { indexKeys: false, text: true };
const INDEX = { indexKeys: true, text: false };

function refusal(body: unknown, rules = NAMES): string | undefined {
  try {
    validatePredict(body, rules);
    return undefined;
  } catch (e) {
    assert(e instanceof PredictError && e.status === 400, `${JSON.stringify(body)}: ${e}`);
    return (e as Error).message;
  }
}

// deno-lint-ignore no-explicit-any
type Schema = any;
/** Whether `v` matches `s` (the keywords PREDICT_SCHEMA uses). */
function matches(v: unknown, s: Schema, root: Schema = s): boolean {
  if (s.$ref) {
    const def = root.$defs[s.$ref.replace("#/$defs/", "")];
    if (!matches(v, def, root)) return false;
  }
  const obj = typeof v === "object" && v !== null && !Array.isArray(v);
  const rec = v as Record<string, unknown>;
  if (s.type === "object" && !obj) return false;
  if (s.type === "array" && !Array.isArray(v)) return false;
  if (s.type === "string" && typeof v !== "string") return false;
  if (s.type === "number" && typeof v !== "number") return false;
  if (s.type === "integer" && !Number.isInteger(v)) return false;
  if (s.minimum !== undefined && typeof v === "number" && v < s.minimum) return false;
  if (s.maximum !== undefined && typeof v === "number" && v > s.maximum) return false;
  if (Array.isArray(v)) {
    if (s.maxItems !== undefined && v.length > s.maxItems) return false;
    if (s.uniqueItems && new Set(v.map((x) => JSON.stringify(x))).size !== v.length) return false;
    if (s.items && !v.every((x) => matches(x, s.items, root))) return false;
  }
  if (obj) {
    for (const r of s.required ?? []) if (!(r in rec)) return false;
    for (const [k, x] of Object.entries(rec)) {
      const p = s.properties?.[k];
      if (p ? !matches(x, p, root) : s.additionalProperties === false) return false;
      if (!p && typeof s.additionalProperties === "object") {
        if (!matches(x, s.additionalProperties, root)) return false;
      }
    }
  }
  if (s.not && matches(v, s.not, root)) return false;
  if (s.anyOf && !s.anyOf.some((x: Schema) => matches(v, x, root))) return false;
  if (s.oneOf && s.oneOf.filter((x: Schema) => matches(v, x, root)).length !== 1) return false;
  return true;
}

const VALID: unknown[] = [
  { features: { a: 1 } },
  { features: {}, k: 100 },
  { indices: [3, 1] },
  { indices: [3, 1], values: [0.5, 2], k: 1 },
  { text: "hello" },
  { text: "hello", features: { a: 2 } },
  { rows: [] },
  { rows: [{ text: "x" }, { indices: [1] }, { features: { b: 1 } }], k: 7 },
];
const INVALID: unknown[] = [
  [],
  "x",
  null,
  {},
  { k: 5 },
  { features: { a: 1 }, k: 0 },
  { features: { a: 1 }, k: 101 },
  { features: { a: 1 }, k: 1.5 },
  // null is not absent: the schema's k is an integer and its features an object
  { features: { a: 1 }, k: null },
  { text: "hello", features: null },
  { rows: [{ text: "hello", features: null }] },
  { features: { a: "1" } },
  { features: [] },
  { features: { a: 1 }, indices: [1] },
  { features: { a: 1 }, extra: true },
  { values: [1] },
  { indices: [1, 1] },
  { indices: [-1] },
  { indices: [0.5] },
  { indices: [1], values: ["x"] },
  { text: 3 },
  { text: "a", indices: [1] },
  { text: "a", values: [1] },
  { rows: {} },
  { rows: [{ text: "a" }], features: { a: 1 } },
  { rows: [{ text: "a" }], values: [1] },
  { rows: [{ text: "a", k: 2 }] },
  { rows: [1] },
  { rows: [{}] },
  { rows: Array.from({ length: PREDICT_LIMITS.maxRows + 1 }, () => ({ indices: [1] })) },
];

Deno.test("the JSON Schema and the validator agree on valid and invalid requests", () => {
  for (const body of VALID) {
    const why = refusal(body);
    assert(why === undefined, `${JSON.stringify(body)} refused: ${why}`);
    assert(matches(body, PREDICT_SCHEMA), `${JSON.stringify(body)}: the schema refuses it`);
  }
  for (const body of INVALID) {
    const shown = JSON.stringify(body).slice(0, 80);
    assert(refusal(body) !== undefined, `${shown} accepted`);
    assert(!matches(body, PREDICT_SCHEMA), `${shown}: the schema accepts it`);
  }
  // answers match the response schema
  const response = { $ref: "#/$defs/response", $defs: PREDICT_SCHEMA.$defs };
  const a = { labels: ["x", "y"], scores: [1, 0.5] };
  assert(matches(predictBody([a], false, 2), response), "one row");
  assert(matches(predictBody([a, a], true), response), "rows");
  assert(!matches({ labels: [{ name: "x" }], scores: [1] }, response), "objects are not labels");
});

Deno.test("validatePredict: rows built sorted with values, messages name the field", () => {
  const r = validatePredict({ indices: [9, 2, 5], values: [1, 2, 3], k: 2 }, INDEX);
  assert(r.k === 2 && !r.batch && r.rows.length === 1, JSON.stringify(r));
  const row = r.rows[0] as { indices: Int32Array; values: Float32Array };
  assert(row.indices.join() === "2,5,9" && row.values.join() === "2,3,1", "sorted with values");
  const binary = validatePredict({ rows: [{ indices: [4] }] }, INDEX);
  const b = binary.rows[0] as { values: Float32Array };
  assert(binary.batch && binary.k === PREDICT_LIMITS.defaultK && b.values[0] === 1, "binary");
  const cases: [unknown, string, typeof NAMES?][] = [
    [{ features: { x: 1 } }, `features: key "x" is not a feature index`, INDEX],
    [{ features: { "007": 1 } }, `key "007"`, INDEX],
    [{ features: { "2147483648": 1 } }, `key "2147483648"`, INDEX],
    [{ text: "a" }, "this model was not trained on text", INDEX],
    [
      { rows: [{ indices: [1] }, { indices: [2, 2] }] },
      "rows[1]: indices: feature 2 is listed twice",
    ],
    [{ indices: [1], values: [1e39] }, "values[0]: must be a finite number, got 1e+39"],
    [{ features: { a: null } }, `features["a"]: value must be a finite number, got null`],
    [{ ["x".repeat(60)]: 1 }, `unknown field "${"x".repeat(37)}..."`],
  ];
  for (const [body, part, rules] of cases) {
    const why = refusal(body, rules);
    assert(why?.includes(part), `${JSON.stringify(body).slice(0, 60)}: ${why}`);
  }
  // an index space takes decimal keys; a name space any name
  assert(refusal({ features: { "0": 1, "2147483647": 2 } }, INDEX) === undefined, "index keys");
  assert(refusal({ features: { x: 1 }, k: 3 }, NAMES) === undefined, "names");
  // limits can be lowered (the service's flags)
  assert(refusal({ indices: [1], k: 7 })! === undefined, "k 7");
  try {
    validatePredict({ indices: [1], k: 7 }, INDEX, { maxK: 5 });
    assert(false, "k over a lowered maxK");
  } catch (e) {
    assert((e as Error).message === "field 'k' must be an integer in [1, 5], got 7", String(e));
  }
});

Deno.test("parsePredictBody: UTF-8, nesting before parsing, JSON; readPredictBody: 413", async () => {
  const enc = new TextEncoder();
  const body = (s: string) => enc.encode(s);
  const why = (bytes: Uint8Array) => {
    try {
      parsePredictBody(bytes, NAMES);
      return "";
    } catch (e) {
      return `${(e as PredictError).status} ${(e as Error).message}`;
    }
  };
  assert(why(body('{"text": "Café 東京"}')) === "", "non-ASCII text");
  const t = parsePredictBody(body('{"text": "Café 東京"}'), NAMES).rows[0] as { text: string };
  assert(t.text === "Café 東京", t.text);
  assert(why(Uint8Array.of(123, 34, 0xc3, 34, 58, 49, 125)).includes("not valid UTF-8"), "utf8");
  assert(why(body("{")) === "400 /predict body is malformed JSON", why(body("{")));
  const deep = '{"rows": [{"features": {"a": [1]}}]}';
  assert(
    why(body(deep)) === `400 /predict body is nested deeper than 4 levels (at byte 29)`,
    why(body(deep)),
  );
  // brackets inside strings do not count
  assert(why(body('{"text": "[[[[[[{{{{"}')) === "", "strings");
  const big = new Request("http://x/predict", {
    method: "POST",
    body: "x".repeat(PREDICT_LIMITS.maxBodyBytes + 1),
  });
  try {
    await readPredictBody(big);
    assert(false, "no 413");
  } catch (e) {
    assert((e as PredictError).status === 413, String(e));
  }
  const ok = new Request("http://x/predict", { method: "POST", body: "{}" });
  assert((await readPredictBody(ok)).length === 2, "small body");
});
