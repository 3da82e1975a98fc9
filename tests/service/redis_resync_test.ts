/**
 * After a reconnect the source hands over its pending entries whose delivery was lost, read in
 * chunks of 1000: a failure between two chunks (the connection drops again) must not mark the
 * entries of the chunks already read as handed over, or they would never be applied — and a
 * restart would acknowledge them as covered by the checkpoint.
 */
import {
  RedisClient,
  RedisConnectionError,
  type StreamEntry,
} from "../../src/service/redis_client.ts";
import { RedisStreamSource } from "../../src/service/redis_source.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";
import { assertEquals } from "./helpers.ts";

Deno.test("RedisStreamSource: a resync cut off between two chunks of lost entries hands them all over later", async () => {
  const server = await startRedisServer();
  const admin = await RedisClient.connect(server.url);
  const src = await RedisStreamSource.connect({
    url: server.url,
    key: "ev",
    blockMs: 20,
    claimIdleMs: 0,
  });
  const original = RedisClient.prototype.xreadgroup;
  try {
    const n = 1500;
    for (let i = 0; i < n; i++) await admin.xadd("ev", { event: `{"n":${i}}` });
    // delivered to this consumer, the reply lost (as when the connection drops with it in flight)
    const lost = await admin.xreadgroup("tagstream", "learner-1", "ev", ">", { count: n });
    assertEquals(lost.length, n);
    await admin.command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    // the connection drops again while the second chunk of the resync is read
    let armed = true;
    RedisClient.prototype.xreadgroup = function (this: RedisClient, ...args) {
      if (armed && /^\d+-\d+$/.test(args[3])) {
        armed = false;
        return Promise.reject(new RedisConnectionError("Redis: connection lost (injected)"));
      }
      return original.apply(this, args);
    };
    const got = new Set<string>();
    for (let i = 0; i < 100 && got.size < n; i++) {
      try {
        for (const e of await src.read() as StreamEntry[]) got.add(e.id);
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    assertEquals(armed, false, "the fault was injected");
    assertEquals(got.size, n, "every lost delivery handed over");
  } finally {
    RedisClient.prototype.xreadgroup = original;
    src.close();
    admin.close();
    await server.stop();
  }
});
