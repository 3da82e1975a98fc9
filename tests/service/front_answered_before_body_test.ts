/**
 * The TCP front closes a connection whose request the server answered before the body had all
 * arrived (a 401 before the body is read, a 408 body timeout): Deno's server keeps such a
 * connection open until the whole body has arrived, so a client that never sends it held a
 * connection of the cap for ever (with the cap reached, every new client got a 503).
 */
import { TcpFront } from "../../src/service/tcp_front.ts";
import { createApp } from "../../src/service/http_app.ts";
import type { ServiceHandle } from "../../src/service/service_handle.ts";
import { assert, assertEquals } from "../helpers.ts";
import { readUntilClosed } from "./helpers.ts";

const enc = new TextEncoder();

Deno.test("front: a request answered before its body (401, 408) does not hold its connection for ever", async () => {
  // the app itself: it never reaches the service in these requests
  const service = { stopping: false } as unknown as ServiceHandle;
  const app = createApp({ service, token: "t", bodyTimeoutMs: 200 });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  const front = TcpFront.listen({
    port: 0,
    backend: { hostname: "127.0.0.1", port: server.addr.port },
    headerTimeoutMs: 300,
    maxConnections: 1,
  });
  try {
    const port = front.addr.port;
    const cases = [
      // no token: answered 401 before the body is read
      ["POST /events HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\nab", "401"],
      // the body does not arrive within the body timeout: 408
      [
        "POST /events HTTP/1.1\r\nhost: x\r\nauthorization: Bearer t\r\ncontent-length: 100\r\n\r\nab",
        "408",
      ],
    ];
    for (const [request, status] of cases) {
      // the front's only connection slot: the next client gets it once this one is closed
      const c = await Deno.connect({ hostname: "127.0.0.1", port });
      await c.write(enc.encode(request));
      const r = await readUntilClosed(c, 8000);
      assert(r.text.startsWith(`HTTP/1.1 ${status} `), r.text);
      assert(r.closed, `the connection answered ${status} is still open after ${r.ms} ms`);
    }
    // the slot is free again
    const h = await fetch(`http://127.0.0.1:${port}/schema/predict.json`);
    assertEquals(h.status, 200);
    await h.body?.cancel();
  } finally {
    await front.close();
    await server.shutdown();
  }
});
