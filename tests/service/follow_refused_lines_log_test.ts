// A followed file's refused lines (`train --follow`, `serve --follow`) are told on the log, naming
// the file, the line number and the reason: they used to be visible only as a count in /metrics
// (and `train --follow` has no /metrics), so a user tailing a file with a bad producer saw
// nothing. A burst is not logged line by line: the first ones, then a count per interval, then a
// total when the file loop ends. The good lines around them are learnt as before.
import { RefusedLineLog } from "../../src/service/file_source.ts";
import { LearningService } from "../../src/service/service.ts";
import {
  assert,
  assertEquals,
  plantedEvents,
  serviceOptions,
  waitUntil,
  withTempDir,
} from "./helpers.ts";

Deno.test("service --follow: each refused line is logged with the file, its line number and reason, then a total", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/events.ndjson`;
    const good = plantedEvents(6);
    const lines = [good[0], "{not json", good[1], good[2], '{"features": {"1": 1}}', good[3]];
    const bytes = new TextEncoder().encode(lines.join("\n") + "\n");
    const notUtf8 = Uint8Array.of(
      ...new TextEncoder().encode('{"labels": ["'),
      0xff,
      0x22,
      0x5d,
      0x7d,
      10,
    );
    const tail = new TextEncoder().encode([good[4], good[5]].join("\n") + "\n");
    await Deno.writeFile(file, new Uint8Array([...bytes, ...notUtf8, ...tail]));
    const log: string[] = [];
    const s = await LearningService.open(
      serviceOptions(`${dir}/state`, { file, followFile: true, log: (m) => log.push(m) }),
    );
    await s.start();
    try {
      await waitUntil(() => s.learner.position.file?.line === 9, "the file's 9 lines read");
    } finally {
      await s.stop();
    }
    assertEquals([s.learner.applied, s.learner.rejected], [6, 3]);
    const refused = log.filter((m) => m.startsWith(`${file}: `));
    assertEquals(refused.length, 4, log.join("\n"));
    assert(refused[0].startsWith(`${file}: line 2 refused: `), refused[0]);
    assert(refused[1].startsWith(`${file}: line 5 refused: `), refused[1]);
    assert(/label/i.test(refused[1]), refused[1]);
    assertEquals(refused[2], `${file}: line 7 refused: line is not valid UTF-8`);
    assertEquals(refused[3], `${file}: 3 lines refused in all (lines 2..7), reported above`);
  });
});

Deno.test("RefusedLineLog: the first lines one by one, then a count per interval, and what is held back at the end", () => {
  let t = 0;
  const log: string[] = [];
  const r = new RefusedLineLog("e.ndjson", (m) => log.push(m), {
    first: 3,
    everyMs: 10_000,
    now: () => t,
  });
  for (let i = 1; i <= 20; i++) r.refused(i, `bad ${i}`);
  assertEquals(log, [
    "e.ndjson: line 1 refused: bad 1",
    "e.ndjson: line 2 refused: bad 2",
    "e.ndjson: line 3 refused: bad 3 (further refused lines are counted: one report every 10 s)",
  ]);
  t = 9_999;
  r.tick();
  assertEquals(log.length, 3);
  t = 10_000;
  r.tick();
  assertEquals(log[3], "e.ndjson: 17 more lines refused (lines 4..20): the last, line 20: bad 20");
  // a refused line long after the last report is told at once
  t = 60_000;
  r.refused(40, "bad 40");
  assertEquals(log[4], "e.ndjson: 1 more line refused (line 40): line 40: bad 40");
  t = 61_000;
  r.refused(41, "bad 41");
  r.refused(42, "bad 42");
  assertEquals(log.length, 5);
  r.end();
  assertEquals(log.slice(5), [
    "e.ndjson: 2 more lines refused (lines 41..42): the last, line 42: bad 42",
    "e.ndjson: 23 lines refused in all (lines 1..42), reported above",
  ]);
  assertEquals(r.total, 23);
});
