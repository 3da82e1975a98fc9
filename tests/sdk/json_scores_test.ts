// A score that overflowed float32 (a raw query near 3e38 on a model without L2 normalisation) is
// answered as the largest float32, never as JSON's null (which the answer's schema refuses), by
// the SDK's edge handler and by the service's /predict; the labels' order is the model's.
import { loadModel } from "../../sdk/mod.ts";
import { predictHandler } from "../../sdk/http.ts";
import { factory } from "../../src/models/ova/mod.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { assert, assertEquals } from "../helpers.ts";

const FLOAT32_MAX = 3.4028234663852886e38;
const HUGE = { "0": 3e38, "1": 3e38, "2": 3e38, "3": 3e38 };

Deno.test("the SDK's /predict answers overflowed scores as the largest float32, not null", async () => {
  const m = factory.create({ numFeatures: 4, numLabels: 3, l2Normalize: false });
  for (let i = 0; i < 200; i++) {
    m.learnOne({ indices: Int32Array.of(i % 3, 3), values: Float32Array.of(1, 1) }, [i % 3]);
  }
  const model = loadModel(m.toModelFile());
  const top = model.predictTopK(HUGE, 3);
  assert(
    top.scores.some((s) => !Number.isFinite(s)),
    "the query no longer overflows: pick a larger one",
  );
  const handler = predictHandler({ get: () => Promise.resolve(model) });
  const res = await handler(
    new Request("http://x/predict", {
      method: "POST",
      body: JSON.stringify({ features: HUGE, k: 3 }),
    }),
  );
  const answer = await res.json();
  assertEquals(res.status, 200);
  assertEquals(answer.labels, Array.from(top.labels, (l) => model.labelName(l)));
  assert(answer.scores.every((s: unknown) => typeof s === "number"), JSON.stringify(answer));
  for (const [i, s] of top.scores.entries()) {
    assertEquals(answer.scores[i], Number.isFinite(s) ? s : Math.sign(s) * FLOAT32_MAX);
  }
});

Deno.test("the service's predictRow answers overflowed scores as the largest float32", () => {
  const l = StreamLearner.create(factory, { batchSize: 1, modelOptions: { l2Normalize: false } });
  for (let i = 0; i < 60; i++) {
    l.ingestLine(
      JSON.stringify({ features: { [i % 3]: 1, "3": 1 }, labels: [`l${i % 3}`] }),
      "t",
      i + 1,
    );
  }
  const x = l.parser.rowForPredict([0, 1, 2, 3], [3e38, 3e38, 3e38, 3e38], l.estimator.numFeatures);
  const raw = l.estimator.predictTopK(x, 3);
  assert(raw.scores.some((s) => !Number.isFinite(s)), "the query no longer overflows");
  const answer = l.predictRow(x, 3);
  assertEquals(answer.scores.length, raw.scores.length);
  assert(answer.scores.every(Number.isFinite), JSON.stringify(answer));
  assertEquals(JSON.parse(JSON.stringify(answer)).scores.includes(null), false);
});
