// A write-ahead-log append failing on a real full disk (ENOSPC from the OS; the test hook of
// storage_faults.ts names the file in its own message) named the log's directory but not the
// segment: the runtime's message for a write on an open file has no path ("write-ahead log DIR:
// No space left on device (os error 28)"). It now names the segment, as the runtime names a path
// (`: write 'PATH'`).
//
// The full disk is /dev/full (every write fails with ENOSPC): the segment is a link to it.
import { WriteAheadLog } from "../../src/service/wal_writer.ts";
import { segmentName } from "../../src/service/wal_segments.ts";
import { assertEquals } from "./helpers.ts";
import { fullDiskTest } from "./full_disk.ts";

fullDiskTest("WriteAheadLog: an append failing on a full disk names the segment", async (dir) => {
  const wal = await WriteAheadLog.open(`${dir}/wal`, 0);
  const segment = `${dir}/wal/${segmentName(wal.segment)}`;
  await Deno.symlink("/dev/full", segment);
  let message = "";
  try {
    await wal.append(new TextEncoder().encode('{"features": {}, "labels": ["a"]}\n'));
  } catch (e) {
    message = (e as Error).message;
  } finally {
    await wal.close().catch(() => {});
  }
  assertEquals(
    message,
    `write-ahead log ${dir}/wal: No space left on device (os error 28): write '${segment}'`,
  );
});
