/**
 * `FileLines.tail` (the fingerprint saved with a position) is the last bytes before the offset of
 * the last line returned: at most 64, none of a too-long line (whose bytes are not kept) or
 * before it, none at all after a last line without newline. Checked after every `next()` on
 * seeded files whose lines (empty, short, 63 to 65 bytes, long, `\r\n`, too long) cross the
 * chunks of plain and gzip reads, also when resuming from a saved position and its tail.
 */
import { FileLines } from "../../src/data/file_lines.ts";
import { toHex } from "../../src/data/fingerprint.ts";
import { MAX_LINE, seededFile } from "./seeded_lines.ts";
import { assert, assertEquals, gzip } from "../helpers.ts";

/**
 * Reads `path` from `start`, checking the tail after every `next()` against `data`: the last 64
 * bytes before the offset, from after the last too-long line on; returns the positions seen.
 */
async function readChecking(
  path: string,
  data: Uint8Array,
  start: { offset: number; line: number; tail?: string },
  base: number,
): Promise<{ offset: number; line: number; tail?: string }[]> {
  const f = new FileLines(path, start, { maxLineBytes: MAX_LINE });
  const seen: { offset: number; line: number; tail?: string }[] = [];
  let noNewline = false;
  try {
    for (let lines = await f.next(); lines !== null; lines = await f.next()) {
      for (const l of lines) {
        if (l.error !== undefined && l.error.startsWith("line is longer")) base = l.offset;
        noNewline = data[l.offset - 1] !== 10;
      }
      if (lines.length === 0) continue;
      const want = noNewline
        ? undefined
        : toHex(data.subarray(Math.max(base, f.offset - 64), f.offset));
      assertEquals(f.tail, want, `tail at offset ${f.offset} (line ${f.line})`);
      seen.push({ offset: f.offset, line: f.line, tail: f.tail });
    }
  } finally {
    f.close();
  }
  assertEquals(f.offset, data.length, "read to the end");
  return seen;
}

Deno.test("FileLines: the tail is the last 64 bytes before the offset after every read (plain, gzip, resumed)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_file_lines_tail_" });
  try {
    for (const [seed, lastNewline] of [[1, true], [2, false], [3, true]] as const) {
      const data = seededFile(seed, 8000, lastNewline);
      assert(data.length > 400_000, `several chunks: ${data.length} bytes`);
      for (const gz of [false, true]) {
        const path = `${dir}/f${seed}${gz ? ".gz" : ""}`;
        await Deno.writeFile(path, gz ? await gzip(data) : data);
        const seen = await readChecking(path, data, { offset: 0, line: 0 }, 0);
        assert(seen.length > 3, `reads: ${seen.length}`);
        // resume from a saved position in the middle (with its tail): the same tails from there
        const mid = seen[Math.floor(seen.length / 2)];
        assert(mid.tail !== undefined, "a saved tail");
        const told: string[] = [];
        const resumed = new FileLines(path, mid, { log: (m) => told.push(m) });
        await resumed.next();
        resumed.close();
        assertEquals(told, [], "the saved tail matches the file");
        await readChecking(path, data, mid, afterTooLong(data, mid.offset));
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The offset after the last too-long line that ends before `offset` (0 when none). */
function afterTooLong(data: Uint8Array, offset: number): number {
  let s = 0, base = 0;
  for (let e = data.indexOf(10); e >= 0 && e < offset; e = data.indexOf(10, e + 1)) {
    if (e - s > MAX_LINE) base = e + 1;
    s = e + 1;
  }
  return base;
}

Deno.test("FileLines: the tail of a line completed in the splitter's carry survives a long partial line after it", async () => {
  // A line that ends just past a 64 KiB read, followed by a partial line that fills the rest
  // of that read: the splitter writes the partial line over its carry buffer, which held the
  // completed line's bytes (the tail read 'y's for 'x's, so a resume took the file for rewritten).
  const path = await Deno.makeTempFile({ prefix: "tagstream_file_lines_carry_" });
  try {
    for (let len = 65_530; len <= 65_570; len += 4) {
      const data = new Uint8Array(len + 1 + 200_000 + 1);
      for (let i = 0; i < len; i++) data[i] = 97 + (i % 26);
      data[len] = 10;
      data.fill(121, len + 1, data.length - 1);
      data[data.length - 1] = 10;
      await Deno.writeFile(path, data);
      const f = new FileLines(path, { offset: 0, line: 0 }, { maxLineBytes: 1 << 20 });
      try {
        for (let lines = await f.next(); lines !== null; lines = await f.next()) {
          if (lines.length === 0) continue;
          const want = toHex(data.subarray(Math.max(0, f.offset - 64), f.offset));
          assertEquals(f.tail, want, `line of ${len} bytes: tail at offset ${f.offset}`);
        }
      } finally {
        f.close();
      }
    }
  } finally {
    await Deno.remove(path);
  }
});
