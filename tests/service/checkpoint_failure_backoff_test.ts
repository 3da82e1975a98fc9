// A failed background checkpoint used not to space the next one: on a full disk every body after
// the first failure started another attempt (each one the learner's state built and encoded, for
// nothing). The spacing now doubles with each failed attempt in a row (capped), and a checkpoint
// written resets it; events are still accepted, durable in the write-ahead log, meanwhile.
import { LearningService } from "../../src/service/service.ts";
import { CHECKPOINT_BACKOFF_CAP, checkpointBackoff } from "../../src/service/checkpoint_backoff.ts";
import { setStorageFault } from "../../src/service/storage_faults.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

Deno.test("checkpointBackoff doubles with each failed attempt in a row, up to its cap", () => {
  assertEquals([0, 1, 2, 3, 4, 5, 6, 1000].map(checkpointBackoff), [1, 2, 4, 8, 16, 16, 16, 16]);
  assertEquals(CHECKPOINT_BACKOFF_CAP, 16);
});

Deno.test("failed background checkpoints are spaced by events doubling: 4 attempts in 200 events, not one per body", async () => {
  await withTempDir(async (dir) => {
    let full = true, attempts = 0;
    setStorageFault((path, size) => {
      if (!full || !path.startsWith(`${dir}/checkpoint`)) return undefined;
      attempts++;
      return Math.floor(size / 2);
    });
    const log: string[] = [];
    // no timer: only the event trigger (every 10 events; after n failures 10 · 2^n)
    const s = await LearningService.open(
      serviceOptions(dir, { checkpointEvery: 10, checkpointSeconds: 0, log: (m) => log.push(m) }),
    );
    try {
      await s.start();
      for (let b = 0; b < 40; b++) {
        const r = await s.ingestBody(plantedEvents(5, 5 * b).join("\n"), "http");
        // every body is kept (the write-ahead log works; only checkpoints fail)
        assertEquals([r.accepted, r.durable], [5, true]);
        // a background attempt started by this body ends before the next one (no overlap)
        for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
      }
      // attempts once 10 events were applied since the last one, then 20, 40, 80 (at 10, 30, 70
      // and 150 events) — no sooner (the spacing by their own cost can only delay them)
      assert(attempts >= 1, "no checkpoint attempted");
      assert(attempts <= 4, `${attempts} failed checkpoint attempts in 200 events`);
      assertEquals(s.storage.ok, false);
      full = false;
      await s.checkpoint(); // an explicit checkpoint is never held back
      assertEquals(s.storage.ok, true);
      assert(
        log.includes(
          `checkpoint written again after ${attempts} failed attempt${attempts === 1 ? "" : "s"}`,
        ),
        log.join("\n"),
      );
    } finally {
      full = false;
      await s.stop();
      setStorageFault(undefined);
    }
  });
});

Deno.test("a checkpoint whose state cannot be built (before any write) is spaced as a failed write is", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(
      serviceOptions(dir, { checkpointEvery: 10, checkpointSeconds: 0 }),
    );
    // the learner's state cannot be built (e.g. out of memory for its arrays)
    const l = s.learner as unknown as { toCheckpointBase: () => unknown };
    const build = l.toCheckpointBase.bind(l);
    let attempts = 0;
    l.toCheckpointBase = () => {
      attempts++;
      throw new RangeError("Array buffer allocation failed");
    };
    try {
      await s.start();
      for (let b = 0; b < 40; b++) {
        const r = await s.ingestBody(plantedEvents(5, 5 * b).join("\n"), "http");
        assertEquals([r.accepted, r.durable], [5, true]);
        for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
      }
      assert(attempts >= 1, "no checkpoint attempted");
      assert(attempts <= 4, `${attempts} failed checkpoint attempts in 200 events`);
      // each attempt rotates the write-ahead log: a segment per attempt, not per body
      const segments = [...Deno.readDirSync(`${dir}/wal`)].length;
      assert(segments <= 6, `${segments} write-ahead-log segments`);
    } finally {
      l.toCheckpointBase = build;
      await s.stop();
    }
  });
});
