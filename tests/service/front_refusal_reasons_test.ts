/**
 * Heads the server (Deno.serve) refuses with a bare 400 — no reason — are answered by the TCP
 * front with a JSON error naming what is wrong: a head longer than 65535 bytes (431), a
 * `Transfer-Encoding` that does not end with `chunked`, one sent with a `Content-Length` (400);
 * and the front's own 408 says what did not arrive within how long. A pipelined second request
 * with such a head still reaches the server (whose answer to the first is due first).
 */
import { badTransferEncoding, TcpFront } from "../../src/service/tcp_front.ts";
import { assert, assertEquals } from "../helpers.ts";
import { readUntilClosed, withBodyLengthFront, withRawBackendFront } from "./helpers.ts";

const enc = new TextEncoder();
/** A hang guard: the read returns as soon as the front closes the connection. */
const BOUND_MS = 30_000;

/** Sends `request` on a new connection and reads until the front closes it. */
async function send(port: number, request: string): Promise<{ status: string; error: string }> {
  const c = await Deno.connect({ hostname: "127.0.0.1", port });
  await c.write(enc.encode(request)).catch(() => 0); // the front may close before all is sent
  const r = await readUntilClosed(c, BOUND_MS);
  assert(r.closed, `still open after ${r.ms} ms: ${r.text}`);
  const status = r.text.slice(0, r.text.indexOf("\r\n"));
  const body = r.text.slice(r.text.indexOf("\r\n\r\n") + 4);
  return { status, error: body === "" ? "" : JSON.parse(body).error };
}

Deno.test("front: a head over 65535 bytes is a JSON 431 saying so, not the server's bare 400", async () => {
  await withBodyLengthFront(async (port) => {
    const big = `GET /health HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(70_000)}\r\n\r\n`;
    const r = await send(port, big);
    assertEquals(r.status, "HTTP/1.1 431 Request Header Fields Too Large");
    assert(/request head .* is longer than 65535 bytes/.test(r.error), r.error);
    // a head within the limit is served
    const ok = await send(
      port,
      `GET / HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(60_000)}\r\nconnection: close\r\n\r\n`,
    );
    assertEquals(ok.status, "HTTP/1.1 200 OK");
  });
});

Deno.test("front: a Transfer-Encoding not ending with chunked, or with a Content-Length, is a JSON 400 naming it", async () => {
  assertEquals(badTransferEncoding("\r\ntransfer-encoding: chunked\r\n"), undefined);
  assertEquals(badTransferEncoding("\r\ntransfer-encoding: gzip, chunked\r\n"), undefined);
  assertEquals(badTransferEncoding("\r\ncontent-length: 5\r\n"), undefined);
  await withBodyLengthFront(async (port) => {
    for (
      const [te, re] of [
        ["gzip", /Transfer-Encoding header "gzip" is not supported/],
        ["chunked, gzip", /Transfer-Encoding header "chunked, gzip" is not supported/],
      ] as const
    ) {
      const r = await send(
        port,
        `POST /events HTTP/1.1\r\nhost: x\r\ntransfer-encoding: ${te}\r\n\r\n`,
      );
      assertEquals(r.status, "HTTP/1.1 400 Bad Request", te);
      assert(re.test(r.error), r.error);
    }
    const both = await send(
      port,
      "POST /events HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n",
    );
    assertEquals(both.status, "HTTP/1.1 400 Bad Request");
    assert(/both Transfer-Encoding and Content-Length/.test(both.error), both.error);
    // chunked alone still passes
    const ok = await send(
      port,
      "POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n" +
        "3\r\nabc\r\n0\r\n\r\n",
    );
    assertEquals(ok.status, "HTTP/1.1 200 OK");
  });
});

Deno.test("front: the 408 of a head that does not arrive says within how long", async () => {
  // a raw backend: once it has the partial head, the front has read it (it forwards what it
  // has read), so the timer fired then finds the head unfinished
  const head = "POST /events HTTP/1.1\r\nhost: x\r\n";
  let got = "";
  const received = Promise.withResolvers<void>();
  const serve = async (conn: Deno.Conn) => {
    const buf = new Uint8Array(4096);
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      got += new TextDecoder().decode(buf.subarray(0, n));
      if (got === head) received.resolve();
    }
  };
  await withRawBackendFront(2500, serve, async (front, timers) => {
    const c = await Deno.connect({ hostname: "127.0.0.1", port: front.addr.port });
    await c.write(enc.encode(head));
    await received.promise;
    timers.fire();
    const r = await readUntilClosed(c, BOUND_MS);
    assert(r.text.startsWith("HTTP/1.1 408 "), r.text);
    const error = JSON.parse(r.text.slice(r.text.indexOf("\r\n\r\n") + 4)).error as string;
    assert(/the request head did not arrive within 2\.5 s/.test(error), error);
  });
});

Deno.test("front: the 503 of a connection past the cap says how many it holds", async () => {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () => new Response("ok"),
  );
  const front = TcpFront.listen({
    port: 0,
    backend: { hostname: "127.0.0.1", port: server.addr.port },
    headerTimeoutMs: 10_000,
    maxConnections: 1,
  });
  const held = await Deno.connect({ hostname: "127.0.0.1", port: front.addr.port });
  try {
    // the held connection is admitted (answered) before the next one connects
    await held.write(enc.encode("GET / HTTP/1.1\r\nhost: x\r\n\r\n"));
    const buf = new Uint8Array(1024);
    assert((await held.read(buf) ?? 0) > 0, "the held connection was not answered");
    const r = await send(front.addr.port, "GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    assertEquals(r.status, "HTTP/1.1 503 Service Unavailable");
    assert(/too many connections: the server holds at most 1 at once/.test(r.error), r.error);
  } finally {
    held.close();
    await front.close();
    await server.shutdown();
  }
});
