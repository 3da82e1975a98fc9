// The serving thread's replica (learner_thread.ts) must not stay behind for ever, nor report a
// failure that is over: a full snapshot that fails while the replica waits for one (after a delta
// failed) asks for another (before, every later delta was dropped as "sent before the resync"
// and /predict answered from the old replica for good), and `replicaError` is cleared once a
// snapshot is applied again.
import { factory as ova, type OvaEstimator } from "../../src/models/ova/mod.ts";
import type { EstimatorFactory } from "../../src/models/estimator.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { assert, assertEquals, OVA_THREAD_FLAGS, syntheticEvents, withTempDir } from "./helpers.ts";

const WORKER = new URL("../../src/cli/commands/serve_learner.ts", import.meta.url);

Deno.test("learner thread: a full snapshot that fails during a resync is asked for again; the error clears", async () => {
  let failDelta = false, failRestore = false;
  const flaky: EstimatorFactory = {
    ...ova,
    restore(state, options) {
      if (failRestore) {
        failRestore = false;
        throw new RangeError("injected restore failure");
      }
      const e = ova.restore(state, options) as OvaEstimator;
      const apply = e.applyReplicaDelta.bind(e);
      e.applyReplicaDelta = (d) => {
        if (failDelta) {
          failDelta = false;
          failRestore = true; // the full snapshot asked for next fails too
          throw new RangeError("injected delta failure");
        }
        apply(d);
      };
      return e;
    },
  };
  await withTempDir(async (dir) => {
    const t = await LearnerThread.open({
      workerUrl: WORKER,
      init: ["--state-dir", dir, ...OVA_THREAD_FLAGS],
      factory: flaky,
      labelIndex: { enabled: false },
    });
    try {
      await t.ingestBody(syntheticEvents(1600, 1, 200).join("\n"), "http");
      await t.checkpoint();
      await t.ingestBody(syntheticEvents(16, 2, 300).join("\n"), "http");
      await t.checkpoint();
      const lt0 = (await t.metrics()).learnerThread as Record<string, number>;
      assert(lt0.deltas >= 1, JSON.stringify(lt0));
      failDelta = true;
      let seed = 3;
      const t0 = performance.now();
      // feed and wait until the replica covers every event applied (a hang guard, not a timing)
      while (true) {
        await t.ingestBody(syntheticEvents(16, seed++, 300).join("\n"), "http");
        await t.checkpoint();
        await new Promise((r) => setTimeout(r, 150));
        if (!failDelta && !failRestore && t.predictor.applied === t.applied) break;
        assert(
          performance.now() - t0 < 15_000,
          `the replica stays at ${t.predictor.applied} of ${t.applied} events applied`,
        );
      }
      const lt = (await t.metrics()).learnerThread as Record<string, unknown>;
      assertEquals(lt.replicaError, null, "a failure that is over is still reported");
      assert((lt.resyncs as number) >= 2, JSON.stringify(lt));
    } finally {
      await t.stop();
    }
  });
});
