/**
 * One writing process per state directory: `train --state-dir` and `serve` hold an exclusive OS
 * file lock on `DIR/lock` while they run (two writers would interleave their write-ahead-log
 * records and checkpoints). The readers (`eval`, `inspect`, `export`, `prune --state-dir`) take no
 * lock: they read a running writer's directory. The lock is the OS's (`flock`), so it ends with
 * the process that holds it, `kill -9` included; the file stays, holding the last holder's pid,
 * host, command and start time, which a refused process reports.
 *
 * It is taken by the commands, not by `LearningService.open`: a program (a test simulating a
 * crash) may open a second service on one directory on purpose.
 *
 * @module
 */
import { namedStateDirError } from "./commands/state.ts";

/** The lock file of a state directory. */
export const LOCK_FILE = "lock";

/**
 * The lock of a state directory, held until {@linkcode StateDirLock.release} (or the end of the
 * scope of a `using` declaration, or the process).
 */
export interface StateDirLock extends Disposable {
  /** The lock file, `DIR/lock`. */
  readonly path: string;
  /** Releases the lock (closes the file; it stays). Calling it again does nothing. */
  release(): void;
}

/** What a holder writes in the lock file (one JSON line). */
interface Holder {
  pid?: unknown;
  hostname?: unknown;
  command?: unknown;
  since?: unknown;
}

/** This machine's name, or undefined when it cannot be had (no --allow-sys). */
function hostname(): string | undefined {
  try {
    return Deno.hostname();
  } catch {
    return undefined;
  }
}

/** Who holds the lock, as its file says: `tagstream serve, pid 12 on host h since T`. */
function describeHolder(text: string): string {
  let h: Holder | undefined;
  try {
    const v = JSON.parse(text);
    if (v !== null && typeof v === "object") h = v as Holder;
  } catch {
    // an empty file: its holder has not written it yet
  }
  if (h === undefined || typeof h.pid !== "number") return "its pid is not recorded yet";
  const host = typeof h.hostname === "string" ? ` on host ${h.hostname}` : "";
  const command = typeof h.command === "string" ? `tagstream ${h.command}, ` : "";
  const since = typeof h.since === "string" ? ` since ${h.since}` : "";
  return `${command}pid ${h.pid}${host}${since}`;
}

/**
 * Takes the exclusive lock of the state directory `stateDir` (created when missing) for the
 * command `command`, or throws a TypeError at once, without waiting, when another process holds
 * it: `--state-dir DIR is in use by another process (tagstream serve, pid 12 on host h since
 * T): ...`, with what to do. An OS error on the directory or the lock file is a TypeError naming
 * the state directory and the file.
 *
 * @example
 * ```ts
 * import { lockStateDir } from "./state_lock.ts";
 * const dir = await Deno.makeTempDir();
 * const lock = await lockStateDir(dir, "train");
 * // a second writer (another process; here another open file of this one) is refused
 * await lockStateDir(dir, "serve").catch((e) => console.log(e.message)); // --state-dir /tmp/... is in use by another process (tagstream train, pid ...
 * lock.release();
 * (await lockStateDir(dir, "serve")).release(); // free again
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function lockStateDir(stateDir: string, command: string): Promise<StateDirLock> {
  const path = `${stateDir.replace(/\/+$/, "")}/${LOCK_FILE}`;
  let file: Deno.FsFile;
  try {
    await Deno.mkdir(stateDir, { recursive: true });
    // (not truncated: a refused process must not erase the holder's pid)
    file = await Deno.open(path, { read: true, write: true, create: true });
  } catch (e) {
    throw namedStateDirError(e, stateDir);
  }
  try {
    if (!await file.tryLock(true)) {
      const text = await Deno.readTextFile(path).catch(() => "");
      throw new TypeError(
        `--state-dir ${stateDir} is in use by another process (${describeHolder(text)}): one ` +
          `process at a time may write a state directory (two would interleave their ` +
          `write-ahead logs and checkpoints). Stop that one first, or give another --state-dir; ` +
          `eval, inspect, export and prune read it while it runs`,
      );
    }
    const host = hostname();
    const holder = {
      pid: Deno.pid,
      ...(host !== undefined ? { hostname: host } : {}),
      command,
      since: new Date().toISOString(),
    };
    const bytes = new TextEncoder().encode(JSON.stringify(holder) + "\n");
    await file.truncate(0);
    for (let n = 0; n < bytes.length;) n += await file.write(bytes.subarray(n));
  } catch (e) {
    file.close();
    throw namedStateDirError(e, stateDir);
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    file.close(); // (closing the file releases the lock)
  };
  return { path, release, [Symbol.dispose]: release };
}
