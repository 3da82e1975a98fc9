/**
 * Restart and shutdown edges of the service: a state directory whose checkpoint is gone (its
 * log starts after the records the checkpoint covered), and bodies that arrive while the
 * service stops.
 */
import { factory as ova } from "../../src/models/ova/mod.ts";
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import { DELTA_DIR } from "../../src/service/checkpoint_chain.ts";
import { WalDamageError } from "../../src/service/wal.ts";
import {
  assert,
  assertEquals,
  plantedEvents,
  seededEvents,
  serviceOptions,
  withTempDir,
} from "./helpers.ts";

const ovaOptions = (dir: string, extra = {}) =>
  serviceOptions(dir, {
    factory: ova,
    modelOptions: { seed: 1 },
    checkpointEvery: 1 << 30,
    ...extra,
  });

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) out.push(e.name);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return out.sort();
}

Deno.test("a state directory that lost its checkpoint refuses to start naming the log file and the missing records; --repair reports them lost", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(ovaOptions(dir));
    await s.ingestBody(seededEvents(1000, 0, "g"), "http");
    await s.checkpoint(); // a base: releases records 0..999
    await s.ingestBody(seededEvents(5, 1000, "g"), "http");
    await s.checkpoint(); // a delta: releases records 1000..1004
    await s.ingestBody(seededEvents(5, 1005, "g"), "http"); // only in the write-ahead log (1005..1009)
    const deltas = await names(`${dir}/${DELTA_DIR}`);
    assertEquals(deltas.length, 1);
    const segments = await names(`${dir}/wal`);
    assertEquals(segments.length, 1);
    // the checkpoint is gone (deleted, lost): its 1005 events with it
    await Deno.remove(`${dir}/checkpoint.msgpack`);
    let err: unknown;
    try {
      const t = await LearningService.open(ovaOptions(dir));
      await t.stop();
    } catch (e) {
      err = e;
    }
    assert(err instanceof WalDamageError, `expected a WalDamageError, got ${err}`);
    const m = err.message;
    assert(m.includes(`${dir}/wal/${segments[0]} at byte 0`), m);
    assert(m.includes("records 0..1004 are missing before record 1005"), m);
    assert(m.includes(`there is no checkpoint (${dir}/checkpoint.msgpack)`), m);
    assertEquals(await names(`${dir}/${DELTA_DIR}`), deltas, "a refused start removes nothing");
    // --repair starts a new model from the log that remains and reports the records lost
    const r = await LearningService.open(ovaOptions(dir, { repair: true }));
    assertEquals(r.learner.applied, 5);
    assertEquals(r.repairReport?.eventsLost, 1005);
    assertEquals(r.repairReport?.wal[0].seqs, [0, 1004]);
    assertEquals(await names(`${dir}/${DELTA_DIR}`), [], "deltas without their base go");
    await r.stop();
    await s.stop();
  });
});

Deno.test("a fresh state directory and one that crashed before its first checkpoint still start", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.ingestBody(plantedEvents(3).join("\n"), "http");
    // as after kill -9 before any checkpoint: no checkpoint file, the log from record 0
    assertEquals(await names(dir), ["wal"]);
    const t = await LearningService.open(serviceOptions(dir));
    assertEquals(t.applied, 3);
    await t.stop();
    await s.stop();
  });
});

Deno.test("a body arriving while the service stops is a 503 to resend, not a 400 calling its events bad", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.start();
    const app = createApp({ service: s });
    const body = plantedEvents(3).join("\n") + "\n";
    // the route lets the body in, then the service starts stopping while it is read
    const answer = app.request("/events", {
      method: "POST",
      body: ReadableStream.from([new TextEncoder().encode(body)]),
      duplex: "half",
    } as RequestInit);
    const stopped = s.stop();
    const res = await answer;
    const j = await res.json();
    assertEquals(res.status, 503, JSON.stringify(j));
    assertEquals(res.headers.get("retry-after"), "2");
    assert(/stopping/.test(j.error) && /nothing of this body/.test(j.error), j.error);
    await stopped;
    // the same through the service: refused whole, nothing applied or counted as rejected
    const r = await s.ingestBody(body, "http");
    assertEquals([r.accepted, r.rejectedCount, r.unavailable !== undefined], [0, 0, true]);
    assertEquals([s.applied, s.learner.rejected], [0, 0]);
    // resent after the restart, the body is applied
    const t = await LearningService.open(serviceOptions(dir));
    assertEquals((await t.ingestBody(body, "http")).accepted, 3);
    assertEquals(t.applied, 3);
    await t.stop();
  });
});

Deno.test({
  name:
    "a crash after --repair dropped a damaged checkpoint, before the next one, still starts plainly",
  // both processes before the last are abandoned without stop() (crashes): their logs stay open
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await withTempDir(async (dir) => {
      const s = await LearningService.open(ovaOptions(dir));
      await s.ingestBody(seededEvents(40, 0, "g"), "http");
      await s.checkpoint(); // releases records 0..39
      await s.ingestBody(seededEvents(5, 40, "g"), "http"); // the log holds 40..44
      // (no stop(): its checkpoint would cover the 5 events; the first process dies here)
      const p = `${dir}/checkpoint.msgpack`;
      const b = await Deno.readFile(p);
      b[b.length >> 1] ^= 0xff;
      await Deno.writeFile(p, b);
      const r = await LearningService.open(ovaOptions(dir, { repair: true }));
      assert(r.repairReport?.checkpoint !== undefined, "the repair set the checkpoint aside");
      assertEquals(r.learner.applied, 5);
      // the process dies here, before start()'s first checkpoint: the loss was repaired and
      // reported, so a plain start must not refuse over it again
      const t = await LearningService.open(ovaOptions(dir));
      assertEquals(t.learner.applied, 5);
      assertEquals(t.repairReport, undefined);
      await t.stop();
    });
  },
});

Deno.test("a body begun before stop() is finished, logged and applied, and stop() waits for it", async () => {
  await withTempDir(async (dir) => {
    const opts = serviceOptions(dir, { limits: { maxLabels: 1 << 20 } });
    const s = await LearningService.open(opts);
    await s.start();
    const n = 8000, lines: string[] = [];
    for (let i = 0; i < n; i++) {
      lines.push(`{"features":{"${i % 50}":1},"labels":["new${i % 100}"]}`);
    }
    const p = s.ingestBody(lines.join("\n"), "http");
    // the body's first slice runs, then the service begins to stop
    await new Promise((r) => setTimeout(r, 0));
    const stopping = s.stop();
    const r = await p;
    await stopping;
    assertEquals([r.accepted, r.rejectedCount, r.unavailable], [n, 0, undefined]);
    const again = await LearningService.open(opts);
    assertEquals([again.learner.applied, again.learner.parser.labels.size], [n, 100]);
    await again.stop();
  });
});
