import { factory as br } from "../../src/models/br/mod.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { LearningService } from "../../src/service/service.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { RedisClient } from "../../src/service/redis_client.ts";
import { RedisStreamSource } from "../../src/service/redis_source.ts";
import { popModelBuilder } from "../../src/service/publish_pop.ts";
import { replaySegments } from "../../src/service/wal.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";
import {
  assert,
  assertEquals,
  plantedEvents,
  popEvents,
  serviceOptions,
  waitUntil,
  withTempDir,
} from "./helpers.ts";

Deno.test("ingestBody keeps good lines, reports bad ones, and a checkpoint restores them", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    const good = plantedEvents(6);
    const body = [good[0], "{bad", good[1], "", '{"features": {"1": 1}, "labels": []', good[2]]
      .join("\n");
    const r = await s.ingestBody(body, "http");
    assertEquals(r.accepted, 3);
    assertEquals(r.rejected.map((x) => x.line), [2, 5]);
    assert(r.durable, "accepted lines are in the write-ahead log");
    await s.stop();
    const t = await LearningService.open(serviceOptions(dir));
    assertEquals([t.learner.applied, t.learner.rejected, t.walReplayed], [3, 2, 0]);
    assertEquals(t.learner.idDigest, StreamLearner.digestOf(["e0", "e1", "e2"]));
    await t.stop();
  });
});

Deno.test("the write-ahead log holds exactly the accepted lines, in order, across yields", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, { checkpointEvery: 1 << 30 }));
    const good = plantedEvents(5);
    const named = '{"id": "caf\u00e9", "features": {"2": 1}, "labels": ["\u00e9t\u00e9"]}';
    const body = [
      good[0],
      good[1] + "\r",
      "   ",
      "{bad",
      named,
      "",
      good[2],
      good[3],
      '{"features": {"9": 1, "3": 2}, "labels": ["x"]}',
      good[4],
    ].join("\n"); // the last line has no newline
    const r = await s.ingestBody(body, "http");
    assertEquals([r.accepted, r.rejectedCount], [7, 1]);
    // a long body: the service yields to other work every few milliseconds
    const many = plantedEvents(3000, 100);
    const r2 = await s.ingestBody(many.join("\n") + "\n", "http");
    assertEquals(r2.accepted, 3000);
    const logged: string[] = [];
    const dec = new TextDecoder();
    for await (const l of replaySegments(`${dir}/wal`, 0)) logged.push(dec.decode(l.bytes));
    const expected = [
      good[0],
      good[1],
      named,
      good[2],
      good[3],
      '{"features": {"9": 1, "3": 2}, "labels": ["x"]}',
      good[4],
      ...many,
    ];
    assertEquals(logged, expected);
    await s.stop();
  });
});

Deno.test("events answered before a crash are replayed from the write-ahead log", async () => {
  await withTempDir(async (dir) => {
    const a = await LearningService.open(serviceOptions(dir));
    await a.ingestBody(plantedEvents(5).join("\n"), "http");
    await a.checkpoint();
    await a.ingestBody(plantedEvents(7, 5).join("\n"), "http");
    // "Crash": the process dies without stop(); a new one opens the same directory.
    const b = await LearningService.open(serviceOptions(dir));
    assertEquals([b.learner.applied, b.walReplayed], [12, 7]);
    assertEquals(
      b.learner.idDigest,
      StreamLearner.digestOf(plantedEvents(12).map((_, i) => `e${i}`)),
    );
    await b.start(); // writes a checkpoint covering the replayed events
    await b.stop();
    const c = await LearningService.open(serviceOptions(dir));
    assertEquals([c.learner.applied, c.walReplayed], [12, 0]);
    await c.stop();
  });
});

Deno.test("publish: versions, ETags, model.tsm reloaded after a restart", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.ingestBody(plantedEvents(40).join("\n"), "http");
    const v1 = await s.publish();
    await s.ingestBody(plantedEvents(8, 40).join("\n"), "http");
    const v2 = await s.publish();
    assertEquals([v1.version, v2.version], [1, 2]);
    assert(v1.etag !== v2.etag && v2.etag.startsWith('"v2-'), v2.etag);
    const meta = decodeModelFile(v2.bytes).meta!;
    assertEquals([meta.modelVersion, meta.eventsApplied], [2, 48]);
    await s.stop();
    const t = await LearningService.open(serviceOptions(dir));
    assertEquals([t.published?.version, t.published?.etag], [2, v2.etag]);
    const v3 = await t.publish();
    assertEquals(v3.version, 3);
    await t.stop();
  });
});

Deno.test("POP publishing prunes a BR model on the latest events (in a worker)", async () => {
  await withTempDir(async (dir) => {
    const builder = popModelBuilder({ minValidationRows: 50 });
    const s = await LearningService.open(serviceOptions(dir, {
      factory: br,
      modelOptions: { seed: 1 },
      buildModel: builder,
      validationEvents: 200,
    }));
    await s.ingestBody(popEvents(300).join("\n"), "http");
    s.learner.flush();
    const m = await s.publish();
    const c = decodeModelFile(m.bytes);
    assertEquals(c.kind, "linear-sparse");
    assert(m.pruned, `expected a pruned file: ${m.note}`);
    const pop = c.meta?.pop as { nnzBefore: number; nnzAfter: number };
    assert(pop.nnzAfter < pop.nnzBefore, JSON.stringify(pop));
    await s.stop(); // also stops the worker
  });
});

Deno.test("a followed file is read from the checkpointed offset after a restart", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/events.ndjson`;
    await Deno.writeTextFile(file, plantedEvents(10).join("\n") + "\n");
    const o = serviceOptions(`${dir}/state`, { file, followFile: true });
    const a = await LearningService.open(o);
    await a.start();
    await waitUntil(() => a.learner.applied === 10, "10 events from the file");
    await a.stop();
    await Deno.writeTextFile(file, plantedEvents(5, 10).join("\n") + "\n{oops\n", { append: true });
    const b = await LearningService.open(o);
    await b.start();
    await waitUntil(() => b.learner.applied + b.learner.rejected === 16, "the appended lines");
    await b.stop();
    assertEquals([b.learner.applied, b.learner.rejected], [15, 1]);
    assertEquals(b.learner.position.file?.line, 16);
  });
});

Deno.test({
  name: "Redis: recovery acknowledges covered pending entries and yields the others",
  async fn() {
    const server = await startRedisServer();
    const c = await RedisClient.connect(server.url);
    let src: RedisStreamSource | undefined;
    try {
      src = await RedisStreamSource.connect({ url: server.url, key: "k", consumer: "me" });
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await c.xadd("k", { event: `{"n":${i}}` }));
      assertEquals((await src.read()).length, 6); // delivered, pending
      const got: string[] = [];
      for await (const chunk of src.recover(ids[3])) got.push(...chunk.map((e) => e.id));
      assertEquals(got, ids.slice(4));
      assertEquals(src.ackedOnRecovery, 4);
      assertEquals(await src.pending(), 2);
    } finally {
      src?.close();
      c.close();
      await server.stop();
    }
  },
});

Deno.test({
  name: "Redis: entries are acknowledged only by a checkpoint, and applied exactly once",
  async fn() {
    const server = await startRedisServer();
    const c = await RedisClient.connect(server.url);
    try {
      await withTempDir(async (dir) => {
        const lines = plantedEvents(30);
        for (const l of lines.slice(0, 20)) await c.xadd("ev", { event: l });
        await c.xadd("ev", { event: "{broken" });
        await c.xadd("ev", { other: "x" });
        const o = serviceOptions(dir, {
          redis: { url: server.url, key: "ev", blockMs: 20 },
          checkpointSeconds: 0,
          checkpointEvery: 1e9,
        });
        const a = await LearningService.open(o);
        await a.start();
        await waitUntil(() => a.learner.applied + a.learner.rejected === 22, "22 entries");
        assertEquals(
          await c.xpendingCount("ev", "tagstream"),
          22,
          "nothing acked before a checkpoint",
        );
        await a.checkpoint();
        assertEquals(await c.xpendingCount("ev", "tagstream"), 0);
        for (const l of lines.slice(20)) await c.xadd("ev", { event: l });
        await waitUntil(() => a.learner.applied === 30, "30 events");
        // "Crash" after applying the last 10 without a checkpoint: they stay pending.
        assertEquals(await c.xpendingCount("ev", "tagstream"), 10);
        const b = await LearningService.open(o);
        assertEquals(b.learner.applied, 20, "the checkpoint holds 20 events");
        await b.start(); // recovery re-applies the 10 pending entries
        await b.stop();
        assertEquals([b.learner.applied, b.learner.rejected], [30, 2]);
        assertEquals(b.learner.idDigest, StreamLearner.digestOf(lines.map((_, i) => `e${i}`)));
        assertEquals(await c.xpendingCount("ev", "tagstream"), 0);
        assertEquals(
          await c.xlen("ev:rejected"),
          2,
          "rejected entries go to the dead-letter stream",
        );
        await a.stop().catch(() => {}); // the abandoned first instance
      });
    } finally {
      c.close();
      await server.stop();
    }
  },
});
