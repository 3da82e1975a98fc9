// A full disk fails every background checkpoint alike, one every few events: the log said
// "error in checkpoint: No space left on device ..." once per attempt (54 identical lines in a
// 10,000-line `train --data` on a full 300 kB tmpfs). It is now told once, and the checkpoint that
// succeeds once space is back says how many attempts failed.
import { LearningService } from "../../src/service/service.ts";
import { setStorageFault } from "../../src/service/storage_faults.ts";
import {
  assert,
  assertEquals,
  plantedEvents,
  serviceOptions,
  waitUntil,
  withTempDir,
} from "./helpers.ts";

Deno.test("background checkpoints failing alike are logged once, then their count when one succeeds", async () => {
  await withTempDir(async (dir) => {
    const state = `${dir}/state`, file = `${dir}/events.ndjson`;
    await Deno.writeTextFile(file, plantedEvents(40).join("\n") + "\n");
    let full = true, failed = 0;
    setStorageFault((path, size) => {
      if (!full || !path.startsWith(`${state}/checkpoint`)) return undefined;
      failed++;
      return Math.floor(size / 2);
    });
    const log: string[] = [];
    const s = await LearningService.open(
      serviceOptions(state, {
        file,
        followFile: true,
        checkpointEvery: 1,
        checkpointSeconds: 0.01,
        log: (m) => log.push(m),
      }),
    );
    try {
      await s.start();
      await waitUntil(() => failed >= 4, "4 failed checkpoints");
      full = false;
      const attempts = failed;
      await waitUntil(() => s.checkpointsWritten > 0, "a checkpoint once space is back");
      const errors = log.filter((m) => m.startsWith("error in checkpoint: "));
      assertEquals(errors.length, 1, log.join("\n"));
      assert(errors[0].includes(`${state}/checkpoint.msgpack.tmp`), errors[0]);
      assert(
        log.includes(`checkpoint written again after ${attempts} failed attempts`),
        log.join("\n"),
      );
    } finally {
      full = false;
      await s.stop();
      setStorageFault(undefined);
    }
  });
});
