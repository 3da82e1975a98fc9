/**
 * The TCP front's header timeout for a pipelined head that is still half-sent while the front
 * writes a large answer to a client that does not read it: the timer that goes off during the
 * write must not be lost. As in tcp_front_test.ts, the timeout is short (0.3 s) and the bound
 * generous (30 s, a hang guard): nothing depends on timing beyond "eventually, well within the
 * bound".
 */
import { TcpFront } from "../../src/service/tcp_front.ts";
import { assert, assertEquals } from "../helpers.ts";
import { readUntilClosed } from "./helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

Deno.test("front: a half-sent pipelined head is still timed out when its timer went off while a large answer was being written", async () => {
  const size = 32 << 20; // far more than the sockets buffer: the front's write waits for the client
  const big = new Uint8Array(size);
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () => new Response(big),
  );
  const front = TcpFront.listen({
    port: 0,
    backend: { hostname: "127.0.0.1", port: server.addr.port },
    headerTimeoutMs: 300,
    maxConnections: 16,
  });
  try {
    const c = await Deno.connect({ hostname: "127.0.0.1", port: front.addr.port });
    // a whole request, then the start of a next head that never ends
    await c.write(enc.encode("GET /big HTTP/1.1\r\nhost: x\r\n\r\nGET /next HTTP/1.1\r\nho"));
    // not reading: the head's timer goes off while the front waits to write the answer
    await new Promise((r) => setTimeout(r, 1000));
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
    // the half head is timed again from the answer's last byte: a 408, then closed
    const r = await readUntilClosed(c, 30_000);
    assert(r.closed, "the connection with half a head is still open");
    assert(r.text.startsWith("HTTP/1.1 408 "), JSON.stringify(r.text.slice(0, 80)));
    assertEquals(front.stats.headerTimeouts >= 1, true);
  } finally {
    await front.close();
    await server.shutdown();
  }
});
