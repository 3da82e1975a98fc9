// /metrics and /health with a Redis that stops answering: the group's pending count is waited
// for at most 1 s (then null), so /health no longer answers 503 "the learner did not answer
// within 2 s" (the learner was fine: metrics() waited out Redis's 10 s reply timeout).
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";
import { assert, assertEquals, serviceOptions, withTempDir } from "./helpers.ts";

/** A TCP relay to `port` that stops relaying (both ways) once `freeze()` is called. */
function relay(port: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let frozen = false;
  const conns: Deno.Conn[] = [];
  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    const buf = new Uint8Array(1 << 16);
    try {
      for (let n = await from.read(buf); n !== null; n = await from.read(buf)) {
        if (!frozen) await to.write(buf.subarray(0, n));
      }
    } catch {
      // closed
    }
  };
  (async () => {
    for await (const c of listener) {
      const up = await Deno.connect({ hostname: "127.0.0.1", port });
      conns.push(c, up);
      pipe(c, up);
      pipe(up, c);
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    freeze: () => frozen = true,
    close: () => {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
    },
  };
}

Deno.test("/health answers while Redis is silent, and /metrics reports its pending count as null", async () => {
  const server = await startRedisServer();
  const r = relay(server.port);
  try {
    await withTempDir(async (dir) => {
      const s = await LearningService.open(serviceOptions(dir, {
        redis: { url: `redis://127.0.0.1:${r.port}`, key: "ev", blockMs: 20 },
      }));
      await s.start();
      const app = createApp({ service: s });
      try {
        r.freeze();
        const health = await app.fetch(new Request("http://x/health"));
        const body = await health.json();
        assert(!/did not answer/.test(String(body.reason)), JSON.stringify(body));
        const m = await s.metrics();
        assertEquals((m.redis as { pending: unknown }).pending, null);
      } finally {
        r.close();
        await s.stop().catch(() => {});
      }
    });
  } finally {
    await server.stop();
  }
});
