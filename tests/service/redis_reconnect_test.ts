import { RedisClient, type StreamEntry } from "../../src/service/redis_client.ts";
import { RedisStreamSource } from "../../src/service/redis_source.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";

function assertEquals(a: unknown, b: unknown, msg = ""): void {
  const sa = JSON.stringify(a), sb = JSON.stringify(b);
  if (sa !== sb) throw new Error(`${msg} expected ${sb}, got ${sa}`);
}

/** Reads like the service does (an error: wait, read again) until `n` entries were handed over. */
async function readAll(src: RedisStreamSource, n: number, out: StreamEntry[]): Promise<number> {
  let errors = 0;
  const deadline = Date.now() + 15000;
  while (out.length < n) {
    if (Date.now() > deadline) throw new Error(`only ${out.length} of ${n} entries read`);
    try {
      out.push(...await src.read());
    } catch {
      errors++;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return errors;
}

Deno.test({
  name: "RedisStreamSource reconnects after CLIENT KILL and hands over lost deliveries once",
  async fn() {
    const server = await startRedisServer();
    const admin = await RedisClient.connect(server.url);
    const src = await RedisStreamSource.connect({ url: server.url, key: "ev", blockMs: 20 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push(await admin.xadd("ev", { event: `{"n":${i}}` }));
      const got: StreamEntry[] = [];
      got.push(...await src.read()); // all 30, handed over
      assertEquals(got.length, 30);
      await src.ack(ids.slice(0, 10)); // a checkpoint held the first 10
      for (let i = 30; i < 40; i++) ids.push(await admin.xadd("ev", { event: `{"n":${i}}` }));
      // Entries 30..34 are delivered to this consumer but their reply never reaches it (as when
      // the connection drops with the reply in flight) ...
      const lost = await admin.xreadgroup("tagstream", "learner-1", "ev", ">", { count: 5 });
      assertEquals(lost.map((e) => e.id), ids.slice(30, 35));
      // ... and the connections are killed.
      const killed = Number(
        await admin.command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"),
      );
      if (killed < 2) throw new Error(`killed ${killed} connections`);
      await readAll(src, 40, got);
      if (src.reconnects !== 1) throw new Error(`${src.reconnects} reconnects`);
      // Every entry handed over exactly once, in no particular order for the lost ones.
      assertEquals(got.map((e) => e.id).sort(), [...ids].sort());
      assertEquals(await src.pending(), 30);
      await src.ack(ids.slice(10));
      assertEquals(await src.pending(), 0);
    } finally {
      src.close();
      admin.close();
      await server.stop();
    }
  },
});

Deno.test({
  name: "RedisStreamSource survives a server restart (password, backoff, pending acks retried)",
  async fn() {
    const server = await startRedisServer({ persist: true, requirePass: "pw" });
    const url = server.url.replace("redis://", "redis://:pw@");
    let admin = await RedisClient.connect(url);
    const src = await RedisStreamSource.connect({ url, key: "ev", blockMs: 20 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(await admin.xadd("ev", { event: `{"n":${i}}` }));
      const got: StreamEntry[] = [...await src.read()];
      assertEquals(got.length, 20);
      admin.close();
      // SIGKILL, same port, data kept by the append-only file. A checkpoint covering the first
      // 10 completes while the server is down: the ack fails and is sent again once reconnected.
      let ackFailed = false;
      await server.restart(async () => {
        await new Promise((r) => setTimeout(r, 50));
        await src.ack(ids.slice(0, 10)).catch(() => ackFailed = true);
        await src.read().catch(() => {}); // a read fails too
      });
      if (!ackFailed) throw new Error("the ack should fail while the server is down");
      admin = await RedisClient.connect(url);
      for (let i = 20; i < 30; i++) ids.push(await admin.xadd("ev", { event: `{"n":${i}}` }));
      await readAll(src, 30, got);
      assertEquals(got.map((e) => e.id), ids);
      assertEquals(await src.pending(), 20); // the failed ack of 10 was retried
      await src.ack(ids.slice(10));
      assertEquals(await src.pending(), 0);
    } finally {
      src.close();
      admin.close();
      await server.stop();
    }
  },
});

Deno.test({
  name: "RedisStreamSource backs off while the server is down",
  async fn() {
    const server = await startRedisServer();
    const src = await RedisStreamSource.connect({ url: server.url, key: "ev", blockMs: 20 });
    const port = server.port;
    await server.stop();
    try {
      // The first read finds the connection gone; each later one reconnects after a backoff
      // that doubles: 100, 200, 400, 800 ms, not a busy loop. Checked as lower bounds on the
      // gaps between failed reads (a slow or paused machine only widens them), with a tenth off
      // for timer and clock rounding; 30 s is a hang guard.
      const failedAt: number[] = [];
      const t0 = performance.now();
      while (failedAt.length < 5) {
        if (performance.now() - t0 > 30_000) throw new Error(`${failedAt.length} failed reads`);
        await src.read().then(
          () => {
            throw new Error(`a read succeeded with the server stopped (port ${port})`);
          },
          () => failedAt.push(performance.now()),
        );
      }
      const gaps = failedAt.slice(1).map((t, i) => Math.round(t - failedAt[i]));
      [100, 200, 400, 800].forEach((backoff, i) => {
        if (gaps[i] < 0.9 * backoff) {
          throw new Error(`reads failed ${gaps.join(", ")} ms apart: not backing off`);
        }
      });
    } finally {
      src.close();
    }
  },
});
