import { factory as ova, type OvaEstimator } from "../../src/models/ova/mod.ts";
import { LearningService } from "../../src/service/service.ts";
import { type LearnerCheckpoint, StreamLearner } from "../../src/service/learner.ts";
import { DELTA_DIR } from "../../src/service/checkpoint_chain.ts";
import type { CheckpointDelta } from "../../src/service/checkpoint_delta.ts";
import { decodeCheckpoint, encodeCheckpoint } from "../../src/service/checkpoint.ts";
import {
  assert,
  assertEquals,
  assertThrowsMsg,
  seededEvents,
  serviceOptions,
  withTempDir,
} from "./helpers.ts";

const options = (dir: string, extra = {}) =>
  serviceOptions(dir, {
    factory: ova,
    modelOptions: { seed: 1, replay: 16 },
    checkpointEvery: 1 << 30,
    ...extra,
  });

/** Asserts that two learners hold the same state (model, vocabularies, counts, window, ids). */
function assertSameLearner(a: StreamLearner, b: StreamLearner, where: string): void {
  const x = a.toCheckpoint(), y = b.toCheckpoint();
  for (const name of Object.keys(x.state.tensors)) {
    const u = x.state.tensors[name], v = y.state.tensors[name];
    assert(
      v !== undefined && u.length === v.length &&
        u.every((e: number, i: number) => Object.is(e, v[i])),
      `${where}: model tensor ${name} differs`,
    );
  }
  assertEquals(y.state.scalars, x.state.scalars, `${where}: model scalars`);
  assertEquals(y.features.names, x.features.names, `${where}: features`);
  assertEquals(y.labels.names, x.labels.names, `${where}: labels`);
  assertEquals([...y.labelCounts], [...x.labelCounts], `${where}: label counts`);
  assertEquals([...y.ids!.hashes], [...x.ids!.hashes], `${where}: deduplication window`);
  assertEquals(
    [y.applied, y.learned, y.duplicates, y.idDigest, y.pending.length, y.window],
    [x.applied, x.learned, x.duplicates, x.idDigest, x.pending.length, x.window],
    `${where}: counters`,
  );
}

async function deltaFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(`${dir}/${DELTA_DIR}`)) names.push(e.name);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return names.sort();
}

Deno.test("incremental checkpoints: a base and its deltas restore the learner exactly, and each delta costs the changes", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(options(dir));
    await s.ingestBody(seededEvents(1500), "http");
    await s.checkpoint();
    const base = (await Deno.stat(`${dir}/checkpoint.msgpack`)).size;
    for (let k = 0; k < 6; k++) {
      await s.ingestBody(seededEvents(5, 1500 + 5 * k), "http");
      await s.checkpoint();
    }
    const files = await deltaFiles(dir);
    assertEquals(files.length, 6, `delta files: ${files.join(", ")}`);
    const m = (await s.metrics()).checkpoint as {
      written: number;
      deltas: number;
      last: { delta: boolean; bytes: number };
    };
    assertEquals([m.written, m.deltas, m.last.delta], [7, 6, true]);
    for (const f of files) {
      const size = (await Deno.stat(`${dir}/${DELTA_DIR}/${f}`)).size;
      assert(size * 5 < base, `delta ${f}: ${size} B against a ${base} B base`);
    }
    // "crash": a new process opens the directory (the base and the six deltas, no log to replay)
    const b = await LearningService.open(options(dir));
    assertEquals([b.learner.applied, b.walReplayed], [1530, 0]);
    assertSameLearner(s.learner, b.learner, "restored");
    // both learn on alike (AdaGrad sums, sampling window, replay reservoir, generators)
    await s.ingestBody(seededEvents(200, 1530), "http");
    await b.ingestBody(seededEvents(200, 1530), "http");
    assertSameLearner(s.learner, b.learner, "after learning on");
    // an id the deltas carried is still a duplicate
    const again = await b.ingestBody(seededEvents(1, 1525), "http");
    assertEquals(again.duplicates, 1);
    await s.stop();
    await b.stop();
  });
});

Deno.test("incremental checkpoints: deltas adding up to the base bring a new base and clear the old chain", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(options(dir));
    await s.ingestBody(seededEvents(300), "http");
    await s.checkpoint();
    (s.learner.estimator as OvaEstimator).stateDeltaMaxFraction = 1;
    const seen = new Set<string>();
    let bases = 1;
    for (let k = 0; k < 40 && bases < 3; k++) {
      await s.ingestBody(seededEvents(60, 300 + 60 * k), "http");
      await s.checkpoint();
      const m = (await s.metrics()).checkpoint as { last: { delta: boolean } };
      const files = await deltaFiles(dir);
      if (!m.last.delta) {
        bases++;
        assertEquals(files, [], "a new base removes the old chain's deltas");
      }
      for (const f of files) seen.add(f.split("-")[1]);
    }
    assertEquals(bases, 3, "deltas past the base's size started new bases");
    assert(seen.size >= 2, `chains seen: ${[...seen]}`);
    const b = await LearningService.open(options(dir));
    assertSameLearner(s.learner, b.learner, "restored");
    await s.stop();
    await b.stop();
  });
});

Deno.test("incremental checkpoints: a damaged delta refuses the start; --repair resumes from the one before it", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(options(dir));
    await s.ingestBody(seededEvents(1000), "http");
    await s.checkpoint();
    for (let k = 0; k < 3; k++) {
      await s.ingestBody(seededEvents(5, 1000 + 5 * k), "http");
      await s.checkpoint();
    }
    await s.ingestBody(seededEvents(5, 1015), "http"); // only in the write-ahead log
    const files = await deltaFiles(dir);
    assertEquals(files.length, 3);
    const second = `${dir}/${DELTA_DIR}/${files[1]}`;
    const bytes = await Deno.readFile(second);
    bytes[bytes.length >> 1] ^= 0xff;
    await Deno.writeFile(second, bytes);
    await assertThrowsMsg(
      () => LearningService.open(options(dir)),
      SyntaxError,
      `Cannot apply checkpoint delta ${second}`,
    );
    assertEquals(await deltaFiles(dir), files, "nothing moved without --repair");
    const r = await LearningService.open(options(dir, { repair: true }));
    const report = r.repairReport!;
    assertEquals(report.checkpointDeltas!.movedTo.length, 2, "the damaged delta and the one after");
    // the base, the first delta (1005 events) and the log's last 5; the 10 between are lost
    assertEquals(r.learner.applied, 1010);
    assert(report.eventsLost > 0, "the released log records are reported lost");
    await r.stop();
    await s.stop();
  });
});

Deno.test("incremental checkpoints: a checksummed delta with a damaged field refuses the start naming the file and field; --repair resumes from the delta before it", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(options(dir, { wal: false }));
    await s.ingestBody(seededEvents(1000), "http");
    await s.checkpoint();
    for (let k = 0; k < 3; k++) {
      await s.ingestBody(seededEvents(5, 1000 + 5 * k), "http");
      await s.checkpoint();
    }
    await s.stop(); // and a last delta
    const files = await deltaFiles(dir);
    assertEquals(files.length, 4);
    const path = `${dir}/${DELTA_DIR}/${files[1]}`;
    const d = decodeCheckpoint(await Deno.readFile(path)) as CheckpointDelta;
    const { applied } = d;
    delete (d as Partial<CheckpointDelta>).applied; // before: the learner took undefined
    await Deno.writeFile(path, encodeCheckpoint(d));
    await assertThrowsMsg(
      () => LearningService.open(options(dir)),
      SyntaxError,
      `Cannot apply checkpoint delta ${path}: checkpoint: field applied must be a non-negative ` +
        `integer, got undefined. Refusing to start; 'serve --repair' sets it and the deltas after it`,
    );
    assertEquals(await deltaFiles(dir), files, "nothing moved without --repair");
    // before: the model took the delta, then its queue failed half-way through the learner
    d.applied = applied;
    (d.pending as unknown[])[0] = null;
    await Deno.writeFile(path, encodeCheckpoint(d));
    const r = await LearningService.open(options(dir, { repair: true, wal: false }));
    const report = r.repairReport!.checkpointDeltas!;
    assertEquals(report.movedTo.length, 3, "the damaged delta and the ones after");
    assert(report.reason.includes("checkpoint: field pending[0] must be an object"), report.reason);
    // the learner is the base and the first delta, nothing of the second
    const ref = StreamLearner.fromCheckpoint(
      ova,
      decodeCheckpoint(await Deno.readFile(`${dir}/checkpoint.msgpack`)) as LearnerCheckpoint,
    );
    const first = `${dir}/${DELTA_DIR}/${files[0]}`;
    ref.applyCheckpointDelta(decodeCheckpoint(await Deno.readFile(first)) as CheckpointDelta);
    assertEquals(r.learner.applied, 1005);
    assertSameLearner(ref, r.learner, "after the repair");
    await r.stop();
  });
});
