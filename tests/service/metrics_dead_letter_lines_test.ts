/**
 * `GET /metrics` does not answer with the event lines of the rejected Redis entries waiting for
 * their dead-letter copy (the position carries them for the checkpoint: up to 10000 entries and
 * 16 Mi characters of clients' data, and `/metrics` may be open without a token), while
 * `redis.deadLetter` counts them and the checkpoint still keeps them.
 */
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import {
  assert,
  assertEquals,
  brokenDeadLetterOptions,
  serviceOptions,
  waitUntil,
  withRedis,
} from "./helpers.ts";

Deno.test("/metrics: the rejected Redis entries' lines waiting for their dead-letter copy are not in the answer, the checkpoint keeps them", async () => {
  await withRedis(async (url, c, dir) => {
    const s = await LearningService.open(await brokenDeadLetterOptions(c, url, dir));
    await s.start();
    try {
      for (let i = 0; i < 3; i++) await c.xadd("ev", { event: `{broken private-${i}` });
      await waitUntil(() => s.learner.rejected === 3, "the entries rejected");
      await s.checkpoint(); // the position now carries the waiting rejects
      const app = createApp({ service: s, token: "t", publicRead: true });
      for (const format of ["json", "prometheus"]) {
        const r = await app.request(`/metrics?format=${format}`);
        assertEquals(r.status, 200);
        const text = await r.text();
        assert(!text.includes("private-"), `${format}: the rejected lines are in /metrics`);
      }
      const m = await (await app.request("/metrics")).json();
      assertEquals(m.redis.deadLetter.waiting, 3);
      assertEquals(m.position.redis.key, "ev");
      assertEquals(m.position.redis.deadLetter, undefined);
      // the service's own position (what the checkpoint holds) is untouched
      assertEquals(s.learner.position.redis?.deadLetter?.length, 3);
    } finally {
      await s.stop();
    }
    // and the stopped service's last checkpoint kept them for the restart
    const t = await LearningService.open(serviceOptions(dir));
    assertEquals(t.learner.position.redis?.deadLetter?.map((r) => r.line), [
      "{broken private-0",
      "{broken private-1",
      "{broken private-2",
    ]);
    await t.stop();
  });
});
