/**
 * A UTF-8 byte-order mark (U+FEFF) in the service's NDJSON inputs: dropped at the start of a
 * body or of a file only; at the start of any other line it is data and the line is refused,
 * naming it (it was dropped from every line: such lines were accepted).
 */
import { LearningService } from "../../src/service/service.ts";
import { FileFollower } from "../../src/service/file_source.ts";
import {
  assert,
  assertEquals,
  plantedEvents,
  serviceOptions,
  waitUntil,
  withTempDir,
} from "./helpers.ts";

const BOM = "\uFEFF";

Deno.test("POST body: a BOM begins the body (dropped) or a later line (that line is refused)", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.start();
    try {
      const [a, b, c, d] = plantedEvents(4);
      // fast path (index keys in order) and slow path (keys out of order) alike
      const slow = '{"id": "s1", "features": {"3": 1, "1": 1}, "labels": ["t0"]}';
      const r = await s.ingestBody(
        `${BOM}${a}\n${BOM}${b}\n${c}\n${BOM}${slow}\n${BOM}\n${d}\n`,
        "http",
      );
      assertEquals(r.accepted, 3);
      assertEquals(r.rejected.map((x) => x.line), [2, 4, 5]);
      for (const x of r.rejected) assert(/byte-order mark|JSON/.test(x.reason), x.reason);
      assert(/byte-order mark U\+FEFF/.test(r.rejected[0].reason), r.rejected[0].reason);
      // a body that begins with a BOM and one slow-path line
      const r2 = await s.ingestBody(`${BOM}${slow}\n`, "http");
      assertEquals([r2.accepted, r2.rejectedCount], [1, 0]);
    } finally {
      await s.stop();
    }
    // the log replays what was accepted, no more
    const again = await LearningService.open(serviceOptions(dir));
    assertEquals(again.learner.applied, 4);
    await again.stop();
  });
});

Deno.test("FileFollower: a BOM is dropped at the start of the file only", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    await Deno.writeTextFile(path, `${BOM}{"a":1}\n${BOM}{"b":2}\n{"c":3}\n`);
    const f = new FileFollower(path);
    const lines = await f.next();
    f.close();
    assertEquals(lines?.map((l) => l.text), ['{"a":1}', `${BOM}{"b":2}`, '{"c":3}']);
  });
});

Deno.test("service --data file: a line after the first beginning with a BOM is rejected, not learnt", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/events.ndjson`;
    const ev = plantedEvents(5);
    await Deno.writeTextFile(
      file,
      `${BOM}${ev[0]}\n${ev[1]}\n${BOM}${ev[2]}\n${BOM}\n${ev[3]}\n${ev[4]}\n`,
    );
    const s = await LearningService.open(serviceOptions(`${dir}/state`, { file }));
    await s.start();
    await waitUntil(() => s.learner.position.file?.line === 6, "the file's 6 lines");
    await s.stop();
    assertEquals([s.learner.applied, s.learner.rejected], [4, 2]);
    assertEquals(s.learner.lastRejects.map((r) => r.line), [3, 4]);
  });
});
