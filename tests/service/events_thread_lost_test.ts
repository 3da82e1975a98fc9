/**
 * `POST /events` when the service is lost while applying the body (its learner thread dies
 * before answering): the body may already be in the write-ahead log, so the answer cannot be the
 * 503's "nothing of this body was applied"; it is a 500 with `Retry-After` saying it may have
 * been applied and that events with an id are not applied twice. The bodies after it get the
 * 503 with `Retry-After`. And a `ServiceHandle` without `retryAfterSeconds` (optional) is
 * answered with the default, 2 s.
 */
import { factory as leml } from "../../src/models/leml/mod.ts";
import { createApp } from "../../src/service/http_app.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { LearningService } from "../../src/service/service.ts";
import type { ServiceHandle } from "../../src/service/service_handle.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

Deno.test("POST /events in flight when the learner thread dies: 500 with Retry-After, 'may have been applied'; later bodies 503 with it", async () => {
  await withTempDir(async (dir) => {
    const failures: string[] = [];
    const t = await LearnerThread.open({
      workerUrl: new URL("./fixtures/dies_while_ingesting_learner.ts", import.meta.url),
      init: dir,
      factory: leml,
      onFailure: (m) => failures.push(m),
    });
    try {
      const app = createApp({ service: t });
      const body = plantedEvents(4).join("\n");
      const r = await app.request("/events", { method: "POST", body });
      assertEquals(r.status, 500);
      assertEquals(r.headers.get("retry-after"), "7");
      const j = await r.json();
      assert(/injected failure while applying a body/.test(j.error), j.error);
      assert(/may have been applied/.test(j.error), j.error);
      assert(/events with an id are not applied twice/.test(j.error), j.error);
      assertEquals(failures.length, 1);
      // the bodies after it: refused whole, nothing handed over
      const later = await app.request("/events", { method: "POST", body });
      assertEquals(later.status, 503);
      assertEquals(later.headers.get("retry-after"), "7");
      assert(/nothing of this body was applied/.test((await later.json()).error));
    } finally {
      await t.stop();
    }
    // it had been applied: the restart replays it from the write-ahead log
    const s = await LearningService.open(serviceOptions(dir));
    assertEquals([s.applied, s.walReplayed], [4, 4]);
    await s.stop();
  });
});

/** A handle that says nothing of `retryAfterSeconds` (it is optional). */
function withoutRetryAfter(s: ServiceHandle, stopping: () => boolean): ServiceHandle {
  return {
    get applied() {
      return s.applied;
    },
    get predictor() {
      return s.predictor;
    },
    get published() {
      return s.published;
    },
    get stopping() {
      return stopping();
    },
    ingestBody: (body, source) => s.ingestBody(body, source),
    metrics: () => s.metrics(),
    checkpoint: () => s.checkpoint(),
    publish: () => s.publish(),
    recentRate: () => s.recentRate(),
    stop: () => s.stop(),
  };
}

Deno.test("a ServiceHandle without retryAfterSeconds: /events and /predict answer Retry-After 2", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, { retryAfterSeconds: 9 }));
    let stopping = false;
    const handle = withoutRetryAfter(s, () => stopping);
    assertEquals(handle.retryAfterSeconds, undefined);
    const app = createApp({ service: handle });
    try {
      const ok = await app.request("/events", {
        method: "POST",
        body: plantedEvents(2).join("\n"),
      });
      assertEquals(ok.status, 200);
      await ok.body?.cancel();
      stopping = true;
      const events = await app.request("/events", { method: "POST", body: plantedEvents(1)[0] });
      assertEquals(events.status, 503);
      assertEquals(events.headers.get("retry-after"), "2");
      await events.body?.cancel();
      // a /predict body still arriving while the service stops is cut with the 503
      const stream = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
      const predict = await app.request("/predict", { method: "POST", body: stream });
      assertEquals(predict.status, 503);
      assertEquals(predict.headers.get("retry-after"), "2");
      await predict.body?.cancel();
    } finally {
      await s.stop();
    }
  });
});
