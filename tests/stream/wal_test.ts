import { listSegments, replaySegments, WriteAheadLog } from "../../src/stream/wal.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const enc = new TextEncoder(), dec = new TextDecoder();

async function replay(dir: string, from: number): Promise<string[]> {
  const out: string[] = [];
  for await (const l of replaySegments(dir, from)) out.push(`${l.segment}:${dec.decode(l.bytes)}`);
  return out;
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
  });
});

Deno.test("rotate and release: replay starts at the first segment not covered", async () => {
  await withTempDir(async (dir) => {
    const wal = await WriteAheadLog.open(dir, 0);
    await wal.append(enc.encode("a\n"));
    const p = wal.append(enc.encode("b\n"));
    const next = wal.rotate(); // a checkpoint covering a and b
    const q = wal.append(enc.encode("c\n"));
    await wal.release(next);
    await Promise.all([p, q]);
    assertEquals(await listSegments(dir), [1]);
    assertEquals(await replay(dir, next), ["1:c"]);
    await wal.close();
  });
});

Deno.test("a torn last line is skipped and new appends go to a fresh segment", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/0000000003.ndjson`, 'x\n{"half');
    assertEquals(await replay(dir, 0), ["3:x"]);
    assertEquals(await replay(dir, 4), []);
    const wal = await WriteAheadLog.open(dir, 1);
    assertEquals(wal.segment, 4);
    await wal.append(enc.encode("y\n"));
    await wal.close();
    assertEquals(await replay(dir, 0), ["3:x", "4:y"]);
    let closed = "";
    await wal.append(enc.encode("z\n")).catch((e) => closed = (e as Error).message);
    assert(closed.includes("closed"), closed);
  });
});
