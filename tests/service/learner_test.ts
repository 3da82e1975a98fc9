import { factory as leml } from "../../src/models/leml/mod.ts";
import { factory as popularity } from "../../src/models/popularity/mod.ts";
import { decodeCheckpoint, encodeCheckpoint } from "../../src/service/checkpoint.ts";
import {
  type LearnerCheckpoint,
  type ReplicaDelta,
  StreamLearner,
} from "../../src/service/learner.ts";
import { factory as ova, OvaEstimator } from "../../src/models/ova/mod.ts";
import { syntheticExamples } from "../../src/data/synthetic.ts";
import type { EstimatorFactory } from "../../src/models/estimator.ts";
import { assert, assertEquals, plantedEvents } from "./helpers.ts";

Deno.test("StreamLearner scores each event before learning it (test-then-train)", () => {
  // popularity with batch size 1: the prediction for event i counts events 0..i-1 only.
  const l = StreamLearner.create(popularity, { batchSize: 1 });
  l.ingestLine('{"features": {}, "labels": ["a"]}', "t", 1);
  assertEquals(l.window.precisionAt1, 0, "nothing learned before the first event");
  l.ingestLine('{"features": {}, "labels": ["a"]}', "t", 2);
  assertEquals(l.window.precisionAt1, 50, "the second 'a' is predicted from the first");
  l.ingestLine('{"features": {}, "labels": ["b"]}', "t", 3);
  assertEquals(l.window.totalScored, 3);
  assertEquals([...l.labelCounts()], [2, 1]);
});

Deno.test("StreamLearner learns in minibatches cut at multiples of the batch size", () => {
  const l = StreamLearner.create(leml, { batchSize: 4, modelOptions: { rank: 2, seed: 1 } });
  const lines = plantedEvents(10);
  for (let i = 0; i < 7; i++) l.ingestLine(lines[i], "t", i + 1);
  assertEquals([l.applied, l.learned, l.pendingCount], [7, 4, 3]);
  l.flush();
  assertEquals([l.applied, l.learned, l.pendingCount], [7, 7, 0]);
  assert(!l.ingestLine("{", "t", 8).ok);
  assertEquals([l.applied, l.rejected, l.lastRejects[0].line], [7, 1, 8]);
});

Deno.test("a learner restored from its checkpoint continues bit-for-bit like the original", () => {
  const lines = plantedEvents(150);
  const opts = { batchSize: 8, windowSize: 50, modelOptions: { rank: 4, seed: 3 } };
  const a = StreamLearner.create(leml, opts);
  let ck: LearnerCheckpoint | undefined;
  for (let i = 0; i < lines.length; i++) {
    a.ingestLine(lines[i], "t", i + 1);
    if (i === 92) ck = decodeCheckpoint(encodeCheckpoint(a.toCheckpoint())) as LearnerCheckpoint;
  }
  assert(ck !== undefined && ck.pending.length === 93 % 8, "the checkpoint keeps queued events");
  const b = StreamLearner.fromCheckpoint(leml, ck);
  for (let i = 93; i < lines.length; i++) b.ingestLine(lines[i], "t", i + 1);
  const sa = a.estimator.toState(), sb = b.estimator.toState();
  for (const name of Object.keys(sa.tensors)) {
    assertEquals(Array.from(sb.tensors[name]), Array.from(sa.tensors[name]), `tensor ${name}`);
  }
  assertEquals(
    [b.applied, b.learned, b.pendingCount, b.idDigest, b.window.precisionAt1],
    [a.applied, a.learned, a.pendingCount, a.idDigest, a.window.precisionAt1],
  );
  assertEquals([...b.labelCounts()], [...a.labelCounts()]);
});

Deno.test("the id digest is order-independent and sees duplicates and gaps", () => {
  const ids = ["x", "y", "z"];
  const l = StreamLearner.create(popularity);
  for (const id of ["z", "x", "y"]) {
    l.ingestLine(`{"id": "${id}", "features": {}, "labels": ["a"]}`, "t", 1);
  }
  assertEquals(l.idDigest, StreamLearner.digestOf(ids));
  assert(StreamLearner.digestOf(["x", "y", "z", "x"]) !== l.idDigest, "a duplicate");
  assert(StreamLearner.digestOf(["x", "y"]) !== l.idDigest, "a gap");
});

Deno.test("fromCheckpoint refuses another model family and other versions", () => {
  const ck = StreamLearner.create(popularity).toCheckpoint();
  let msg = "";
  try {
    StreamLearner.fromCheckpoint(leml, ck);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("'popularity'") && msg.includes("'leml'"), msg);
  try {
    StreamLearner.fromCheckpoint(popularity, { ...ck, version: 99 });
    msg = "";
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("version 99"), msg);
});

Deno.test("predict returns label names; unknown features are ignored", () => {
  const l = StreamLearner.create(leml, { batchSize: 5, modelOptions: { rank: 4, seed: 1 } });
  const lines = plantedEvents(200);
  for (let r = 0; r < 3; r++) for (const line of lines) l.ingestLine(line, "t", 1);
  const top = l.predict({ "3": 1, "10": 0.5, "99999": 1 }, 2);
  assertEquals(top.labels[0], "t3");
  assertEquals(top.labels.length, 2);
  assert(top.scores[0] >= top.scores[1]);
});

Deno.test("a model's one-pass scoreThenLearn gives the learner the same window and model as scoring then learnMany", () => {
  // the same LEML model, its scoreThenLearn hidden: the learner scores row by row, then learns
  const hidden: EstimatorFactory = {
    ...leml,
    create: (o) => {
      const m = leml.create(o);
      return new Proxy(m, {
        get(t, p) {
          if (p === "scoreThenLearn") return undefined;
          const v = Reflect.get(t, p, t);
          return typeof v === "function" ? v.bind(t) : v;
        },
      });
    },
  };
  const opts = { batchSize: 6, windowSize: 40, modelOptions: { rank: 4, seed: 2 } };
  const a = StreamLearner.create(leml, opts), b = StreamLearner.create(hidden, opts);
  assert(typeof (b.estimator as { scoreThenLearn?: unknown }).scoreThenLearn !== "function");
  const lines = plantedEvents(200);
  for (let r = 0; r < 2; r++) {
    for (let i = 0; i < lines.length; i++) {
      a.ingestLine(lines[i], "t", i + 1);
      b.ingestLine(lines[i], "t", i + 1);
      if (i % 37 === 0) {
        a.flush();
        b.flush();
      }
    }
  }
  assertEquals(a.window.toState(), b.window.toState());
  assert(a.window.precisionAt1 > 20, `the model learned little: P@1 ${a.window.precisionAt1}`);
  const sa = a.estimator.toState(), sb = b.estimator.toState();
  for (const name of Object.keys(sa.tensors)) {
    assertEquals(Array.from(sb.tensors[name]), Array.from(sa.tensors[name]), `tensor ${name}`);
  }
});

Deno.test("queued events are scored when their batch is learned, with the model before it", () => {
  const l = StreamLearner.create(popularity, { batchSize: 3 });
  for (let i = 0; i < 2; i++) l.ingestLine('{"features": {}, "labels": ["a"]}', "t", i + 1);
  assertEquals([l.window.totalScored, l.pendingCount], [0, 2], "not scored while queued");
  l.ingestLine('{"features": {}, "labels": ["a"]}', "t", 3);
  // the three were scored by the empty model before their batch: no hit
  assertEquals([l.window.totalScored, l.window.precisionAt1], [3, 0]);
  l.ingestLine('{"features": {}, "labels": ["a"]}', "t", 4);
  l.flush();
  assertEquals([l.window.totalScored, l.window.precisionAt1], [4, 25]);
});

/** `n` events with names: features "f<j>", labels "L<l>" (from a synthetic stream). */
function namedEvents(n: number, seed: number, numLabels = 300): string[] {
  return [...syntheticExamples({ rows: n, numFeatures: 600, numLabels, avgNnz: 8, seed })].map(
    (e, i) =>
      JSON.stringify({
        id: `s${seed}-${i}`,
        features: Object.fromEntries([...e.x.indices].map((j, p) => [`f${j}`, e.x.values[p]])),
        labels: [...e.labels].map((l) => `L${l}`),
      }),
  );
}

/** Asserts that a replica answers and counts like the learner. */
function assertSameLearner(r: StreamLearner, l: StreamLearner, where: string): void {
  assertEquals(r.parser.labels.names, l.parser.labels.names, `${where}: label names`);
  assertEquals(r.parser.features.names, l.parser.features.names, `${where}: feature names`);
  assertEquals([...r.labelCounts()], [...l.labelCounts()], `${where}: label counts`);
  assertEquals(
    [r.applied, r.learned, r.rejected, r.idDigest, r.modelVersion],
    [l.applied, l.learned, l.rejected, l.idDigest, l.modelVersion],
    `${where}: counters`,
  );
  assertEquals(r.window.toState(), l.window.toState(), `${where}: window`);
  for (const line of namedEvents(30, 77)) {
    const f = JSON.parse(line).features;
    assertEquals(r.predict(f, 5), l.predict(f, 5), `${where}: ${line}`);
  }
}

Deno.test("replica deltas: a replica learner follows an ova learner through deltas, new names included", () => {
  const opts = {
    batchSize: 8,
    windowSize: 50,
    limits: { featureKeys: "name" as const },
    modelOptions: { seed: 1, maxLabelsPerFeature: 6 },
  };
  const l = StreamLearner.create(ova, opts);
  (l.estimator as OvaEstimator).replicaDeltaMaxFraction = 1; // a small model: always deltas
  const first = namedEvents(200, 1, 100);
  first.forEach((line, i) => l.ingestLine(line, "t", i + 1));
  const base = l.toReplicaBase();
  assert(base.deltas && base.owned && base.ck.replicaSeq === 1, JSON.stringify(base.ck.replicaSeq));
  let r = StreamLearner.fromCheckpoint(ova, structuredClone(base.ck), { adopt: true });
  assertSameLearner(r, l, "base");
  // later events name labels (L100..L299) and features the replica has never seen
  const later = namedEvents(400, 2, 300);
  let deltas = 0;
  for (let s = 0; s < later.length; s += 37) {
    const labelsBefore = l.parser.labels.size;
    later.slice(s, s + 37).forEach((line, i) => l.ingestLine(line, "t", s + i + 1));
    l.ingestLine("{bad", "t", 0);
    const d = l.toReplicaDelta()!;
    assert(d !== undefined, "a delta");
    assertEquals(d.labels.from, labelsBefore);
    assertEquals(d.labels.names, l.parser.labels.names.slice(labelsBefore), "only the new names");
    const touched = new Set(later.slice(s, s + 37).flatMap((x) => JSON.parse(x).labels));
    assertEquals(d.labelCounts.labels.length, touched.size, "only the counts that changed");
    r.applyReplicaDelta(structuredClone(d));
    deltas++;
    assertSameLearner(r, l, `after ${s + 37} events`);
  }
  assert(l.parser.labels.size > 150, `${l.parser.labels.size} labels`);
  // a full base again: the replica rebuilt from it takes the next deltas, the old one not
  const again = l.toReplicaBase();
  const old = r;
  r = StreamLearner.fromCheckpoint(ova, structuredClone(again.ck), { adopt: true });
  namedEvents(20, 3, 300).forEach((line, i) => l.ingestLine(line, "t", i + 1));
  const d = l.toReplicaDelta()!;
  let msg = "";
  try {
    old.applyReplicaDelta(structuredClone(d));
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(/does not follow this replica/.test(msg), msg);
  r.applyReplicaDelta(d);
  assertSameLearner(r, l, "after the second base");
  assert(deltas > 5, `${deltas}`);
});

Deno.test("replica deltas: a delta that does not fit leaves the replica as it was; models without deltas take full snapshots", () => {
  const l = StreamLearner.create(ova, {
    batchSize: 4,
    limits: { featureKeys: "name" },
    modelOptions: { seed: 2 },
  });
  (l.estimator as OvaEstimator).replicaDeltaMaxFraction = 1;
  namedEvents(60, 4).forEach((line, i) => l.ingestLine(line, "t", i + 1));
  const r = StreamLearner.fromCheckpoint(ova, l.toReplicaBase().ck, { adopt: true });
  namedEvents(30, 5).forEach((line, i) => l.ingestLine(line, "t", i + 1));
  const d = l.toReplicaDelta()!;
  const before = JSON.stringify([r.predict({ f1: 1, f7: 1 }, 5), r.parser.labels.size, r.applied]);
  const cases: [(c: ReplicaDelta) => void, RegExp][] = [
    [(c) => c.labels.names.push(c.labels.names[0] ?? "L0"), /label name .* twice/],
    [(c) => c.labels.from++, /label names must follow/],
    [(c) => c.labelCounts.labels[0] = 1e6, /labelCounts label 1000000 is out of range/],
    [(c) => c.state.scalars.deltaBase = 7, /follows replica 7/],
    [(c) => c.base = 5, /does not follow this replica/],
  ];
  for (const [edit, re] of cases) {
    const c = structuredClone(d);
    edit(c);
    let msg = "";
    try {
      r.applyReplicaDelta(c);
    } catch (e) {
      msg = (e as Error).message;
    }
    assert(re.test(msg), `expected ${re}, got '${msg}'`);
    const now = JSON.stringify([r.predict({ f1: 1, f7: 1 }, 5), r.parser.labels.size, r.applied]);
    assertEquals(now, before, `${re}: the replica changed`);
  }
  r.applyReplicaDelta(d);
  assertSameLearner(r, l, "the good delta");
  // LEML has no deltas: the base says so and there is never a delta
  const m = StreamLearner.create(leml, { batchSize: 4, modelOptions: { rank: 2, seed: 1 } });
  plantedEvents(8).forEach((line, i) => m.ingestLine(line, "t", i + 1));
  assertEquals(m.toReplicaBase().deltas, false);
  plantedEvents(8, 8).forEach((line, i) => m.ingestLine(line, "t", i + 1));
  assertEquals(m.toReplicaDelta(), undefined);
});
