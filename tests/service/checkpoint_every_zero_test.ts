// `checkpointEvery: 0`: a service on a state directory nobody resumes from (`tagstream train`
// without --state-dir) writes no checkpoint of its own: none every N events, none on the
// checkpoint timer, none at stop. An explicit `checkpoint()` still writes one.
import { LearningService } from "../../src/service/service.ts";
import { assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

/** The checkpoint files in `dir` (the base, its deltas and their temporary copies). */
async function checkpointFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) if (e.name.includes("checkpoint")) out.push(e.name);
  return out.sort();
}

Deno.test("checkpointEvery 0: no checkpoint by count, by timer or at stop", async () => {
  await withTempDir(async (dir) => {
    // a timer of 1 ms and a few turns of it: with checkpoints on, it checkpoints the bodies
    const s = await LearningService.open(
      serviceOptions(dir, { checkpointEvery: 0, checkpointSeconds: 0.001, wal: false }),
    );
    await s.start();
    for (let b = 0; b < 10; b++) {
      await s.ingestBody(plantedEvents(4, 4 * b).join("\n"), "http");
      await new Promise((r) => setTimeout(r, 5));
    }
    const applied = s.applied;
    await s.stop();
    assertEquals(applied, 40);
    assertEquals(s.checkpointsWritten, 0);
    assertEquals(await checkpointFiles(dir), []);
  });
});

Deno.test("checkpointEvery 0: an explicit checkpoint() is still written", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(
      serviceOptions(dir, { checkpointEvery: 0, checkpointSeconds: 0, wal: false }),
    );
    await s.start();
    await s.ingestBody(plantedEvents(8).join("\n"), "http");
    await s.checkpoint();
    await s.ingestBody(plantedEvents(8, 8).join("\n"), "http");
    await s.stop();
    // the one asked for, and none at stop
    assertEquals(s.checkpointsWritten, 1);
    const resumed = await LearningService.open(serviceOptions(dir, { wal: false }));
    assertEquals(resumed.applied, 8);
    await resumed.stop();
  });
});
