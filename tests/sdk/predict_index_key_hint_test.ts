// `/predict` of a model that reads feature indices refused `{"features": {"direct": 1}}` with the
// bare `features: key "direct" is not a feature index (a non-negative integer)`, leaving the
// client to guess what the model wants. The refusal now says that this model reads feature
// indices and what to send instead, the same in validatePredict (the service) and the edge
// handler (sdk/http.ts); a model of named features still takes the key, and other refusals get
// no hint.
import { predictHandler } from "../../sdk/http.ts";
import { loadModel } from "../../sdk/mod.ts";
import { PredictError, validatePredict } from "../../sdk/predict_protocol.ts";
import { assert } from "./helpers.ts";

const HINT = '; this model reads feature indices: send {"indices": [...], "values": [...]}, ' +
  "or named features to a model trained with --feature-keys name or hash";
const INDEX = { indexKeys: true, text: false };
const NAMES = { indexKeys: false, text: false };

function refusal(body: unknown, rules = INDEX): string {
  try {
    validatePredict(body, rules);
  } catch (e) {
    assert(e instanceof PredictError && e.status === 400, `${JSON.stringify(body)}: ${e}`);
    return e.message;
  }
  throw new Error(`${JSON.stringify(body)} accepted`);
}

Deno.test("/predict: a key that is not an index says the model reads indices and what to send", () => {
  const cases: [unknown, string][] = [
    [{ features: { direct: 1 } }, `features: key "direct" is not a feature index`],
    [{ features: { "3": 1, "-1": 1 } }, `features: key "-1" is not a feature index`],
    [{ rows: [{ features: { "007": 1 } }] }, `rows[0]: features: key "007" is not a feature index`],
  ];
  for (const [body, head] of cases) {
    const want = `${head} (a non-negative integer)${HINT}`;
    const got = refusal(body);
    assert(got === want, `expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  // other refusals of the same row get no hint; a model of named features takes the key
  const value = refusal({ features: { "3": "x" } });
  assert(value === `features["3"]: value must be a finite number, got "x"`, value);
  validatePredict({ features: { direct: 1 } }, NAMES);
});

Deno.test("the edge handler answers the same hint for an index-space model", async () => {
  const file = await Deno.readFile(
    new URL("../fixtures/v1/linear-sparse-i8.tsm", import.meta.url),
  );
  const model = loadModel(file);
  assert(model.featureSpace?.type === "index", "an index-space fixture");
  const handle = predictHandler({ get: () => Promise.resolve(model) });
  const res = await handle(
    new Request("http://x/predict", {
      method: "POST",
      body: JSON.stringify({ features: { direct: 1 } }),
    }),
  );
  const body = await res.json();
  const want = `features: key "direct" is not a feature index (a non-negative integer)${HINT}`;
  assert(res.status === 400 && body.error === want, `${res.status} ${JSON.stringify(body)}`);
});
