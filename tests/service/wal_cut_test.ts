/**
 * The write-ahead log when a failed write (a full disk) cannot be cut off the segment at once
 * (the truncate fails too, e.g. an I/O error): the partial bytes must go before any later record
 * is written, so that a refused record is never replayed and an acknowledged one never follows
 * broken bytes (which a restart calls damage, and `--repair` drops).
 */
import { readWal, segmentName, WriteAheadLog } from "../../src/service/wal.ts";
import { setStorageFault } from "../../src/service/storage_faults.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

type Truncate = (len?: number) => Promise<void>;
const proto = Deno.FsFile.prototype as unknown as { truncate: Truncate };

/** Runs `fn` while file truncates fail (`failing()` true) and writes stop half-way (`full()`). */
async function withFaults(
  full: () => boolean,
  failing: () => boolean,
  fn: () => Promise<void>,
): Promise<void> {
  const truncate = proto.truncate;
  proto.truncate = function (this: Deno.FsFile, len?: number) {
    if (failing()) return Promise.reject(new Error("Input/output error (os error 5)"));
    return truncate.call(this, len);
  };
  setStorageFault((_path, size) => full() ? Math.floor(size / 2) : undefined);
  try {
    await fn();
  } finally {
    proto.truncate = truncate;
    setStorageFault(undefined);
  }
}

async function refusal(p: Promise<void>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  return "";
}

const replayed = async (dir: string) =>
  (await readWal(dir, 0, 0)).lines.map((l) => `${l.seq}:${dec.decode(l.bytes)}`);

Deno.test("a failed write whose cut fails is cut before the next record: the refused records are not replayed, the acknowledged one is intact", async () => {
  await withTempDir(async (dir) => {
    const wal = await WriteAheadLog.open(dir, 0);
    await wal.append(enc.encode("a\n"));
    let full = true, failing = true;
    await withFaults(() => full, () => failing, async () => {
      // half of "b", "c" reaches the file: the whole record of b and part of c's
      const err = await refusal(wal.append(enc.encode("b\nc\n")));
      assert(err.includes("No space left on device"), err);
      full = false;
      failing = false;
      await wal.append(enc.encode("d\n")); // acknowledged
    });
    await wal.close();
    assertEquals(await replayed(dir), ["0:a", "1:d"]);
  });
});

Deno.test("a failed write whose cut fails is cut before a record of the next segment; while the cut fails, nothing is acknowledged", async () => {
  await withTempDir(async (dir) => {
    const wal = await WriteAheadLog.open(dir, 0);
    await wal.append(enc.encode("a\n"));
    let full = true, failing = true;
    await withFaults(() => full, () => failing, async () => {
      const err = await refusal(wal.append(enc.encode("b\nc\n")));
      assert(err.includes("No space left on device"), err);
      full = false;
      wal.rotate(); // a checkpoint starts segment 1
      // the cut still fails: this record is refused too
      const again = await refusal(wal.append(enc.encode("x\n")));
      assert(
        again.includes("Input/output error"),
        `expected a refusal, got ${JSON.stringify(again)}`,
      );
      failing = false;
      await wal.append(enc.encode("d\n")); // acknowledged
    });
    await wal.close();
    const size0 = (await Deno.stat(`${dir}/${segmentName(0)}`)).size;
    assertEquals(size0, (await Deno.readFile(`${dir}/${segmentName(0)}`)).lastIndexOf(10) + 1);
    assertEquals(await replayed(dir), ["0:a", "1:d"]);
  });
});
