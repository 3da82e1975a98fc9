/**
 * The TCP front closes a connection whose request the server answered before the body had all
 * arrived (a 401 before the body is read, a 408 body timeout): Deno's server keeps such a
 * connection open until the whole body has arrived, so a client that never sends it held a
 * connection of the cap for ever (with the cap reached, every new client got a 503). The front's
 * timers are fired by the test ({@linkcode ManualTimers}): the header timeout cannot go off
 * while a request is sent, and the close after the answer happens when the test says its time
 * has passed, not after a real delay; the bounds are hang guards (30 s).
 */
import { TcpFront } from "../../src/service/tcp_front.ts";
import { createApp } from "../../src/service/http_app.ts";
import type { ServiceHandle } from "../../src/service/service_handle.ts";
import { assert, assertEquals } from "../helpers.ts";
import { readUntilClosed, waitUntil } from "./helpers.ts";
import { ManualTimers } from "./manual_timers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const BOUND_MS = 30_000;

/** Reads from `conn` until `text` holds a whole response head and its `content-length` body. */
async function readAnswer(conn: Deno.Conn): Promise<string> {
  const buf = new Uint8Array(4096);
  let text = "";
  while (true) {
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) {
      const len = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (text.length >= end + 4 + len) return text; // ASCII answers: characters are bytes
    }
    const n = await conn.read(buf);
    if (n === null) throw new Error(`closed before a whole answer: ${JSON.stringify(text)}`);
    text += dec.decode(buf.subarray(0, n));
  }
}

Deno.test("front: a request answered before its body (401, 408) does not hold its connection for ever", async () => {
  // the app itself: it never reaches the service in these requests
  const service = { stopping: false } as unknown as ServiceHandle;
  const app = createApp({ service, token: "t", bodyTimeoutMs: 200 });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  const timers = new ManualTimers();
  const front = TcpFront.listen({
    port: 0,
    backend: { hostname: "127.0.0.1", port: server.addr.port },
    headerTimeoutMs: 300,
    maxConnections: 1,
    timers,
  });
  try {
    const port = front.addr.port;
    const cases = [
      // no token: answered 401 before the body is read
      ["POST /events HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\nab", "401", "token"],
      // the body does not arrive within the body timeout: 408
      [
        "POST /events HTTP/1.1\r\nhost: x\r\nauthorization: Bearer t\r\ncontent-length: 100\r\n\r\nab",
        "408",
        "body",
      ],
    ];
    for (const [request, status, reason] of cases) {
      // the front's only connection slot: the next client gets it once this one is closed
      await waitUntil(() => front.stats.open === 0, "the slot freed", BOUND_MS);
      const c = await Deno.connect({ hostname: "127.0.0.1", port });
      await c.write(enc.encode(request));
      // the server's answer (not the front's header timeout, whose timer does not go off)
      const answer = await readAnswer(c);
      assert(answer.startsWith(`HTTP/1.1 ${status} `), answer);
      assert(answer.toLowerCase().includes(reason), answer);
      assertEquals(front.stats.headerTimeouts, 0);
      // the connection is still held (the server waits for the body): the front's close after
      // the answer is due; it goes off now
      await waitUntil(() => timers.pending.size === 1, `the close after the ${status}`, BOUND_MS);
      assertEquals(front.stats.open, 1);
      timers.fire();
      const r = await readUntilClosed(c, BOUND_MS);
      assert(r.closed, `the connection answered ${status} is still open after ${r.ms} ms`);
      assertEquals(r.text, "");
    }
    // the slot is free again
    await waitUntil(() => front.stats.open === 0, "the slot freed", BOUND_MS);
    const h = await fetch(`http://127.0.0.1:${port}/schema/predict.json`);
    assertEquals(h.status, 200);
    await h.body?.cancel();
  } finally {
    await front.close();
    await server.shutdown();
  }
});
