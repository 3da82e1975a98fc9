/**
 * The TCP front's header timeout for a pipelined head that is still half-sent while the front
 * writes a large answer to a client that does not read it: the timer that goes off during the
 * write must not be lost. The front's timers are fired by the test ({@linkcode ManualTimers}),
 * once the backend shows that the front is stuck writing the answer (its own write to the front
 * has stayed pending); the bounds are hang guards (30 s): nothing depends on timing.
 */
import { assert, assertEquals } from "../helpers.ts";
import { readUntilClosed, waitUntil, withRawBackendFront } from "./helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const BOUND_MS = 30_000;

/** Writes all of `bytes` to `conn`. */
async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

Deno.test("front: a half-sent pipelined head is still timed out when its timer went off while a large answer was being written", async () => {
  // far more than the sockets between the front and the client hold: the front's write waits
  // for the client
  const size = 64 << 20;
  const request = "GET /big HTTP/1.1\r\nhost: x\r\n\r\nGET /next HTTP/1.1\r\nho";
  // a backend answering the first request with `size` bytes, a write at a time; `writing` is the
  // number of the write under way (0: none), which stays the same while the front does not read
  let writing = 0, received = "";
  const serve = async (conn: Deno.Conn) => {
    const buf = new Uint8Array(4096);
    while (received !== request) {
      const n = await conn.read(buf);
      if (n === null) return;
      received += dec.decode(buf.subarray(0, n));
    }
    await writeAll(conn, enc.encode(`HTTP/1.1 200 OK\r\ncontent-length: ${size}\r\n\r\n`));
    const piece = new Uint8Array(1 << 16);
    for (let off = 0, k = 1; off < size; off += piece.length, k++) {
      writing = k;
      await writeAll(conn, piece);
      writing = 0;
    }
    // held open (keep-alive) until the front closes it
    while (await conn.read(buf) !== null) { /* drop */ }
  };
  await withRawBackendFront(300, serve, async (front, timers) => {
    const c = await Deno.connect({ hostname: "127.0.0.1", port: front.addr.port });
    // a whole request, then the start of a next head that never ends
    await c.write(enc.encode(request));
    // not reading: the front's write of the answer waits for the client, so it stops reading
    // the backend, whose write then stays pending (the same write seen by 5 polls in a row)
    let seen = 0, polls = 0;
    await waitUntil(
      () => {
        polls = writing !== 0 && writing === seen ? polls + 1 : 0;
        seen = writing;
        return polls >= 5;
      },
      "the front stuck writing the answer",
      BOUND_MS,
    );
    // the front has followed the request (it forwards what it has read): one timer, the half
    // head's; it goes off now, during the write
    assertEquals(received, request);
    assertEquals(timers.pending.size, 1);
    timers.fire();
    // skipped during the write (the front writes no 408 into the middle of an answer)
    assertEquals(front.stats.headerTimeouts, 0, "the timer went off outside the write");
    // now read the whole answer
    const buf = new Uint8Array(1 << 16);
    let head = "", body = 0;
    while (body < size) {
      const n = await c.read(buf);
      assert(n !== null, `closed after ${body} bytes of the answer`);
      if (!head.includes("\r\n\r\n")) {
        head += dec.decode(buf.subarray(0, n));
        const end = head.indexOf("\r\n\r\n");
        if (end >= 0) body = head.length - end - 4; // ASCII head: characters are bytes
      } else body += n;
    }
    assert(head.startsWith("HTTP/1.1 200 "), head.slice(0, 80));
    assertEquals(body, size);
    // the half head is timed again once a write ends: its timer goes off (again if it went off
    // while the answer's last bytes were still being written) until the front answers 408
    while (front.stats.headerTimeouts === 0) {
      await waitUntil(
        () => timers.pending.size === 1,
        "the half head timed again after the write",
        BOUND_MS,
      );
      timers.fire();
    }
    const r = await readUntilClosed(c, BOUND_MS);
    assert(r.closed, "the connection with half a head is still open");
    assert(r.text.startsWith("HTTP/1.1 408 "), JSON.stringify(r.text.slice(0, 80)));
    assertEquals(front.stats.headerTimeouts, 1);
  });
});
