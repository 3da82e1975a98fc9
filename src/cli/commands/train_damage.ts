/**
 * What `train` says of a damaged state directory: `train` has no `--repair`, so each kind of damage
 * gets the one `mv` that sets the damaged part aside and what the same command then reads.
 *
 * @module
 */
import { UnreadableCheckpointError } from "../../service/open_state.ts";
import { DamagedDeltaError, DELTA_DIR } from "../../service/checkpoint_chain.ts";
import { WalDamageError } from "../../service/wal_reader.ts";

/**
 * Damaged state in train's words: the service's messages name `serve --repair`, which train does
 * not have. The way on is to set the damaged part aside (`mv PATH PATH.damaged-<time>`, one
 * command) and run again (else another `--state-dir`):
 *
 * - an unreadable checkpoint, named as a repair names it (so that a start after it takes the
 *   directory's write-ahead log as a repair's): an NDJSON run then reads `input` from its first
 *   line (its offset was in the checkpoint), an XC/LIBSVM run starts a new model;
 * - a damaged incremental checkpoint: the whole `checkpoint.deltas/` (a repair moves the damaged
 *   delta and those after it); the run resumes from `checkpoint.msgpack`, an NDJSON run at the
 *   line that checkpoint had reached (the lines the deltas held are read again), an XC/LIBSVM run
 *   learning the rows it has not seen (by id);
 * - a damaged write-ahead log: the whole `wal/`. Train logs no record there (it reads its input
 *   from the file): the records are events sent to a `serve` of the directory, lost.
 *
 * Any other error is returned as it is.
 *
 * @example
 * ```ts
 * import { trainCheckpointError } from "./train_damage.ts";
 * const other = new TypeError("not damage");
 * console.log(trainCheckpointError(other, "st", "e.ndjson", true) === other); // true
 * ```
 */
export function trainCheckpointError(
  e: unknown,
  stateDir: string,
  input: string,
  ndjson: boolean,
): unknown {
  const at = new Date().toISOString().replace(/[:.]/g, "-");
  const way = (damage: string, what: string, path: string, then: string) =>
    `${damage}. Refusing to start; train has no --repair: set ${what} aside (mv ${path} ` +
    `${path}.damaged-${at}) and run the same command again: ${then}; or give another --state-dir`;
  const base = `${stateDir}/checkpoint.msgpack`;
  if (e instanceof UnreadableCheckpointError) {
    return new SyntaxError(
      way(
        e.reason,
        "the file",
        e.path,
        ndjson
          ? `it reads ${input} again from its first line (what the checkpoint held of other ` +
            `sources is lost)`
          : `it starts a new model with ${input} (what the checkpoint held is lost)`,
      ),
      { cause: e },
    );
  }
  if (e instanceof DamagedDeltaError) {
    return new SyntaxError(
      way(
        e.reason,
        "the incremental checkpoints",
        `${stateDir}/${DELTA_DIR}`,
        ndjson
          ? `it resumes from ${base} and reads ${input} on from the line that checkpoint had ` +
            `reached (what the incremental ones held of other sources is lost)`
          : `it resumes from ${base} (what the incremental checkpoints held is lost) and ` +
            `learns the rows of ${input} it has not seen`,
      ),
      { cause: e },
    );
  }
  if (e instanceof WalDamageError) {
    // (an Error, as the service's: a damaged log is no bad input of this run)
    return new Error(
      way(
        e.damage,
        "the log",
        `${stateDir}/wal`,
        `it resumes from ${base} (a new model if there is none) without the log's events, ` +
          `which are lost (train logs none of ${input}: they were sent to a serve of this ` +
          `directory)`,
      ),
      { cause: e },
    );
  }
  return e;
}
