/**
 * Opening a learning service's state directory: the model from its checkpoint (the base and the
 * incremental checkpoints after it, see `./checkpoint_chain.ts`) or a new one, the write-ahead-log
 * segments the checkpoint does not cover replayed in order, and, with `repair`, damaged parts set
 * aside and reported (`repair-<time>.json`).
 *
 * @module
 */
import { checkpointFormat, decodeCheckpoint, readFileIfExists } from "./checkpoint.ts";
import { CheckpointChain } from "./checkpoint_chain.ts";
import { type LearnerCheckpoint, StreamLearner } from "./learner.ts";
import type { RepairReport, ServiceOptions } from "./service_types.ts";
import {
  readWal,
  tidyWal,
  WalDamageError,
  type WalPosition,
  type WalReadResult,
  WriteAheadLog,
} from "./wal.ts";
import { pickOptions } from "../data/option_check.ts";
import { LEARNER_OPTION_KEYS } from "./service_options.ts";

/**
 * A state directory's checkpoint that cannot be read (damaged bytes or fields), refusing the start
 * without `repair`: the file and what is wrong, for a command to say its own way on. The message
 * says serve's: `REASON. Refusing to start; 'serve --repair' sets it aside and starts a new model
 * from the write-ahead log that remains (the checkpoint's events are lost)`.
 *
 * @example
 * ```ts
 * import { UnreadableCheckpointError } from "./open_state.ts";
 * const e = new UnreadableCheckpointError("st/checkpoint.msgpack", "Cannot read checkpoint st/checkpoint.msgpack: cut short");
 * console.log(e instanceof SyntaxError, e.path); // true st/checkpoint.msgpack
 * ```
 */
export class UnreadableCheckpointError extends SyntaxError {
  /** The checkpoint file. */
  readonly path: string;
  /** What is wrong with it: `Cannot read checkpoint PATH: ...`. */
  readonly reason: string;

  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(
      `${reason}. Refusing to start; 'serve --repair' sets it aside and starts a new model from ` +
        `the write-ahead log that remains (the checkpoint's events are lost)`,
      options,
    );
    this.name = "UnreadableCheckpointError";
    this.path = path;
    this.reason = reason;
  }
}

/**
 * A state directory, opened: the learner as the checkpoint and the log left it, the log to
 * append to, what was replayed, the repair report (when something was repaired) and whether a
 * checkpoint should be written at start (replayed or migrated state, a repair).
 *
 * @example
 * ```ts
 * import type { OpenedState } from "./open_state.ts";
 * const replayed = (s: OpenedState) => s.replayed + s.replayedDuplicates;
 * console.log(typeof replayed); // "function"
 * ```
 */
export interface OpenedState {
  /** The learner. */
  learner: StreamLearner;
  /** The write-ahead log (absent with `wal: false`). */
  wal: WriteAheadLog | undefined;
  /** Events replayed from the log, and duplicates (by id) not applied again. */
  replayed: number;
  replayedDuplicates: number;
  /** What a repair dropped, when it dropped anything. */
  report: RepairReport | undefined;
  /** Whether to checkpoint at start. */
  checkpointAtStart: boolean;
}

/**
 * Opens `options.stateDir` (created when missing): resumes from its checkpoint chain (or starts a
 * new model), replays the write-ahead log segments the checkpoint does not cover. Damage refuses
 * the start with an error naming the file, unless `options.repair`.
 *
 * @example
 * ```ts
 * import { factory } from "../models/popularity/mod.ts";
 * import { openState } from "./open_state.ts";
 * const dir = await Deno.makeTempDir();
 * const s = await openState({ factory, stateDir: dir, log: () => {} });
 * console.log(s.learner.applied, s.replayed, s.report); // 0 0 undefined
 * await s.wal?.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function openState(options: ServiceOptions): Promise<OpenedState> {
  const log = options.log ?? ((m: string) => console.error(m));
  // the model options are checked before anything else, also when a checkpoint is resumed
  // (which ignores them): a misspelt or bad option fails, naming it, instead of going unseen
  options.factory.settings?.parse(options.modelOptions ?? {});
  try {
    await Deno.mkdir(options.stateDir, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    throw new TypeError(
      `LearningService.open: option stateDir must be a directory, got the file '${options.stateDir}'`,
    );
  }
  const path = `${options.stateDir}/checkpoint.msgpack`;
  const bytes = await readFileIfExists(path);
  const at = new Date().toISOString();
  const report: RepairReport = { at, wal: [], eventsLost: 0 };
  let learner: StreamLearner;
  let migrate = false;
  let ck: LearnerCheckpoint | undefined;
  let restored: StreamLearner | undefined;
  if (bytes !== undefined) {
    try {
      ck = decodeCheckpoint(bytes) as LearnerCheckpoint;
      restored = StreamLearner.fromCheckpoint(options.factory, ck, {
        dedupWindow: options.dedupWindow,
      });
    } catch (e) {
      // damaged bytes or fields (SyntaxErrors); another model kind or version is no damage
      if (!(e instanceof SyntaxError)) throw e;
      ck = undefined;
      const reason = `Cannot read checkpoint ${path}: ${(e as Error).message}`;
      if (!options.repair) throw new UnreadableCheckpointError(path, reason, { cause: e });
      const movedTo = `${path}.damaged-${at.replace(/[:.]/g, "-")}`;
      await Deno.rename(path, movedTo);
      report.checkpoint = { movedTo, reason };
      log(`repair: ${reason}; moved it to ${movedTo}: its model and events are lost`);
    }
    if (checkpointFormat(bytes) === 1 && ck !== undefined) {
      migrate = true;
      log(`${path} has no checksum (written by an older version): rewriting it with one`);
    }
  }
  if (ck !== undefined && restored !== undefined) {
    learner = restored;
    const chain = await CheckpointChain.load(options.stateDir, learner, ck, {
      repair: options.repair,
      at,
    });
    if (chain.damaged !== undefined) {
      report.checkpointDeltas = chain.damaged;
      log(
        `repair: ${chain.damaged.reason}; moved it and the ${
          chain.damaged.movedTo.length - 1
        } after it aside: their events are lost`,
      );
    }
    log(
      `resumed from ${path}${
        chain.applied > 0 ? ` and ${chain.applied} incremental checkpoint(s)` : ""
      }: ${learner.applied} events applied, position ${JSON.stringify(learner.position)}`,
    );
  } else {
    learner = StreamLearner.create(options.factory, pickOptions(options, LEARNER_OPTION_KEYS));
  }
  let wal: WriteAheadLog | undefined;
  let replayed = 0, replayedDuplicates = 0;
  if (options.wal ?? true) {
    const dir = `${options.stateDir}/wal`;
    const pos = learner.position.wal as WalPosition | undefined;
    // after a dropped checkpoint every segment left is replayed
    const from = report.checkpoint !== undefined ? 0 : pos?.segment ?? 0;
    // Without a checkpoint the log starts at record 0: a log starting later lost the checkpoint
    // that covered (and released) its first records, and with it their events. Unless a repair
    // set a damaged checkpoint aside and the process stopped before its next one was written:
    // that gap was repaired and reported then.
    const expectSeq = report.checkpoint !== undefined
      ? undefined
      : bytes === undefined
      ? (await repairedBefore(options.stateDir) ? undefined : 0)
      : pos?.seq;
    let r: WalReadResult;
    try {
      r = await readWal(dir, from, expectSeq, { repair: options.repair });
    } catch (e) {
      if (bytes === undefined && e instanceof WalDamageError && /^records 0\.\./.test(e.reason)) {
        throw new WalDamageError(e.file, e.offset, `${e.reason}; there is no checkpoint (${path})`);
      }
      throw e;
    }
    const decoder = new TextDecoder();
    for (const l of r.lines) {
      // the replayed ids join the deduplication window as they are applied again, in log
      // order: the window ends as it was before the crash (duplicates then are duplicates now)
      const res = learner.ingestLine(decoder.decode(l.bytes), "wal", `${l.segment}:${l.line}`);
      if (res.duplicate) replayedDuplicates++;
      else if (res.ok) replayed++;
    }
    if (replayed + replayedDuplicates > 0) {
      log(
        `replayed ${replayed} events from the write-ahead log${
          replayedDuplicates > 0 ? ` (and ${replayedDuplicates} duplicates by id, not applied)` : ""
        }`,
      );
    }
    if (r.legacySegments > 0) {
      migrate = true;
      log(
        `replayed ${r.legacySegments} write-ahead-log segment(s) without checksums (written by an older version): the next checkpoint releases them`,
      );
    }
    const tidy = await tidyWal(dir, r);
    if (tidy !== undefined) log(`write-ahead log: ${tidy}`);
    for (const d of r.dropped) {
      report.wal.push(d);
      report.eventsLost += d.records;
      log(
        `repair: dropped ${d.records} record(s) (${d.bytes} bytes) of wal/${d.file} at byte ${d.offset}: ${d.reason}${
          d.seqs ? ` [records ${d.seqs[0]}..${d.seqs[1]}]` : ""
        }${d.ids && d.ids.length > 0 ? ` ids ${d.ids.join(", ")}` : ""}`,
      );
    }
    wal = await WriteAheadLog.open(dir, from, { nextSeq: r.nextSeq });
    const p: WalPosition = { segment: wal.segment, seq: wal.nextSeq };
    learner.position.wal = p;
  }
  if (ck === undefined) {
    // no base (or a dropped one): deltas of an older chain are useless (removed only now, once
    // the log did not refuse the start: they tell what was there)
    await CheckpointChain.discardDeltas(options.stateDir);
  }
  const repaired = report.checkpoint !== undefined || report.checkpointDeltas !== undefined ||
    report.wal.length > 0;
  if (repaired) {
    const file = `${options.stateDir}/repair-${at.replace(/[:.]/g, "-")}.json`;
    await Deno.writeTextFile(file, JSON.stringify(report, null, 2) + "\n");
    log(
      `repair: ${report.eventsLost} events lost${
        report.checkpoint ? " besides the dropped checkpoint's" : ""
      }; report in ${file}`,
    );
  }
  if (options.growth !== undefined) {
    learner.parser.setGrowthLimits(options.growth, learner.estimator.numFeatures);
  }
  return {
    learner,
    wal,
    replayed,
    replayedDuplicates,
    report: repaired ? report : undefined,
    checkpointAtStart: migrate || repaired,
  };
}

/** Whether a repair once set a damaged checkpoint aside in `stateDir` (`checkpoint.msgpack.damaged-*`). */
async function repairedBefore(stateDir: string): Promise<boolean> {
  for await (const e of Deno.readDir(stateDir)) {
    if (e.name.startsWith("checkpoint.msgpack.damaged-")) return true;
  }
  return false;
}
