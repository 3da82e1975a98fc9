import { compareStreamIds, RedisClient, RespParser } from "../../src/service/redis_client.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";

function assertEquals(a: unknown, b: unknown, msg = ""): void {
  const sa = JSON.stringify(a), sb = JSON.stringify(b);
  if (sa !== sb) throw new Error(`${msg} expected ${sb}, got ${sa}`);
}

Deno.test("RespParser handles split replies, nested arrays, nulls and errors", () => {
  const p = new RespParser();
  const enc = new TextEncoder();
  const text = "*2\r\n$3\r\nfoo\r\n*2\r\n:1\r\n$-1\r\n-ERR bad thing\r\n$5\r\nhé\r\n\r\n";
  const bytes = enc.encode(text);
  const got: unknown[] = [];
  for (const b of bytes) {
    p.feed(Uint8Array.of(b));
    for (let r = p.next(); r !== undefined; r = p.next()) got.push(r);
  }
  assertEquals(got, [{ value: ["foo", [1, null]] }, { error: "ERR bad thing" }, {
    value: "hé\r\n",
  }]);
});

Deno.test("compareStreamIds orders by milliseconds then sequence", () => {
  assertEquals(compareStreamIds("1700000000000-1", "1700000000000-0"), 1);
  assertEquals(compareStreamIds("99-9", "100-0"), -1);
  assertEquals(compareStreamIds("5-5", "5-5"), 0);
});

Deno.test({
  name: "RedisClient: stream group read, pending, ack against a real redis-server",
  async fn() {
    const server = await startRedisServer();
    const c = await RedisClient.connect(server.url);
    try {
      assertEquals(await c.xgroupCreate("ev", "g"), true);
      assertEquals(await c.xgroupCreate("ev", "g"), false);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await c.xadd("ev", { event: `{"n":${i}}` }));
      assertEquals(await c.xlen("ev"), 5);
      const first = await c.xreadgroup("g", "c1", "ev", ">", { count: 3 });
      assertEquals(first.map((e) => e.fields.event), ['{"n":0}', '{"n":1}', '{"n":2}']);
      assertEquals(await c.xpendingCount("ev", "g"), 3);
      // The consumer's own pending entries are re-delivered from id 0.
      const pending = await c.xreadgroup("g", "c1", "ev", "0", { count: 10 });
      assertEquals(pending.map((e) => e.id), ids.slice(0, 3));
      assertEquals(await c.xack("ev", "g", ids.slice(0, 2)), 2);
      assertEquals(await c.xpendingCount("ev", "g"), 1);
      const rest = await c.xreadgroup("g", "c1", "ev", ">", { count: 10, blockMs: 50 });
      assertEquals(rest.map((e) => e.id), ids.slice(3));
      const none = await c.xreadgroup("g", "c1", "ev", ">", { count: 10, blockMs: 20 });
      assertEquals(none.length, 0);
      let failed = "";
      await c.command("NOSUCHCMD").catch((e) => failed = (e as Error).message);
      if (!failed.includes("unknown command")) throw new Error(`unexpected: ${failed}`);
      // The connection keeps working after an error reply (pipelining stays in order).
      const [a, b] = await Promise.all([c.command("PING"), c.xlen("ev")]);
      assertEquals([a, b], ["PONG", 5]);
    } finally {
      c.close();
      await server.stop();
    }
  },
});
