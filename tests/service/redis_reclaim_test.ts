import { RedisClient, type StreamEntry } from "../../src/service/redis_client.ts";
import { entryLine, RedisStreamSource } from "../../src/service/redis_source.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";

function assertEquals(a: unknown, b: unknown, msg = ""): void {
  const sa = JSON.stringify(a), sb = JSON.stringify(b);
  if (sa !== sb) throw new Error(`${msg} expected ${sb}, got ${sa}`);
}

Deno.test({
  name: "RedisStreamSource: a live consumer takes over a dead consumer's entries exactly once",
  async fn() {
    const server = await startRedisServer();
    const admin = await RedisClient.connect(server.url);
    const common = { url: server.url, key: "ev", blockMs: 20 };
    const a = await RedisStreamSource.connect({ ...common, consumer: "A", claimIdleMs: 0 });
    const b = await RedisStreamSource.connect({ ...common, consumer: "B", claimIdleMs: 300 });
    try {
      for (let i = 0; i < 8; i++) await admin.xadd("ev", { event: `{"n":${i}}` });
      const fromA = await a.read();
      assertEquals(fromA.length, 8);
      a.close(); // A dies without acknowledging anything
      for (let i = 8; i < 12; i++) await admin.xadd("ev", { event: `{"n":${i}}` });
      // B applies what it reads and (like the service waiting for a checkpoint) does not ack.
      // Reads until A's entries are taken over and everything was handed over (bounded
      // generously: on a loaded machine the 300 ms idle time and the claim turns stretch), then
      // for one more second, past B's own entries' idle time and several claim turns: nothing
      // more may come (B's own entries are not taken over again, A's not twice).
      const applied: StreamEntry[] = [];
      const deadline = Date.now() + 30_000;
      while (applied.length < 12 || b.claimed < 8) {
        if (Date.now() > deadline) {
          throw new Error(`${applied.length} entries handed over, ${b.claimed} claimed in 30 s`);
        }
        applied.push(...await b.read());
      }
      const settled = Date.now();
      while (Date.now() - settled < 1000) applied.push(...await b.read());
      const lines = applied.map((e) => entryLine(e)!).sort();
      const want = Array.from({ length: 12 }, (_, i) => `{"n":${i}}`).sort();
      // A's 8 entries once each (B's own unacknowledged entries, idle for longer than 300 ms,
      // are never taken over again).
      assertEquals(lines, want);
      assertEquals(b.claimed, 8);
      const copies = applied.filter((e) => e.fields["claimed-from"] !== undefined);
      assertEquals(copies.map((e) => e.fields["claimed-from"]), fromA.map((e) => e.id));
      // A holds nothing any more; B holds its 12.
      const perConsumer = await admin.command("XPENDING", "ev", "tagstream");
      assertEquals((perConsumer as unknown[])[3], [["B", "12"]]);
      await b.ack(applied.map((e) => e.id));
      assertEquals(await b.pending(), 0);
    } finally {
      a.close();
      b.close();
      admin.close();
      await server.stop();
    }
  },
});
