/**
 * `FileLines.next(maxLines)` hands a decompressed chunk's lines out a few at a time (as
 * `FileFollower.next(maxLines)` does a read's), each call's position (offset, line, tail) that
 * of its last line, also where the 64 bytes of the tail straddle two chunks: a service can stop,
 * or checkpoint, between two calls, and resume there. It used to return a whole chunk's lines
 * (hundreds to thousands) whatever `maxLines`.
 */
import { FileLines, type FileLinesLine } from "../../src/data/file_lines.ts";
import { toHex } from "../../src/data/fingerprint.ts";
import { MAX_LINE, seededFile } from "./seeded_lines.ts";
import { assert, assertEquals, assertThrowsMsg, gzip } from "../helpers.ts";

interface Position {
  offset: number;
  line: number;
  ino: number | null;
  tail?: string;
}

/** Every line of `path` read with `next(maxLines)`, and the position after each call. */
async function readAll(
  path: string,
  maxLines: number,
): Promise<{ lines: FileLinesLine[]; calls: FileLinesLine[][]; positions: Position[] }> {
  const f = new FileLines(path, undefined, { maxLineBytes: MAX_LINE });
  const lines: FileLinesLine[] = [], calls: FileLinesLine[][] = [], positions: Position[] = [];
  try {
    for (let r = await f.next(maxLines); r !== null; r = await f.next(maxLines)) {
      if (r.length === 0) continue;
      assert(r.length <= maxLines, `${r.length} lines from next(${maxLines})`);
      lines.push(...r);
      calls.push(r);
      assertEquals([f.offset, f.line], [r.at(-1)!.offset, r.at(-1)!.line]);
      positions.push({ offset: f.offset, line: f.line, ino: f.ino, tail: f.tail });
    }
  } finally {
    f.close();
  }
  return { lines, calls, positions };
}

/**
 * The tail expected at the end of each line, by offset: the last 64 bytes before it, none
 * before the end of a too-long line, none after a last line without newline.
 */
function expectedTails(data: Uint8Array): Map<number, string | undefined> {
  const tails = new Map<number, string | undefined>();
  let s = 0, base = 0;
  for (let e = data.indexOf(10); e >= 0; e = data.indexOf(10, e + 1)) {
    if (e - s > MAX_LINE) base = e + 1;
    tails.set(e + 1, toHex(data.subarray(Math.max(base, e + 1 - 64), e + 1)));
    s = e + 1;
  }
  if (s < data.length) tails.set(data.length, undefined);
  return tails;
}

Deno.test("FileLines.next(maxLines): at most maxLines lines a call, the position exact after each (plain, gzip)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_file_lines_max_" });
  try {
    const files = [[11, true, false], [12, false, false], [14, true, true]] as const;
    for (const [seed, lastNewline, short] of files) {
      const data = seededFile(seed, short ? 20000 : 6000, lastNewline, short);
      const tails = expectedTails(data);
      for (const gz of [false, true]) {
        const path = `${dir}/f${seed}${gz ? ".gz" : ""}`;
        await Deno.writeFile(path, gz ? await gzip(data) : data);
        const whole = await readAll(path, Infinity);
        assert(whole.calls.length > 2, `several chunks: ${whole.calls.length}`);
        // where the chunks end: a position within 64 bytes after one straddles two chunks
        const chunkEnds = whole.positions.map((p) => p.offset);
        let straddling = 0;
        for (const k of [1, 3, 7]) {
          const got = await readAll(path, k);
          const where = `seed ${seed}${gz ? " gzip" : ""}, next(${k})`;
          assertEquals(got.lines, whole.lines, `${where}: the lines of next()`);
          // exactly k lines, but at a chunk's end (the rest of the chunk ends fewer lines)
          for (let i = 0; i < got.calls.length; i++) {
            const end = got.calls[i].at(-1)!.offset;
            if (got.calls[i].length < k) {
              assert(chunkEnds.includes(end), `${where}: ${got.calls[i].length} lines to ${end}`);
            }
          }
          for (const p of got.positions) {
            assertEquals(p.tail, tails.get(p.offset), `${where}: tail at ${p.offset}`);
            const before = chunkEnds.findLast((e) => e < p.offset);
            if (before !== undefined && p.offset - 64 < before && p.tail !== undefined) {
              straddling++;
            }
          }
        }
        // (lines under 64 bytes: the first line ending after each chunk's start straddles it)
        if (short) assert(straddling > 0, `seed ${seed}${gz ? " gzip" : ""}: no tail straddled`);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileLines.next(3): three lines of a gzip chunk, then the next three", async () => {
  const path = await Deno.makeTempFile({ prefix: "tagstream_file_lines_max_", suffix: ".gz" });
  try {
    const text = Array.from({ length: 10 }, (_, i) => `{"i":${i}}`).join("\n") + "\n";
    const data = new TextEncoder().encode(text);
    await Deno.writeFile(path, await gzip(data));
    const f = new FileLines(path);
    try {
      const a = await f.next(3);
      assertEquals(a!.map((l) => l.text), ['{"i":0}', '{"i":1}', '{"i":2}']);
      assertEquals([f.offset, f.line, f.tail], [24, 3, toHex(data.subarray(0, 24))]);
      const b = await f.next(3);
      assertEquals(b!.map((l) => l.line), [4, 5, 6]);
      assertEquals([f.offset, f.line, f.tail], [48, 6, toHex(data.subarray(0, 48))]);
      const c = await f.next(100);
      assertEquals(c!.map((l) => l.line), [7, 8, 9, 10]);
      assertEquals([f.offset, f.tail], [80, toHex(data.subarray(16, 80))]);
      assertEquals(await f.next(3), null);
    } finally {
      f.close();
    }
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("FileLines: a resume from a position inside a gzip chunk goes on with the next line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_file_lines_max_" });
  try {
    const data = seededFile(13, 6000, true);
    const path = `${dir}/f.gz`;
    await Deno.writeFile(path, await gzip(data));
    const whole = await readAll(path, Infinity);
    const chunkEnds = new Set(whole.positions.map((p) => p.offset));
    const inside = (await readAll(path, 5)).positions.filter((p) =>
      !chunkEnds.has(p.offset) && p.tail !== undefined
    );
    assert(inside.length > 100, `${inside.length} positions inside chunks`);
    for (let i = 0; i < inside.length; i += Math.floor(inside.length / 12)) {
      const p = inside[i];
      const told: string[] = [];
      const f = new FileLines(path, p, { maxLineBytes: MAX_LINE, log: (m) => told.push(m) });
      const rest: FileLinesLine[] = [];
      try {
        for (let r = await f.next(4); r !== null; r = await f.next(4)) rest.push(...r);
      } finally {
        f.close();
      }
      assertEquals(told, [], `resumed at ${p.offset}`);
      assertEquals(rest, whole.lines.slice(p.line), `the lines after line ${p.line}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileLines.next: a maxLines that is not an integer >= 1 is refused", async () => {
  const path = await Deno.makeTempFile({ prefix: "tagstream_file_lines_max_" });
  try {
    await Deno.writeTextFile(path, "a\nb\n");
    const f = new FileLines(path);
    try {
      for (const bad of [0, -1, 1.5, NaN, "3"]) {
        await assertThrowsMsg(
          () => f.next(bad as number),
          RangeError,
          "FileLines.next: maxLines must be an integer >= 1 (or Infinity), got ",
        );
      }
      assertEquals((await f.next(1))!.map((l) => l.text), ["a"]);
    } finally {
      f.close();
    }
  } finally {
    await Deno.remove(path);
  }
});
