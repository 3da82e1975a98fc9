/**
 * Tests on a real full disk: `/dev/full`, where every write fails with ENOSPC (the OS's "No space
 * left on device", whose message for a write on an open file names no path), unlike the test hook
 * of `src/service/storage_faults.ts`, whose message names the file.
 *
 * @module
 */
import { withTempDir } from "../helpers.ts";

/** Whether this machine has `/dev/full` (the full-disk tests are ignored without it). */
export const HAS_DEV_FULL: boolean = await Deno.stat("/dev/full").then(() => true, () => false);

/**
 * Registers the test `name`: `fn` run with a new temporary directory, removed afterwards, in which
 * the test links a file to `/dev/full`; ignored where there is no `/dev/full`.
 */
export function fullDiskTest(name: string, fn: (dir: string) => Promise<void>): void {
  Deno.test({ name, ignore: !HAS_DEV_FULL, fn: () => withTempDir(fn) });
}
