/**
 * `tagstream serve` as a process, on both thread layouts: the default learner thread and
 * `--same-thread`. (The crash, bad-input and load checks in tests/service/service_checks_test.ts
 * run the default.)
 */
import { getJson, startService } from "../../bench/service/harness.ts";
import { assert, assertEquals, withTempDir } from "../helpers.ts";

const EVENTS = Array.from(
  { length: 30 },
  (_, i) =>
    JSON.stringify({ id: `e${i}`, features: { [String(i % 6)]: 1 }, labels: [`t${i % 3}`] }),
).join("\n");

for (const layout of [[], ["--same-thread"]]) {
  Deno.test(`serve ${layout.join(" ") || "(learner thread)"}: events, checkpoint, prediction, SIGTERM`, async () => {
    await withTempDir(async (dir) => {
      const args = ["--batch-size", "5", "--option", "rank=4", ...layout];
      const svc = await startService({ stateDir: dir, args });
      let code: number;
      try {
        const ev = await fetch(`${svc.url}/events`, { method: "POST", body: EVENTS + "\n{bad" });
        const answer = await ev.json();
        assertEquals([ev.status, answer.accepted, answer.eventsApplied], [200, 30, 30]);
        assertEquals(answer.rejected[0].line, 31);
        const ck = await fetch(`${svc.url}/checkpoint`, { method: "POST" });
        assertEquals((await ck.json()).eventsApplied, 30);
        const p = await fetch(`${svc.url}/predict`, {
          method: "POST",
          body: JSON.stringify({ features: { "1": 1 }, k: 3 }),
        });
        const pj = await p.json();
        assertEquals([p.status, pj.labels.length], [200, 3]);
        const m = await getJson(`${svc.url}/metrics`);
        assertEquals((m.events as Record<string, number>).applied, 30);
        assertEquals("learnerThread" in m, layout.length === 0);
      } finally {
        code = await svc.stop();
      }
      assertEquals(code, 0);
      assert(svc.stderr().includes("stopped after 30 events applied"), svc.stderr());
    });
  });
}

Deno.test("serve: /predict limits from flags; the TCP front's counters in /metrics", async () => {
  await withTempDir(async (dir) => {
    const args = [
      "--same-thread",
      ...["--max-k", "3", "--max-predict-rows", "2", "--max-predict-bytes", "200"],
      ...["--header-timeout", "1"],
    ];
    // No keep-alive: a pooled connection left idle past the header timeout (a loaded machine
    // between two requests) is closed by the front and counted with the header timeouts, which
    // made the count 2. Each request here gets a connection of its own, closed after it.
    const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
    const svc = await startService({ stateDir: dir, args });
    try {
      await (await fetch(`${svc.url}/events`, { method: "POST", body: EVENTS, client })).body
        ?.cancel();
      const predict = async (body: unknown) => {
        const r = await fetch(`${svc.url}/predict`, {
          method: "POST",
          body: JSON.stringify(body),
          client,
        });
        return [r.status, await r.text()] as const;
      };
      assertEquals((await predict({ features: { "1": 1 }, k: 3 }))[0], 200);
      const [kStatus, kText] = await predict({ features: { "1": 1 }, k: 4 });
      assert(kStatus === 400 && kText.includes("3"), `k 4 over --max-k 3: ${kStatus} ${kText}`);
      const row = { features: { "1": 1 } };
      const [rowsStatus, rowsText] = await predict({ rows: [row, row, row], k: 1 });
      assert(rowsStatus === 400 && rowsText.includes("2"), `3 rows: ${rowsStatus} ${rowsText}`);
      const [big] = await predict({ features: { [`f${"x".repeat(300)}`]: 1 } });
      assertEquals(big, 413);
      // a request head that never ends: the front answers 408 and counts it
      const port = Number(new URL(svc.url).port);
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(new TextEncoder().encode("GET /health HTTP/1.1\r\nHost: x\r\n"));
      const buf = new Uint8Array(256), n = await conn.read(buf);
      conn.close();
      const head = new TextDecoder().decode(buf.subarray(0, n ?? 0));
      assert(head.startsWith("HTTP/1.1 408"), `partial head answered: ${head}`);
      const m = await (await fetch(`${svc.url}/metrics`, { client })).json();
      const front = m.front as Record<string, number>;
      assert(front !== undefined, `no front in /metrics: ${JSON.stringify(m)}`);
      assertEquals(front.headerTimeouts, 1);
      assert(front.accepted >= 2 && front.refused === 0 && front.open >= 1, JSON.stringify(front));
      const text = await (await fetch(`${svc.url}/metrics?format=prometheus`, { client })).text();
      assert(text.includes("tagstream_front_header_timeouts 1"), "front counters in Prometheus");
    } finally {
      client.close();
      assertEquals(await svc.stop(), 0);
    }
  });
});
