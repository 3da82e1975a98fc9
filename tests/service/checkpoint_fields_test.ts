/**
 * A checkpoint that decodes (right format and checksum) but whose fields are missing, of the wrong
 * type or do not hold together is refused naming the field (before: a checkpoint missing
 * `applied` or `learned` restored a learner with NaN counters, `batchSize` 0 or a string
 * `applied` were taken, queued events with labels beyond the vocabulary grew the model, a
 * missing window was "Cannot read properties of undefined"); a service started on one refuses to
 * start naming the file, and `--repair` sets it aside. Every checkpoint the code writes (full,
 * replica snapshot, base of a chain, older ones without an id window, format 1) is still read.
 */
import { factory as ova, type OvaEstimator } from "../../src/models/ova/mod.ts";
import { factory as pop } from "../../src/models/popularity/mod.ts";
import { factory as leml } from "../../src/models/leml/mod.ts";
import type { EstimatorFactory } from "../../src/models/estimator.ts";
import { type LearnerCheckpoint, StreamLearner } from "../../src/service/learner.ts";
import { decodeCheckpoint, encodeCheckpoint } from "../../src/service/checkpoint.ts";
import { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Mutable = any;

/** A learner of `f` with 7 events applied in batches of 4 (3 queued), its checkpoint decoded. */
function checkpointOf(f: EstimatorFactory): LearnerCheckpoint {
  const l = StreamLearner.create(f, { batchSize: 4, modelOptions: { seed: 1 } });
  for (let i = 0; i < 7; i++) {
    l.ingestLine(`{"id":"e${i}","features":{"${i}":1},"labels":["l${i % 3}"]}`, "t", i);
  }
  return decodeCheckpoint(encodeCheckpoint(l.toCheckpoint())) as LearnerCheckpoint;
}

const DAMAGED: [string, (c: Mutable) => void, string][] = [
  ["no applied", (c) => delete c.applied, "applied must be a non-negative integer, got undefined"],
  ["no learned", (c) => delete c.learned, "learned must be a non-negative integer"],
  ["applied a string", (c) => c.applied = "7", `applied must be a non-negative integer, got "7"`],
  ["no rejected", (c) => delete c.rejected, "rejected must be"],
  ["learned > applied", (c) => c.learned = 100, "learned must be applied less the queued events"],
  ["queued events lost", (c) => c.pending = [], "learned must be applied less the queued events"],
  ["no kind", (c) => delete c.kind, "kind must be a string, got undefined"],
  ["no options", (c) => delete c.options, "options must be an object"],
  ["batchSize 0", (c) => c.options.batchSize = 0, "options.batchSize must be a positive integer"],
  ["no windowSize", (c) => delete c.options.windowSize, "options.windowSize must be a positive"],
  ["windowSize not the window's", (c) => c.options.windowSize = 5, "options.windowSize must be"],
  ["limits a string", (c) => c.options.limits = "x", "options.limits must be an object"],
  ["labels not strings", (c) => c.labels = { names: [1, 2, 3] }, "labels is damaged"],
  ["labels repeated", (c) => c.labels.names = ["l0", "l0", "l1"], "labels is damaged"],
  ["features repeated", (c) => c.features.names = ["a", "a"], "features is damaged"],
  ["a queued label beyond the names", (c) => c.labels.names.pop(), "pending[1].labels[0]"],
  ["a queued row of a plain array", (c) => c.pending[0].indices = [1], "pending[0].indices"],
  [
    "values of another length",
    (c) => c.pending[0].values = new Float32Array(5),
    "pending[0].values",
  ],
  ["no window", (c) => delete c.window, "window must be an object"],
  ["window without p1", (c) => delete c.window.p1, "window is damaged"],
  ["an id window of numbers", (c) => c.ids = { hashes: [1, 2] }, "ids is damaged"],
  ["no state", (c) => delete c.state, "state must be an object"],
  ["no labelCounts", (c) => delete c.labelCounts, "labelCounts must be a Float64Array"],
  ["more counts than labels", (c) => c.labelCounts = new Float64Array(9), "labelCounts must"],
  ["a NaN count", (c) => c.labelCounts[1] = NaN, "labelCounts[1] must be a count"],
  ["idDigest of one", (c) => c.idDigest = [1], "idDigest must be two 32-bit"],
  ["position a string", (c) => c.position = "x", "position must be an object"],
  ["modelVersion a string", (c) => c.modelVersion = "1", "modelVersion must be"],
  ["duplicates -1", (c) => c.duplicates = -1, "duplicates must be"],
  ["chain a number", (c) => c.chain = 5, "chain must be a string"],
  ["no savedAt", (c) => delete c.savedAt, "savedAt must be a string"],
];

Deno.test("fromCheckpoint: a damaged or foreign field is refused naming it", () => {
  for (const f of [ova, pop, leml]) {
    for (const [what, damage, text] of DAMAGED) {
      const ck = checkpointOf(f);
      damage(ck);
      let err: unknown;
      try {
        StreamLearner.fromCheckpoint(f, ck);
      } catch (e) {
        err = e;
      }
      assert(err instanceof SyntaxError, `${f.kind} ${what}: accepted or ${err}`);
      assert(
        (err as Error).message.startsWith(`checkpoint: field ${text}`),
        `${f.kind} ${what}: ${(err as Error).message}`,
      );
    }
  }
});

Deno.test("fromCheckpoint: every checkpoint the code writes, and older ones, are still read", () => {
  for (const f of [ova, pop, leml]) {
    const ck = checkpointOf(f);
    assertEquals(StreamLearner.fromCheckpoint(f, ck).applied, 7);
    const older = { ...ck } as Mutable; // before the id window, duplicates and chains
    delete older.ids, delete older.duplicates, delete older.chain, delete older.chainSeq;
    assertEquals(StreamLearner.fromCheckpoint(f, older).pendingCount, 3);
    const l = StreamLearner.fromCheckpoint(f, ck);
    const { ck: replica } = l.toReplicaCheckpoint(); // no queue, applied 7, learned 4
    assertEquals(StreamLearner.fromCheckpoint(f, structuredClone(replica)).learned, 4);
    const base = decodeCheckpoint(encodeCheckpoint(l.toCheckpointBase()));
    assertEquals(StreamLearner.fromCheckpoint(f, base as LearnerCheckpoint).applied, 7);
    const format1 = encodeCheckpoint(ck).subarray(16);
    const r = StreamLearner.fromCheckpoint(f, decodeCheckpoint(format1) as LearnerCheckpoint);
    assertEquals(r.learned, 4);
  }
  // names without events yet (more label names than the model has labels) are no damage
  const fresh = StreamLearner.create(pop, { labelNames: ["x", "y"] }).toCheckpoint();
  assertEquals(StreamLearner.fromCheckpoint(pop, fresh).parser.labels.size, 2);
});

Deno.test("a service on a checksummed checkpoint missing applied refuses to start; --repair sets it aside", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, { wal: false }));
    await s.ingestBody(plantedEvents(8).join("\n"), "http");
    await s.stop();
    const path = `${dir}/checkpoint.msgpack`;
    const ck = decodeCheckpoint(await Deno.readFile(path)) as Mutable;
    delete ck.applied;
    await Deno.writeFile(path, encodeCheckpoint(ck));
    let err: Error | undefined;
    await LearningService.open(serviceOptions(dir)).then((x) => x.stop(), (e) => err = e);
    assert(err instanceof SyntaxError, `started: ${err}`);
    assert(
      err.message.startsWith(
        `Cannot read checkpoint ${path}: checkpoint: field applied must be a non-negative ` +
          `integer, got undefined. Refusing to start; 'serve --repair' sets it aside`,
      ),
      err.message,
    );
    const r = await LearningService.open(serviceOptions(dir, { repair: true, wal: false }));
    assertEquals(r.applied, 0);
    assert(r.repairReport?.checkpoint?.reason.includes("field applied") === true, "reported");
    await r.stop();
  });
});

/**
 * An "ova" learner with a base and two deltas after it (new labels and features, queued
 * events, a duplicate, a rejected line): the base and the deltas decoded, and the learner.
 */
function chainOf(): { base: LearnerCheckpoint; deltas: Mutable[]; l: StreamLearner } {
  const l = StreamLearner.create(ova, { batchSize: 4, modelOptions: { seed: 1 } });
  (l.estimator as OvaEstimator).stateDeltaMaxFraction = 1; // a tiny model: any delta is big
  const ingest = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      l.ingestLine(`{"id":"e${i}","features":{"${i}":1},"labels":["l${i % (to - 3)}"]}`, "t", i);
    }
  };
  ingest(0, 7);
  const base = decodeCheckpoint(encodeCheckpoint(l.toCheckpointBase())) as LearnerCheckpoint;
  const deltas: Mutable[] = [];
  for (const [from, to] of [[7, 13], [13, 22]]) {
    ingest(from, to);
    l.ingestLine(`{"id":"e1","features":{"1":1},"labels":["l1"]}`, "t", to); // a duplicate
    l.ingestLine("not json", "t", to + 1);
    l.modelVersion++;
    deltas.push(decodeCheckpoint(encodeCheckpoint(l.toCheckpointDelta()!)));
  }
  return { base, deltas, l };
}

/** The learner's checkpoint as comparable text (all but when it was taken). */
function stateOf(l: StreamLearner): string {
  const { savedAt: _, ...ck } = l.toCheckpoint();
  return JSON.stringify(ck, (_k, v) => ArrayBuffer.isView(v) ? [...(v as Uint8Array)] : v);
}

const DAMAGED_DELTAS: [string, (d: Mutable) => void, string][] = [
  ["no applied", (d) => delete d.applied, "applied must be a non-negative integer, got undefined"],
  ["applied a string", (d) => d.applied = "22", `applied must be a non-negative integer, got "22"`],
  [
    "applied going backwards",
    (d) => (d.applied = 10, d.learned = 10 - d.pending.length),
    "applied must be at least 13 (as before the delta), got 10",
  ],
  ["no learned", (d) => delete d.learned, "learned must be a non-negative integer"],
  ["learned > applied", (d) => d.learned = d.applied + 1, "learned must be applied less the"],
  ["queued events lost", (d) => d.pending = [], "learned must be applied less the queued events"],
  ["no rejected", (d) => delete d.rejected, "rejected must be a non-negative integer"],
  ["rejected going backwards", (d) => d.rejected = 0, "rejected must be at least 1"],
  ["no duplicates", (d) => delete d.duplicates, "duplicates must be a non-negative integer"],
  ["duplicates going backwards", (d) => d.duplicates = 0, "duplicates must be at least 1"],
  ["modelVersion going backwards", (d) => d.modelVersion = 0, "modelVersion must be at least 1"],
  ["no seq", (d) => delete d.seq, "seq must be 2 (the one after base), got undefined"],
  ["seq skipping", (d) => d.seq = 5, "seq must be 2"],
  ["a label name a number", (d) => d.labels.names[0] = 5, "labels is damaged: label name 5 is"],
  ["a label name it has", (d) => d.labels.names[0] = "l0", "labels is damaged: label name 'l0'"],
  ["a feature name twice", (d) => d.features.names[1] = d.features.names[0], "features is"],
  ["no labels", (d) => delete d.labels, "labels is damaged"],
  ["a queued label beyond the names", (d) => d.pending[0].labels[0] = 99, "pending[0].labels[0]"],
  ["a queued row of a plain array", (d) => d.pending[0].indices = [1], "pending[0].indices"],
  ["a queued event null", (d) => d.pending[0] = null, "pending[0] must be an object, got null"],
  ["no pending", (d) => delete d.pending, "pending must be an array"],
  ["a model delta of another kind", (d) => d.state.kind = "popularity", "state is damaged"],
  ["no state", (d) => delete d.state, "state must be an object"],
  ["a NaN label count", (d) => d.labelCounts.counts[0] = NaN, "labelCounts.counts[0] must be"],
  ["a count of a label beyond", (d) => d.labelCounts.labels[0] = 99, "labelCounts is damaged"],
  ["idDigest of one", (d) => d.idDigest = [1], "idDigest must be two 32-bit"],
  ["ids of numbers", (d) => d.ids = { hashes: [1, 2] }, "ids must be a window or a Uint32Array"],
  ["no ids", (d) => delete d.ids, "ids must be"],
  ["no window", (d) => delete d.window, "window must be an object"],
  ["window without p1", (d) => delete d.window.p1, "window is damaged"],
  ["position a string", (d) => d.position = "x", "position must be an object"],
  ["no savedAt", (d) => delete d.savedAt, "savedAt must be a string"],
];

Deno.test("applyCheckpointDelta: a damaged field is refused naming it, and the learner is left as it was", () => {
  for (const [what, damage, text] of DAMAGED_DELTAS) {
    const { base, deltas, l } = chainOf();
    const r = StreamLearner.fromCheckpoint(ova, base);
    r.applyCheckpointDelta(deltas[0]);
    const before = stateOf(r);
    const good = structuredClone(deltas[1]);
    damage(deltas[1]);
    let err: unknown;
    try {
      r.applyCheckpointDelta(deltas[1]);
    } catch (e) {
      err = e;
    }
    assert(err instanceof SyntaxError, `${what}: accepted or ${err}`);
    assert((err as Error).message.startsWith(`checkpoint: field ${text}`), `${what}: ${err}`);
    assertEquals(stateOf(r), before, `${what}: the learner changed`);
    r.applyCheckpointDelta(good); // the undamaged delta still applies after the refusal
    assertEquals(stateOf(r), stateOf(l), `${what}: the good delta after the refused one`);
  }
});

Deno.test("applyCheckpointDelta: every delta the code writes applies", () => {
  const { base, deltas, l } = chainOf();
  const r = StreamLearner.fromCheckpoint(ova, base);
  for (const d of deltas) r.applyCheckpointDelta(d);
  assertEquals([r.applied, r.duplicates, r.rejected, r.modelVersion], [22, 2, 2, 2]);
  assertEquals(stateOf(r), stateOf(l));
});
