import { RedisClient } from "../../src/service/redis_client.ts";
import { RedisStreamSource } from "../../src/service/redis_source.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";

function assertEquals(a: unknown, b: unknown, msg = ""): void {
  const sa = JSON.stringify(a), sb = JSON.stringify(b);
  if (sa !== sb) throw new Error(`${msg} expected ${sb}, got ${sa}`);
}

Deno.test({
  name: "RedisClient over TLS (rediss://, CA file, password) against redis-server --tls-port",
  async fn() {
    const server = await startRedisServer({ tls: true, requirePass: "tlspw" });
    const url = server.url.replace("rediss://", "rediss://:tlspw@");
    if (!url.startsWith("rediss://:tlspw@127.0.0.1:")) throw new Error(url);
    try {
      // The server's certificate is signed by a private CA: refused without the CA file ...
      let msg = "";
      await RedisClient.connect(url).then((c) => c.close(), (e) => msg = (e as Error).message);
      if (!msg.startsWith(`Cannot connect to Redis at rediss://:***@127.0.0.1:${server.port}`)) {
        throw new Error(`unexpected: ${msg}`);
      }
      // ... accepted with it.
      const c = await RedisClient.connect(url, { caFile: server.caFile });
      try {
        assertEquals(await c.command("PING"), "PONG");
        // The server speaks TLS only (no plain-text port).
        assertEquals(await c.command("CONFIG", "GET", "port"), ["port", "0"]);
        const src = await RedisStreamSource.connect({
          url,
          caFile: server.caFile,
          key: "ev",
          blockMs: 20,
        });
        try {
          const big = "x".repeat(200_000); // several TLS records
          await c.xadd("ev", { event: `{"n":1}` });
          await c.xadd("ev", { event: big });
          const got = await src.read();
          assertEquals(got.map((e) => e.fields.event.length), [7, 200_000]);
          await src.ack(got.map((e) => e.id));
          assertEquals(await src.pending(), 0);
        } finally {
          src.close();
        }
      } finally {
        c.close();
      }
    } finally {
      await server.stop();
    }
  },
});
