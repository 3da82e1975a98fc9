/**
 * `--follow` across a copy-truncate rotation (`logrotate copytruncate`): the file keeps its inode
 * and is truncated, then written again past the position read before the next look, so neither
 * the inode nor the size tells. The last bytes before the position do: the file is read again
 * from its start (it went on at the old offset inside the new content: lines lost or garbled).
 */
import { FileFollower, type FileLine } from "../../src/service/file_source.ts";
import { LearningService } from "../../src/service/service.ts";
import {
  assert,
  assertEquals,
  plantedEvents,
  serviceOptions,
  waitUntil,
  withTempDir,
} from "./helpers.ts";

async function drain(f: FileFollower, tries: number): Promise<FileLine[]> {
  const out: FileLine[] = [];
  for (let i = 0; i < tries; i++) out.push(...(await f.next()) ?? []);
  return out;
}

/** Truncates `path` in place (same inode) and writes `text` into it. */
async function copyTruncate(path: string, text: string): Promise<void> {
  const f = await Deno.open(path, { write: true });
  try {
    await f.truncate(0);
    await f.write(new TextEncoder().encode(text));
  } finally {
    f.close();
  }
}

Deno.test("FileFollower: a file truncated and written again past the position between two looks is read from its start", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n');
    const logs: string[] = [];
    const f = new FileFollower(path, undefined, {
      follow: true,
      pollMs: 5,
      log: (m) => logs.push(m),
    });
    try {
      assertEquals((await drain(f, 3)).map((l) => l.text), ['{"a":1}', '{"b":2}']);
      const ino = f.ino;
      await copyTruncate(path, '{"cc":3}\n{"dd":4}\n{"ee":5}\n');
      assertEquals((await Deno.stat(path)).ino, ino);
      const lines = await drain(f, 4);
      assertEquals(lines.map((l) => l.text), ['{"cc":3}', '{"dd":4}', '{"ee":5}']);
      assertEquals(lines.map((l) => l.line), [1, 2, 3]);
      assertEquals(logs.length, 1, logs.join("; "));
      assert(/truncated/.test(logs[0]), logs[0]);
      // appended lines after that are read once, as before
      await Deno.writeTextFile(path, '{"f":6}\n', { append: true });
      assertEquals((await drain(f, 3)).map((l) => l.text), ['{"f":6}']);
      assertEquals(logs.length, 1, logs.join("; "));
    } finally {
      f.close();
    }
  });
});

Deno.test("FileFollower: a saved position whose file was truncated and written again meanwhile reads it from its start", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n');
    const first = new FileFollower(path);
    assertEquals((await first.next())?.length, 2);
    const saved = { offset: first.offset, line: first.line, ino: first.ino, tail: first.tail };
    first.close();
    assert(saved.tail !== undefined);
    // the same file grown: resumes at the offset
    await Deno.writeTextFile(path, '{"c":3}\n', { append: true });
    const same = new FileFollower(path, saved);
    assertEquals((await same.next())?.map((l) => l.text), ['{"c":3}']);
    same.close();
    // truncated and written again (same inode) past the offset while nobody read it
    await copyTruncate(path, '{"xx":1}\n{"yy":2}\n{"zz":3}\n');
    const logs: string[] = [];
    const next = new FileFollower(path, saved, { log: (m) => logs.push(m) });
    const lines = (await next.next()) ?? [];
    next.close();
    assertEquals(lines.map((l) => l.text), ['{"xx":1}', '{"yy":2}', '{"zz":3}']);
    assertEquals(logs.length, 1);
  });
});

Deno.test("service --follow: a file truncated and written again while the service was down is learnt from its start", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/events.ndjson`;
    await Deno.writeTextFile(file, plantedEvents(10).join("\n") + "\n");
    const o = serviceOptions(`${dir}/state`, { file, followFile: true });
    const a = await LearningService.open(o);
    await a.start();
    await waitUntil(() => a.learner.applied === 10, "10 events from the file");
    await a.stop();
    // longer lines than before: the old offset falls inside a line of the new content
    const again = plantedEvents(14, 10).map((l) => l.replace("{", '{"pad": "xxxx", '));
    await copyTruncate(file, again.join("\n") + "\n");
    const b = await LearningService.open(o);
    await b.start();
    await waitUntil(() => b.learner.position.file?.line === 14, "the new content's 14 lines");
    await b.stop();
    assertEquals([b.learner.applied, b.learner.rejected], [24, 0]);
  });
});
