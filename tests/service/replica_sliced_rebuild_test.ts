// The serving thread rebuilds its replica from a full snapshot in slices (the previous replica
// answering until the new one is complete), so that /predict is never held up for the whole
// rebuild (at 10⁶ labels 0.4-2.7 s in one go); a delta too big to apply in one go is replaced by
// a full snapshot. Checked by counting steps and slices and by comparing answers, never by time.
import { factory as ova, type OvaEstimator } from "../../src/models/ova/mod.ts";
import { factory as leml } from "../../src/models/leml/mod.ts";
import { type PackedNames, packNames } from "../../src/data/vocabulary.ts";
import { type LearnerCheckpoint, StreamLearner } from "../../src/service/learner.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import type { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";
import {
  openOvaSameThread,
  OVA_THREAD_FLAGS,
  recordingWorkers,
  syntheticEvents,
  waitUntil,
  withTempDir,
} from "./helpers.ts";

const WORKER = new URL("../../src/cli/commands/serve_learner.ts", import.meta.url);

function learner(n: number, seed = 1): StreamLearner {
  const l = StreamLearner.create(ova, { batchSize: 8, modelOptions: { seed: 3 } });
  syntheticEvents(n, seed, 300).forEach((line, i) => l.ingestLine(line, "test", i + 1));
  return l;
}

/** A replica checkpoint with its names packed, as the learner thread sends it. */
function packed(l: StreamLearner): {
  ck: LearnerCheckpoint;
  names: { labels: PackedNames; features: PackedNames };
} {
  const { ck } = l.toReplicaBase();
  const names = { labels: packNames(ck.labels.names), features: packNames(ck.features.names) };
  return { ck: { ...ck, labels: { names: [] }, features: { names: [] } }, names };
}

function answers(l: StreamLearner): unknown[] {
  return syntheticEvents(30, 77, 300).map((line) => {
    const f = JSON.parse(line).features;
    const x = l.parser.featuresForPredict(f, l.estimator.numFeatures);
    return [l.predict(f, 5), [...l.estimator.predictScores(x)]];
  });
}

Deno.test("fromCheckpointSteps: a replica rebuilt in many steps from packed names answers exactly as one rebuilt at once", () => {
  const l = learner(600);
  const whole = StreamLearner.fromCheckpoint(ova, l.toReplicaCheckpoint().ck);
  const { ck, names } = packed(l);
  const steps = StreamLearner.fromCheckpointSteps(ova, ck, { names, step: 64 });
  const old = learner(200, 2); // the replica answering meanwhile
  const oldAnswers = answers(old);
  let r = steps.next(), yields = 0;
  for (; !r.done; r = steps.next()) {
    yields++;
    if (yields % 50 === 0) assertEquals(answers(old), oldAnswers, `between steps (${yields})`);
  }
  assert(yields > 20, `only ${yields} steps`);
  const sliced = r.value;
  assertEquals(sliced.parser.labels.names, l.parser.labels.names);
  assertEquals(sliced.parser.labels.idOf("L5", false), l.parser.labels.idOf("L5", false));
  assertEquals(answers(sliced), answers(whole));
  assertEquals(answers(sliced), answers(l));
  assertEquals([sliced.applied, sliced.learned], [l.applied, l.learned]);
});

Deno.test("fromCheckpointSteps: packed names twice or out of their text are refused, naming the field", async () => {
  const l = learner(50);
  const { ck } = packed(l);
  const run = (names: { labels: PackedNames; features: PackedNames }) => () => {
    const steps = StreamLearner.fromCheckpointSteps(ova, ck, { names, step: 4 });
    while (!steps.next().done) { /* steps */ }
  };
  const labels = packNames(l.parser.labels.names);
  await assertThrowsMsg(
    run({ labels, features: packNames(["a", "b", "a"]) }),
    SyntaxError,
    `checkpoint: field features is damaged: "a" (name 3) is there twice`,
  );
  const cut = packNames(l.parser.labels.names);
  cut.text = cut.text.slice(0, 3);
  await assertThrowsMsg(
    run({ labels: cut, features: packNames([]) }),
    SyntaxError,
    "checkpoint: field labels is damaged: Vocabulary.adoptPacked: name 1 ends at",
  );
});

Deno.test("a replica's label names stay packed through its rebuild and deltas, and it answers as the learner", () => {
  const l = learner(400);
  (l.estimator as OvaEstimator).replicaDeltaMaxFraction = 1;
  const { ck, names } = packed(l);
  const steps = StreamLearner.fromCheckpointSteps(ova, ck, { names, step: 1000 });
  let r = steps.next();
  while (!r.done) r = steps.next();
  const replica = r.value;
  assert(replica.parser.labels.packed, "the label names were unpacked");
  // events with labels the replica has not seen yet
  syntheticEvents(40, 5, 600).forEach((line, i) => l.ingestLine(line, "test", 1000 + i));
  l.flush();
  const d = l.toReplicaDelta()!;
  assert(d.labels.names.length > 0, "no new label in the delta");
  replica.applyReplicaDelta(d);
  assert(replica.parser.labels.packed, "the label names were unpacked by the delta");
  assertEquals(replica.parser.labels.size, l.parser.labels.size);
  assertEquals(answers(replica), answers(l));
  // names → indices (unpacking) still agree
  assertEquals(replica.parser.labels.names, l.parser.labels.names);
  assertEquals(replica.parser.labels.idOf(d.labels.names[0], false), d.labels.from);
});

/** An ova service on this thread with the options of OVA_THREAD_FLAGS. */
/**
 * Makes every rebuild's step (`StreamLearner.fromCheckpointSteps`) queue `between` as a microtask:
 * it runs after the step's slice, before the turn requests get (where a request would be
 * answered, or a message arrive). Returns the undo.
 */
function betweenSteps(between: () => void): () => void {
  const real = StreamLearner.fromCheckpointSteps;
  (StreamLearner as { fromCheckpointSteps: unknown }).fromCheckpointSteps = function* (
    ...args: Parameters<typeof real>
  ) {
    const g = real.apply(StreamLearner, args);
    let r = g.next();
    while (!r.done) {
      queueMicrotask(between);
      yield;
      r = g.next();
    }
    return r.value;
  };
  return () => (StreamLearner as { fromCheckpointSteps: unknown }).fromCheckpointSteps = real;
}

function assertServesLike(t: LearnerThread, s: LearningService, where: string): void {
  const r = t.predictor, l = s.learner;
  assertEquals(r.parser.labels.names, l.parser.labels.names, `${where}: label names`);
  assertEquals([r.applied, r.learned], [l.applied, l.learned], `${where}: counts`);
  assertEquals(answers(r), answers(l), where);
}

Deno.test("learner thread: a full snapshot is rebuilt in slices while the previous replica answers", async () => {
  await withTempDir(async (dirA) => {
    await withTempDir(async (dirB) => {
      const t = await LearnerThread.open({
        workerUrl: WORKER,
        init: ["--state-dir", dirA, ...OVA_THREAD_FLAGS],
        factory: ova,
        labelIndex: { enabled: false },
      });
      const s = await openOvaSameThread(dirB);
      try {
        t.sliceMs = 0; // one step a slice: many slices
        t.maxDeltaApplyBytes = 0; // every refresh a full snapshot
        const bulk = syntheticEvents(1600, 1, 200).join("\n");
        assertEquals(await t.ingestBody(bulk, "http"), await s.ingestBody(bulk, "http"));
        await t.checkpoint();
        assertServesLike(t, s, "after the bulk");
        const before = t.predictor;
        // while a rebuild is on, the replica answering does not change, nor its answers: checked
        // between its slices (a microtask queued by each step runs after the slice, before the
        // turn requests get), where a request would be answered; hooked before the events come
        // (their snapshot may arrive before the ingest's answer)
        let seenRebuilding = 0;
        let during: { replicas: number; replica: StreamLearner; answers: unknown[] } | undefined;
        const problems: string[] = [];
        const undo = betweenSteps(() => {
          if (!t.rebuilding) return;
          seenRebuilding++;
          // (one rebuild at a time: a snapshot may follow another, each rebuilt in turn)
          if (during?.replicas !== t.replicas) {
            during = { replicas: t.replicas, replica: t.predictor, answers: answers(t.predictor) };
          }
          if (t.predictor !== during.replica) problems.push("the replica changed");
          else if (seenRebuilding % 16 === 0) {
            const now = JSON.stringify(answers(t.predictor));
            if (now !== JSON.stringify(during.answers)) problems.push("answers changed");
          }
        });
        try {
          const more = syntheticEvents(400, 2, 300).join("\n");
          assertEquals(await t.ingestBody(more, "http"), await s.ingestBody(more, "http"));
          await t.checkpoint();
          // (the delta was too big: the full snapshot it asked for may come after the answer)
          await waitUntil(
            () => !t.rebuilding && t.predictor.applied === t.applied,
            "the full snapshot rebuilt",
          );
        } finally {
          undo();
        }
        assertEquals(problems, [], "during the rebuild");
        assert(seenRebuilding > 0, "no turn during a rebuild");
        const lt = (await t.metrics()).learnerThread as Record<string, number>;
        assert(lt.replicaSlices > 1, JSON.stringify(lt));
        assert(t.predictor !== before, "not rebuilt");
        assertEquals(t.rebuilding, false);
        assertServesLike(t, s, "after the sliced rebuild");
      } finally {
        await t.stop();
        await s.stop();
      }
    });
  });
});

Deno.test("learner thread: a delta too big to apply in one go is replaced by a full snapshot", async () => {
  await withTempDir(async (dirA) => {
    await withTempDir(async (dirB) => {
      const t = await LearnerThread.open({
        workerUrl: WORKER,
        init: ["--state-dir", dirA, ...OVA_THREAD_FLAGS],
        factory: ova,
        labelIndex: { enabled: false },
      });
      const s = await openOvaSameThread(dirB);
      try {
        const bulk = syntheticEvents(1600, 1, 200).join("\n");
        assertEquals(await t.ingestBody(bulk, "http"), await s.ingestBody(bulk, "http"));
        await t.checkpoint();
        t.maxDeltaApplyBytes = 1000; // a delta of 16 events is more
        const replicas = t.replicas;
        const later = syntheticEvents(16, 2, 300).join("\n");
        assertEquals(await t.ingestBody(later, "http"), await s.ingestBody(later, "http"));
        await t.checkpoint();
        await waitUntil(
          () => !t.rebuilding && t.predictor.applied === t.applied,
          "the full snapshot after the resync",
        );
        const lt = (await t.metrics()).learnerThread as Record<string, number>;
        assert(lt.deltasTooBig >= 1 && lt.deltas === 0, JSON.stringify(lt));
        assert(t.replicas > replicas, `replicas ${t.replicas}`);
        assertServesLike(t, s, "after the full snapshot");
      } finally {
        await t.stop();
        await s.stop();
      }
    });
  });
});

Deno.test("learner thread: a model without a restore in steps (leml) is rebuilt as before", async () => {
  await withTempDir(async (dir) => {
    const t = await LearnerThread.open({
      workerUrl: WORKER,
      init: ["--state-dir", dir, "--model", "leml", "--option", "rank=4", "--batch-size", "1"],
      factory: leml,
    });
    try {
      await t.ingestBody('{"features": {"0": 1}, "labels": ["news"]}\n', "http");
      await t.checkpoint();
      assertEquals(t.predictor.predict({ "0": 1 }, 1).labels, ["news"]);
    } finally {
      await t.stop();
    }
  });
});

Deno.test("learner thread: full snapshots coming faster than a rebuild never starve it: the one in progress completes, the newest waits", async () => {
  await withTempDir(async (dir) => {
    await recordingWorkers(async (made) => {
      const t = await LearnerThread.open({
        workerUrl: WORKER,
        init: ["--state-dir", dir, ...OVA_THREAD_FLAGS],
        factory: ova,
        labelIndex: { enabled: false },
      });
      let undo = () => {};
      try {
        t.sliceMs = 0; // one step a slice: a rebuild takes many slices
        const a = learner(600, 1), b = learner(900, 2);
        const snapshot = (l: StreamLearner) =>
          new MessageEvent("message", {
            data: { event: "snapshot", ...packed(l), stopping: false, costMs: 1 },
          });
        // a newer full snapshot arrives between every two slices of a rebuild (as from the
        // learner thread of a busy service), 300 times: a rebuild dropped for each newer one
        // would never complete while they come
        const SENDS = 300;
        let sent = 0, replicasWhileSending = t.replicas;
        const replicas = t.replicas;
        undo = betweenSteps(() => {
          if (sent >= SENDS) return;
          made[0].dispatchEvent(snapshot(++sent % 2 === 1 ? a : b));
          if (sent < SENDS) replicasWhileSending = t.replicas;
        });
        made[0].dispatchEvent(snapshot(a));
        await waitUntil(() => sent >= SENDS && !t.rebuilding, "the snapshots and rebuilds end");
        assert(
          replicasWhileSending > replicas,
          `no replica rebuilt while ${SENDS} newer snapshots came`,
        );
        // the newest snapshot (the last sent: b) is the one the replica ends with
        assertEquals(answers(t.predictor), answers(b), "the newest snapshot");
        const lt = (await t.metrics()).learnerThread as Record<string, number>;
        assert(lt.replicasSuperseded > 0, JSON.stringify(lt));
      } finally {
        undo();
        await t.stop();
      }
    });
  });
});
