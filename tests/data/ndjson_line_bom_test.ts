/**
 * A UTF-8 byte-order mark (U+FEFF) means something only as the first character of an NDJSON
 * input: there it is dropped; at the start of any other line it is data, and the line is a
 * syntax error naming it (it was dropped from the start of every line, so such lines passed).
 */
import { NdjsonParser } from "../../src/data/ndjson.ts";
import { FileLines } from "../../src/data/file_lines.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const BOM = "\uFEFF";
const line = (i: number) => `{"id": "e${i}", "features": {"${i}": 1}, "labels": ["a"]}`;

Deno.test("NdjsonParser.parse: a line beginning with a BOM is a SyntaxError naming it", () => {
  const p = new NdjsonParser();
  let err: unknown;
  try {
    p.parse(BOM + line(1));
  } catch (e) {
    err = e;
  }
  assert(err instanceof SyntaxError, String(err));
  assert(/byte-order mark U\+FEFF/.test((err as Error).message), (err as Error).message);
  assertEquals(p.labels.size, 0); // nothing was added
  // the fast path leaves such a line to parse (which refuses it)
  const b = new TextEncoder().encode(BOM + line(1));
  assertEquals(p.parseAscii(b, 0, b.length), undefined);
});

async function linesOf(path: string) {
  const f = new FileLines(path);
  const out = [];
  try {
    for (let l = await f.next(); l !== null; l = await f.next()) out.push(...l);
  } finally {
    f.close();
  }
  return out;
}

Deno.test("FileLines: a BOM is dropped at the start of the file only (plain and gzip)", async () => {
  await withTempDir(async (dir) => {
    const text = `${BOM}${line(1)}\n${BOM}${line(2)}\n${line(3)}\n`;
    const plain = `${dir}/e.ndjson`, gz = `${dir}/e.ndjson.gz`;
    await Deno.writeTextFile(plain, text);
    await Deno.writeFile(
      gz,
      new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
    );
    for (const path of [plain, gz]) {
      const got = await linesOf(path);
      assertEquals(got.map((l) => l.text), [line(1), BOM + line(2), line(3)], path);
      // offsets count the BOM's bytes
      assertEquals(got.map((l) => l.offset), [
        3 + line(1).length + 1,
        3 + line(1).length + 1 + 3 + line(2).length + 1,
        new TextEncoder().encode(text).length,
      ]);
    }
    // resumed after line 1: line 2 does not begin the file, its BOM stays
    const f = new FileLines(plain, { offset: 3 + line(1).length + 1, line: 1 });
    const next = await f.next();
    f.close();
    assertEquals(next?.[0].text, BOM + line(2));
  });
});
