/**
 * `tagstream serve` on SIGTERM with a client that sent a request head and half its body, then
 * stalled: the process stops (status 0) without waiting for the body timeout (120 s here), the
 * client gets the stop's 503 (nothing of its body applied) and then its connection is closed,
 * and a restart finds every acknowledged event. Before, Deno's shutdown waited for that
 * connection for ever (the platform's SIGKILL ended it: the guard below, status 137), and the
 * client got a 400 (its body dropped by the shutdown).
 *
 * The client sends `Expect: 100-continue` and its half body only once the server answers
 * `100 Continue`, which it does when the handler starts reading the body: the SIGTERM then
 * surely finds the request in flight. Both layouts: the learner thread behind the TCP front
 * (the default) and `--same-thread --no-front`.
 */
import { getJson, startService } from "../../bench/service/harness.ts";
import { readUntilClosed } from "../service/helpers.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const line = (i: number) =>
  JSON.stringify({ id: `e${i}`, features: { [String(i % 6)]: 1 }, labels: [`t${i % 3}`] });

/** Reads `conn` until `text` has arrived (or the peer closes it); what arrived. */
async function readUntil(conn: Deno.Conn, text: string): Promise<string> {
  const dec = new TextDecoder();
  const buf = new Uint8Array(4096);
  let got = "";
  while (!got.includes(text)) {
    const n = await conn.read(buf);
    if (n === null) break;
    got += dec.decode(buf.subarray(0, n));
  }
  return got;
}

for (const layout of [[], ["--same-thread", "--no-front"]]) {
  const name = layout.join(" ") || "(learner thread, TCP front)";
  Deno.test(`serve ${name}: SIGTERM cuts a stalled body (503) and exits 0; acknowledged events stay`, async () => {
    await withTempDir(async (dir) => {
      const args = ["--model", "popularity", "--body-timeout", "120", ...layout];
      const svc = await startService({ stateDir: dir, args });
      let code: number;
      let answer: { closed: boolean; text: string };
      try {
        const acked = await fetch(`${svc.url}/events`, {
          method: "POST",
          body: [0, 1, 2, 3].map(line).join("\n"),
        });
        assertEquals([acked.status, (await acked.json()).accepted], [200, 4]);
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: svc.port });
        const body = new TextEncoder().encode(`${line(10)}\n${line(11)}\n`);
        await conn.write(new TextEncoder().encode(
          `POST /events HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\n` +
            `expect: 100-continue\r\n\r\n`,
        ));
        const cont = await readUntil(conn, "\r\n\r\n");
        assert(cont.startsWith("HTTP/1.1 100 Continue"), cont);
        await conn.write(body.subarray(0, body.length >> 1));
        const stopped = svc.stop(20_000); // SIGTERM; SIGKILL after 20 s (a hang guard)
        answer = await readUntilClosed(conn, 30_000);
        code = await stopped;
      } finally {
        await svc.stop();
      }
      assertEquals(code, 0, svc.stderr());
      assert(answer.closed, `the connection stayed open: ${answer.text}`);
      assert(answer.text.startsWith("HTTP/1.1 503 "), answer.text);
      assert(/\r\nretry-after: 2\r\n/i.test(answer.text), answer.text);
      assert(
        answer.text.endsWith(
          '{"error":"the service is stopping; nothing of this body was applied"}',
        ),
        answer.text,
      );
      assert(svc.stderr().includes("stopped after 4 events applied"), svc.stderr());
      // a restart finds the 4 acknowledged events, and nothing of the cut body
      const again = await startService({ stateDir: dir, args });
      try {
        const m = await getJson(`${again.url}/metrics`);
        assertEquals((m.events as Record<string, number>).applied, 4);
      } finally {
        assertEquals(await again.stop(), 0);
      }
    });
  });
}
