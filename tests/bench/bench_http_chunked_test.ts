/**
 * The load generator's keep-alive client (`HttpConnection`, bench/service/harness.ts) reads
 * chunked responses. A chunk larger than the free space of its 64 KiB buffer made it grow (or
 * compact) the buffer, which moves the bytes, but the chunk was then read at its old offsets:
 * the body came out shifted and the client waited for bytes that had already arrived (here: the
 * server's close, "connection closed by the server").
 */
import { HttpConnection } from "../../bench/service/harness.ts";
import { assertEquals } from "../helpers.ts";

/** Serves one connection: every request is answered with `responses` in turn (raw bytes). */
function rawServer(responses: string[]) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    const conn = await listener.accept();
    const buf = new Uint8Array(1 << 16);
    const enc = new TextEncoder();
    try {
      for (const r of responses) {
        if ((await conn.read(buf)) === null) break;
        const msg = enc.encode(r);
        let off = 0;
        while (off < msg.length) off += await conn.write(msg.subarray(off));
      }
      await conn.read(buf); // until the client closes
    } catch {
      // the client went away
    } finally {
      conn.close();
      listener.close();
    }
  })();
  return { port: (listener.addr as Deno.NetAddr).port, served };
}

const letters = (n: number, shift = 0) =>
  Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i + shift) % 26))).join("");

Deno.test("HttpConnection reads chunks larger than its buffer, then the next response", async () => {
  const big = letters(70_000), second = letters(40_000, 3), small = '{"ok":true}';
  const chunked = (...parts: string[]) =>
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" +
    parts.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`).join("") + "0\r\n\r\n";
  const { port, served } = rawServer([
    chunked(big),
    chunked(second, big),
    `HTTP/1.1 200 OK\r\ncontent-length: ${small.length}\r\n\r\n${small}`,
  ]);
  const c = await HttpConnection.open(port);
  // a guard against a hang, not a timing: a client stuck on its read fails the test
  const guard = setTimeout(() => c.close(), 20_000);
  try {
    const a = await c.request("GET", "/a");
    assertEquals([a.status, a.body.length, a.body === big], [200, big.length, true]);
    const b = await c.request("GET", "/b");
    assertEquals([b.body.length, b.body === second + big], [second.length + big.length, true]);
    const d = await c.request("GET", "/c");
    assertEquals([d.status, d.body], [200, small]);
  } finally {
    clearTimeout(guard);
    c.close();
    await served;
  }
});
