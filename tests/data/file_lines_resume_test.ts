/**
 * `FileLines` resumes only in the file it read: a gzip (or plain) file replaced or rewritten
 * since its position was saved, or shorter than it, is read from its start, and `log` says why.
 * It used to skip the saved number of bytes of whatever file was there, losing the new file's
 * first lines and cutting one in two.
 */
import { FileLines, type FileLinesLine } from "../../src/data/file_lines.ts";
import { assert, assertEquals, gzip } from "../helpers.ts";

async function readAll(f: FileLines): Promise<FileLinesLine[]> {
  const out: FileLinesLine[] = [];
  for (let l = await f.next(); l !== null; l = await f.next()) out.push(...l);
  f.close();
  return out;
}

const lines = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `{"${prefix}":${i}}`).join("\n") + "\n";

Deno.test("FileLines: a resume checks the file (grown, rewritten, shorter, replaced) before it skips", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_file_lines_resume_" });
  try {
    const path = `${dir}/events.ndjson.gz`;
    await Deno.writeFile(path, await gzip(lines("a", 3)));
    const first = new FileLines(path);
    const got = await readAll(first);
    assertEquals(got.length, 3);
    const saved = { offset: got[2].offset, line: 3, ino: first.ino, tail: first.tail };
    assert(saved.tail !== undefined && saved.ino !== null, "no tail or inode");
    const resume = async (want: string[], why: RegExp | undefined) => {
      const told: string[] = [];
      const r = await readAll(new FileLines(path, saved, { log: (m) => told.push(m) }));
      assertEquals(r.map((l) => l.text), want);
      if (why === undefined) assertEquals(told, []);
      else assert(told.length === 1 && why.test(told[0]), `${told}`);
    };
    // the same file, grown in place: resumes after line 3
    await Deno.writeFile(path, await gzip(lines("a", 6)));
    await resume(['{"a":3}', '{"a":4}', '{"a":5}'], undefined);
    // rewritten in place with other lines: from its start
    await Deno.writeFile(path, await gzip(lines("bb", 8)));
    await resume(lines("bb", 8).trim().split("\n"), /rewritten/);
    // shorter than the saved offset
    await Deno.writeFile(path, await gzip('{"c":0}\n'));
    await resume(['{"c":0}'], /shorter/);
    // replaced by another file (another inode), even with the same bytes before the offset
    await Deno.writeFile(`${path}.new`, await gzip(lines("a", 5)));
    await Deno.rename(`${path}.new`, path);
    await resume(lines("a", 5).trim().split("\n"), /replaced/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
