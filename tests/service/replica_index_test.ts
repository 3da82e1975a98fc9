// The serving thread's replica label index (issue 15, src/service/replica_index.ts): indexed
// from the threshold on, answers exact-scored, refreshed on a newer replica of the same labels,
// full builds spaced, and the learner thread's replica indexed with /metrics saying so. The
// full builds run on the index worker (src/service/index_worker.ts) by default, synchronously
// with `worker: false`: both paths are tested; a failed build leaves the replica answering
// exactly with `error` set, and `close` ends the worker (the sanitizers would see a leak).
import { factory as leml, LemlStream } from "../../src/models/leml/mod.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { type LabelIndexedModel, ReplicaIndexer } from "../../src/service/replica_index.ts";
import { CoEmbedEstimator } from "../../src/models/coembed/estimator.ts";
import { CoEmbedReplica } from "../../src/models/coembed/replica.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const x = (j: number) => ({ indices: Int32Array.of(j, j + 1), values: Float32Array.of(1, 0.5) });

/** A LEML replica (as the serving thread builds it) of a learner that saw `L` labels. */
function replica(L: number, rows = 3 * L, seed = 1): StreamLearner {
  const l = StreamLearner.create(leml, {
    batchSize: 64,
    modelOptions: { rank: 8, seed, lr: 0.05 },
  });
  const lines = Array.from(
    { length: rows },
    (_, i) =>
      JSON.stringify({ features: { [i % 50]: 1, [(i * 7) % 50]: 0.5 }, labels: [`t${i % L}`] }),
  );
  for (let i = 0; i < lines.length; i++) l.ingestLine(lines[i], "test", i + 1);
  return StreamLearner.fromCheckpoint(leml, l.toReplicaCheckpoint().ck, { adopt: true });
}

Deno.test("replica index: from the threshold on, answers exact-scored; below it, none", () => {
  const at = new LemlStream({ rank: 4, numFeatures: 10, numLabels: 4096, seed: 2 });
  const below = new LemlStream({ rank: 4, numFeatures: 10, numLabels: 4095, seed: 2 });
  const ix = new ReplicaIndexer({ worker: false }); // the default threshold, 4096 labels
  assertEquals(ix.update(below), 0);
  assertEquals(ix.metrics(below).indexed, false, "below the threshold");
  assertEquals(ix.update(at), 0);
  assertEquals(ix.metrics(at).indexed, true, "at the threshold");
  assertEquals(ix.builds, 1);
  const idx = at.labelIndex!;
  let fromIndex = 0;
  for (let j = 0; j < 9; j++) {
    const top = at.predictTopK(x(j), 5), all = at.predictScores(x(j));
    for (let i = 0; i < 5; i++) assertEquals(top.scores[i], all[top.labels[i]]);
    const u = new Float64Array(4);
    for (let c = 0; c < 4; c++) u[c] = at.w.data[j * 4 + c] + 0.5 * at.w.data[(j + 1) * 4 + c];
    if (idx.search(u, 5) !== undefined) fromIndex++;
  }
  assert(fromIndex > 0, "the index answers");
  // a model that can hold no index is left alone
  assertEquals(ix.update({ numLabels: 10_000 }), 0);
  // off when disabled (`serve --no-label-index`)
  const fresh = new LemlStream({ rank: 4, numFeatures: 10, numLabels: 4096, seed: 3 });
  const off = new ReplicaIndexer({ enabled: false, worker: false });
  off.update(fresh);
  assertEquals([off.metrics(fresh).indexed, fresh.labelIndex], [false, undefined]);
});

Deno.test("replica index (synchronous): /predict's path answers from it, a newer replica refreshes it", () => {
  const ix = new ReplicaIndexer({ worker: false, minLabels: 64 });
  const a = replica(300);
  // the full build below starts after t0 and takes less than t1 - t0: the next one is due at
  // max(1000, 10 × its cost) after its start, so not at t0 + 999 and surely at `due` (clocks
  // passed to update, not waited for: a slow or paused machine cannot change the answers)
  const t0 = performance.now();
  ix.update(a.estimator);
  const t1 = performance.now();
  const due = t1 + Math.max(1000, 10 * (t1 - t0));
  assertEquals([ix.builds, ix.refreshes, ix.metrics(a.estimator).indexed], [0 + 1, 0, true]);
  const est = a.estimator as LemlStream;
  for (let j = 0; j < 20; j++) {
    const row = a.predictRow(x(j), 5), exact = est.predictTopK(x(j), 5, { exact: true });
    const all = est.predictScores(x(j));
    assertEquals(row.labels.length, 5);
    for (let i = 0; i < 5; i++) {
      const l = a.parser.labels.idOf(row.labels[i], false);
      assertEquals(row.scores[i], all[l], "exact-scored");
    }
    assert(row.scores[0] <= exact.scores[0], "never above the exact best");
  }
  // a newer replica over the same labels: the partition is kept, the means recomputed
  const b = replica(300, 1200);
  ix.update(b.estimator);
  assertEquals([ix.builds, ix.refreshes, ix.metrics(b.estimator).indexed], [1, 1, true]);
  assert((b.estimator as LemlStream).labelIndex!.reused, "refreshed");
  // more labels: a full build, but not before the spacing allows
  const c = replica(400);
  const wait = ix.update(c.estimator, t0 + 999);
  assert(wait > 0, "not due yet");
  assertEquals(ix.metrics(c.estimator).indexed, false, "answers exactly meanwhile");
  assertEquals(ix.update(c.estimator, due), 0);
  assertEquals([ix.builds, ix.metrics(c.estimator).indexed], [2, true]);
});

Deno.test("replica index: a CoEmbed replica answers from its index with its own scores", async () => {
  const m = CoEmbedEstimator.create({ variant: "L", seed: 1 }, 20, 500);
  for (let i = 0; i < 200; i++) m.learnOne(x(i % 19), [i % 500, (i * 7) % 500]);
  const r = CoEmbedReplica.fromState(m.toReplicaState(), true);
  const ix = new ReplicaIndexer({ minLabels: 100 }); // on the worker
  try {
    ix.update(r);
    await ix.whenIdle();
  } finally {
    ix.close();
  }
  assert(ix.metrics(r).indexed, "indexed");
  for (let j = 0; j < 19; j++) {
    const top = r.predictTopK(x(j), 5), all = r.predictScores(x(j));
    for (let i = 0; i < 5; i++) assertEquals(top.scores[i], all[top.labels[i]]);
    assertEquals(r.predictTopK(x(j), 5, { exact: true }), m.predictTopK(x(j), 5));
  }
});

Deno.test("learner thread: the replica is indexed from the threshold on, /metrics says so", async () => {
  await withTempDir(async (dir) => {
    const t = await LearnerThread.open({
      workerUrl: new URL("../../src/cli/commands/serve_learner.ts", import.meta.url),
      init: ["--state-dir", dir, "--model", "leml", "--option", "rank=4", "--batch-size", "8"],
      factory: leml,
      labelIndex: { minLabels: 100 }, // on by default, built on the index worker
    });
    try {
      const body = Array.from(
        { length: 240 },
        (_, i) => JSON.stringify({ features: { [i % 30]: 1 }, labels: [`t${i % 120}`] }),
      ).join("\n");
      await t.ingestBody(body, "http");
      await t.checkpoint(); // refreshes the replica
      // the build is on the index worker: wait until it is back (bounded in time, not in turns:
      // 500 turns of 10 ms ran out on a loaded machine while the index worker was starting)
      let m = (await t.metrics()).learnerThread as Record<string, Record<string, unknown>>;
      const deadline = performance.now() + 60_000;
      while (m.labelIndex.indexed !== true && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        m = (await t.metrics()).learnerThread as Record<string, Record<string, unknown>>;
      }
      assertEquals([m.labelIndex.inFlight, m.labelIndex.error], [false, null]);
      assertEquals(m.labelIndex.indexed, true);
      assert((m.labelIndex.builds as number) >= 1, "built");
      const est = t.predictor.estimator as LemlStream;
      assert(est.numLabels >= 100 && est.labelIndex !== undefined, "the replica holds the index");
      const row = t.predictor.parser.featuresForPredict({ "3": 1 }, est.numFeatures);
      const p = t.predictor.predictRow(row, 5), all = est.predictScores(row);
      const l = t.predictor.parser.labels.idOf(p.labels[0], false);
      assert(l >= 0 && p.scores[0] === all[l], "exact-scored answer");
    } finally {
      await t.stop();
    }
  });
});

Deno.test("replica index (worker): built off the thread, applied to the current replica, refreshed", async () => {
  const ix = new ReplicaIndexer({ minLabels: 64 });
  try {
    const a = replica(300), est = a.estimator as LemlStream;
    // posted after t0, built in less than t1 - t0 (t1: when it is back): the next full build
    // is due max(1000, 10 × the build) after the post, so not at t0 + 999 and surely at `due`
    const t0 = performance.now();
    assertEquals(ix.update(est), 0);
    assertEquals(ix.inFlight, true, "posted to the worker");
    assertEquals(ix.metrics(est).inFlight, true);
    assertEquals(est.labelIndex, undefined, "answers exactly while the build is in flight");
    for (let j = 0; j < 5; j++) {
      assertEquals(a.predictRow(x(j), 5).scores, est.predictTopK(x(j), 5, { exact: true }).scores);
    }
    ix.update(est); // at most one build in flight
    await ix.whenIdle();
    const t1 = performance.now();
    const due = t1 + Math.max(1000, 10 * (t1 - t0));
    assertEquals([ix.inFlight, ix.builds, ix.error], [false, 1, undefined]);
    assert(ix.buildMs > 0, "the worker's build time");
    assertEquals(ix.metrics(est).indexed, true, "applied to the replica (a refresh)");
    assert(est.labelIndex!.reused, "the worker's partition on the replica's own rows");
    for (let j = 0; j < 20; j++) {
      const row = a.predictRow(x(j), 5), all = est.predictScores(x(j));
      const exact = est.predictTopK(x(j), 5, { exact: true });
      for (let i = 0; i < 5; i++) {
        assertEquals(
          row.scores[i],
          all[a.parser.labels.idOf(row.labels[i], false)],
          "exact-scored",
        );
      }
      assert(row.scores[0] <= exact.scores[0], "never above the exact best");
    }
    // a newer replica over the same labels: refreshed at once, no build
    const b = replica(300, 1200), refreshes = ix.refreshes;
    ix.update(b.estimator);
    assertEquals([ix.inFlight, ix.builds, ix.refreshes], [false, 1, refreshes + 1]);
    assert((b.estimator as LemlStream).labelIndex!.reused, "refreshed");
    // more labels: answers exactly until a build of its count is due and back
    const c = replica(400);
    ix.update(c.estimator, t0 + 999);
    assertEquals([ix.inFlight, ix.metrics(c.estimator).indexed], [false, false], "not due yet");
    ix.update(c.estimator, due);
    assertEquals(ix.inFlight, true, "due");
    await ix.whenIdle();
    assertEquals([ix.builds, ix.metrics(c.estimator).indexed], [2, true]);
  } finally {
    ix.close();
  }
  assertEquals(ix.inFlight, false);
});

/** `m` handing the worker rows too short for its labels: the worker's build throws. */
function broken(m: LemlStream): LabelIndexedModel {
  return {
    get numLabels() {
      return m.numLabels;
    },
    get labelIndex() {
      return m.labelIndex;
    },
    indexLabels: (o) => m.indexLabels(o),
    labelIndexInput: () => ({ ...m.labelIndexInput(), rows: new Float32Array(3) }),
  };
}

Deno.test("replica index (worker): a failed build leaves the replica answering exactly, error set", async () => {
  const ix = new ReplicaIndexer({ minLabels: 50, minIntervalMs: 60_000 });
  const m = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 100, seed: 4 }), b = broken(m);
  try {
    ix.update(b);
    await ix.whenIdle();
    const metrics = ix.metrics(b);
    assertEquals([metrics.indexed, metrics.builds, metrics.inFlight], [false, 0, false]);
    assert(typeof metrics.error === "string" && metrics.error.includes("LabelIndex.build"));
    assertEquals(m.predictTopK(x(1), 5), m.predictTopK(x(1), 5, { exact: true }), "exact");
    ix.update(b);
    assertEquals(ix.inFlight, false, "asked again only after minIntervalMs");
  } finally {
    ix.close();
  }
  // a worker that dies (here: its module throws) is recorded too, and ended
  const dead = new ReplicaIndexer({
    minLabels: 50,
    minIntervalMs: 60_000,
    workerUrl: new URL("./fixtures/failing_index_worker.ts", import.meta.url),
  });
  const n = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 100, seed: 5 });
  try {
    dead.update(n);
    await dead.whenIdle();
    assert(String(dead.error).startsWith("index worker failed"), String(dead.error));
    assertEquals([dead.metrics(n).indexed, dead.inFlight], [false, false]);
  } finally {
    dead.close();
  }
});

Deno.test("replica index (worker): close ends the worker and drops a build in flight", async () => {
  const ix = new ReplicaIndexer({ minLabels: 64 });
  const m = new LemlStream({ rank: 4, numFeatures: 10, numLabels: 5000, seed: 6 });
  ix.update(m);
  assertEquals(ix.inFlight, true);
  const idle = ix.whenIdle();
  ix.close();
  await idle; // resolved by close
  assertEquals([ix.inFlight, ix.builds, m.labelIndex], [false, 0, undefined]);
  ix.update(m); // closed: nothing posted
  assertEquals(ix.inFlight, false);
});
