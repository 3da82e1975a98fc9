/**
 * A fault-injection hook for the service's state writes (write-ahead log, checkpoint): tests and
 * `bench/service_chaos.ts` make writes fail as on a full disk without a small filesystem. No
 * hook is installed unless a test calls {@linkcode setStorageFault} or `serve` runs with the
 * environment variable `TAGSTREAM_FAULT_ENOSPC=<control file>` (then every state write fails
 * with ENOSPC while the control file exists).
 *
 * @module
 */

/**
 * Decides whether a write of `size` bytes to `path` fails: undefined (it goes through) or how
 * many bytes reach the file before the error (a partial write, as a full disk gives).
 *
 * @example
 * ```ts
 * import type { StorageFault } from "./storage_faults.ts";
 * const half: StorageFault = (_path, size) => Math.floor(size / 2);
 * console.log(half("/x", 10)); // 5
 * ```
 */
export type StorageFault = (path: string, size: number) => number | undefined;

let fault: StorageFault | undefined;

/**
 * Installs (or with undefined removes) the process-wide storage fault.
 *
 * @example
 * ```ts
 * import { setStorageFault, storageFault } from "./storage_faults.ts";
 * setStorageFault(() => 0);
 * console.log(storageFault("/x", 4)); // 0
 * setStorageFault(undefined);
 * console.log(storageFault("/x", 4)); // undefined
 * ```
 */
export function setStorageFault(f: StorageFault | undefined): void {
  fault = f;
}

/** The installed fault's verdict for a write (undefined: no fault). */
export function storageFault(path: string, size: number): number | undefined {
  return fault?.(path, size);
}

/**
 * The error a full disk gives (`ENOSPC`).
 *
 * @example
 * ```ts
 * import { noSpaceError } from "./storage_faults.ts";
 * console.log(noSpaceError("/s/wal/1.wal").message); // No space left on device (os error 28), writing /s/wal/1.wal
 * ```
 */
export function noSpaceError(path: string): Error {
  const e = new Error(`No space left on device (os error 28), writing ${path}`);
  (e as { code?: string }).code = "ENOSPC";
  return e;
}

/**
 * Installs the fault `TAGSTREAM_FAULT_ENOSPC` asks for, if set: while the named control file
 * exists, every state write fails with ENOSPC after writing half its bytes. Returns whether a
 * fault was installed.
 *
 * @example
 * ```ts
 * import { installFaultFromEnv } from "./storage_faults.ts";
 * console.log(installFaultFromEnv({})); // false
 * ```
 */
export function installFaultFromEnv(env: Record<string, string | undefined>): boolean {
  const control = env.TAGSTREAM_FAULT_ENOSPC;
  if (!control) return false;
  setStorageFault((_path, size) => {
    try {
      Deno.statSync(control);
      return Math.floor(size / 2);
    } catch {
      return undefined;
    }
  });
  return true;
}

/**
 * Writes all of `bytes` to `file` (whose path is `path`), honouring the storage fault: a faulty
 * write puts its partial bytes in the file, then throws ENOSPC.
 */
export async function writeAllChecked(
  file: Deno.FsFile,
  path: string,
  bytes: Uint8Array,
): Promise<void> {
  const partial = storageFault(path, bytes.length);
  const n = partial === undefined ? bytes.length : Math.min(partial, bytes.length);
  let off = 0;
  while (off < n) off += await file.write(bytes.subarray(off, n));
  if (partial !== undefined) throw noSpaceError(path);
}
