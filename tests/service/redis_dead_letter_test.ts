/**
 * The dead-letter copy of rejected Redis entries is durable: an entry whose copy to
 * `<key>:rejected` failed (here the key holds a plain string, so XADD answers WRONGTYPE) is not
 * acknowledged by a checkpoint, the failure is reported (`lastError`, `/metrics`), the copy is
 * retried until it succeeds and only then is the entry acknowledged — also across a restart,
 * whose recovery would otherwise acknowledge the pending entries the checkpoint covers.
 */
import { RedisClient } from "../../src/service/redis_client.ts";
import { RedisStreamSource } from "../../src/service/redis_source.ts";
import { LearningService } from "../../src/service/service.ts";
import { factory } from "../../src/models/popularity/mod.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { checkCheckpointFields } from "../../src/service/checkpoint_fields.ts";
import {
  assert,
  assertEquals,
  brokenDeadLetterOptions,
  plantedEvents,
  waitUntil,
  withRedis,
} from "./helpers.ts";

/** The dead-letter stream's entries, as field maps. */
async function deadLetters(c: RedisClient, key: string): Promise<Record<string, string>[]> {
  const r = await c.command("XRANGE", key, "-", "+") as [string, string[]][];
  return r.map(([, kv]) => {
    const o: Record<string, string> = {};
    for (let i = 0; i + 1 < kv.length; i += 2) o[kv[i]] = kv[i + 1];
    return o;
  });
}

Deno.test("Redis dead-letter: a reject whose copy fails (WRONGTYPE) stays pending through a checkpoint and is acknowledged once copied", () =>
  withRedis(async (url, c, dir) => {
    const logs: string[] = [];
    const s = await LearningService.open(
      await brokenDeadLetterOptions(c, url, dir, {}, { log: (m) => logs.push(m) }),
    );
    await s.start();
    try {
      await c.xadd("ev", { event: plantedEvents(1)[0] });
      const bad = await c.xadd("ev", { event: "{broken" });
      await waitUntil(() => s.learner.applied + s.learner.rejected === 2, "both entries applied");
      await waitUntil(
        () => /dead-letter.*WRONGTYPE/.test(s.lastError ?? ""),
        "the failure reported",
      );
      assert(logs.some((m) => /WRONGTYPE/.test(m)), "the failure is logged");
      await s.checkpoint();
      assertEquals(await c.xpendingCount("ev", "tagstream"), 1, "the reject is not acknowledged");
      const m = (await s.metrics()).redis as { deadLetter: { waiting: number } };
      assertEquals(m.deadLetter.waiting, 1, "metrics count the reject waiting for its copy");
      // the key fixed: the copy is made (retried) and the entry acknowledged
      await c.command("DEL", "ev:rejected");
      await waitUntil(async () => (await c.xpendingCount("ev", "tagstream")) === 0, "the ack");
      const copies = await deadLetters(c, "ev:rejected");
      assertEquals(copies.length, 1);
      assertEquals([copies[0].id, copies[0].event], [bad, "{broken"]);
      assert(copies[0].reason.length > 0, "the copy carries the reason");
    } finally {
      await s.stop();
    }
  }));

Deno.test("Redis dead-letter: a reject not yet copied survives a restart (kept in the checkpoint) and is copied then", () =>
  withRedis(async (url, c, dir) => {
    const o = await brokenDeadLetterOptions(c, url, dir);
    const a = await LearningService.open(o);
    await a.start();
    await c.xadd("ev", { event: plantedEvents(1)[0] });
    const bad = await c.xadd("ev", { other: "no event field" });
    await waitUntil(() => a.learner.applied + a.learner.rejected === 2, "both entries applied");
    await a.stop(); // the last checkpoint covers both entries; the copy has not succeeded
    assertEquals(await c.xpendingCount("ev", "tagstream"), 1, "the reject is not acknowledged");
    await c.command("DEL", "ev:rejected");
    const b = await LearningService.open(o);
    await b.start();
    try {
      await waitUntil(async () => (await c.xlen("ev:rejected")) === 1, "the copy after restart");
      await waitUntil(async () => (await c.xpendingCount("ev", "tagstream")) === 0, "the ack");
      const copies = await deadLetters(c, "ev:rejected");
      assertEquals([copies[0].id, copies[0].reason], [bad, "entry has no 'event' field"]);
      assertEquals([b.learner.applied, b.learner.rejected], [1, 1], "nothing applied again");
      await b.checkpoint();
    } finally {
      await b.stop();
    }
    // a restart after the copy makes no second one
    const d = await LearningService.open(o);
    await d.start();
    await d.stop();
    assertEquals(await c.xlen("ev:rejected"), 1);
  }));

Deno.test("Redis dead-letter: a checkpoint whose waiting rejects are damaged is refused naming the field", () => {
  const ck = StreamLearner.create(factory).toCheckpoint();
  const redis = { key: "ev", group: "g", lastId: "2-0" };
  const ok = [{ id: "1-0", line: "{broken", reason: "bad" }];
  checkCheckpointFields(
    { ...ck, position: { redis: { ...redis, deadLetter: ok } } } as typeof ck,
    0,
  );
  for (const bad of [{ x: 1 }, [{ id: "1-0", line: 3, reason: "bad" }], [null]]) {
    let message = "";
    try {
      const position = { redis: { ...redis, deadLetter: bad } };
      checkCheckpointFields({ ...ck, position } as unknown as typeof ck, 0);
    } catch (e) {
      message = (e as Error).message;
    }
    assert(/^checkpoint: field position\.redis\.deadLetter/.test(message), message);
  }
});

Deno.test("Redis dead-letter: an entry held for its copy (keepPending) is not reclaimed by another consumer", () =>
  withRedis(async (url, c) => {
    const a = await RedisStreamSource.connect({ url, key: "ev", consumer: "a", claimIdleMs: 0 });
    const b = await RedisStreamSource.connect({ url, key: "ev", consumer: "b", claimIdleMs: 1000 });
    const idle = async (id: string) => {
      const r = await c.command("XPENDING", "ev", "tagstream", id, id, 1) as [
        string,
        string,
        number,
      ][];
      return Number(r[0]?.[2] ?? -1);
    };
    try {
      const id = await c.xadd("ev", { event: "{broken" });
      assertEquals((await a.read()).map((e) => e.id), [id]);
      await waitUntil(async () => (await idle(id)) >= 1500, "the entry idle for 1.5 s");
      assertEquals(await a.keepPending([id]), 1);
      assertEquals(await b.claimStale(), 0, "a held entry is not taken over");
      await waitUntil(async () => (await idle(id)) >= 1500, "the entry idle for 1.5 s again");
      assertEquals(await b.claimStale(), 1, "an entry left idle is taken over");
    } finally {
      a.close();
      b.close();
    }
  }));

Deno.test("Redis dead-letter: past 10000 rejects waiting for their copy the oldest is dropped, logged and acknowledged", () =>
  withRedis(async (url, c, dir) => {
    const logs: string[] = [];
    const s = await LearningService.open(
      await brokenDeadLetterOptions(c, url, dir, { count: 4096 }, { log: (m) => logs.push(m) }),
    );
    await s.start();
    try {
      const ids = await Promise.all(
        Array.from({ length: 10_001 }, (_, i) => c.xadd("ev", { event: `{broken ${i}` })),
      );
      await waitUntil(() => s.learner.rejected === 10_001, "10001 rejects", 60_000);
      const dropped = logs.find((m) => m.startsWith("dropped the dead-letter copy"));
      assert(dropped?.includes(ids[0]) === true, `the drop is logged naming the entry: ${dropped}`);
      await s.checkpoint();
      assertEquals(await c.xpendingCount("ev", "tagstream"), 10_000, "the dropped one is acked");
      const m = (await s.metrics()).redis as { deadLetter: { waiting: number; dropped: number } };
      assertEquals([m.deadLetter.waiting, m.deadLetter.dropped], [10_000, 1]);
      await c.command("DEL", "ev:rejected");
      await waitUntil(
        async () => (await c.xpendingCount("ev", "tagstream")) === 0,
        "the copies and acks",
        60_000,
      );
    } finally {
      await s.stop();
    }
  }));
