/**
 * `--max-feature-growth` counts from the widest feature index accepted (or the model's width):
 * an event refused after its parse (the model cannot learn it, or the write-ahead log refused
 * its body) must not move that base, or a chain of refused events let a later one widen the
 * model far past the limit in one event.
 */
import { LearningService } from "../../src/service/service.ts";
import { setStorageFault } from "../../src/service/storage_faults.ts";
import { assert, assertEquals, serviceOptions, withTempDir } from "./helpers.ts";

const ev = (j: number, v = 1) => `{"features": {"${j}": ${v}}, "labels": ["a"]}`;

Deno.test("refused events do not widen the base --max-feature-growth counts from", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(
      serviceOptions(dir, { growth: { maxFeatureGrowth: 10 }, checkpointSeconds: 0 }),
    );
    await s.start();
    try {
      assertEquals((await s.ingestBody(ev(5), "http")).accepted, 1); // extent 6
      // refused by the model (a raw value it cannot learn): HTTP body, and a Redis/file line
      const r1 = await s.ingestBody(ev(14, 1e30), "http");
      assertEquals([r1.accepted, r1.rejectedCount], [0, 1]);
      assert(!s.learner.ingestLine(ev(15, 1e30), "redis", "1-0").ok);
      // refused whole because the log cannot be written
      setStorageFault(() => 0);
      try {
        const r2 = await s.ingestBody(ev(15), "http");
        assert(r2.unavailable !== undefined, JSON.stringify(r2));
      } finally {
        setStorageFault(undefined);
      }
      // 6 → 25 is more than 10 columns in one event: still refused
      const r3 = await s.ingestBody(ev(24), "http");
      assertEquals(r3.accepted, 0);
      assert(/--max-feature-growth 10/.test(r3.rejected[0]?.reason ?? ""), JSON.stringify(r3));
      assert(s.learner.estimator.numFeatures <= 16, String(s.learner.estimator.numFeatures));
    } finally {
      await s.stop();
    }
  });
});
