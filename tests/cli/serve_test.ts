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
