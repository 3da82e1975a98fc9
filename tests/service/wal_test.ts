import {
  listSegments,
  readWal,
  replaySegments,
  segmentName,
  tidyWal,
  WalDamageError,
  WriteAheadLog,
} from "../../src/service/wal.ts";
import { setStorageFault } from "../../src/service/storage_faults.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const enc = new TextEncoder(), dec = new TextDecoder();

async function replay(dir: string, from: number): Promise<string[]> {
  const out: string[] = [];
  for await (const l of replaySegments(dir, from)) out.push(`${l.segment}:${dec.decode(l.bytes)}`);
  return out;
}

async function damage(fn: () => Promise<unknown>): Promise<WalDamageError> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof WalDamageError) return e;
    throw e;
  }
  throw new Error("expected a WalDamageError");
}

/** A log of three segments, 0: a b, 1: c d, 2: e f (records 0..5). */
async function threeSegments(dir: string): Promise<void> {
  const wal = await WriteAheadLog.open(dir, 0);
  await wal.append(enc.encode("a\nb\n"));
  wal.rotate();
  await wal.append(enc.encode("c\nd\n"));
  wal.rotate();
  await wal.append(enc.encode("e\nf\n"));
  await wal.close();
}

Deno.test("concurrent appends are group-committed, durable and in order", async () => {
  await withTempDir(async (dir) => {
    const wal = await WriteAheadLog.open(dir, 0);
    const writes = Array.from({ length: 50 }, (_, i) => wal.append(enc.encode(`line${i}\n`)));
    await Promise.all(writes);
    assert(wal.syncs < 50, `${wal.syncs} fdatasyncs for 50 appends`);
    await wal.close();
    const lines = await replay(dir, 0);
    assertEquals(lines, Array.from({ length: 50 }, (_, i) => `0:line${i}`));
    const r = await readWal(dir, 0, 0);
    assertEquals([r.nextSeq, r.lines[49].seq], [50, 49]);
  });
});

Deno.test("rotate and release: replay starts at the first segment not covered", async () => {
  await withTempDir(async (dir) => {
    const wal = await WriteAheadLog.open(dir, 0);
    await wal.append(enc.encode("a\n"));
    const p = wal.append(enc.encode("b\n"));
    const next = wal.rotate(); // a checkpoint covering a and b
    assertEquals(wal.rotate(), next, "an empty segment is not rotated past");
    const q = wal.append(enc.encode("c\n"));
    await wal.release(next);
    await Promise.all([p, q]);
    assertEquals(await listSegments(dir), [1]);
    assertEquals(wal.startSeqOf(next), 2);
    assertEquals(await replay(dir, next), ["1:c"]);
    assertEquals((await readWal(dir, next, 2)).lines.length, 1);
    await wal.close();
  });
});

Deno.test("a torn tail of the last segment is truncated with a count; appends go to a fresh segment", async () => {
  await withTempDir(async (dir) => {
    const wal0 = await WriteAheadLog.open(dir, 3);
    await wal0.append(enc.encode("x\n"));
    await wal0.close();
    const f = await Deno.open(`${dir}/${segmentName(3)}`, { append: true });
    await f.write(enc.encode('0badc0de 1 {"ha'));
    f.close();
    const r = await readWal(dir, 0, undefined);
    assertEquals(r.lines.map((l) => dec.decode(l.bytes)), ["x"]);
    assertEquals(r.tornTail?.bytes, 15);
    const note = await tidyWal(dir, r);
    assert(note !== undefined && note.includes("truncated 15 bytes"), String(note));
    const wal = await WriteAheadLog.open(dir, 1, { nextSeq: r.nextSeq });
    assertEquals(wal.segment, 4);
    await wal.append(enc.encode("y\n"));
    await wal.close();
    assertEquals(await replay(dir, 0), ["3:x", "4:y"]);
    let closed = "";
    await wal.append(enc.encode("z\n")).catch((e) => closed = (e as Error).message);
    assert(closed.includes("closed"), closed);
  });
});

Deno.test("a flipped bit, an altered line, a truncated or missing middle segment refuse with file and offset", async () => {
  await withTempDir(async (dir) => {
    await threeSegments(dir);
    const s1 = `${dir}/${segmentName(1)}`;
    const good = await Deno.readFile(s1);
    // a bit flip in the payload of the second record of segment 1
    const flipped = good.slice();
    const second = good.indexOf(10) + 1;
    flipped[second + 11] ^= 0x04;
    await Deno.writeFile(s1, flipped);
    let e = await damage(() => readWal(dir, 0, 0));
    assertEquals([e.file, e.offset], [s1, second]);
    assert(e.message.includes("checksum mismatch") && e.message.includes("--repair"), e.message);
    // an altered line: a valid-looking record whose checksum no longer matches
    const text = dec.decode(good).replace(" d", " D");
    await Deno.writeTextFile(s1, text);
    e = await damage(() => readWal(dir, 0, 0));
    assert(e.message.includes("checksum mismatch"), e.message);
    // a middle segment cut at a record boundary: the sequence has a gap
    await Deno.writeFile(s1, good.subarray(0, second));
    e = await damage(() => readWal(dir, 0, 0));
    assertEquals(e.file, `${dir}/${segmentName(2)}`);
    assert(e.message.includes("records 3..3 are missing"), e.message);
    // a deleted middle segment
    await Deno.remove(s1);
    e = await damage(() => readWal(dir, 0, 0));
    assert(e.message.includes("records 2..3 are missing"), e.message);
    // a deleted first segment: the checkpoint's sequence number tells
    for (const n of await listSegments(dir)) await Deno.remove(`${dir}/${segmentName(n)}`);
    await threeSegments(dir);
    await Deno.remove(`${dir}/${segmentName(0)}`);
    e = await damage(() => readWal(dir, 0, 0));
    assert(e.message.includes("records 0..1 are missing"), e.message);
  });
});

Deno.test("repair drops the damaged record and reports exactly what was lost", async () => {
  await withTempDir(async (dir) => {
    const wal = await WriteAheadLog.open(dir, 0);
    await wal.append(enc.encode('{"id":"k1"}\n{"id":"k2"}\n{"id":"k3"}\n'));
    await wal.close();
    const p = `${dir}/${segmentName(0)}`;
    const b = await Deno.readFile(p);
    const second = b.indexOf(10) + 1;
    b[second + 3] ^= 0x40; // inside the checksum field
    await Deno.writeFile(p, b);
    const r = await readWal(dir, 0, 0, { repair: true });
    assertEquals(r.lines.map((l) => dec.decode(l.bytes)), ['{"id":"k1"}', '{"id":"k3"}']);
    assertEquals(r.dropped.length, 1);
    const d = r.dropped[0];
    assertEquals([d.file, d.offset, d.records, d.ids, d.seqs], [
      segmentName(0),
      second,
      1,
      ["k2"],
      [1, 1],
    ]);
    assertEquals(r.nextSeq, 3);
  });
});

Deno.test("a write that fails (ENOSPC) leaves nothing in the file; the next write continues the sequence", async () => {
  await withTempDir(async (dir) => {
    const wal = await WriteAheadLog.open(dir, 0);
    await wal.append(enc.encode("a\n"));
    setStorageFault((_path, size) => Math.floor(size / 2));
    let err = "";
    try {
      await wal.append(enc.encode("b\nc\n")).catch((e) => err = (e as Error).message);
    } finally {
      setStorageFault(undefined);
    }
    assert(err.includes("No space left on device"), err);
    assertEquals(wal.failedWrites, 1);
    await wal.append(enc.encode("d\n"));
    await wal.close();
    const r = await readWal(dir, 0, 0);
    assertEquals(r.lines.map((l) => `${l.seq}:${dec.decode(l.bytes)}`), ["0:a", "1:d"]);
    assertEquals(r.tornTail, undefined);
  });
});

Deno.test("old-format segments (plain lines) are still replayed", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/${segmentName(2, 1)}`, "old1\nold2\n");
    const r = await readWal(dir, 2, undefined);
    assertEquals(r.lines.map((l) => dec.decode(l.bytes)), ["old1", "old2"]);
    assertEquals(r.legacySegments, 1);
    const wal = await WriteAheadLog.open(dir, 2, { nextSeq: r.nextSeq });
    assertEquals(wal.segment, 3);
    await wal.close();
  });
});
