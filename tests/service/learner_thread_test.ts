import { factory as leml } from "../../src/models/leml/mod.ts";
import { factory as ova, type OvaEstimator } from "../../src/models/ova/mod.ts";
import type { EstimatorFactory } from "../../src/models/estimator.ts";
import { loadFactory } from "../../src/models/registry.ts";
import { createApp } from "../../src/service/http_app.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { LearningService } from "../../src/service/service.ts";
import {
  assert,
  assertEquals,
  assertThrowsMsg,
  openOvaSameThread,
  OVA_THREAD_FLAGS,
  plantedEvents,
  serviceOptions,
  syntheticEvents,
  waitUntil,
  withTempDir,
} from "./helpers.ts";

const WORKER = new URL("../../src/cli/commands/serve_learner.ts", import.meta.url);
/** The `serve` flags of both sides: the thread gets them, the same-thread service their options. */
const FLAGS = [
  "--model",
  "leml",
  "--option",
  "rank=4",
  "--option",
  "seed=1",
  "--batch-size",
  "4",
  "--publish-every",
  "0",
  "--no-prune",
];

function openThread(dir: string, extra: string[] = []): Promise<LearnerThread> {
  return LearnerThread.open({
    workerUrl: WORKER,
    init: ["--state-dir", dir, ...FLAGS, ...extra],
    factory: leml,
  });
}

function openSameThread(dir: string): Promise<LearningService> {
  return LearningService.open(serviceOptions(dir));
}

const QUERIES = [{ "0": 1 }, { "3": 1, "10": 0.5 }, { "7": 2 }, { "1": 1, "2": 1 }];

Deno.test("learner thread: same answers, counts and predictions as learning on the calling thread", async () => {
  await withTempDir(async (dirA) => {
    await withTempDir(async (dirB) => {
      const t = await openThread(dirA);
      const s = await openSameThread(dirB);
      try {
        const bodies = [
          [...plantedEvents(30), "{bad", '{"features": {"1": NaN}, "labels": ["x"]}'].join("\n"),
          plantedEvents(50, 30).join("\n") + "\n",
        ];
        for (const b of bodies) {
          const [rt, rs] = [await t.ingestBody(b, "http"), await s.ingestBody(b, "http")];
          assertEquals(rt, rs);
        }
        assertEquals(t.applied, 80);
        await t.checkpoint(); // the replica is refreshed before this resolves
        assertEquals(t.predictor.applied, 80);
        assertEquals(t.predictor.learned, s.learner.learned);
        for (const q of QUERIES) assertEquals(t.predictor.predict(q, 3), s.learner.predict(q, 3));
        const [mt, ms] = [await t.metrics(), await s.metrics()];
        assertEquals(mt.idDigest, ms.idDigest);
        assertEquals(mt.events, ms.events);
        assertEquals(mt.prequential, ms.prequential);
        const lt = mt.learnerThread as Record<string, number>;
        assertEquals(lt.replicaApplied, 80);
        assert(lt.replicas >= 2, JSON.stringify(lt));
        assert(lt.snapshotCostMs >= 0 && lt.replicaBuildMs >= 0, JSON.stringify(lt));
      } finally {
        await t.stop();
        await s.stop();
      }
      // the thread's state directory reopens on the calling thread where it stopped
      const r = await openSameThread(dirA);
      assertEquals([r.learner.applied, r.learner.rejected, r.walReplayed], [80, 2, 0]);
      for (const q of QUERIES) assertEquals(r.learner.predict(q, 3), t.predictor.predict(q, 3));
      await r.stop();
    });
  });
});

Deno.test("learner thread: the replica follows learning without a checkpoint request", async () => {
  await withTempDir(async (dir) => {
    const t = await openThread(dir);
    try {
      assertEquals(t.predictor.predict({ "0": 1 }, 1).labels, []);
      await t.ingestBody(plantedEvents(40).join("\n"), "http");
      const t0 = performance.now();
      while (t.predictor.learned < 40 && performance.now() - t0 < 30_000) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assertEquals(t.predictor.learned, 40);
      assertEquals(t.predictor.parser.labels.size, 5);
    } finally {
      await t.stop();
    }
  });
});

Deno.test("learner thread: publish reaches the serving thread; a failed open rejects with the worker's error", async () => {
  await withTempDir(async (dir) => {
    const t = await openThread(dir);
    try {
      await t.ingestBody(plantedEvents(12).join("\n"), "http");
      const m = await t.publish();
      assertEquals(m.version, 1);
      assertEquals(t.published?.etag, m.etag);
      assertEquals(await Deno.readFile(`${dir}/model.tsm`), t.published!.bytes);
      assertEquals(t.predictor.modelVersion, 1);
    } finally {
      await t.stop();
    }
    assert(t.stopping);
    await assertThrowsMsg(() => t.ingestBody(plantedEvents(1)[0], "http"), Error, "has stopped");
  });
  await assertThrowsMsg(
    () => openThread("/tmp/unused", ["--source", "http://x"]),
    TypeError,
    "--source must be a redis:// or rediss:// URL",
  );
});

Deno.test("learner thread behind the HTTP app: events, predictions and metrics", async () => {
  await withTempDir(async (dir) => {
    const t = await openThread(dir);
    try {
      const app = createApp({ service: t });
      const ev = await app.request("/events", {
        method: "POST",
        body: plantedEvents(20).join("\n") + "\n{bad\n",
      });
      const answer = await ev.json();
      assertEquals([ev.status, answer.accepted, answer.rejectedCount], [200, 20, 1]);
      assertEquals(answer.eventsApplied, 20);
      await app.request("/checkpoint", { method: "POST" });
      const p = await app.request("/predict", {
        method: "POST",
        body: JSON.stringify({ features: { "3": 1 }, k: 2 }),
      });
      const pj = await p.json();
      assertEquals(p.status, 200);
      assertEquals(pj.labels, t.predictor.predict({ "3": 1 }, 2).labels);
      const m = await (await app.request("/metrics")).json();
      assertEquals(m.events.applied, 20);
      assertEquals(m.learnerThread.replicaApplied, 20);
    } finally {
      await t.stop();
    }
  });
});

Deno.test("learner thread: every model kind's replica predicts like the same-thread service", async () => {
  for (const kind of ["br", "sleec", "coembed"]) {
    await withTempDir(async (dirA) => {
      await withTempDir(async (dirB) => {
        const args = ["--model", kind, "--batch-size", "10", "--publish-every", "0"];
        const t = await LearnerThread.open({
          workerUrl: WORKER,
          init: ["--state-dir", dirA, ...args],
          factory: await loadFactory(kind),
        });
        const s = await LearningService.open({
          factory: await loadFactory(kind),
          stateDir: dirB,
          batchSize: 10,
          publishEvery: 0,
          log: () => {},
        });
        try {
          const body = plantedEvents(60).join("\n");
          assertEquals(await t.ingestBody(body, "http"), await s.ingestBody(body, "http"));
          await t.checkpoint();
          assertEquals(t.predictor.learned, 60);
          for (const q of QUERIES) {
            assertEquals(
              t.predictor.predict(q, 3),
              s.learner.predict(q, 3),
              `${kind} ${JSON.stringify(q)}`,
            );
          }
        } finally {
          await t.stop();
          await s.stop();
        }
      });
    });
  }
});

Deno.test("learner thread: a dead thread stops the service, keeps the last replica, loses nothing acknowledged", async () => {
  await withTempDir(async (dir) => {
    const failures: string[] = [];
    const t = await LearnerThread.open({
      workerUrl: new URL("./fixtures/failing_learner.ts", import.meta.url),
      init: dir,
      factory: leml,
      onFailure: (m) => failures.push(m),
    });
    const r = await t.ingestBody(plantedEvents(20).join("\n"), "http");
    assertEquals([r.accepted, r.durable], [20, true]);
    const t0 = performance.now();
    while (failures.length === 0 && performance.now() - t0 < 30_000) {
      await new Promise((res) => setTimeout(res, 10));
    }
    assertEquals(failures.length, 1);
    assert(failures[0].includes("injected failure"), failures[0]);
    assert(t.stopping && t.failure === failures[0], String(t.failure));
    await assertThrowsMsg(
      () => t.ingestBody(plantedEvents(1)[0], "http"),
      Error,
      "injected failure",
    );
    await assertThrowsMsg(() => t.metrics(), Error, "injected failure");
    t.predictor.predict({ "0": 1 }, 3); // the last replica still answers
    await t.stop();
    // the acknowledged events are in the write-ahead log
    const s = await LearningService.open(serviceOptions(dir));
    assertEquals([s.learner.applied, s.walReplayed], [20, 20]);
    await s.stop();
  });
});

Deno.test("learner thread: a snapshot that cannot be restored keeps the previous replica and is reported", async () => {
  await withTempDir(async (dir) => {
    const t = await LearnerThread.open({
      workerUrl: new URL("./fixtures/bad_snapshot_learner.ts", import.meta.url),
      init: dir,
      factory: leml,
    });
    try {
      const before = t.predictor;
      await t.ingestBody(plantedEvents(8).join("\n"), "http");
      const m = await t.metrics(); // answered after the bad snapshot (messages keep their order)
      const lt = m.learnerThread as Record<string, unknown>;
      assert(
        String(lt.replicaError).includes("Not a Tagstream checkpoint"),
        String(lt.replicaError),
      );
      assert(t.predictor === before, "the replica was replaced");
      assertEquals(t.applied, 8);
    } finally {
      await t.stop();
    }
  });
});

Deno.test("learner thread: a slow replica rebuild spaces the snapshots out", async () => {
  // The serving thread's factory takes at least 40 ms per rebuild: once the learner thread has
  // heard of a rebuild, it sends no periodic snapshot sooner than 10 times that after the one
  // rebuilt (not at the next 100 ms tick), so rebuilds take about a tenth of the serving thread.
  // Checked from causes, not rates: the rebuild of body r's snapshot is reported (its "rebuilt"
  // message posted) before body r + 1 is sent, and that snapshot left after body r was sent, so
  // the next rebuild cannot start before body r was sent + 10 × that rebuild, on any machine.
  const REBUILD_MS = 40;
  /** Start (serving thread's clock) and duration of every rebuild. */
  const rebuilds: { start: number; ms: number }[] = [];
  const slow = {
    ...leml,
    restore(...args: Parameters<typeof leml.restore>) {
      const t0 = performance.now();
      while (performance.now() - t0 < REBUILD_MS) { /* a slow rebuild */ }
      const e = leml.restore(...args);
      rebuilds.push({ start: t0, ms: performance.now() - t0 });
      return e;
    },
  };
  await withTempDir(async (dir) => {
    const t = await LearnerThread.open({
      workerUrl: WORKER,
      init: ["--state-dir", dir, ...FLAGS],
      factory: slow,
    });
    try {
      let n = 0;
      let previous: { sent: number; rebuild: { start: number; ms: number } } | undefined;
      for (let round = 0; round < 4; round++) {
        const seen = rebuilds.length;
        const sent = performance.now();
        // 8 events: two whole minibatches, learned at once (no later flush changes the model)
        await t.ingestBody(plantedEvents(8, n).join("\n"), "http");
        n += 8;
        await waitUntil(
          () => t.predictor.applied === n && t.predictor.learned === n,
          `the replica of ${n} events`,
          30_000,
        );
        if (previous !== undefined) {
          const next = rebuilds[seen]; // the first rebuild after body `round` was sent
          const notBefore = previous.sent + 10 * previous.rebuild.ms;
          assert(
            next.start >= notBefore,
            `a rebuild ${(next.start - previous.rebuild.start).toFixed(0)} ms after one of ${
              previous.rebuild.ms.toFixed(0)
            } ms (at least ${(notBefore - previous.rebuild.start).toFixed(0)} ms expected)`,
          );
        }
        // the last rebuild before the next body is of a snapshot taken after this body was sent
        previous = { sent, rebuild: rebuilds[rebuilds.length - 1] };
      }
      assert(rebuilds.length >= 4, `${rebuilds.length} rebuilds`);
    } finally {
      await t.stop();
    }
  });
});

/** Asserts that the served replica answers exactly like the same-thread learner. */
function assertServesLike(t: LearnerThread, s: LearningService, where: string): void {
  const r = t.predictor, l = s.learner;
  assertEquals(r.parser.labels.names, l.parser.labels.names, `${where}: label names`);
  assertEquals([...r.labelCounts()], [...l.labelCounts()], `${where}: label counts`);
  assertEquals([r.applied, r.learned], [l.applied, l.learned], `${where}: counts`);
  for (const line of syntheticEvents(25, 99, 400)) {
    const f = JSON.parse(line).features;
    assertEquals(r.predict(f, 5), l.predict(f, 5), `${where}: ${line}`);
    const x = l.parser.featuresForPredict(f, l.estimator.numFeatures);
    assert(
      r.estimator.predictScores(x).join() === l.estimator.predictScores(x).join(),
      `${where}: scores of ${line}`,
    );
  }
}

Deno.test("learner thread: an ova replica kept up to date by deltas answers like the learner", async () => {
  await withTempDir(async (dirA) => {
    await withTempDir(async (dirB) => {
      const t = await LearnerThread.open({
        workerUrl: WORKER,
        init: ["--state-dir", dirA, ...OVA_THREAD_FLAGS],
        factory: ova,
      });
      const s = await openOvaSameThread(dirB);
      try {
        // a model big enough that a few events change a small part of it
        const bulk = syntheticEvents(1600, 1, 200).join("\n");
        assertEquals(await t.ingestBody(bulk, "http"), await s.ingestBody(bulk, "http"));
        await t.checkpoint();
        assertServesLike(t, s, "after the bulk");
        const later = syntheticEvents(160, 2, 400); // labels the replica has not seen yet
        for (let i = 0; i < later.length; i += 16) {
          const body = later.slice(i, i + 16).join("\n");
          assertEquals(await t.ingestBody(body, "http"), await s.ingestBody(body, "http"));
          await t.checkpoint(); // the replica is brought up to date before this resolves
          assertServesLike(t, s, `after ${i + 16} more events`);
        }
        const lt = (await t.metrics()).learnerThread as Record<string, number>;
        assert(lt.deltas >= 8, JSON.stringify(lt));
        assert(
          lt.deltaBytes > 0 && lt.deltaApplyMs >= 0 && lt.deltaCostMs >= 0,
          JSON.stringify(lt),
        );
        assertEquals([lt.resyncs, lt.replicaApplied], [0, 1760]);
      } finally {
        await t.stop();
        await s.stop();
      }
    });
  });
});

Deno.test("learner thread: a replica that fails to apply a delta keeps answering and resyncs from a full snapshot", async () => {
  let failNext = false;
  const flaky: EstimatorFactory = {
    ...ova,
    restore(state, options) {
      const e = ova.restore(state, options) as OvaEstimator;
      const apply = e.applyReplicaDelta.bind(e);
      e.applyReplicaDelta = (d) => {
        if (failNext) {
          failNext = false;
          throw new RangeError("injected delta failure");
        }
        apply(d);
      };
      return e;
    },
  };
  await withTempDir(async (dirA) => {
    await withTempDir(async (dirB) => {
      const t = await LearnerThread.open({
        workerUrl: WORKER,
        init: ["--state-dir", dirA, ...OVA_THREAD_FLAGS],
        factory: flaky,
      });
      const s = await openOvaSameThread(dirB);
      try {
        const feed = async (body: string) => {
          assertEquals(await t.ingestBody(body, "http"), await s.ingestBody(body, "http"));
          await t.checkpoint();
        };
        await feed(syntheticEvents(1600, 1, 200).join("\n"));
        const later = syntheticEvents(48, 2, 300);
        await feed(later.slice(0, 16).join("\n"));
        const lt0 = (await t.metrics()).learnerThread as Record<string, number>;
        assert(lt0.deltas >= 1, JSON.stringify(lt0));
        failNext = true;
        const before = t.predictor;
        await feed(later.slice(16, 32).join("\n"));
        // the failed delta is reported and a full snapshot asked for (one may have come
        // already: the periodic snapshot can take the body before the checkpoint does)
        const lt1 = (await t.metrics()).learnerThread as Record<string, number>;
        // (the error is cleared once a full snapshot applies, which may have happened already)
        assert(
          String(lt1.replicaError).includes("injected delta failure") ||
            (lt1.replicaError === null && lt1.replicas === (lt0.replicas as number) + 1),
          `${lt1.replicaError}, replicas ${lt1.replicas} (before ${lt0.replicas})`,
        );
        assertEquals(lt1.resyncs, 1);
        await t.checkpoint(); // after the resync: a full snapshot
        assert(t.predictor !== before, "no full snapshot after the resync");
        assertEquals(t.replicas, (lt0.replicas as number) + 1);
        assertServesLike(t, s, "after the resync");
        await feed(later.slice(32).join("\n"));
        const lt2 = (await t.metrics()).learnerThread as Record<string, number>;
        assert(lt2.deltas > lt1.deltas, "no deltas again after the full snapshot");
        assertEquals(lt2.replicas, t.replicas);
        assertServesLike(t, s, "after the next delta");
      } finally {
        await t.stop();
        await s.stop();
      }
    });
  });
});
