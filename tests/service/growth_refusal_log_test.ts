// Events refused by a growth limit (`--max-labels` full above all) were silent on the server: a
// client sees them only as per-line rejects of a 200 (`POST /events`), a Redis producer not at
// all, and the server's stderr said nothing, so a 10⁶-label stream lost every event with a new
// label after ~29k events without a word. They are now logged for the HTTP and Redis sources (the
// first ones with their reason and what to do, then a count per interval, a total at stop),
// counted in `/metrics` → `growth`, and a full vocabulary is a warning of `GET /health` (200).
import { GrowthRefusalLog } from "../../src/service/growth_refusal_log.ts";
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import { RedisClient } from "../../src/service/redis_client.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";
import { assert, assertEquals, serviceOptions, waitUntil, withTempDir } from "./helpers.ts";

/** An event with feature `i % 10` and the label `name`. */
const event = (i: number, name: string) =>
  JSON.stringify({ features: { [String(i % 10)]: 1 }, labels: [name] });

/** 3 events filling `--max-labels 3`, then `n` events each with a new label (all refused). */
function fillThenOverflow(n: number): string[] {
  const fill = [0, 1, 2].map((i) => event(i, `t${i}`));
  return [...fill, ...Array.from({ length: n }, (_, i) => event(i, `new${i}`))];
}

const FULL = "the label vocabulary is full: --max-labels 3 names";

Deno.test("HTTP: growth refusals are logged (first ones, then a total at stop), counted in /metrics, a warning of /health", async () => {
  await withTempDir(async (dir) => {
    const log: string[] = [];
    const s = await LearningService.open(
      serviceOptions(dir, { growth: { maxLabels: 3 }, log: (m) => log.push(m) }),
    );
    await s.start();
    const app = createApp({ service: s });
    const post = (lines: string[]) =>
      app.request("/events", {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: lines.join("\n") + "\n",
      });
    const r = await post(fillThenOverflow(8));
    assertEquals(r.status, 200);
    const j = await r.json();
    assertEquals([j.accepted, j.rejectedCount], [3, 8], JSON.stringify(j));
    // a bad line is not a growth refusal: not logged
    assertEquals((await post(["{not json"])).status, 400);
    const refused = log.filter((m) => m.includes(": event refused: "));
    assertEquals(refused.length, 3, log.join("\n"));
    assert(refused[0].startsWith(`http: event refused: ${FULL} (raise --max-labels`), refused[0]);
    assert(refused[2].includes("further refusals by --max-labels are counted"), refused[2]);
    const m = await s.metrics() as { growth: Record<string, unknown> };
    assertEquals(m.growth.maxLabels, 3);
    assertEquals(m.growth.labels, 3);
    assertEquals((m.growth.refused as Record<string, number>).maxLabels, 8);
    const warnings = m.growth.warnings as string[];
    assertEquals(warnings.length, 1, JSON.stringify(m.growth));
    assert(warnings[0].includes("--max-labels 3"), warnings[0]);
    const health = await app.request("/health");
    assertEquals(health.status, 200);
    const h = await health.json();
    assertEquals([h.status, h.warnings], ["ok", warnings]);
    await s.stop();
    const end = log.slice(-3).join("\n");
    assert(end.includes("5 more events refused by --max-labels (http 5): the last: " + FULL), end);
    assert(
      end.includes("events refused by growth limits since start: --max-labels 8 (http 8)"),
      end,
    );
  });
});

Deno.test("HTTP: no growth limit refused anything: /health has no warnings, nothing is logged at stop", async () => {
  await withTempDir(async (dir) => {
    const log: string[] = [];
    const s = await LearningService.open(
      serviceOptions(dir, { growth: { maxLabels: 5 }, log: (m) => log.push(m) }),
    );
    const app = createApp({ service: s });
    await s.ingestBody(fillThenOverflow(0).join("\n"), "http");
    const h = await (await app.request("/health")).json();
    assertEquals(h, { status: "ok" });
    await s.stop();
    assertEquals(log.filter((m) => m.includes("refused")), []);
  });
});

Deno.test({
  name: "Redis source: growth refusals are logged with the entry id, and totalled at stop",
  async fn() {
    const server = await startRedisServer();
    const c = await RedisClient.connect(server.url);
    try {
      await withTempDir(async (dir) => {
        const lines = fillThenOverflow(4);
        const ids: string[] = [];
        for (const l of lines) ids.push(await c.xadd("ev", { event: l }));
        const log: string[] = [];
        const s = await LearningService.open(serviceOptions(dir, {
          growth: { maxLabels: 3 },
          redis: { url: server.url, key: "ev", blockMs: 20 },
          log: (m) => log.push(m),
        }));
        await s.start();
        const l = s.learner;
        await waitUntil(() => l.applied + l.rejected === lines.length, "every entry");
        await s.stop();
        const refused = log.filter((m) => m.includes(": event refused: "));
        assertEquals(refused.length, 3, log.join("\n"));
        assert(
          refused[0].startsWith(`redis ev entry ${ids[3]}: event refused: ${FULL}`),
          refused[0],
        );
        assert(
          log.some((m) => m === `1 more event refused by --max-labels (redis ev 1): ${FULL}`),
          log.join("\n"),
        );
        assert(
          log.includes("events refused by growth limits since start: --max-labels 4 (redis ev 4)"),
          log.join("\n"),
        );
      });
    } finally {
      c.close();
      await server.stop();
    }
  },
});

Deno.test("GrowthRefusalLog: the first of each flag one by one, then a count per interval and source, totals at the end", () => {
  let t = 0;
  const log: string[] = [];
  const r = new GrowthRefusalLog((m) => log.push(m), { first: 2, everyMs: 10_000, now: () => t });
  const growth = "feature index 9 would widen the feature space from 0 to 10 columns: " +
    "more than --max-feature-growth 4 in one event";
  assertEquals(r.refused("http", "invalid JSON"), false);
  assertEquals(r.refused("http", FULL), true);
  r.refused("redis k", FULL, "entry 1-0");
  r.refused("http", growth);
  r.refused("http", FULL);
  r.refused("redis k", FULL);
  r.refused("big.ndjson", FULL, undefined, false); // counted, not logged
  assertEquals(log.length, 3, log.join("\n"));
  assert(log[1].startsWith(`redis k entry 1-0: event refused: ${FULL} (raise --max-labels`));
  assert(log[1].endsWith("one report every 10 s)"), log[1]);
  assert(log[2].startsWith(`http: event refused: ${growth} (raise --max-feature-growth`));
  t = 9_999;
  r.tick();
  assertEquals(log.length, 3);
  t = 10_000;
  r.tick();
  assertEquals(
    log[3],
    `2 more events refused by --max-labels (http 1, redis k 1): the last: ${FULL}`,
  );
  assertEquals(r.counts, {
    "--max-features": 0,
    "--max-labels": 5,
    "--max-feature-growth": 1,
    "--max-new-labels": 0,
  });
  r.end();
  assertEquals(log.slice(4), [
    "events refused by growth limits since start: --max-labels 5 (http 2, redis k 2, " +
    "big.ndjson 1); --max-feature-growth 1 (http 1)",
  ]);
});
