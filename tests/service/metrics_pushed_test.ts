/**
 * `GET /metrics` and `GET /health` answer from the metrics the learner thread pushes once a
 * second, instead of asking the thread and waiting for whatever it is doing (a full checkpoint of
 * a 10⁶-label model holds it 1-4 s: /metrics took up to 6.6 s, and /health answered 503
 * "degraded" after 2 s, so that a liveness probe could restart a healthy server).
 * `?fresh=1` still asks; `/health` asks first and judges from the pushed metrics when the learner
 * does not answer within 0.25 s, unless they are older than 30 s.
 */
import { metricsRoutes } from "../../src/service/http/metrics_routes.ts";
import { healthRoutes } from "../../src/service/http/health_routes.ts";
import { bearerAuth } from "../../src/service/http/auth_middleware.ts";
import { factory as leml } from "../../src/models/leml/mod.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import type { ServiceHandle } from "../../src/service/service_handle.ts";
import { assert, assertEquals, waitUntil, withTempDir } from "./helpers.ts";

const WORKER = new URL("../../src/cli/commands/serve_learner.ts", import.meta.url);

/** A service whose learner never answers when asked, with pushed metrics `age` seconds old. */
function busyLearner(age: number): { service: ServiceHandle; asked: () => number } {
  let asked = 0;
  const service = {
    stopping: false,
    metrics: () => {
      asked++;
      return new Promise(() => {}); // busy: never answers
    },
    latestMetrics: () => ({
      events: { applied: 7 },
      storage: { ok: true, wal: null, checkpoint: null },
      metricsAgeSeconds: age,
    }),
  } as unknown as ServiceHandle;
  return { service, asked: () => asked };
}

Deno.test("GET /metrics answers from the pushed metrics while the learner is busy; ?fresh=1 asks it", async () => {
  const { service, asked } = busyLearner(2.5);
  const app = metricsRoutes(service, bearerAuth(undefined));
  // (a hang guard: asking the busy learner would never answer)
  let guard: ReturnType<typeof setTimeout> | undefined;
  const r = await Promise.race([
    Promise.resolve(app.request("/metrics")),
    new Promise<never>((_, no) => guard = setTimeout(() => no(new Error("/metrics waited")), 5000)),
  ]).finally(() => clearTimeout(guard));
  assertEquals(r.status, 200);
  const m = await r.json();
  assertEquals([m.events.applied, m.metricsAgeSeconds, asked()], [7, 2.5, 0]);
  // ?fresh=1 asks the learner (and so waits for it): not answered while it is busy
  const fresh = await Promise.race([
    Promise.resolve(app.request("/metrics?fresh=1")).then(() => "answered"),
    new Promise((r) => setTimeout(() => r("waiting"), 50)),
  ]);
  assertEquals([fresh, asked()], ["waiting", 1]);
});

Deno.test("GET /health is ok from pushed metrics while the learner is busy; degraded once they are old and it does not answer", async () => {
  const busy = busyLearner(4);
  const ok = await healthRoutes(busy.service).request("/health");
  assertEquals([ok.status, (await ok.json()).status, busy.asked()], [200, "ok", 1]);
  const old = busyLearner(45);
  const r = await healthRoutes(old.service).request("/health");
  assertEquals(r.status, 503);
  const body = await r.json();
  assertEquals([body.status, old.asked()], ["degraded", 1]);
  assert(/did not answer within 2 s/.test(body.reason), body.reason);
});

Deno.test("the learner thread pushes its metrics: latestMetrics has them, with their age and the replica's", async () => {
  await withTempDir(async (dir) => {
    const t = await LearnerThread.open({
      workerUrl: WORKER,
      init: ["--state-dir", dir, "--model", "leml", "--option", "rank=2", "--no-prune"],
      factory: leml,
    });
    try {
      assertEquals(t.latestMetrics(), undefined); // nothing pushed before the first second
      await waitUntil(() => t.latestMetrics() !== undefined, "the first push");
      const m = t.latestMetrics()!;
      assert(typeof m.metricsAgeSeconds === "number" && m.metricsAgeSeconds >= 0, `${m}`);
      assert(typeof (m.learnerThread as Record<string, unknown>).replicas === "number");
      assert((m.events as Record<string, unknown>) !== undefined, JSON.stringify(m));
    } finally {
      await t.stop();
    }
  });
});
