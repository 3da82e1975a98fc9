/**
 * A request body still arriving when the service starts stopping is cut: `POST /events` gets
 * the 503 of a body begun while stopping (nothing of it applied, `Retry-After` the service's
 * `retryAfterSeconds`), `POST /predict` a 503 too, at once rather than at the body timeout (a
 * stalled client held the stop up for it); what was acknowledged before stays. And every 503 of
 * a stopping service says the service's `retryAfterSeconds` (the route said 2 whatever it was),
 * on both implementations (`LearningService`, `LearnerThread`).
 *
 * The stalled client is a body stream that gives half an event and then never another byte; the
 * body timeout (60 s) is far beyond what the test otherwise takes, so a read that is not cut
 * ends in a 408 (the test fails) rather than a 503.
 */
import { factory as leml } from "../../src/models/leml/mod.ts";
import { createApp } from "../../src/service/http_app.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { LearningService } from "../../src/service/service.ts";
import { assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

const STOPPING = "the service is stopping; nothing of this body was applied";

/**
 * A body that gives `head` and then stalls for ever, and a promise resolved once the reader has
 * taken `head` and asks for more (the handler is then reading the body).
 */
function stalledBody(head: string): { body: ReadableStream<Uint8Array>; reading: Promise<void> } {
  let pulls = 0;
  let reading = () => {};
  const read = new Promise<void>((resolve) => (reading = resolve));
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulls++ === 0) {
        c.enqueue(new TextEncoder().encode(head));
        return;
      }
      reading();
      return new Promise<void>(() => {}); // never another byte
    },
  });
  return { body, reading: read };
}

for (const declared of [false, true]) {
  const how = declared ? "with Content-Length" : "without Content-Length";
  Deno.test(`POST /events ${how}: a body still arriving at the stop gets the stop's 503, nothing of it applied`, async () => {
    await withTempDir(async (dir) => {
      const s = await LearningService.open(serviceOptions(dir, { retryAfterSeconds: 7 }));
      await s.start();
      const app = createApp({ service: s, bodyTimeoutMs: 60_000 });
      const acked = await app.request("/events", {
        method: "POST",
        body: plantedEvents(3).join("\n"),
      });
      assertEquals([acked.status, (await acked.json()).accepted], [200, 3]);
      const line = plantedEvents(1, 100)[0] + "\n";
      const { body, reading } = stalledBody(line.slice(0, line.length >> 1));
      const answer = app.request("/events", {
        method: "POST",
        body,
        headers: declared ? { "content-length": String(line.length) } : {},
        duplex: "half",
      } as RequestInit);
      await reading;
      const stopped = s.stop();
      const r = await answer;
      assertEquals(
        [r.status, r.headers.get("retry-after"), (await r.json()).error],
        [503, "7", STOPPING],
      );
      await stopped;
      // the acknowledged events are all there after a restart, the half event is not
      const again = await LearningService.open(serviceOptions(dir));
      assertEquals(again.learner.applied, 3);
      await again.stop();
    });
  });
}

Deno.test("POST /predict: a body still arriving at the stop gets a 503 with the service's Retry-After", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, { retryAfterSeconds: 7 }));
    await s.ingestBody(plantedEvents(3).join("\n"), "http");
    const app = createApp({ service: s, bodyTimeoutMs: 60_000 });
    const { body, reading } = stalledBody('{"features": {"0": 1}, ');
    const answer = app.request("/predict", { method: "POST", body, duplex: "half" } as RequestInit);
    await reading;
    const stopped = s.stop();
    const r = await answer;
    assertEquals(
      [r.status, r.headers.get("retry-after"), (await r.json()).error],
      [503, "7", "the service is stopping; the rest of this body was not waited for"],
    );
    await stopped;
  });
});

Deno.test("POST /events begun while stopping: Retry-After is the service's retryAfterSeconds", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, { retryAfterSeconds: 7 }));
    assertEquals(s.retryAfterSeconds, 7);
    const app = createApp({ service: s });
    await s.stop();
    const r = await app.request("/events", { method: "POST", body: plantedEvents(1)[0] });
    assertEquals(
      [r.status, r.headers.get("retry-after"), (await r.json()).error],
      [503, "7", STOPPING],
    );
  });
});

Deno.test("learner thread: retryAfterSeconds is its service's, and its 503s say it", async () => {
  await withTempDir(async (dir) => {
    const t = await LearnerThread.open({
      workerUrl: new URL("./fixtures/retry_after_learner.ts", import.meta.url),
      init: dir,
      factory: leml,
    });
    const app = createApp({ service: t });
    try {
      assertEquals(t.retryAfterSeconds, 9);
    } finally {
      await t.stop();
    }
    const r = await app.request("/events", { method: "POST", body: plantedEvents(1)[0] });
    assertEquals(
      [r.status, r.headers.get("retry-after"), (await r.json()).error],
      [503, "9", STOPPING],
    );
  });
});
