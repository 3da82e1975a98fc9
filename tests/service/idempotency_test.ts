/**
 * Events are idempotent by id within the deduplication window (issue 16, part 3): a body sent
 * again is acknowledged and not applied again — after a 200, across a restart, across a crash
 * with write-ahead-log replay (also a real `kill -9`), within one body, from Redis and from a
 * followed file; the window's bound; events without an id are applied every time.
 */
import { LearningService } from "../../src/service/service.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { createApp } from "../../src/service/http_app.ts";
import { decodeCheckpoint, readFileIfExists } from "../../src/service/checkpoint.ts";
import { RedisClient } from "../../src/service/redis_client.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";
import { getJson, startService } from "../../bench/service/harness.ts";
import {
  assertEquals,
  eventLine,
  plantedEvents,
  serviceOptions,
  waitUntil,
  withTempDir,
} from "./helpers.ts";

const post = (body: string) => ({ method: "POST", body });
const ids = (lines: string[]) => lines.map((l) => JSON.parse(l).id as string);
/** The label counts of the learner, by label name. */
const counts = (s: LearningService) => {
  const c = s.learner.labelCounts(), names = s.learner.parser.labels.names;
  return Object.fromEntries(names.map((n, i) => [n, c[i]]));
};

Deno.test("a body sent again after its 200 is acknowledged and not applied again (counts, digest)", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.start();
    const app = createApp({ service: s });
    const body = plantedEvents(10).join("\n");
    const first = await app.request("/events", post(body));
    assertEquals(first.status, 200);
    const before = counts(s);
    const again = await app.request("/events", post(body));
    assertEquals(again.status, 200, "a resent body is acknowledged");
    assertEquals((await again.json()).accepted, 10);
    assertEquals([s.applied, s.learner.duplicates], [10, 10]);
    assertEquals(counts(s), before);
    assertEquals(s.learner.idDigest, StreamLearner.digestOf(ids(plantedEvents(10))));
    // the service's answer says how many were duplicates; a partly new body applies the rest
    const r = await s.ingestBody(plantedEvents(15).join("\n"), "http");
    assertEquals([r.accepted, r.duplicates, s.applied], [15, 10, 15]);
    assertEquals(s.learner.idDigest, StreamLearner.digestOf(ids(plantedEvents(15))));
    const m = await s.metrics();
    const dw = m.dedupWindow as Record<string, number>;
    assertEquals([dw.duplicates, dw.ids, dw.capacity], [20, 15, 1_000_000]);
    await s.stop();
  });
});

Deno.test("duplicates within one body are applied once; events without an id every time", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.start();
    const a = eventLine("a", { "0": 1 }, ["x"]), b = eventLine("b", { "1": 1 }, ["y"]);
    const anon = JSON.stringify({ features: { "2": 1 }, labels: ["z"] });
    const r = await s.ingestBody([a, b, a, anon, a, anon].join("\n"), "http");
    assertEquals([r.accepted, r.duplicates, s.applied], [6, 2, 4]);
    assertEquals(counts(s), { x: 1, y: 1, z: 2 });
    const again = await s.ingestBody(anon, "http");
    assertEquals([again.duplicates, s.applied, counts(s).z], [0, 5, 3]);
    await s.stop();
  });
});

Deno.test("two bodies racing with the same ids apply them once", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.start();
    const body = plantedEvents(40).join("\n");
    const rs = await Promise.all([0, 1, 2].map(() => s.ingestBody(body, "http")));
    assertEquals(rs.map((r) => r.duplicates).sort(), [0, 40, 40]);
    assertEquals(s.applied, 40);
    assertEquals(s.learner.idDigest, StreamLearner.digestOf(ids(plantedEvents(40))));
    await s.stop();
  });
});

Deno.test("the window is in the checkpoint: a resend after a restart is a duplicate", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.start();
    await s.ingestBody(plantedEvents(12).join("\n"), "http");
    await s.stop();
    const ck = decodeCheckpoint((await readFileIfExists(s.checkpointPath))!) as {
      ids?: { capacity: number; hashes: Uint32Array };
    };
    assertEquals([ck.ids?.capacity, ck.ids?.hashes.length], [1_000_000, 24]);
    const t = await LearningService.open(serviceOptions(dir));
    assertEquals([t.walReplayed, t.learner.idWindow.size], [0, 12]);
    await t.start();
    const r = await t.ingestBody(plantedEvents(14).join("\n"), "http");
    assertEquals([r.duplicates, t.applied], [12, 14]);
    assertEquals(t.learner.idDigest, StreamLearner.digestOf(ids(plantedEvents(14))));
    await t.stop();
  });
});

Deno.test("after a crash, the log replay rebuilds the window: a resend is a duplicate (also a resend that was itself logged)", async () => {
  await withTempDir(async (dir) => {
    // checkpoint after the first body, then two bodies only in the write-ahead log: the second
    // resends the first (duplicates logged too), and the crash comes before any checkpoint
    const o = serviceOptions(dir, { checkpointSeconds: 0, checkpointEvery: 1e9 });
    const s = await LearningService.open(o);
    await s.start();
    await s.ingestBody(plantedEvents(8).join("\n"), "http");
    await s.checkpoint();
    await s.ingestBody(plantedEvents(6, 8).join("\n"), "http");
    const r = await s.ingestBody(plantedEvents(14).join("\n"), "http");
    assertEquals([r.duplicates, s.applied], [14, 14]);
    // as after kill -9: reopen without stopping
    const t = await LearningService.open(o);
    assertEquals([t.walReplayed, t.walReplayedDuplicates, t.applied], [6, 14, 14]);
    assertEquals(t.learner.duplicates, s.learner.duplicates);
    await t.start();
    const again = await t.ingestBody(plantedEvents(16).join("\n"), "http");
    assertEquals([again.duplicates, t.applied], [14, 16]);
    assertEquals(t.learner.idDigest, StreamLearner.digestOf(ids(plantedEvents(16))));
    assertEquals(counts(t), { t0: 4, t1: 3, t2: 3, t3: 3, t4: 3 });
    await t.stop();
    await s.stop().catch(() => {}); // the abandoned first instance
  });
});

Deno.test("the window's bound: an id that fell out is applied again, one inside is not", async () => {
  await withTempDir(async (dir) => {
    const o = serviceOptions(dir, { dedupWindow: 5 });
    const s = await LearningService.open(o);
    await s.start();
    await s.ingestBody(plantedEvents(8).join("\n"), "http"); // e0..e7: e3..e7 in the window
    const r = await s.ingestBody(
      [...plantedEvents(1, 2), ...plantedEvents(1, 7)].join("\n"),
      "http",
    );
    assertEquals([r.duplicates, s.applied], [1, 9], "e2 fell out (applied again), e7 did not");
    await s.stop();
    // the bound is kept across a restart, and a smaller --dedup-window keeps the newest ids
    const t = await LearningService.open({ ...o, dedupWindow: 2 });
    assertEquals([t.learner.idWindow.capacity, t.learner.idWindow.size], [2, 2]);
    await t.start();
    // the window held e4 e5 e6 e7 e2; the 2 newest are kept: e6 fell out, e2 did not
    const u = await t.ingestBody(
      [...plantedEvents(1, 6), ...plantedEvents(1, 2)].join("\n"),
      "http",
    );
    assertEquals([u.duplicates, t.applied], [1, 10], "e6 applied again, e2 not");
    await t.stop();
  });
});

Deno.test({
  name: "kill -9 of a real serve process: a resent body is acknowledged, not applied again",
  async fn() {
    await withTempDir(async (dir) => {
      const args = [
        "--model",
        "popularity",
        "--publish-every",
        "0",
        "--checkpoint-every",
        "1000000",
      ];
      let svc = await startService({ stateDir: dir, args: [...args, "--checkpoint-seconds", "0"] });
      try {
        const body = plantedEvents(30).join("\n");
        const res = await fetch(`${svc.url}/events`, post(body));
        assertEquals(res.status, 200);
        await res.body?.cancel();
        await svc.kill9(); // no checkpoint: the events are in the log only
        svc = await startService({ stateDir: dir, args });
        const again = await fetch(`${svc.url}/events`, post(plantedEvents(32).join("\n")));
        assertEquals(again.status, 200);
        assertEquals((await again.json()).eventsApplied, 32);
        const m = await getJson(`${svc.url}/metrics`);
        const ev = m.events as Record<string, number>;
        const dw = m.dedupWindow as Record<string, number>;
        assertEquals([ev.applied, dw.duplicates, dw.ids], [32, 30, 32]);
        assertEquals(m.idDigest, StreamLearner.digestOf(ids(plantedEvents(32))));
        assertEquals(await svc.stop(), 0);
      } finally {
        await svc.kill9().catch(() => {});
      }
    });
  },
});

Deno.test({
  name: "Redis and file sources skip events whose id was already applied",
  async fn() {
    const server = await startRedisServer();
    const c = await RedisClient.connect(server.url);
    try {
      await withTempDir(async (dir) => {
        const lines = plantedEvents(10);
        const file = `${dir}/events.ndjson`;
        await Deno.writeTextFile(
          file,
          [...lines.slice(0, 6), ...lines.slice(0, 3)].join("\n") + "\n",
        );
        for (const l of [...lines.slice(4), ...lines.slice(8)]) await c.xadd("ev", { event: l });
        const o = serviceOptions(dir, {
          redis: { url: server.url, key: "ev", blockMs: 20 },
          file,
          followFile: false,
          checkpointSeconds: 0,
        });
        const s = await LearningService.open(o);
        await s.start();
        await s.fileDone();
        await waitUntil(() => s.applied + s.learner.duplicates === 17, "17 events");
        await s.checkpoint();
        assertEquals(await c.xpendingCount("ev", "tagstream"), 0, "duplicates are acknowledged");
        assertEquals([s.applied, s.learner.duplicates], [10, 7]);
        assertEquals(s.learner.idDigest, StreamLearner.digestOf(ids(lines)));
        await s.stop();
      });
    } finally {
      c.close();
      await server.stop();
    }
  },
});
