/**
 * Reading a state directory's checkpoint (read-only) for the offline commands.
 *
 * @module
 */
import { loadFactory } from "../../models/registry.ts";
import { decodeCheckpoint, readFileIfExists } from "../../service/checkpoint.ts";
import { CheckpointChain } from "../../service/checkpoint_chain.ts";
import { CheckpointKindError, NotACheckpointError } from "../../service/checkpoint_fields.ts";
import { type LearnerCheckpoint, StreamLearner } from "../../service/learner.ts";
import { CHECKPOINT_FORMAT } from "../../service/learner_types.ts";
import { readWal, type WalLoss, type WalPosition, type WalReadResult } from "../../service/wal.ts";

/** The checkpoint file of a state directory. */
function checkpointPath(stateDir: string): string {
  return `${stateDir}/checkpoint.msgpack`;
}

/**
 * Names the checkpoint file in an error found while opening the state directory `stateDir`,
 * which the learner's message does not know: a learner's {@linkcode NotACheckpointError} (e.g. a
 * model file copied to `checkpoint.msgpack`) becomes a SyntaxError `Cannot read checkpoint
 * DIR/checkpoint.msgpack: not a Tagstream checkpoint (REASON)`, as {@linkcode readCheckpoint}
 * reports it; a {@linkcode CheckpointKindError} (a checkpoint of another model than `--model`
 * asks for), a TypeError naming the file and the two ways on (the `--model` that resumes it, or
 * a new `--state-dir`). The errors are told by their class and the data they carry, not by their
 * message. Any other error is returned as it is.
 *
 * @example
 * ```ts
 * import { namedCheckpointError } from "./state.ts";
 * import { CheckpointKindError, NotACheckpointError } from "../../service/checkpoint_fields.ts";
 * const e = namedCheckpointError(new NotACheckpointError("format field missing"), "st");
 * console.log((e as Error).message); // Cannot read checkpoint st/checkpoint.msgpack: not a Tagstream checkpoint (format field missing)
 * const k = namedCheckpointError(new CheckpointKindError("leml", "br"), "st");
 * console.log((k as Error).message); // st/checkpoint.msgpack: Checkpoint holds a 'leml' model but 'br' was asked for (--model leml resumes it; a new --state-dir starts a br model)
 * ```
 */
export function namedCheckpointError(e: unknown, stateDir: string): unknown {
  if (e instanceof CheckpointKindError) {
    return new TypeError(
      `${checkpointPath(stateDir)}: ${e.message} (--model ${e.found} resumes it; a new ` +
        `--state-dir starts a ${e.asked} model)`,
      { cause: e },
    );
  }
  if (!(e instanceof NotACheckpointError)) return e;
  return new SyntaxError(
    `Cannot read checkpoint ${checkpointPath(stateDir)}: not a Tagstream checkpoint (${e.reason})`,
    { cause: e },
  );
}

/** What the user is told a failed file-system call tried to do (Deno's name for it → verb). */
const OS_VERBS: Record<string, string> = {
  readfile: "read",
  readdir: "read",
  stat: "read",
  lstat: "read",
  open: "open",
  mkdir: "create",
  writefile: "write",
  write: "write",
  rename: "rename",
  remove: "remove",
};

/**
 * Names the state directory in an OS error met on a file in it (one owned by the service's user,
 * or of the wrong kind: `Permission denied (os error 13): readfile 'DIR/checkpoint.msgpack'`): a
 * TypeError `--state-dir DIR: cannot read DIR/checkpoint.msgpack (Permission denied)`. Any other
 * error (an OS error on a file outside `stateDir` included) is returned as it is.
 *
 * @example
 * ```ts
 * import { namedStateDirError } from "./state.ts";
 * const e = new Error("Is a directory (os error 21): readfile 'st/checkpoint.msgpack'");
 * console.log((namedStateDirError(e, "st") as Error).message); // --state-dir st: cannot read st/checkpoint.msgpack (Is a directory)
 * ```
 */
export function namedStateDirError(e: unknown, stateDir: string): unknown {
  const m = e instanceof Error
    ? /^(.*?)\s*\(os error \d+\):?\s*(\w+)\s+'(.+)'/s.exec(e.message)
    : null;
  const dir = stateDir.replace(/\/+$/, "");
  if (m === null || (m[3] !== dir && !m[3].startsWith(`${dir}/`))) return e;
  const [, reason, op, path] = m;
  return new TypeError(
    `--state-dir ${stateDir}: cannot ${OS_VERBS[op] ?? "use"} ${path} (${reason})`,
  );
}

/**
 * The decoded checkpoint of a state directory. Throws a TypeError naming the path when there is
 * none, a SyntaxError naming it when it cannot be decoded or is not a Tagstream checkpoint (a
 * model file, another program's msgpack).
 *
 * @example
 * ```ts
 * import { readCheckpoint } from "./state.ts";
 * try {
 *   await readCheckpoint("/nonexistent/tagstream-state");
 * } catch (e) {
 *   console.log((e as Error).message); // /nonexistent/tagstream-state/checkpoint.msgpack does not exist ...
 * }
 * ```
 */
export async function readCheckpoint(stateDir: string): Promise<LearnerCheckpoint> {
  const path = checkpointPath(stateDir);
  const bytes = await readFileIfExists(path).catch((e) => {
    throw namedStateDirError(e, stateDir);
  });
  if (bytes === undefined) {
    throw new TypeError(`${path} does not exist (is --state-dir the directory of serve/train?)`);
  }
  let ck: LearnerCheckpoint;
  try {
    ck = decodeCheckpoint(bytes) as LearnerCheckpoint;
  } catch (e) {
    throw new SyntaxError(`Cannot read checkpoint ${path}: ${(e as Error).message}`);
  }
  if (ck === null || typeof ck !== "object" || ck.format !== CHECKPOINT_FORMAT) {
    throw new SyntaxError(
      `Cannot read checkpoint ${path}: not a Tagstream checkpoint (no format "${CHECKPOINT_FORMAT}")`,
    );
  }
  return ck;
}

/**
 * The learner saved in a state directory: its checkpoint and the incremental checkpoints after it
 * (read-only: nothing is replayed, written, moved or removed), how many incremental checkpoints
 * were applied, when the last of them (or the checkpoint) was written, and the base checkpoint
 * itself (its options are the learner's: deltas do not change them). The model family comes from the checkpoint unless `model` is given.
 *
 * @example
 * ```ts
 * import { openStateChain } from "./state.ts";
 * console.log(typeof openStateChain); // "function"
 * ```
 */
export async function openStateChain(
  stateDir: string,
  model?: string,
): Promise<{ learner: StreamLearner; deltas: number; savedAt: string; base: LearnerCheckpoint }> {
  const ck = await readCheckpoint(stateDir);
  const asked = model === undefined ? undefined : await loadFactory(model);
  let learner: StreamLearner;
  try {
    // a checkpoint that names no known model or lacks a part is damaged or foreign: name the file
    learner = StreamLearner.fromCheckpoint(asked ?? await loadFactory(ck.kind), ck);
  } catch (e) {
    throw new SyntaxError(
      `Cannot read checkpoint ${checkpointPath(stateDir)}: ${(e as Error).message}`,
    );
  }
  const load = await CheckpointChain.load(stateDir, learner, ck, { readOnly: true }).catch((e) => {
    throw namedStateDirError(e, stateDir);
  });
  return { learner, deltas: load.applied, savedAt: load.savedAt ?? ck.savedAt, base: ck };
}

/**
 * The learner saved in a state directory, as {@linkcode openStateChain} restores it (the
 * checkpoint and its incremental checkpoints, read-only).
 *
 * @example
 * ```ts
 * import { openState } from "./state.ts";
 * console.log(typeof openState); // "function"
 * ```
 */
export async function openState(stateDir: string, model?: string): Promise<StreamLearner> {
  return (await openStateChain(stateDir, model)).learner;
}

/**
 * The write-ahead-log records of `stateDir` after the checkpoint `learner` was restored from (by
 * {@linkcode openStateChain}): the events a restart replays. Read-only (nothing is truncated,
 * moved or removed); damage is not refused but listed in `dropped`, as `serve --repair` would
 * drop it (a start without `--repair` refuses it).
 *
 * @example
 * ```ts
 * import { logAfterCheckpoint, openStateChain } from "./state.ts";
 * const show = async (dir: string) => {
 *   const { learner } = await openStateChain(dir);
 *   console.log((await logAfterCheckpoint(dir, learner)).lines.length); // events not in the checkpoint
 * };
 * console.log(typeof show); // "function"
 * ```
 */
export async function logAfterCheckpoint(
  stateDir: string,
  learner: StreamLearner,
): Promise<WalReadResult> {
  // where the restart starts (src/service/open_state.ts)
  const pos = learner.position.wal as WalPosition | undefined;
  return await readWal(`${stateDir}/wal`, pos?.segment ?? 0, pos?.seq, { repair: true }).catch(
    (e) => {
      throw namedStateDirError(e, stateDir);
    },
  );
}

/**
 * Replays into `learner` (restored from `stateDir` by {@linkcode openStateChain}) the
 * write-ahead-log records after its checkpoint, in memory, as a restart replays them: the model
 * and the counts a restart resumes with. Nothing is written. Returns how many events were applied,
 * the log's damage (which a start without `--repair` refuses; here it is skipped) and a warning
 * for each damaged part, naming its file and byte, for the commands to show.
 *
 * @example
 * ```ts
 * import { openStateChain, replayLog } from "./state.ts";
 * const current = async (dir: string) => {
 *   const { learner } = await openStateChain(dir);
 *   console.log((await replayLog(dir, learner)).replayed); // events logged after the checkpoint
 * };
 * console.log(typeof current); // "function"
 * ```
 */
export async function replayLog(
  stateDir: string,
  learner: StreamLearner,
): Promise<{ replayed: number; dropped: WalLoss[]; warnings: string[] }> {
  const log = await logAfterCheckpoint(stateDir, learner);
  const decoder = new TextDecoder();
  let replayed = 0;
  for (const r of log.lines) {
    const res = learner.ingestLine(decoder.decode(r.bytes), "wal", `${r.segment}:${r.line}`);
    if (res.ok && !res.duplicate) replayed++;
  }
  const warnings = log.dropped.map((d) =>
    `${stateDir}/wal/${d.file} is damaged at byte ${d.offset} (${d.reason}): its ${d.records} ` +
    "record(s) are not in the model"
  );
  return { replayed, dropped: log.dropped, warnings };
}
