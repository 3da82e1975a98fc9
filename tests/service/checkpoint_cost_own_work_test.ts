/**
 * A checkpoint's cost (the "10 × the last one's duration" spacing, `/metrics` →
 * `checkpoint.last.ms`) is its own work: not the time it waited for its turn, nor the file loop's
 * turns between the steps of its write (which goes on beside learning). It used to be measured
 * from when it was asked for until it was durable: a 24 kB checkpoint written while the file loop
 * learned "took" 100 ms, and the next came a second later.
 *
 * The clock is the test's (`performance.now` of this test module's isolate): it moves only when
 * the checkpoint's snapshot works (7 ms), when the file loop learns a line (1 ms each) and in the
 * test's own waiting; no assertion depends on real time.
 */
import { factory as ova } from "../../src/models/ova/mod.ts";
import { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

Deno.test("a checkpoint's cost counts its own work, not its wait nor the file loop's turns during its write", async () => {
  await withTempDir(async (dir) => {
    const events = `${dir}/events.ndjson`;
    const lines = Array.from(
      { length: 160 },
      (_, i) => JSON.stringify({ id: `e${i}`, features: { [i % 7]: 1 }, labels: [`l${i % 3}`] }),
    );
    await Deno.writeTextFile(events, lines.join("\n") + "\n");
    const realNow = performance.now, realRename = Deno.rename;
    let now = 1000;
    performance.now = () => now;
    let s: LearningService | undefined;
    try {
      s = await LearningService.open({
        factory: ova,
        stateDir: `${dir}/state`,
        file: events,
        followFile: false,
        batchSize: 1,
        // one checkpoint during the file (at 100 events), none other until stop()
        checkpointEvery: 100,
        checkpointSeconds: 0,
        publishEvery: 0,
        log: () => {},
      });
      const l = s.learner;
      // the snapshot's work: 7 ms; learning a line of the file: 1 ms
      const toBase = l.toCheckpointBase.bind(l);
      let snapshotAt = -1;
      l.toCheckpointBase = () => {
        now += 7;
        snapshotAt = l.applied;
        return toBase();
      };
      const ingestLine = l.ingestLine.bind(l);
      l.ingestLine = (...a: Parameters<typeof ingestLine>) => {
        now += 1;
        return ingestLine(...a);
      };
      // The checkpoint's write does not end before the file loop has learned 8 lines after its
      // snapshot (its turns between the write's steps): 8 ms of the clock, not the checkpoint's.
      let held = 0;
      Deno.rename = async (from: string | URL, to: string | URL) => {
        if (String(to).endsWith("/checkpoint.msgpack") && held++ === 0) {
          const until = Math.min(snapshotAt + 8, lines.length);
          // (bounded: a file loop that waited for this write would fail the test, not hang it)
          for (let i = 0; i < 100_000 && l.applied < until; i++) {
            await new Promise((r) => setTimeout(r, 0));
          }
        }
        return await realRename(from, to);
      };
      await s.start();
      await s.fileDone();
      // (the checkpoint's write may end after the file: waited for, a bounded number of turns)
      for (let i = 0; i < 100_000 && s.checkpointsWritten < 1; i++) {
        await new Promise((r) => setTimeout(r, 0));
      }
      const ck = (await s.metrics()).checkpoint as {
        written: number;
        last: { ms: number } | null;
      };
      assertEquals(ck.written, 1, "one checkpoint during the file");
      assert(held === 1, `the write was held ${held} times`);
      // its own work: the snapshot's 7 ms (was 15 or more: the file loop's turns counted too)
      assertEquals(ck.last?.ms, 7);
    } finally {
      performance.now = realNow;
      Deno.rename = realRename;
      await s?.stop();
    }
  });
});
