// `stop({ checkpoint: false })` stops the service (sources, timers, write-ahead log closed) without
// its last checkpoint: `train`'s XC pass, interrupted or refused, used to return without stopping
// the service at all, and a plain stop would save the partial pass it must not save. The state
// directory then holds what it held before, plus the log, which the next open replays.
import { LearningService } from "../../src/service/service.ts";
import { assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("stop({ checkpoint: false }) writes no checkpoint; the log it closed is replayed at the next open", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, { checkpointSeconds: 0 }));
    await s.start();
    const r = await s.ingestBody(plantedEvents(8).join("\n"), "http");
    assertEquals([r.accepted, r.durable], [8, true]);
    await s.stop({ checkpoint: false });
    assertEquals(s.stopping, true);
    assertEquals(await exists(`${dir}/checkpoint.msgpack`), false);
    // a later call is the same stop: still no checkpoint
    await s.stop();
    assertEquals(await exists(`${dir}/checkpoint.msgpack`), false);

    const again = await LearningService.open(serviceOptions(dir, { checkpointSeconds: 0 }));
    assertEquals([again.walReplayed, again.learner.applied], [8, 8]);
    await again.stop(); // a plain stop checkpoints
    assertEquals(await exists(`${dir}/checkpoint.msgpack`), true);
    const third = await LearningService.open(serviceOptions(dir, { checkpointSeconds: 0 }));
    assertEquals([third.walReplayed, third.learner.applied], [0, 8]);
    await third.stop({ checkpoint: false });
  });
});
