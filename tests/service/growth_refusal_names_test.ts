// A refused event changes nothing: an event refused by a growth limit checked on the parse's
// result (index keys: `--max-features`, `--max-feature-growth`) used to keep the label names its
// parse had added, so repeated bad events filled `--max-labels` and later good events were
// refused. Checked for the fast and the full parser, and on the HTTP, file and Redis paths,
// with the other refusals (labels full, too many new labels, a malformed field after the names,
// labels ∩ negatives) alongside.
import { EventParser, type LineResult } from "../../src/service/events.ts";
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import { RedisClient } from "../../src/service/redis_client.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";
import { waitFor } from "../../bench/service/harness.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

const GROWTH = { maxFeatures: 5000, maxLabels: 8, maxFeatureGrowth: 1000, maxNewLabels: 3 };

/**
 * Lines refused after the 4 planted labels (`t0`..`t3`), each with new label names, and the
 * flag (or field) its reason names. `"ts"` or keys out of order send a line to the full parser.
 */
function badLines(round: number): [string, string][] {
  const n = (s: string) => `${s}${round}`;
  return [
    [`{"features":{"1048575":1},"labels":["${n("far")}"]}`, "--max-features 5000"],
    [
      `{"features":{"4999":1},"labels":["${n("wide")}"],"negatives":["${n("neg")}"]}`,
      "--max-feature-growth 1000",
    ],
    [`{"ts":1,"features":{"1048575":1},"labels":["${n("farslow")}"]}`, "--max-features 5000"],
    [`{"features":{"3000":1,"0":1},"labels":["${n("wideslow")}"]}`, "--max-feature-growth 1000"],
    [
      `{"features":{"1":1},"labels":["${n("a")}","${n("b")}","${n("c")}","${n("d")}"]}`,
      "--max-new-labels 3",
    ],
    [`{"labels":["${n("m")}"],"features":{"1":1},"negatives":[1.5]}`, "negatives[0]"],
    [
      `{"features":{"1":1},"labels":["${n("x")}"],"negatives":["${n("x")}"]}`,
      "both in 'labels' and in 'negatives'",
    ],
  ];
}

/** Accepted after the bad lines: 4 new labels, filling `--max-labels 8`. */
const GOOD = [
  '{"features":{"1":1},"labels":["g1","g2","g3"]}',
  '{"ts":2,"features":{"2":1},"labels":["g4"]}',
];
const LABELS = ["t0", "t1", "t2", "t3", "g1", "g2", "g3", "g4"];

/** The service's way through a line: the fast path, else the full parser. */
function viaFastPath(p: EventParser, line: string): LineResult {
  const b = new TextEncoder().encode(line);
  const names = p.labels.names.slice();
  const ev = p.parseAscii(b, 0, b.length);
  if (ev !== undefined) return { ok: true, event: ev };
  assertEquals(p.labels.names, names, `the fast path changed nothing: ${line}`);
  return p.parseLine(line);
}

Deno.test("EventParser: a refused event leaves the vocabularies as they were (fast and full parser)", () => {
  const fast = new EventParser([], ["t0", "t1", "t2", "t3"]);
  const full = new EventParser([], ["t0", "t1", "t2", "t3"]);
  for (const p of [fast, full]) p.setGrowthLimits(GROWTH, 11);
  for (let round = 0; round < 5; round++) {
    for (const [line, names] of badLines(round)) {
      const a = viaFastPath(fast, line), b = full.parseLine(line);
      assert(!a.ok && a.reason.includes(names), `${line}: ${a.ok || a.reason}`);
      assertEquals(a, b, line);
      assertEquals(fast.labels.names, ["t0", "t1", "t2", "t3"], line);
      assertEquals(full.labels.names, ["t0", "t1", "t2", "t3"], line);
      assertEquals(full.features.size, 0, line);
    }
  }
  for (const line of GOOD) {
    const a = viaFastPath(fast, line), b = full.parseLine(line);
    assert(a.ok, `${line}: ${a.ok || a.reason}`);
    assertEquals(a, b, line);
  }
  assertEquals(fast.labels.names, LABELS);
  assertEquals(full.labels.names, LABELS);
  // the refused names are free again: the same name now gets the next index
  const again = full.parseLine('{"features":{"2":1},"labels":["g4","t0"]}');
  assert(again.ok && again.event.labels.join() === "0,7", JSON.stringify(again));
});

Deno.test("EventParser, named features: a refused event adds no feature or label name", () => {
  const p = new EventParser(["f0"], ["t0"], { featureKeys: "name" });
  p.setGrowthLimits({ maxFeatures: 3, maxLabels: 4, maxNewLabels: 2 });
  const refused: [string, string][] = [
    ['{"features":{"f1":1,"f2":1,"f3":1},"labels":["n1"]}', "--max-features 3"],
    ['{"features":{"f1":1},"labels":["n1","n2","n3"]}', "--max-new-labels 2"],
    ['{"features":{"f1":1},"labels":["n1"],"negatives":[null]}', "negatives[0]"],
  ];
  for (const [line, names] of refused) {
    const r = p.parseLine(line);
    assert(!r.ok && r.reason.includes(names), `${line}: ${r.ok || r.reason}`);
    assertEquals([p.features.names, p.labels.names], [["f0"], ["t0"]], line);
  }
  assert(p.parseLine('{"features":{"f1":1,"f2":1},"labels":["n1","n2"]}').ok);
  assertEquals([p.features.names, p.labels.names], [["f0", "f1", "f2"], ["t0", "n1", "n2"]]);
});

Deno.test("HTTP: refused events add no label; later good events still fit --max-labels", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, { growth: GROWTH }));
    const app = createApp({ service: s });
    await s.ingestBody(plantedEvents(4).join("\n"), "http");
    const post = (body: string) =>
      app.request("/events", {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body,
      });
    for (let round = 0; round < 3; round++) {
      for (const [line, names] of badLines(round)) {
        const r = await post(line);
        assertEquals(r.status, 400, line);
        assert((await r.text()).includes(names), `${line}: names ${names}`);
        assertEquals(s.learner.parser.labels.size, 4, line);
      }
    }
    const bad = badLines(9).map(([line]) => line);
    const ok = await post([...bad, ...GOOD].join("\n"));
    assertEquals(ok.status, 200);
    const j = await ok.json();
    assertEquals([j.accepted, j.rejectedCount], [GOOD.length, bad.length], JSON.stringify(j));
    assertEquals(s.learner.parser.labels.names, LABELS);
    await s.stop();
  });
});

Deno.test("file source: refused events add no label; later good events still fit --max-labels", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/events.ndjson`;
    const bad = [0, 1, 2].flatMap((round) => badLines(round).map(([line]) => line));
    await Deno.writeTextFile(file, [...plantedEvents(4), ...bad, ...GOOD].join("\n") + "\n");
    const s = await LearningService.open(
      serviceOptions(`${dir}/state`, { growth: GROWTH, file, followFile: false }),
    );
    await s.start();
    await s.fileDone();
    assertEquals([s.learner.applied, s.learner.rejected], [4 + GOOD.length, bad.length]);
    assertEquals(s.learner.parser.labels.names, LABELS);
    await s.stop();
  });
});

Deno.test({
  name: "Redis source: refused events add no label; later good events still fit --max-labels",
  async fn() {
    const server = await startRedisServer();
    const c = await RedisClient.connect(server.url);
    try {
      await withTempDir(async (dir) => {
        const bad = [0, 1, 2].flatMap((round) => badLines(round).map(([line]) => line));
        const lines = [...plantedEvents(4), ...bad, ...GOOD];
        for (const l of lines) await c.xadd("ev", { event: l });
        const s = await LearningService.open(serviceOptions(dir, {
          growth: GROWTH,
          redis: { url: server.url, key: "ev", blockMs: 20 },
        }));
        await s.start();
        const l = s.learner;
        await waitFor(() => l.applied + l.rejected === lines.length, "every entry");
        assertEquals([l.applied, l.rejected], [4 + GOOD.length, bad.length]);
        assertEquals(l.parser.labels.names, LABELS);
        await s.stop();
      });
    } finally {
      c.close();
      await server.stop();
    }
  },
});
