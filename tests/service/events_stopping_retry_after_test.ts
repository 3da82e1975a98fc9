/**
 * `POST /events` while the service is stopping is a 503 with `Retry-After` (as documented), so
 * that a sender waits and resends to the restarted service.
 */
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

Deno.test("POST /events while stopping: 503 with Retry-After, nothing applied", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.start();
    const app = createApp({ service: s });
    await s.stop();
    const r = await app.request("/events", { method: "POST", body: plantedEvents(2).join("\n") });
    assertEquals(r.status, 503);
    const after = Number(r.headers.get("retry-after"));
    assert(Number.isInteger(after) && after >= 1, `Retry-After ${r.headers.get("retry-after")}`);
    const j = await r.json();
    assert(/stopping/.test(j.error) && /nothing of this body was applied/.test(j.error), j.error);
    assertEquals(s.applied, 0);
  });
});
