/**
 * A `Content-Length` holding a list of lengths (`5, 5`), which the server refuses with a bare
 * 400 (no reason), is answered by the TCP front with a JSON 400 naming the value, as the other
 * malformed lengths are.
 */
import { badContentLength } from "../../src/service/tcp_front.ts";
import { assert, assertEquals } from "../helpers.ts";
import { readUntilClosed, withBodyLengthFront } from "./helpers.ts";

/** How long the refused connection is read before the test gives up on it (a hang guard: the
 * read returns as soon as the front closes it). */
const BOUND_MS = 30_000;

Deno.test("front: a Content-Length list ('5, 5') is a JSON 400 naming it; separate equal headers still pass", async () => {
  assert(/"5, 5".*non-negative integer/.test(badContentLength("\r\ncontent-length: 5, 5\r\n")!));
  assertEquals(badContentLength("\r\ncontent-length: 5\r\ncontent-length: 5\r\n"), undefined);
  await withBodyLengthFront(async (port) => {
    const c = await Deno.connect({ hostname: "127.0.0.1", port });
    await c.write(
      new TextEncoder().encode(
        "POST /events HTTP/1.1\r\nhost: x\r\ncontent-length: 5, 5\r\n\r\nabcde",
      ),
    );
    const r = await readUntilClosed(c, BOUND_MS);
    assert(r.closed, `the refused connection still open after ${r.ms} ms: ${r.text}`);
    assert(r.text.startsWith("HTTP/1.1 400 "), r.text);
    const error = JSON.parse(r.text.slice(r.text.indexOf("\r\n\r\n") + 4)).error as string;
    assert(/Content-Length header "5, 5"/.test(error), error);
  });
});
