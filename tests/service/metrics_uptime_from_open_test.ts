// `/metrics` `uptimeSeconds` started after the write-ahead log's replay: it said 2.85 s at 15.5 s
// of wall time after a 31,500-event replay. It now counts from when `open` began (the state's
// loading and the replay included, as `startedAt` says), and `checkpoint.openSeconds` tells
// how long the opening took; `eventsPerSecondSinceStart` still counts the events applied since
// the service was ready over the time since then.
import { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

Deno.test("metrics: uptimeSeconds counts from open (the log's replay included); openSeconds and startedAt say when", async () => {
  await withTempDir(async (dir) => {
    const first = await LearningService.open(serviceOptions(dir));
    await first.ingestBody(plantedEvents(300).join("\n"), "http");
    await first.stop({ checkpoint: false }); // the next open replays the log
    const before = Date.now();
    const s = await LearningService.open(serviceOptions(dir));
    const after = Date.now();
    try {
      assertEquals(s.walReplayed, 300);
      const m = await s.metrics() as {
        uptimeSeconds: number;
        startedAt: string;
        eventsPerSecondSinceStart: number;
        checkpoint: { openSeconds: number };
      };
      const opening = m.checkpoint.openSeconds;
      assert(typeof opening === "number" && opening > 0, JSON.stringify(m.checkpoint));
      assert(m.uptimeSeconds >= opening, `uptime ${m.uptimeSeconds} s, opening ${opening} s`);
      const started = Date.parse(m.startedAt);
      assert(started >= before && started <= after, `${m.startedAt} within open()`);
      // the replayed events are not events applied since start
      assertEquals(m.eventsPerSecondSinceStart, 0);
    } finally {
      await s.stop();
    }
  });
});
