// `--follow` across a rotation by renaming (the path then names a new file): the old file's last
// line without a newline is read (as at the end of a file read once) before the new file; it was
// dropped.
import { FileFollower, type FileLine } from "../../src/service/file_source.ts";
import { LearningService } from "../../src/service/service.ts";
import { assertEquals, plantedEvents, serviceOptions, waitUntil, withTempDir } from "./helpers.ts";

async function drain(f: FileFollower, tries: number): Promise<FileLine[]> {
  const out: FileLine[] = [];
  for (let i = 0; i < tries; i++) out.push(...(await f.next()) ?? []);
  return out;
}

Deno.test("FileFollower: a replaced file's last line without a newline is read before the new file", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    await Deno.writeTextFile(path, '{"a":1}\n{"b":2}');
    const f = new FileFollower(path, undefined, { follow: true, pollMs: 5 });
    try {
      // in follow mode a line is complete at its newline: "b" waits
      assertEquals((await drain(f, 3)).map((l) => l.text), ['{"a":1}']);
      await Deno.rename(path, `${path}.1`); // rotated away, then a new file at the path
      await Deno.writeTextFile(path, '{"c":3}\n');
      const lines = await drain(f, 4);
      assertEquals(lines.map((l) => l.text), ['{"b":2}', '{"c":3}']);
      assertEquals(lines.map((l) => l.line), [2, 1]);
    } finally {
      f.close();
    }
  });
});

Deno.test("FileFollower: a saved position whose file was replaced meanwhile reads the new file from its start", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n');
    const first = new FileFollower(path);
    const read = await first.next();
    const saved = { offset: first.offset, line: first.line, ino: first.ino };
    first.close();
    assertEquals(read?.length, 2);
    // the same file: resumes at the offset
    await Deno.writeTextFile(path, '{"c":3}\n', { append: true });
    const same = new FileFollower(path, saved);
    assertEquals((await same.next())?.map((l) => l.text), ['{"c":3}']);
    same.close();
    // replaced by a longer file while nobody read it: from its start, not from the old offset
    await Deno.rename(path, `${path}.1`);
    await Deno.writeTextFile(path, '{"x":1}\n{"y":2}\n{"z":3}\n');
    const logs: string[] = [];
    const next = new FileFollower(path, saved, { log: (m) => logs.push(m) });
    const lines = (await next.next()) ?? [];
    next.close();
    assertEquals(lines.map((l) => l.text), ['{"x":1}', '{"y":2}', '{"z":3}']);
    assertEquals(lines.map((l) => l.line), [1, 2, 3]);
    assertEquals(logs.length, 1);
    // a position without an inode (older checkpoints) resumes at its offset, as before
    const old = new FileFollower(path, { offset: saved.offset, line: saved.line });
    assertEquals((await old.next())?.map((l) => l.text), ['{"z":3}']);
    old.close();
  });
});

Deno.test("service --follow: a file replaced while the service was down is learnt from its start after the restart", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/events.ndjson`;
    await Deno.writeTextFile(file, plantedEvents(10).join("\n") + "\n");
    const o = serviceOptions(`${dir}/state`, { file, followFile: true });
    const a = await LearningService.open(o);
    await a.start();
    await waitUntil(() => a.learner.applied === 10, "10 events from the file");
    await a.stop();
    await Deno.rename(file, `${file}.1`);
    await Deno.writeTextFile(file, plantedEvents(14, 10).join("\n") + "\n");
    const b = await LearningService.open(o);
    await b.start();
    await waitUntil(() => b.learner.applied + b.learner.rejected >= 24, "the new file's 14 lines");
    await b.stop();
    assertEquals([b.learner.applied, b.learner.rejected, b.learner.position.file?.line], [
      24,
      0,
      14,
    ]);
  });
});
