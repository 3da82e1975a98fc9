// `--follow` across a rotation by renaming (the path then names a new file): the old file's last
// line without a newline is read (as at the end of a file read once) before the new file; it was
// dropped.
import { FileFollower, type FileLine } from "../../src/service/file_source.ts";
import { assertEquals, withTempDir } from "./helpers.ts";

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
