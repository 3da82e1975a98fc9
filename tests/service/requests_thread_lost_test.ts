/**
 * `POST /checkpoint`, `POST /publish` and `GET /metrics` when the service is lost while answering
 * them (its learner thread dies before answering), as `POST /events` is answered then
 * (events_thread_lost_test.ts): a checkpoint or a publish in flight gets a 500 with
 * `Retry-After` saying it may have been done or not, metrics in flight a 503 with it (nothing
 * was changed); the requests after it get the 503 with `Retry-After`, naming the route.
 */
import { factory as leml } from "../../src/models/leml/mod.ts";
import { createApp } from "../../src/service/http_app.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { assert, assertEquals, plantedEvents, withTempDir } from "./helpers.ts";

const CASES = [
  { op: "checkpoint", method: "POST", path: "/checkpoint", inFlight: 500, done: /written/ },
  { op: "publish", method: "POST", path: "/publish", inFlight: 500, done: /published/ },
  { op: "metrics", method: "GET", path: "/metrics", inFlight: 503, done: /nothing was changed/ },
] as const;

for (const c of CASES) {
  Deno.test(`${c.method} ${c.path} in flight when the learner thread dies: ${c.inFlight} with Retry-After; later requests 503 with it`, async () => {
    await withTempDir(async (dir) => {
      const failures: string[] = [];
      const t = await LearnerThread.open({
        workerUrl: new URL("./fixtures/dies_on_request_learner.ts", import.meta.url),
        init: { dir, op: c.op },
        factory: leml,
        onFailure: (m) => failures.push(m),
      });
      try {
        const app = createApp({ service: t });
        const ok = await app.request("/events", {
          method: "POST",
          body: plantedEvents(4).join("\n"),
        });
        assertEquals(ok.status, 200);
        await ok.body?.cancel();
        const r = await app.request(c.path, { method: c.method });
        assertEquals(r.status, c.inFlight);
        assertEquals(r.headers.get("retry-after"), "7");
        const j = await r.json();
        assert(j.error.includes(`injected failure while answering ${c.op}`), j.error);
        assert(j.error.includes(c.path), j.error);
        assert(c.done.test(j.error), j.error);
        assertEquals(failures.length, 1);
        // the requests after it: refused, the thread is gone
        for (const path of ["/checkpoint", "/publish"]) {
          const later = await app.request(path, { method: "POST" });
          assertEquals(later.status, 503, path);
          assertEquals(later.headers.get("retry-after"), "7", path);
          const e = (await later.json()).error;
          assert(e.includes(path) && /not available/.test(e), e);
        }
        const later = await app.request("/metrics");
        assertEquals(later.status, 503);
        assertEquals(later.headers.get("retry-after"), "7");
        const e = (await later.json()).error;
        assert(e.includes("/metrics") && /not available/.test(e), e);
      } finally {
        await t.stop();
      }
    });
  });
}
