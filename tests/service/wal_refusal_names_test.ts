/**
 * A body the service refuses because its write-ahead-log write failed keeps none of the new names
 * its events added (repeated failures filled --max-labels), unless something may have used or
 * recorded them while the write was awaited (a checkpoint or replica snapshot, another parse):
 * then they stay, so that what was recorded is never undone.
 */
import { LearningService } from "../../src/service/service.ts";
import { setStorageFault } from "../../src/service/storage_faults.ts";
import { assert, assertEquals, serviceOptions, withTempDir } from "./helpers.ts";

const event = (id: string, labels: string[]) =>
  JSON.stringify({ id, features: { "1": 1 }, labels });

Deno.test("WAL write failed: the refused body's new label names are taken back; repeated failures do not fill --max-labels", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(
      serviceOptions(dir, { checkpointSeconds: 0, limits: { maxLabels: 4 } }),
    );
    await s.start();
    try {
      const ok = await s.ingestBody(event("a", ["keep"]), "http");
      assertEquals(ok.accepted, 1);
      setStorageFault(() => 0);
      try {
        for (let i = 0; i < 3; i++) {
          const r = await s.ingestBody(
            [event(`x${i}`, [`new${i}a`]), event(`y${i}`, [`new${i}b`, "keep"])].join("\n"),
            "http",
          );
          assert(r.unavailable !== undefined, JSON.stringify(r));
          assertEquals(r.accepted, 0);
          assertEquals(s.learner.parser.labels.names, ["keep"]);
        }
      } finally {
        setStorageFault(undefined);
      }
      // the disk is back: three new labels still fit under --max-labels 4
      const r = await s.ingestBody(event("b", ["n1", "n2", "n3"]), "http");
      assertEquals([r.accepted, r.rejectedCount], [1, 0]);
      assertEquals(s.learner.parser.labels.names, ["keep", "n1", "n2", "n3"]);
      await s.checkpoint();
    } finally {
      await s.stop();
    }
    const again = await LearningService.open(serviceOptions(dir, { limits: { maxLabels: 4 } }));
    assertEquals(again.learner.parser.labels.names, ["keep", "n1", "n2", "n3"]);
    assertEquals(again.learner.applied, 2);
    await again.stop();
  });
});

Deno.test("WAL write failed: names recorded while the write was awaited (a checkpoint taken) stay", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, { checkpointSeconds: 0 }));
    await s.start();
    try {
      await s.ingestBody(event("a", ["keep"]), "http");
      setStorageFault(() => 0);
      let recorded: string[];
      let r;
      try {
        // the body is parsed at once, then awaits its log write
        const p = s.ingestBody(event("x", ["late"]), "http");
        recorded = s.learner.toCheckpoint().labels.names; // as a snapshot taken meanwhile
        r = await p;
      } finally {
        setStorageFault(undefined);
      }
      assert(r.unavailable !== undefined, JSON.stringify(r));
      assertEquals(recorded, ["keep", "late"]);
      assertEquals(s.learner.parser.labels.names, ["keep", "late"]);
      // another parse meanwhile (which may map the name) keeps them as well
      setStorageFault(() => 0);
      try {
        const p = s.ingestBody(event("y", ["later"]), "http");
        s.learner.ingestLine(event("z", ["later"]), "redis", "1-0");
        await p;
      } finally {
        setStorageFault(undefined);
      }
      assertEquals(s.learner.parser.labels.names, ["keep", "late", "later"]);
    } finally {
      await s.stop();
    }
  });
});
