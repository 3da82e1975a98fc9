/**
 * The TCP front (src/service/tcp_front.ts): header timeout, connection cap, transparent
 * forwarding (large bodies, chunked bodies, keep-alive, pipelining), closing; and `serve` with
 * it. The front's own header timeouts run on timers the test fires itself ({@linkcode
 * ManualTimers}), once the front has read what it should have (a relay between the front and
 * the backend shows what it forwarded); `serve`'s are short (0.5 s); the bounds are generous
 * (`BOUND_MS`, 30 s: a hang guard that a slow or paused machine does not reach): nothing here
 * depends on timing beyond "eventually, well within the bound".
 */
import { RequestTracker, TcpFront } from "../../src/service/tcp_front.ts";
import { ManualTimers } from "./manual_timers.ts";
import { startService } from "../../bench/service/harness.ts";
import { assert, assertEquals, withTempDir } from "../helpers.ts";
import { readUntilClosed, waitUntil } from "./helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
/** How long a connection expected to close is read before the test gives up on it. */
const BOUND_MS = 30_000;

/** A backend that answers `<method> <path> <body length>` and keeps connections alive. */
function startBackend(): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    const body = new Uint8Array(await req.arrayBuffer());
    let sum = 0;
    for (const b of body) sum = (sum + b) % 65521;
    return new Response(`${req.method} ${new URL(req.url).pathname} ${body.length} ${sum}`);
  });
}

/**
 * A relay from the front to `port` that records, per connection, the bytes the front forwarded:
 * what the front has read from its client (it forwards a chunk once it has followed it).
 */
function startRelay(port: number): { port: number; forwarded: string[]; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const forwarded: string[] = [];
  const conns = new Set<Deno.Conn>();
  const pipe = async (from: Deno.Conn, to: Deno.Conn, record?: number) => {
    const buf = new Uint8Array(1 << 16);
    try {
      for (let n = await from.read(buf); n !== null; n = await from.read(buf)) {
        if (record !== undefined) forwarded[record] += dec.decode(buf.subarray(0, n));
        for (let off = 0; off < n;) off += await to.write(buf.subarray(off, n));
      }
    } catch { /* closed */ }
    for (const c of [from, to]) {
      try {
        c.close();
      } catch { /* closed */ }
    }
  };
  const loops: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const a of listener) {
      const b = await Deno.connect({ hostname: "127.0.0.1", port });
      conns.add(a).add(b);
      loops.push(pipe(a, b, forwarded.push("") - 1), pipe(b, a));
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    forwarded,
    async close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await accepting.catch(() => {});
      await Promise.all(loops);
    },
  };
}

async function withFront(
  opts: { headerTimeoutMs?: number; maxConnections?: number; timers?: ManualTimers },
  fn: (port: number, front: TcpFront, forwarded: string[]) => Promise<void>,
): Promise<void> {
  const server = startBackend();
  // with manual timers, through a relay that shows what the front has read
  const relay = opts.timers === undefined ? undefined : startRelay(server.addr.port);
  const front = TcpFront.listen({
    port: 0,
    backend: { hostname: "127.0.0.1", port: relay?.port ?? server.addr.port },
    headerTimeoutMs: opts.headerTimeoutMs ?? 10000,
    maxConnections: opts.maxConnections ?? 1024,
    timers: opts.timers,
  });
  try {
    await fn(front.addr.port, front, relay?.forwarded ?? []);
  } finally {
    await front.close();
    await relay?.close();
    await server.shutdown();
  }
}

/** Bytes read past the last response, per connection (pipelined answers arrive together). */
const leftover = new WeakMap<Deno.Conn, Uint8Array>();

/** Reads one response (with a content-length) from a keep-alive connection. */
async function readResponse(conn: Deno.Conn): Promise<{ head: string; body: string }> {
  let data = leftover.get(conn) ?? new Uint8Array(0);
  const buf = new Uint8Array(16384);
  while (true) {
    const text = dec.decode(data);
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) {
      const len = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (data.length >= end + 4 + len) { // ASCII answers: characters are bytes
        leftover.set(conn, data.slice(end + 4 + len));
        return { head: text.slice(0, end), body: text.slice(end + 4, end + 4 + len) };
      }
    }
    const n = await conn.read(buf);
    if (n === null) throw new Error(`connection closed mid-response: ${JSON.stringify(text)}`);
    const next = new Uint8Array(data.length + n);
    next.set(data);
    next.set(buf.subarray(0, n), data.length);
    data = next;
  }
}

async function connect(port: number): Promise<Deno.TcpConn> {
  return await Deno.connect({ hostname: "127.0.0.1", port });
}

const GET = (path: string) => enc.encode(`GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`);

Deno.test("front: a connection with half a head is closed by the header timeout (408)", async () => {
  const timers = new ManualTimers();
  await withFront({ headerTimeoutMs: 500, timers }, async (port, front, forwarded) => {
    const half = "GET /health HTTP/1.1\r\nhost: x\r\n";
    const slow = await connect(port);
    await slow.write(enc.encode(half));
    const silent = await connect(port); // not a byte
    // meanwhile a full request on another connection is answered normally
    const ok = await fetch(`http://127.0.0.1:${port}/fine`);
    assertEquals([ok.status, await ok.text()], [200, "GET /fine 0 0"]);
    // the timeout passes once the front has read the half head and taken the silent connection
    await waitUntil(() => forwarded.includes(half), "the half head forwarded", BOUND_MS);
    await waitUntil(() => front.stats.accepted >= 3, "three connections taken", BOUND_MS);
    timers.fire();
    const r = await readUntilClosed(slow, BOUND_MS);
    assert(r.closed, `half-head connection still open after ${r.ms} ms`);
    assert(r.text.startsWith("HTTP/1.1 408 "), r.text);
    const s = await readUntilClosed(silent, BOUND_MS);
    assert(s.closed, "silent connection still open");
    assertEquals(front.stats.headerTimeouts >= 2, true);
  });
});

Deno.test("front: an idle keep-alive connection is closed after the timeout; a slow body is not timed by the front", async () => {
  const timers = new ManualTimers();
  await withFront({ headerTimeoutMs: 500, timers }, async (port, _front, forwarded) => {
    const c = await connect(port);
    await c.write(GET("/one"));
    assertEquals((await readResponse(c)).body, "GET /one 0 0");
    // the head's timer was cleared before the answer; the idle one is set once it is written
    await waitUntil(() => timers.pending.size === 1, "the idle timer set", BOUND_MS);
    timers.fire();
    const r = await readUntilClosed(c, BOUND_MS);
    assert(r.closed, "idle keep-alive connection still open");
    assertEquals(r.text, ""); // closed silently, no 408 for an idle connection
    // a complete head stops the clock: a body whose rest arrives after the timeout still works
    const b = await connect(port);
    const head = "POST /slow HTTP/1.1\r\nhost: x\r\ncontent-length: 4\r\n\r\nab";
    await b.write(enc.encode(head));
    await waitUntil(() => forwarded.includes(head), "the head forwarded", BOUND_MS);
    timers.fire();
    await b.write(enc.encode("cd"));
    assertEquals((await readResponse(b)).body, `POST /slow 4 ${97 + 98 + 99 + 100}`);
    b.close();
  });
});

Deno.test("front: the connection over the cap gets a readable 503 with Retry-After; a freed slot is reused", async () => {
  await withFront({ maxConnections: 2 }, async (port, front) => {
    const a = await connect(port);
    const b = await connect(port);
    for (const c of [a, b]) {
      await c.write(GET("/held"));
      assertEquals((await readResponse(c)).body, "GET /held 0 0");
    }
    const third = await connect(port);
    await third.write(GET("/refused")).catch(() => 0);
    const r = await readUntilClosed(third, BOUND_MS);
    assert(r.closed, "the refused connection was not closed");
    assert(r.text.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), r.text);
    assert(/\r\nretry-after: 1\r\n/i.test(r.text), r.text);
    assert(r.text.includes("too many connections"), r.text);
    assertEquals(front.stats.refused, 1);
    // a's slot frees once the front sees it closed
    a.close();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      if (i > 0) await new Promise((res) => setTimeout(res, 50));
      const c = await connect(port);
      await c.write(enc.encode("GET /again HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"))
        .catch(() => 0);
      const text = (await readUntilClosed(c, BOUND_MS)).text;
      status = Number(/^HTTP\/1.1 (\d+)/.exec(text)?.[1] ?? 0);
    }
    assertEquals(status, 200);
    b.close();
  });
});

Deno.test("front: large bodies, chunked bodies, keep-alive and pipelining pass through unchanged", async () => {
  // Timed (the clock stops and restarts at each head), but long enough that no keep-alive
  // connection goes idle past it here: a short one closed fetch's pooled connection on a loaded
  // machine just as the next request went out ("connection closed before message completed").
  // The idle close itself is tested above.
  await withFront({ headerTimeoutMs: 10_000 }, async (port) => {
    // a 6 MB body through fetch, twice (fetch keeps the connection alive)
    const big = new Uint8Array(6_000_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 255;
    let sum = 0;
    for (const x of big) sum = (sum + x) % 65521;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/big`, { method: "POST", body: big });
      assertEquals(await res.text(), `POST /big ${big.length} ${sum}`);
    }
    // one raw keep-alive connection: a chunked body (extension, trailer), then content-length,
    // then two pipelined GETs in one write
    const c = await connect(port);
    await c.write(enc.encode(
      "POST /chunked HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n" +
        "3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nx-trailer: t\r\n\r\n",
    ));
    const chunkedSum = [..."abc0123456789"].reduce((s, ch) => s + ch.charCodeAt(0), 0);
    assertEquals((await readResponse(c)).body, `POST /chunked 13 ${chunkedSum}`);
    await new Promise((res) => setTimeout(res, 200)); // idle, well under the timeout
    await c.write(enc.encode("PUT /cl HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\nhi"));
    assertEquals((await readResponse(c)).body, `PUT /cl 2 ${104 + 105}`);
    await c.write(
      enc.encode("GET /p1 HTTP/1.1\r\nhost: x\r\n\r\nGET /p2 HTTP/1.1\r\nhost: x\r\n\r\n"),
    );
    assertEquals((await readResponse(c)).body, "GET /p1 0 0");
    assertEquals((await readResponse(c)).body, "GET /p2 0 0");
    c.close();
    // a streamed (chunked) upload from fetch
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        for (let i = 0; i < 50; i++) ctl.enqueue(big.subarray(i * 1000, (i + 1) * 1000));
        ctl.close();
      },
    });
    let s2 = 0;
    for (const x of big.subarray(0, 50_000)) s2 = (s2 + x) % 65521;
    const res = await fetch(`http://127.0.0.1:${port}/stream`, { method: "POST", body: stream });
    assertEquals(await res.text(), `POST /stream 50000 ${s2}`);
  });
});

Deno.test("front: close() stops accepting and closes the connections it holds", async () => {
  const server = startBackend();
  const front = TcpFront.listen({
    port: 0,
    backend: { hostname: "127.0.0.1", port: server.addr.port },
    headerTimeoutMs: 0, // off: only close() can end the half-head connection
    maxConnections: 8,
  });
  const port = front.addr.port;
  const held = await connect(port);
  await held.write(enc.encode("GET / HTTP/1.1\r\n"));
  await new Promise((res) => setTimeout(res, 100));
  await front.close();
  const r = await readUntilClosed(held, BOUND_MS);
  assert(r.closed, "a held connection outlived close()");
  let refused = false;
  try {
    (await connect(port)).close();
  } catch (e) {
    refused = e instanceof Deno.errors.ConnectionRefused;
  }
  assert(refused, "the public port still accepts after close()");
  await server.shutdown();
});

Deno.test("RequestTracker follows heads and bodies split at any byte", () => {
  const stream = enc.encode(
    "POST /a HTTP/1.1\r\ncontent-length: 5\r\n\r\nhello" +
      "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n" +
      "GET /c HTTP/1.1\r\n\r\n" +
      "GET /d HT",
  );
  for (let cut = 1; cut < stream.length; cut++) {
    const t = new RequestTracker();
    t.feed(stream.subarray(0, cut));
    t.feed(stream.subarray(cut));
    assertEquals([t.heads, t.state, t.headBytes], [3, "head", 9], `cut at ${cut}`);
  }
  const one = new RequestTracker();
  for (const b of stream) one.feed(Uint8Array.of(b));
  assertEquals([one.heads, one.state], [3, "head"]);
  const bad = new RequestTracker();
  bad.feed(enc.encode("POST / HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"));
  assertEquals(bad.state, "lost"); // the server refuses it; the front stops tracking
});

Deno.test("serve (front by default): header timeout, connection cap, and SIGTERM closes the front", async () => {
  await withTempDir(async (dir) => {
    const svc = await startService({
      stateDir: dir,
      args: ["--model", "popularity", "--header-timeout", "0.5", "--max-connections", "3"],
    });
    let code: number;
    let held: Deno.TcpConn | undefined;
    try {
      const half = await connect(svc.port);
      await half.write(enc.encode("POST /events HTTP/1.1\r\nhost: x\r\n"));
      // meanwhile a full request is answered (on a raw connection: fetch would keep one)
      const h = await connect(svc.port);
      await h.write(enc.encode("GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"));
      const ht = await readUntilClosed(h, BOUND_MS);
      assert(ht.text.startsWith("HTTP/1.1 200 "), ht.text);
      const r = await readUntilClosed(half, BOUND_MS);
      assert(r.closed && r.text.startsWith("HTTP/1.1 408 "), JSON.stringify(r));
      // three connections hold the slots: each with a GET answered and, pipelined behind it in
      // the same write, a request whose body is still on its way, which the front does not
      // time (idle keep-alive connections would be closed after 0.5 s, and a machine that slow
      // or paused before the fourth connection would free their slots)
      const conns: Deno.TcpConn[] = [];
      for (let i = 0; i < 3; i++) {
        const c = await connect(svc.port);
        await c.write(enc.encode(
          "GET /health HTTP/1.1\r\nhost: x\r\n\r\n" +
            "POST /events HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{",
        ));
        assert((await readResponse(c)).head.startsWith("HTTP/1.1 200"));
        conns.push(c);
      }
      const over = await connect(svc.port);
      await over.write(GET("/health")).catch(() => 0);
      const o = await readUntilClosed(over, BOUND_MS);
      assert(o.text.startsWith("HTTP/1.1 503 ") && /retry-after: 1/i.test(o.text), o.text);
      // the bodies arrive: keep-alive connections again (a stop waits for requests in flight)
      for (const c of conns) {
        await c.write(enc.encode(" ".repeat(99)));
        assert((await readResponse(c)).head.startsWith("HTTP/1.1 "));
      }
      for (const c of conns.slice(1)) c.close();
      held = conns[0];
    } finally {
      code = await svc.stop();
    }
    assertEquals(code, 0);
    const r = await readUntilClosed(held!, BOUND_MS);
    assert(r.closed, "a keep-alive connection outlived the service");
    let refused = false;
    try {
      (await connect(svc.port)).close();
    } catch (e) {
      refused = e instanceof Deno.errors.ConnectionRefused;
    }
    assert(refused, "the public port still accepts after the service stopped");
  });
});
