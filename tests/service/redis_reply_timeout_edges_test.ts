/**
 * The Redis reply timeout at its edges, against a real redis-server: the largest allowed timeout
 * (2^31 − 1 ms, which `serve --redis-reply-timeout-ms` accepts) plus a read's BLOCK time must not
 * overflow setTimeout's delay (it then fired at once and every read failed), and a read with
 * `BLOCK 0` (wait for ever) has no deadline (an idle healthy stream was cut every timeout).
 */
import { RedisStreamSource } from "../../src/service/redis_source.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";
import { assertEquals } from "./helpers.ts";

Deno.test("redis source: the largest reply timeout leaves blocking reads working", async () => {
  const srv = await startRedisServer();
  try {
    const src = await RedisStreamSource.connect({ url: srv.url, replyTimeoutMs: 2 ** 31 - 1 });
    try {
      for (let i = 0; i < 3; i++) assertEquals((await src.read()).length, 0);
    } finally {
      src.close();
    }
  } finally {
    await srv.stop();
  }
});

Deno.test("redis source: a read with BLOCK 0 on an idle stream outlives the reply timeout", async () => {
  const srv = await startRedisServer();
  try {
    const src = await RedisStreamSource.connect({ url: srv.url, blockMs: 0, replyTimeoutMs: 200 });
    let outcome = "pending";
    const read = src.read().then(
      (r) => outcome = `read ${r.length}`,
      (e) => outcome = `failed: ${(e as Error).message}`,
    );
    await new Promise((r) => setTimeout(r, 1000));
    assertEquals(outcome, "pending");
    src.close();
    await read;
  } finally {
    await srv.stop();
  }
});
