import { factory as leml } from "../../src/models/leml/mod.ts";
import { factory as popularity } from "../../src/models/popularity/mod.ts";
import { decodeCheckpoint, encodeCheckpoint } from "../../src/stream/checkpoint.ts";
import { type LearnerCheckpoint, StreamLearner } from "../../src/stream/learner.ts";
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
