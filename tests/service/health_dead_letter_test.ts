/**
 * `GET /health` reports a failing dead-letter copy of rejected Redis entries (they stay pending,
 * unacknowledged, while it fails) as "degraded", naming the stream and the error; once a copy
 * succeeds again it answers "ok".
 */
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import type { ServiceHandle } from "../../src/service/service_handle.ts";
import {
  assert,
  assertEquals,
  brokenDeadLetterOptions,
  plantedEvents,
  waitUntil,
  withRedis,
} from "./helpers.ts";

Deno.test("/health: a failing Redis dead-letter copy is 'degraded' with the stream and the error, and 'ok' once copies succeed", async () => {
  await withRedis(async (url, c, dir) => {
    const s = await LearningService.open(await brokenDeadLetterOptions(c, url, dir));
    await s.start();
    const app = createApp({ service: s });
    try {
      await c.xadd("ev", { event: plantedEvents(1)[0] });
      await c.xadd("ev", { event: "{broken" });
      await waitUntil(async () => {
        const m = (await s.metrics()).redis as { deadLetter: { error: string | null } };
        return m.deadLetter.error !== null;
      }, "the copy failed");
      const h = await app.request("/health");
      const j = await h.json();
      assertEquals([h.status, j.status], [503, "degraded"], JSON.stringify(j));
      assert(/dead-letter stream ev:rejected .*WRONGTYPE/.test(j.reason), j.reason);
      assertEquals(j.deadLetter.waiting, 1);
      // the key fixed: the copy is retried and succeeds
      await c.command("DEL", "ev:rejected");
      await waitUntil(async () => {
        const m = (await s.metrics()).redis as { deadLetter: { waiting: number } };
        return m.deadLetter.waiting === 0;
      }, "the copy made");
      const ok = await app.request("/health");
      assertEquals([ok.status, (await ok.json()).status], [200, "ok"]);
    } finally {
      await s.stop();
    }
  });
});

Deno.test("/health: a full disk and a failing dead-letter copy are both named", async () => {
  const service = {
    stopping: false,
    metrics: () =>
      Promise.resolve({
        storage: { ok: false, wal: "No space left on device", checkpoint: null, since: "t" },
        redis: { deadLetter: { key: "k:rejected", waiting: 2, error: "READONLY" } },
      }),
  } as unknown as ServiceHandle;
  const h = await createApp({ service }).request("/health");
  const j = await h.json();
  assertEquals([h.status, j.status], [503, "degraded"]);
  assert(/write-ahead log: No space left/.test(j.reason), j.reason);
  assert(/dead-letter stream k:rejected \(READONLY\)/.test(j.reason), j.reason);
  assertEquals([j.storage.ok, j.deadLetter.waiting], [false, 2]);
});
