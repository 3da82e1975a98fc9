/**
 * Incremental checkpoints on disk: `checkpoint.msgpack` is a base (a whole learner, see
 * `StreamLearner.toCheckpointBase`) and `checkpoint.deltas/delta-<chain>-<seq>.msgpack` the
 * checkpoints after it (`StreamLearner.toCheckpointDelta`: what changed since the previous
 * one), each written atomically with the checksummed envelope of `./checkpoint.ts`. A restore
 * reads the base and applies the deltas of its chain in order.
 *
 * A checkpoint is a delta when the model has state deltas (e.g. "ova") and the deltas written
 * since the base hold less than the base (so a restore reads at most about twice the base);
 * otherwise — the first checkpoint of a process, a model without deltas, one asking for a full
 * state (a global prune), or after a failed write — it is a new base, which starts a new chain
 * and removes the old chain's deltas. At 10⁶ labels the base is 130-210 MB (0.5-2.4 s to take
 * and write under load) and a delta the size of the weights that changed since the previous
 * checkpoint (21-26 MB after 5,000 events). Under steady load at 10⁶ labels the service's spacing
 * (a tenth of the learner's time) lets gaps grow until the change log stops or a global prune
 * falls in one, so its checkpoints are bases (see the README).
 *
 * @module
 */
import type { CheckpointDelta } from "./checkpoint_delta.ts";
import { decodeCheckpoint, encodeCheckpoint, writeFileAtomic } from "./checkpoint.ts";
import { type LearnerCheckpoint, StreamLearner } from "./learner.ts";
import type { EstimatorFactory } from "../models/estimator.ts";

/**
 * The folder of the deltas, in the state directory.
 *
 * @example
 * ```ts
 * import { DELTA_DIR } from "./checkpoint_chain.ts";
 * console.log(DELTA_DIR); // "checkpoint.deltas"
 * ```
 */
export const DELTA_DIR = "checkpoint.deltas";

const NAME_RE = /^delta-([0-9a-f]{16})-(\d{8})\.msgpack$/;

/**
 * What a read-only load (an offline command's: `eval`, `inspect`, `export`, `prune --state-dir`)
 * had read when it met a damaged incremental checkpoint: the base checkpoint file, the deltas
 * applied after it, and the deltas after the damaged one (not read).
 */
export interface ReadOnlyLoad {
  /** The base checkpoint read (`DIR/checkpoint.msgpack`). */
  readonly base: string;
  /** The incremental checkpoints applied before the damaged one. */
  readonly applied: number;
  /** The incremental checkpoints after the damaged one. */
  readonly after: number;
}

/**
 * An incremental checkpoint of a state directory that cannot be read or applied, refusing the
 * start (or an offline command's read) without `repair`: the delta file and what is wrong, for a
 * command to say its own way on. The message says serve's: `REASON. Refusing to start; 'serve
 * --repair' sets it and the deltas after it aside and resumes from the checkpoint before it
 * (their events are lost)`; a read-only load's says what the reader read and refuses, and that
 * the directory's writer (`serve --repair`, or train's advice) sets the damage aside.
 *
 * @example
 * ```ts
 * import { DamagedDeltaError } from "./checkpoint_chain.ts";
 * const path = "st/checkpoint.deltas/delta-0123456789abcdef-00000002.msgpack";
 * const e = new DamagedDeltaError(path, `Cannot apply checkpoint delta ${path}: cut short`);
 * console.log(e instanceof SyntaxError, e.path === path); // true true
 * ```
 */
export class DamagedDeltaError extends SyntaxError {
  /** The delta file. */
  readonly path: string;
  /** What is wrong with it: `Cannot apply checkpoint delta PATH: ...`. */
  readonly reason: string;

  /**
   * The delta `path` that cannot be applied, and why (`reason`); `read`: found by a load that
   * starts nothing (an offline command's), having read that much.
   */
  constructor(path: string, reason: string, read?: ReadOnlyLoad, options?: ErrorOptions) {
    super(
      read === undefined
        ? `${reason}. Refusing to start; 'serve --repair' sets it and the deltas after it aside ` +
          `and resumes from the checkpoint before it (their events are lost)`
        : readerWords(reason, read),
      options,
    );
    this.name = "DamagedDeltaError";
    this.path = path;
    this.reason = reason;
  }
}

/** A damaged delta in a reader's words (see {@linkcode DamagedDeltaError}). */
function readerWords(reason: string, read: ReadOnlyLoad): string {
  const deltas = (n: number) => `${n} incremental checkpoint${n === 1 ? "" : "s"}`;
  // (`reason` names the file, or the one after a missing delta: "from this one on" holds both)
  return `${reason}. This command only reads the state directory: it read ${read.base} and the ` +
    `${deltas(read.applied)} after it, and refuses a model without the events from this one on (` +
    `this one${read.after > 0 ? ` and the ${deltas(read.after)} after it` : ""}). The ` +
    `directory's writer sets the damage aside: 'serve --repair' (it resumes from the checkpoint ` +
    `before this one; the events from this one on are lost), or train, which names the mv to run`;
}

/**
 * A checkpoint taken ({@linkcode CheckpointChain.take}) and not yet written.
 *
 * @example
 * ```ts
 * import type { ChainSnapshot } from "./checkpoint_chain.ts";
 * const s: ChainSnapshot = { bytes: new Uint8Array(0), delta: false, name: "checkpoint.msgpack" };
 * console.log(s.delta); // false
 * ```
 */
export interface ChainSnapshot {
  /** The encoded checkpoint. */
  bytes: Uint8Array;
  /** Whether it is a delta (else a base). */
  delta: boolean;
  /** Its file name in the state directory. */
  name: string;
}

/**
 * What {@linkcode CheckpointChain.load} found after the base.
 *
 * @example
 * ```ts
 * import type { ChainLoad } from "./checkpoint_chain.ts";
 * const r: ChainLoad = { applied: 0, stale: 0 };
 * console.log(r.applied); // 0
 * ```
 */
export interface ChainLoad {
  /** Deltas applied. */
  applied: number;
  /** Files of other chains (or already in the base) removed (with `readOnly`: found). */
  stale: number;
  /** When the last delta applied was written (absent: none was applied). */
  savedAt?: string;
  /** With `repair`: the damaged delta and the ones after it, moved aside, and why. */
  damaged?: { movedTo: string[]; reason: string };
}

/**
 * The base-and-deltas checkpoint files of one state directory (see the module doc).
 *
 * @example
 * ```ts
 * import { CheckpointChain } from "./checkpoint_chain.ts";
 * import { StreamLearner } from "./learner.ts";
 * import { factory, type OvaEstimator } from "../models/ova/mod.ts";
 * const dir = await Deno.makeTempDir();
 * const chain = new CheckpointChain(dir);
 * const l = StreamLearner.create(factory, { batchSize: 1 });
 * (l.estimator as OvaEstimator).stateDeltaMaxFraction = 1; // a tiny model
 * l.ingestLine('{"features": {"0": 1}, "labels": ["news"]}', "demo", 1);
 * await chain.write(chain.take(l)); // a base
 * l.ingestLine('{"features": {"1": 1}, "labels": ["sport"]}', "demo", 2);
 * const s = chain.take(l);
 * await chain.write(s); // a delta
 * const r = await CheckpointChain.restore(dir, factory);
 * console.log(s.delta, r!.learner.applied, r!.learner.predict({ "1": 1 }, 1).labels); // true 2 [ "sport" ]
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class CheckpointChain {
  /** The state directory. */
  readonly stateDir: string;
  /** Path of the base. */
  readonly basePath: string;
  #needBase = true;
  #baseBytes = 0;
  #deltaBytes = 0;
  /** Deltas written since the last base (by this process). */
  deltasSinceBase = 0;

  /** The chain of `stateDir` (nothing is read or written until asked). */
  constructor(stateDir: string) {
    this.stateDir = stateDir;
    this.basePath = `${stateDir}/checkpoint.msgpack`;
  }

  /**
   * Takes the learner's next checkpoint, synchronously (call it where the learner is
   * consistent): a delta when one can be (see the module doc), else a base.
   */
  take(l: StreamLearner): ChainSnapshot {
    if (!this.#needBase && this.#deltaBytes < this.#baseBytes) {
      const d = l.toCheckpointDelta();
      if (d !== undefined) {
        const bytes = encodeCheckpoint(d);
        return { bytes, delta: true, name: `${DELTA_DIR}/${deltaName(d.chain, d.seq)}` };
      }
    }
    return {
      bytes: encodeCheckpoint(l.toCheckpointBase()),
      delta: false,
      name: "checkpoint.msgpack",
    };
  }

  /**
   * Writes a snapshot durably. A base then removes every delta file (the old chain's); a
   * failed write makes the next checkpoint a base (the chain has a hole) and rethrows.
   */
  async write(s: ChainSnapshot): Promise<void> {
    try {
      if (s.delta) await Deno.mkdir(`${this.stateDir}/${DELTA_DIR}`, { recursive: true });
      await writeFileAtomic(`${this.stateDir}/${s.name}`, s.bytes);
    } catch (e) {
      this.#needBase = true;
      throw e;
    }
    if (s.delta) {
      this.#deltaBytes += s.bytes.length;
      this.deltasSinceBase++;
      return;
    }
    this.#needBase = false;
    this.#baseBytes = s.bytes.length;
    this.#deltaBytes = 0;
    this.deltasSinceBase = 0;
    await removeDeltas(this.stateDir, await deltaFiles(this.stateDir));
  }

  /**
   * Applies the deltas of `learner`'s chain found in `stateDir` to it, in order, and removes the
   * delta files of other chains. A delta that cannot be read or applied stops the restore: a
   * {@linkcode DamagedDeltaError} (a SyntaxError) naming the file, or, with `repair`, that delta
   * and the ones after it are moved aside (`<name>.damaged-<time>`, their events lost) and
   * reported. With `readOnly` nothing in `stateDir` is removed or moved (for the offline
   * commands, which may run beside a service).
   */
  static async load(
    stateDir: string,
    learner: StreamLearner,
    ck: LearnerCheckpoint,
    options: { repair?: boolean; at?: string; readOnly?: boolean } = {},
  ): Promise<ChainLoad> {
    if (options.readOnly && options.repair) {
      throw new TypeError("a read-only load of a checkpoint chain cannot repair it");
    }
    const files = await deltaFiles(stateDir);
    const isMine = (f: { chain: string; seq: number }) =>
      f.chain === ck.chain && f.seq > (ck.chainSeq ?? 0);
    const mine = files.filter(isMine), others = files.filter((f) => !isMine(f));
    if (!options.readOnly) await removeDeltas(stateDir, others);
    let applied = 0;
    let savedAt: string | undefined;
    for (let i = 0; i < mine.length; i++) {
      const path = `${stateDir}/${DELTA_DIR}/${mine[i].name}`;
      try {
        const expected = (ck.chainSeq ?? 0) + i + 1;
        if (mine[i].seq !== expected) {
          throw new RangeError(`delta ${expected} of the chain is missing`);
        }
        const d = decodeCheckpoint(await Deno.readFile(path)) as CheckpointDelta;
        learner.applyCheckpointDelta(d);
        applied++;
        savedAt = d.savedAt;
      } catch (e) {
        const reason = `Cannot apply checkpoint delta ${path}: ${(e as Error).message}`;
        if (!options.repair) {
          // a read-only load is an offline command's, which does not start anything
          const read = options.readOnly
            ? { base: `${stateDir}/checkpoint.msgpack`, applied, after: mine.length - i - 1 }
            : undefined;
          throw new DamagedDeltaError(path, reason, read, { cause: e });
        }
        const at = (options.at ?? new Date().toISOString()).replace(/[:.]/g, "-");
        const movedTo: string[] = [];
        for (const f of mine.slice(i)) {
          const from = `${stateDir}/${DELTA_DIR}/${f.name}`, to = `${from}.damaged-${at}`;
          await Deno.rename(from, to);
          movedTo.push(to);
        }
        return { applied, stale: others.length, savedAt, damaged: { movedTo, reason } };
      }
    }
    return { applied, stale: others.length, savedAt };
  }

  /**
   * Removes every delta file of `stateDir` (when there is no base to apply them to).
   */
  static async discardDeltas(stateDir: string): Promise<void> {
    await removeDeltas(stateDir, await deltaFiles(stateDir));
  }

  /**
   * Restores a learner from the chain of `stateDir` without a service around it (the base and
   * its deltas), or `undefined` when there is no base. For tools and tests; the service opens
   * its state with repair and write-ahead-log replay.
   */
  static async restore(
    stateDir: string,
    factory: EstimatorFactory,
    options: { readOnly?: boolean } = {},
  ): Promise<{ learner: StreamLearner; load: ChainLoad } | undefined> {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(`${stateDir}/checkpoint.msgpack`);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return undefined;
      throw e;
    }
    const ck = decodeCheckpoint(bytes) as LearnerCheckpoint;
    const learner = StreamLearner.fromCheckpoint(factory, ck);
    const load = await CheckpointChain.load(stateDir, learner, ck, options);
    return { learner, load };
  }
}

/** A delta's file name. */
function deltaName(chain: string, seq: number): string {
  return `delta-${chain}-${String(seq).padStart(8, "0")}.msgpack`;
}

/** The delta files of `stateDir`, by chain then sequence number. */
async function deltaFiles(
  stateDir: string,
): Promise<{ name: string; chain: string; seq: number }[]> {
  const out: { name: string; chain: string; seq: number }[] = [];
  try {
    for await (const e of Deno.readDir(`${stateDir}/${DELTA_DIR}`)) {
      const m = e.isFile ? NAME_RE.exec(e.name) : null;
      if (m) out.push({ name: e.name, chain: m[1], seq: Number(m[2]) });
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return out;
    throw e;
  }
  return out.sort((a, b) => a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : a.seq - b.seq);
}

/** Removes the delta files `files` (as {@linkcode deltaFiles} lists them). */
async function removeDeltas(stateDir: string, files: readonly { name: string }[]): Promise<void> {
  for (const f of files) await Deno.remove(`${stateDir}/${DELTA_DIR}/${f.name}`);
}
