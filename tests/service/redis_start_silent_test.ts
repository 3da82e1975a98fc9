/**
 * A service whose Redis source cannot connect does not hang at its start: a server that accepts
 * the TCP connection and never answers (not the TLS handshake of `rediss://`, not a command)
 * makes the start fail after the reply timeout (`replyTimeoutMs`, `--redis-reply-timeout-ms`)
 * with a RedisConnectionError naming the address and the limit — on the serving thread
 * (`--same-thread`: `LearningService.start`) and through the learner thread
 * (`LearnerThread.open`, the error rebuilt as the same class). A fake server stands in for
 * Redis: a real one cannot be silenced without root.
 */
import { factory as leml } from "../../src/models/leml/mod.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { RedisClient, RedisConnectionError } from "../../src/service/redis_client.ts";
import { LearningService } from "../../src/service/service.ts";
import { assert, serviceOptions, settled, waitUntil, withTempDir } from "./helpers.ts";

const WORKER = new URL("../../src/cli/commands/serve_learner.ts", import.meta.url);

/** A TCP server that accepts every connection and never sends a byte. */
function silentServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  /** Connections the client closed (its read ended). */
  const state = { accepted: 0, closedByClient: 0 };
  (async () => {
    for await (const conn of listener) {
      conns.push(conn);
      state.accepted++;
      (async () => {
        const buf = new Uint8Array(4096);
        while (true) {
          const n = await conn.read(buf).catch(() => null);
          if (n === null) break;
        }
        state.closedByClient++;
      })();
    }
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  return {
    port,
    state,
    close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
    },
  };
}

/** The error `p` rejects with (fails when it resolves or hangs). */
async function rejection(p: Promise<unknown>, what: string): Promise<Error> {
  try {
    await settled(p, what);
  } catch (e) {
    if ((e as Error).message.startsWith("timed out")) throw e;
    return e as Error;
  }
  throw new Error(`${what} did not reject`);
}

function assertNamesAddressAndLimit(e: Error, url: string, ms: number): void {
  assert(e instanceof RedisConnectionError, `${e.constructor.name}: ${e.message}`);
  assert(e.message.includes(url), `names ${url}: ${e.message}`);
  assert(e.message.includes(`within ${ms} ms`), `names the limit ${ms} ms: ${e.message}`);
}

for (const scheme of ["rediss", "redis"]) {
  Deno.test(`a ${scheme}:// server that accepts and never answers: the service's start fails naming the address and the limit`, async () => {
    const server = silentServer();
    const url = `${scheme}://127.0.0.1:${server.port}`;
    try {
      await withTempDir(async (dir) => {
        const s = await LearningService.open(serviceOptions(dir, {
          redis: { url, key: "ev", replyTimeoutMs: 200 },
          checkpointSeconds: 0,
        }));
        try {
          const e = await rejection(s.start(), "start()");
          assertNamesAddressAndLimit(e, url, 200);
        } finally {
          await s.stop();
        }
      });
      assert(server.state.accepted > 0, "it did connect");
      if (scheme === "redis") {
        // the connection it made is closed, not left open (a TLS connection whose handshake is
        // in flight is not: Deno keeps its socket until the server answers or closes it)
        await waitUntil(
          () => server.state.closedByClient === server.state.accepted,
          "the client to close its connections",
          30_000,
        );
      }
    } finally {
      server.close();
    }
  });

  Deno.test(`a ${scheme}:// server that accepts and never answers: LearnerThread.open rejects naming the address and the limit`, async () => {
    const server = silentServer();
    const url = `${scheme}://127.0.0.1:${server.port}`;
    try {
      await withTempDir(async (dir) => {
        const e = await rejection(
          LearnerThread.open({
            workerUrl: WORKER,
            init: [
              "--state-dir",
              dir,
              "--model",
              "leml",
              "--option",
              "rank=4",
              "--source",
              url,
              "--redis-reply-timeout-ms",
              "200",
            ],
            factory: leml,
          }),
          "LearnerThread.open()",
        );
        assertNamesAddressAndLimit(e, url, 200);
      });
    } finally {
      server.close();
    }
  });
}

Deno.test("RedisClient.connect with a reply timeout: a TLS handshake never answered is given up", async () => {
  const server = silentServer();
  const url = `rediss://127.0.0.1:${server.port}`;
  try {
    const e = await rejection(
      RedisClient.connect(url, { replyTimeoutMs: 100 }),
      "RedisClient.connect()",
    );
    assertNamesAddressAndLimit(e, url, 100);
    assert(/^Cannot connect to Redis at /.test(e.message), e.message);
    assert(e.message.includes("TLS handshake"), e.message);
  } finally {
    server.close();
  }
});
