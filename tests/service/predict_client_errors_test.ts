/**
 * Client input the learning service's /predict used to answer with a 500 (the SDK's edge handler
 * answers 400 to both): values of names hashed into one column adding up past float32, and a
 * request body that breaks off while it is read.
 */
import { FeatureHasher } from "../../src/data/hashing.ts";
import { factory as ova } from "../../src/models/ova/mod.ts";
import { createApp } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, eventLine, withTempDir } from "./helpers.ts";
import { validatePredict } from "../../sdk/predict_protocol.ts";

const HASHING = { dim: 64, seed: 9, signed: true };

/** Two names that the hasher puts into one column with the same sign. */
function collidingNames(): [string, string] {
  const h = new FeatureHasher(HASHING), seen = new Map<string, string>();
  for (let i = 0;; i++) {
    const name = `n${i}`, x = h.hashNamed([name], [1]);
    const key = `${x.indices[0]}:${Math.sign(x.values[0])}`;
    const other = seen.get(key);
    if (other !== undefined) return [other, name];
    seen.set(key, name);
  }
}

Deno.test("/predict: names sharing a hashed column whose values add up past float32 are a 400, not a 500", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open({
      factory: ova,
      stateDir: dir,
      batchSize: 4,
      limits: { hashing: HASHING },
      log: () => {},
    });
    try {
      const app = createApp({ service: s });
      const [a, b] = collidingNames();
      const events = [0, 1, 2, 3].map((i) => eventLine(`e${i}`, { [a]: 1, w: i }, [`t${i % 2}`]));
      assertEquals(
        (await app.request("/events", { method: "POST", body: events.join("\n") })).status,
        200,
      );
      s.learner.flush();
      for (
        const body of [{ features: { [a]: 3e38, [b]: 3e38 } }, {
          rows: [{ features: { [a]: 1 } }, { features: { [a]: 3e38, [b]: 3e38 } }],
        }]
      ) {
        const r = await app.request("/predict", { method: "POST", body: JSON.stringify(body) });
        const text = await r.text();
        assertEquals(r.status, 400, text);
        assert(text.includes("finite"), text);
        if ("rows" in body) assert(text.includes("rows[1]"), text);
      }
      // a row that adds up finitely is answered
      const ok = await app.request("/predict", {
        method: "POST",
        body: JSON.stringify({ features: { [a]: 1, [b]: 1 } }),
      });
      assertEquals(ok.status, 200);
      await ok.body?.cancel();
    } finally {
      await s.stop();
    }
  });
});

Deno.test("/predict and /events: a body that breaks off while it is read is a 400, not a 500", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open({ factory: ova, stateDir: dir, log: () => {} });
    try {
      const app = createApp({ service: s });
      for (const path of ["/predict", "/events"]) {
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(new TextEncoder().encode('{"features": {"0": 1'));
          },
          pull(c) {
            c.error(new Error("connection reset"));
          },
        });
        const r = await app.request(path, { method: "POST", body, duplex: "half" } as RequestInit);
        const text = await r.text();
        assertEquals(r.status, 400, `${path}: ${text}`);
        assert(text.includes("could not be read"), text);
      }
    } finally {
      await s.stop();
    }
  });
});

Deno.test("/predict with a maximum k below 5: a request without k gets the maximum, not a 400 (service and SDK protocol)", async () => {
  const v = validatePredict({ features: { "0": 1 } }, { indexKeys: true, text: false }, {
    maxK: 3,
  });
  assertEquals(v.k, 3);
  assertEquals(validatePredict({ features: { "0": 1 } }, { indexKeys: true, text: false }).k, 5);
  await withTempDir(async (dir) => {
    const s = await LearningService.open({
      factory: ova,
      stateDir: dir,
      batchSize: 4,
      log: () => {},
    });
    try {
      const app = createApp({ service: s, maxK: 3 });
      const events = [0, 1, 2, 3, 4, 5].map((i) =>
        eventLine(`e${i}`, { "0": 1, [`${i + 1}`]: 1 }, [`t${i}`])
      );
      assertEquals(
        (await app.request("/events", { method: "POST", body: events.join("\n") })).status,
        200,
      );
      s.learner.flush();
      // the one-row fast path and the full path (two rows)
      for (
        const body of [
          '{"features": {"0": 1}}',
          '{"rows": [{"features": {"0": 1}}, {"indices": [0], "values": [1]}]}',
        ]
      ) {
        const r = await app.request("/predict", { method: "POST", body });
        const answer = await r.json();
        assertEquals(r.status, 200, JSON.stringify(answer));
        const first = "results" in answer ? answer.results[0] : answer;
        assertEquals(first.labels.length, 3);
      }
      const over = await app.request("/predict", {
        method: "POST",
        body: '{"features": {"0": 1}, "k": 4}',
      });
      assertEquals(over.status, 400);
      await over.body?.cancel();
    } finally {
      await s.stop();
    }
  });
});
