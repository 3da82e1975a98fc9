import { LearningService } from "../../src/service/service.ts";
import { setStorageFault } from "../../src/service/storage_faults.ts";
import { assert, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

/** Blocks the thread for `ms` (a checkpoint write that takes that long). */
function spin(ms: number): void {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) { /* a slow disk */ }
}

Deno.test("a slow checkpoint spaces the next ones: at most about a tenth of the time goes to them", async () => {
  await withTempDir(async (dir) => {
    // every checkpoint write takes 150 ms; without spacing, checkpointEvery: 2 would checkpoint
    // after every body below (20 of them in well under a second of ingesting)
    setStorageFault((path) => {
      if (path.includes("checkpoint")) spin(150);
      return undefined;
    });
    try {
      const s = await LearningService.open(
        serviceOptions(dir, { checkpointEvery: 2, checkpointSeconds: 0 }),
      );
      await s.start();
      const t0 = performance.now();
      for (let b = 0; b < 20; b++) await s.ingestBody(plantedEvents(4, 4 * b).join("\n"), "http");
      await s.checkpoint(); // one explicit checkpoint is always honoured
      const seconds = (performance.now() - t0) / 1000;
      const written = s.checkpointsWritten;
      await s.stop();
      // 150 ms each, at least 1.5 s apart: about one per 1.65 s of the run, plus the explicit one
      assert(written >= 1, "no checkpoint at all");
      assert(
        written <= Math.ceil(seconds / 1.65) + 2,
        `${written} checkpoints in ${seconds.toFixed(2)} s: not spaced`,
      );
    } finally {
      setStorageFault(undefined);
    }
  });
});
