/**
 * A server that answers "not now" (here `BUSY`, from a script running past the busy threshold;
 * `LOADING` after a restart is handled the same way): the source waits at connect, keeps failed
 * acknowledgements and sends them again, and reads reject so the caller retries.
 */
import { RedisClient, RedisConnectionError } from "../../src/service/redis_client.ts";
import { RedisStreamSource } from "../../src/service/redis_source.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";

function assertEquals(a: unknown, b: unknown, msg = ""): void {
  const sa = JSON.stringify(a), sb = JSON.stringify(b);
  if (sa !== sb) throw new Error(`${msg} expected ${sb}, got ${sa}`);
}

/** Starts a script that spins until SCRIPT KILL; resolves once other clients get BUSY. */
async function makeBusy(url: string): Promise<{ release(): Promise<void> }> {
  const spinner = await RedisClient.connect(url);
  await spinner.command("CONFIG", "SET", "lua-time-limit", "20");
  const spinning = spinner.command("EVAL", "while true do end", 0).catch(() => {});
  const probe = await RedisClient.connect(url);
  for (let i = 0;; i++) {
    await new Promise((r) => setTimeout(r, 20));
    const busy = await probe.command("PING").then(() => false, (e) => /BUSY/.test(e.message));
    if (busy) break;
    if (i > 200) throw new Error("the server never became busy");
  }
  return {
    async release() {
      await probe.command("SCRIPT", "KILL");
      await spinning;
      probe.close();
      spinner.close();
    },
  };
}

Deno.test({
  name: "RedisClient rejects a BUSY reply as a RedisConnectionError (retry later)",
  async fn() {
    const server = await startRedisServer();
    const c = await RedisClient.connect(server.url);
    try {
      const busy = await makeBusy(server.url);
      const e = await c.command("XLEN", "ev").then(() => undefined, (e) => e);
      await busy.release();
      if (!(e instanceof RedisConnectionError) || !/BUSY/.test(e.message)) {
        throw new Error(`expected a RedisConnectionError for BUSY, got ${e}`);
      }
      // The connection stays usable, and other error replies stay plain errors.
      assertEquals(await c.command("XLEN", "ev"), 0);
      await c.command("SET", "s", "x");
      const wrong = await c.command("XLEN", "s").then(() => undefined, (e) => e);
      if (!(wrong instanceof Error) || wrong instanceof RedisConnectionError) {
        throw new Error(`WRONGTYPE should be a plain Error, got ${wrong}`);
      }
    } finally {
      c.close();
      await server.stop();
    }
  },
});

/** A source that has read `n` fresh entries (their ids), against a throwaway server. */
async function withDelivered(
  n: number,
  fn: (src: RedisStreamSource, ids: string[], url: string) => Promise<void>,
): Promise<void> {
  const server = await startRedisServer();
  const admin = await RedisClient.connect(server.url);
  const src = await RedisStreamSource.connect({ url: server.url, key: "ev", blockMs: 20 });
  try {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await admin.xadd("ev", { event: `{"n":${i}}` }));
    assertEquals((await src.read()).length, n);
    await fn(src, ids, server.url);
  } finally {
    src.close();
    admin.close();
    await server.stop();
  }
}

Deno.test(
  "RedisStreamSource keeps acknowledgements refused as BUSY and sends them on the next read",
  () =>
    withDelivered(6, async (src, ids, url) => {
      const busy = await makeBusy(url);
      const failed = await src.ack(ids.slice(0, 4)).then(() => false, () => true);
      const readFailed = await src.read().then(
        () => false,
        (e) => e instanceof RedisConnectionError,
      );
      await busy.release();
      if (!failed) throw new Error("the ack should fail while the server is busy");
      if (!readFailed) throw new Error("a read should reject (RedisConnectionError) while busy");
      assertEquals(await src.pending(), 6);
      assertEquals(await src.read(), []); // sends the kept acknowledgements first
      assertEquals(await src.pending(), 2);
      // A later ack carries on normally.
      assertEquals(await src.ack(ids.slice(4)), 2);
      assertEquals(await src.pending(), 0);
    }),
);

Deno.test(
  "RedisStreamSource keeps a refused acknowledgement and sends it with the next ack",
  () =>
    withDelivered(4, async (src, ids, url) => {
      const busy = await makeBusy(url);
      await src.ack(ids.slice(0, 2)).catch(() => {});
      await busy.release();
      assertEquals(await src.ack(ids.slice(2)), 4);
      assertEquals(await src.pending(), 0);
    }),
);

Deno.test({
  name: "RedisStreamSource.connect waits for a busy server instead of failing",
  async fn() {
    const server = await startRedisServer();
    try {
      const busy = await makeBusy(server.url);
      const t0 = Date.now();
      setTimeout(() => busy.release(), 400);
      const src = await RedisStreamSource.connect({ url: server.url, key: "ev", blockMs: 20 });
      try {
        if (Date.now() - t0 < 300) throw new Error("connect returned while the server was busy");
        assertEquals(await src.read(), []);
      } finally {
        src.close();
      }
    } finally {
      await server.stop();
    }
  },
});
