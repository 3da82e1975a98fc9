/**
 * The continuous learning service: a {@linkcode StreamLearner} fed by HTTP bodies, a Redis
 * Stream consumer group and/or a followed file, with durable checkpoints (every N events, every
 * T seconds, on stop), a write-ahead log for HTTP events, exactly-once Redis acknowledgement and
 * periodic model publishing. The HTTP layer is `http_app.ts`.
 *
 * Exactly-once: the applied-event count, the stream positions (file offset, last Redis id, first
 * WAL segment not covered) and the model are written in one atomic checkpoint. Redis entries are
 * acknowledged only after the checkpoint containing their effect is durable; after a restart the
 * consumer's pending entries with ids at or below the checkpoint's last id are acknowledged
 * without being applied again, the others are applied. A rejected entry is acknowledged only once
 * its copy to the dead-letter stream is made (retried with back-off while it fails); the rejects
 * waiting for their copy are in the checkpoint, so a restart leaves their entries pending and
 * copies them (a copy made just before a crash may be made again). HTTP events are answered only
 * once they are in the fsynced write-ahead log; the log segments the checkpoint does not cover
 * are replayed on start.
 *
 * Idempotent by id: an event whose `id` is among the last `dedupWindow` distinct ids applied
 * (default 1,000,000; `id_window.ts`) is acknowledged and not applied again, whichever source
 * it comes from (an HTTP body sent again, a Redis entry added twice, a file line repeated). The
 * check is made when the event is applied — in write-ahead-log order for HTTP bodies, so two
 * bodies racing with the same ids apply them once — and the window is in the checkpoint; the
 * log replay after a crash records the replayed ids as it applies them again, so the window
 * after a restart (also after `kill -9`) is exactly the one before.
 *
 * State directory: `checkpoint.msgpack`, `model.tsm` (the last published model), `wal/`.
 *
 * Why one file of more than 500 lines: `LearningService` is one class whose ingest loops,
 * checkpoints, publishing and metrics share its private state and its one ordering queue
 * (`#enqueue`); its types (service_types.ts), the state directory's opening (open_state.ts),
 * the checkpoint files (checkpoint_chain.ts), the HTTP routes (http/) stand alone.
 *
 * @module
 */
import type { Example } from "../data/types.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { readFileIfExists, writeFileAtomic } from "./checkpoint.ts";
import { FileFollower, RefusedLineLog } from "./file_source.ts";
import { FileLines, isGzipFile } from "../data/file_lines.ts";
import type { StreamLearner, StreamPosition } from "./learner.ts";
import { checkpointBackoff } from "./checkpoint_backoff.ts";
import { CheckpointChain } from "./checkpoint_chain.ts";
import { openState } from "./open_state.ts";
import type { StreamEntry } from "./redis_client.ts";
import { type DeadLetter, DeadLetterQueue } from "./dead_letters.ts";
import { entryLine, type RedisSourceOptions, RedisStreamSource } from "./redis_source.ts";
import type { WalPosition, WriteAheadLog } from "./wal.ts";
import { concatBytes } from "../data/bytes.ts";
import { TaskYielder } from "./task_yielder.ts";
import type { ServiceHandle } from "./service_handle.ts";
import { RateMeter } from "./rate_meter.ts";
import { lineTooLong } from "./event_limits.ts";
import { GrowthRefusalLog } from "./growth_refusal_log.ts";
import { checkServiceOptions } from "./service_options.ts";
import type {
  IngestResult,
  ModelBuilder,
  PublishContext,
  PublishedModel,
  RepairReport,
  ServiceOptions,
  StorageStatus,
} from "./service_types.ts";
import { startsWithBom } from "../data/bom.ts";
import type { ParseMark } from "./events.ts";
export type * from "./service_types.ts";

const MAX_REPORTED_REJECTS = 100;

/** Longest wait of `metrics()` for the Redis group's pending count (then it reports null). */
const PENDING_WAIT_MS = 1000;

/**
 * Longest stretch of synchronous ingestion in one request before other requests get a turn.
 * 1 ms rather than 4: under mixed load (4 connections posting events, 64 asking /predict) the
 * /predict p99 halves (57 → 30 ms) at the same event throughput (wrk, bibtex, LEML).
 */
const YIELD_MS = 1;

/**
 * Longest stretch of learning from a file before a turn for the rest of the thread (a stop, the
 * checkpoint timer, requests), unless one minibatch takes longer: the file is learnt a minibatch
 * at a time. Longer than {@linkcode YIELD_MS}: a turn costs ~30 µs, 0.15% of 20 ms.
 */
const FILE_SLICE_MS = 20;

async function sha1Hex(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(d.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The default {@linkcode ModelBuilder}: the unpruned model file. */
const plainModel: ModelBuilder = {
  build: (c) => ({
    bytes: c.estimator.toModelFile({
      labelNames: c.labelNames,
      featureSpace: c.featureSpace,
      meta: c.meta,
    }),
    pruned: false,
    note: "unpruned model file",
  }),
};

/**
 * The learning service (sources, checkpoints, write-ahead log, publishing).
 *
 * @example
 * ```ts
 * import { factory } from "../models/leml/mod.ts";
 * import { LearningService } from "./service.ts";
 * const dir = await Deno.makeTempDir();
 * const s = await LearningService.open({ factory, stateDir: dir, modelOptions: { rank: 4 }, log: () => {} });
 * const r = await s.ingestBody('{"features": {"0": 1}, "labels": ["a"]}\n{"bad": 1}\n', "http");
 * console.log(r.accepted, r.rejected[0].line); // 1 2
 * await s.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class LearningService implements ServiceHandle {
  /** The options given to {@linkcode LearningService.open}. */
  readonly options: ServiceOptions;
  /** Path of the checkpoint file. */
  readonly checkpointPath: string;
  /** Path of the published model file. */
  readonly modelPath: string;
  #learner: StreamLearner;
  #log: (m: string) => void;
  #wal: WriteAheadLog | undefined;
  #published: PublishedModel | undefined;
  #progressAtCheckpoint: number;
  #appliedAtCheckpoint: number;
  /**
   * Milliseconds the last checkpoint attempt took, not counting its wait for its turn nor the file
   * loop's turns during its write (see #writeCheckpoint), and when it ended (durable, or failed).
   * Spacing: see #afterIngest.
   */
  #checkpointCostMs = 0;
  #checkpointEndMs = 0;
  /**
   * The events applied when the last checkpoint attempt (written or failed) took its snapshot, and
   * the checkpoint timer's ticks since it (the spacing after failed attempts: see #afterIngest).
   */
  #appliedAtAttempt: number;
  #ticksSinceAttempt = 0;
  /** Whether the checkpoint timer runs (`checkpointSeconds` > 0; see `start`). */
  #checkpointTimer = false;
  /** Milliseconds the file loop has held the thread, in all (see #writeCheckpoint). */
  #fileLoopMs = 0;
  #appliedAtPublish: number;
  #lastPublishMs = -Infinity;
  /** Milliseconds the last publish took (automatic publishes wait 10 times that after one). */
  #publishCostMs = 0;
  #ckWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  #ckActive = false;
  #publishing: Promise<PublishedModel> | undefined;
  #lastIngestMs = 0;
  #timers: ReturnType<typeof setInterval>[] = [];
  #stopping = false;
  #redis: RedisStreamSource | undefined;
  #unacked: string[] = [];
  /** The rejected Redis entries waiting for their dead-letter copy (with `--source redis`). */
  #deadLetters: DeadLetterQueue | undefined;
  #fileDone: Promise<void> | undefined;
  #loops: Promise<void>[] = [];
  /** The `ingestBody` calls in flight (`stop()` waits for them before its last checkpoint). */
  readonly #bodies = new Set<Promise<IngestResult>>();
  /**
   * When `open` began (`performance.now()`, and the wall clock), before the checkpoint's loading
   * and the write-ahead log's replay: `uptimeSeconds` counts from it.
   */
  #openedMs: number;
  #openedAt: number;
  /**
   * When `open` was done (state opened, log replayed, published model loaded): the events/s since
   * start count from it.
   */
  #readyMs = performance.now();
  #appliedAtStart: number;
  /** The events refused by a growth limit, on the log (HTTP, Redis) and in `/metrics`. */
  #growthRefusals: GrowthRefusalLog;
  #rate = new RateMeter();
  #yielder = new TaskYielder();
  /**
   * Applies HTTP bodies once their records are durable, in write-ahead-log order, and takes
   * checkpoint snapshots in the same order (see `#enqueue`).
   */
  #chain: Promise<unknown> = Promise.resolve();
  #walError: string | undefined;
  #checkpointError: string | undefined;
  /** The last checkpoint error logged, and the checkpoints failed since the last written. */
  #checkpointErrorLogged: string | undefined;
  #checkpointsFailed = 0;
  #storageSince: string | undefined;
  /** Events replayed from the write-ahead log when the service opened (applied). */
  readonly walReplayed: number;
  /** Write-ahead-log records replayed at open that were duplicates by id (not applied). */
  readonly walReplayedDuplicates: number;
  /** What a `--repair` start dropped (undefined: nothing was damaged). */
  readonly repairReport: RepairReport | undefined;
  /** Whether the state needs a checkpoint at start (replayed or migrated log, repair). */
  #checkpointAtStart: boolean;
  /** Checkpoints written by this process (bases and deltas). */
  checkpointsWritten = 0;
  /** The checkpoint files (a base and the deltas after it; see `checkpoint_chain.ts`). */
  #files: CheckpointChain;
  /** The last checkpoint written: a delta or a base, its bytes and milliseconds. */
  #lastCheckpoint: { delta: boolean; bytes: number; ms: number } | undefined;
  /** Deltas written by this process. */
  #checkpointDeltas = 0;
  /** Last error of a background task (checkpoint, source, publish), for `/metrics`. */
  lastError: string | undefined;

  private constructor(
    options: ServiceOptions,
    learner: StreamLearner,
    wal: WriteAheadLog | undefined,
    walReplayed: number,
    walReplayedDuplicates: number,
    repairReport: RepairReport | undefined,
    checkpointAtStart: boolean,
    opened: { ms: number; at: number },
  ) {
    this.options = options;
    this.#openedMs = opened.ms;
    this.#openedAt = opened.at;
    this.repairReport = repairReport;
    this.walReplayedDuplicates = walReplayedDuplicates;
    this.#checkpointAtStart = checkpointAtStart || walReplayed > 0 || walReplayedDuplicates > 0;
    this.checkpointPath = `${options.stateDir}/checkpoint.msgpack`;
    this.#files = new CheckpointChain(options.stateDir);
    this.modelPath = `${options.stateDir}/model.tsm`;
    this.#learner = learner;
    this.#wal = wal;
    this.walReplayed = walReplayed;
    this.#log = options.log ?? ((m) => console.error(m));
    this.#growthRefusals = new GrowthRefusalLog(this.#log);
    this.#appliedAtCheckpoint = learner.applied - walReplayed;
    this.#appliedAtAttempt = this.#appliedAtCheckpoint;
    this.#progressAtCheckpoint = this.#appliedAtCheckpoint + learner.rejected +
      learner.duplicates - walReplayedDuplicates;
    this.#appliedAtPublish = learner.applied;
    this.#appliedAtStart = learner.applied;
    learner.recentCapacity = options.validationEvents ?? 0;
  }

  /**
   * Opens the state directory: resumes from its checkpoint (or starts a new model), replays the
   * write-ahead log segments the checkpoint does not cover, and loads the published model.
   *
   * @throws {TypeError} for an unknown option key, a missing `factory` or `stateDir`, or a value
   * of the wrong type; {RangeError} for a value out of range (see `service_options.ts`): both
   * before anything is opened
   */
  static async open(options: ServiceOptions): Promise<LearningService> {
    const opened = { ms: performance.now(), at: Date.now() };
    checkServiceOptions(options);
    const st = await openState(options);
    const s = new LearningService(
      options,
      st.learner,
      st.wal,
      st.replayed,
      st.replayedDuplicates,
      st.report,
      st.checkpointAtStart,
      opened,
    );
    await s.#loadPublished();
    s.#readyMs = performance.now();
    return s;
  }
  async #loadPublished(): Promise<void> {
    const bytes = await readFileIfExists(this.modelPath);
    if (bytes === undefined) return;
    try {
      const meta = decodeModelFile(bytes).meta ?? {};
      const version = Number(meta.modelVersion ?? 0);
      const applied = Number(meta.eventsApplied ?? 0);
      const l = this.#learner;
      if (version > l.modelVersion) l.modelVersion = version;
      this.#published = {
        bytes,
        version,
        etag: `"v${version}-${await sha1Hex(bytes)}"`,
        applied,
        pruned: typeof meta.pop === "object" && meta.pop !== null && "numPrunedLabels" in meta.pop,
      };
    } catch (e) {
      this.#log(`ignoring ${this.modelPath}: ${(e as Error).message}`);
    }
  }

  /** The learner (model, vocabularies, counts). */
  get learner(): StreamLearner {
    return this.#learner;
  }

  /** Events applied so far. */
  get applied(): number {
    return this.#learner.applied;
  }

  /** The learner answering predictions: the learner itself. */
  get predictor(): StreamLearner {
    return this.#learner;
  }

  /** The last published model file, if any. */
  get published(): PublishedModel | undefined {
    return this.#published;
  }

  /** Whether {@linkcode LearningService.stop} was called. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** Seconds a 503 of the service tells the client to wait: the `retryAfterSeconds` option. */
  get retryAfterSeconds(): number {
    return this.options.retryAfterSeconds ?? 2;
  }

  /** Starts the sources and timers. Rejects when a source cannot be opened. */
  async start(): Promise<void> {
    const o = this.options;
    // checkpointEvery 0: no checkpoints of its own (a state directory nobody resumes from)
    const checkpoints = o.checkpointEvery !== 0;
    const ckMs = (o.checkpointSeconds ?? 5) * 1000;
    this.#checkpointTimer = checkpoints && ckMs > 0;
    if (this.#checkpointTimer) {
      this.#timers.push(setInterval(() => {
        // after failed attempts, every checkpointBackoff(failed)-th tick that finds it due
        if (
          this.#dirty() && this.#spacedFromLastAttempt() &&
          ++this.#ticksSinceAttempt >= checkpointBackoff(this.#checkpointsFailed)
        ) this.#backgroundCheckpoint();
      }, ckMs));
    }
    const flushMs = o.flushMs ?? 200;
    if (flushMs > 0) {
      this.#timers.push(setInterval(() => {
        const l = this.#learner;
        if (l.pendingCount > 0 && performance.now() - this.#lastIngestMs >= flushMs) l.flush();
      }, Math.max(10, Math.floor(flushMs / 2))));
    }
    // the growth refusals held back are reported even when no more come
    this.#timers.push(setInterval(() => this.#growthRefusals.tick(), 1000));
    if (checkpoints && this.#checkpointAtStart) await this.checkpoint();
    const l = this.#learner;
    if (this.#published === undefined && l.applied > 0 && (o.publishEvery ?? 5000) > 0) {
      await this.publish();
    }
    if (o.redis !== undefined) await this.#startRedis(o.redis);
    if (o.file !== undefined) {
      this.#fileDone = this.#fileLoop(o.file, o.followFile ?? true);
      this.#loops.push(this.#fileDone);
    }
  }

  /** Resolves when the file source reached the end of its file (not following). */
  async fileDone(): Promise<void> {
    await this.#fileDone;
  }

  #dirty(): boolean {
    const l = this.#learner;
    return l.applied + l.rejected + l.duplicates !== this.#progressAtCheckpoint ||
      this.#unacked.length > 0 ||
      this.#deadLetters?.changed === true ||
      this.#checkpointError !== undefined;
  }

  /** Whether the state directory takes writes (see {@linkcode StorageStatus}). */
  get storage(): StorageStatus {
    const ok = this.#walError === undefined && this.#checkpointError === undefined;
    return {
      ok,
      wal: this.#walError ?? null,
      checkpoint: this.#checkpointError ?? null,
      since: ok ? null : this.#storageSince ?? null,
    };
  }

  #storageFailed(what: "wal" | "checkpoint", e: unknown): void {
    const m = (e as Error)?.message ?? String(e);
    if (this.#walError === undefined && this.#checkpointError === undefined) {
      this.#storageSince = new Date().toISOString();
    }
    if (what === "wal") this.#walError = m;
    else this.#checkpointError = m;
  }

  /**
   * Runs `task` after every task enqueued before it (HTTP bodies waiting for their log records
   * to be durable, checkpoint snapshots): applying in log order, and a snapshot that covers
   * exactly the bodies logged in the segments before it.
   */
  #enqueue<T>(task: () => T | Promise<T>): Promise<T> {
    const run = this.#chain.then(task);
    this.#chain = run.catch(() => {});
    return run;
  }

  /**
   * Validates and applies an NDJSON body; bad lines are reported with their 1-based numbers and
   * reasons, good lines are kept. Resolves once the accepted lines are in the write-ahead log.
   */
  async ingestBody(body: Uint8Array | string, source: string): Promise<IngestResult> {
    // stop() waits for the bodies in flight (their events are kept) before its last checkpoint
    const run = this.#ingestBody(body, source);
    this.#bodies.add(run);
    try {
      return await run;
    } finally {
      this.#bodies.delete(run);
    }
  }

  async #ingestBody(body: Uint8Array | string, source: string): Promise<IngestResult> {
    const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
    const l = this.#learner;
    const parser = l.parser;
    // a BOM is dropped at the start of the body only (the decoder keeps one elsewhere: inside the
    // body it is data, and begins no valid line)
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    const maxLine = parser.maxLineBytes;
    const rejects: { line: number; reason: string }[] = [];
    let lineNo = 0, start = startsWithBom(bytes) ? 3 : 0, ignoredFields = 0;
    const reject = (reason: string) => rejects.push({ line: lineNo, reason });
    const events: Example[] = [];
    // Accepted lines go to the log as they were received, less a trailing CR: runs of
    // consecutive accepted lines are logged as one slice of the body (no copy until the write).
    const walParts: Uint8Array[] = [];
    let walBytes = 0, runStart = -1, runEnd = -1;
    const endRun = () => {
      if (runStart < 0) return;
      walParts.push(bytes.subarray(runStart, runEnd));
      walBytes += runEnd - runStart;
      runStart = -1;
    };
    // Behind other slicing tasks: this body's first slice waits for its turn too.
    if (this.#yielder.waiting > 0) await this.#yielder.yield();
    // A body that starts once stop() has begun is refused whole (503, resend it; not its lines one
    // by one: a 400 would call good events bad). One begun before is finished, logged and applied:
    // stop() waits for it (taking back names it added after a yield could undo what a checkpoint
    // taken meanwhile recorded).
    const stopped = this.#stopping;
    let sliceStart = performance.now();
    // The vocabularies' sizes before this body's first new name, and whether something else may
    // have used or recorded its names since (another parse, a checkpoint or replica snapshot
    // taken while it yielded): a body the log refuses takes its names back only when nothing did.
    let grewFrom: ParseMark | undefined;
    let namesShared = false;
    // 1. parse and validate (nothing is applied yet; new names join the vocabularies)
    while (!stopped && start < bytes.length) {
      let end = bytes.indexOf(10, start);
      if (end < 0) end = bytes.length;
      lineNo++;
      const lineStart = start;
      start = end + 1;
      let e = end;
      if (e > lineStart && bytes[e - 1] === 13) e--;
      if (e === lineStart) {
        endRun();
        continue;
      }
      if (e - lineStart > maxLine) {
        endRun();
        reject(lineTooLong(maxLine));
        continue;
      }
      const mark = parser.mark();
      let ev = parser.parseAscii(bytes, lineStart, e);
      if (ev === undefined) {
        let text: string;
        try {
          text = decoder.decode(bytes.subarray(lineStart, e));
        } catch {
          endRun();
          reject("line is not valid UTF-8");
          continue;
        }
        if (isBlankLine(text)) {
          endRun();
          continue;
        }
        const ignored0 = parser.ignoredFieldCount;
        const r = parser.parseLine(text);
        ignoredFields += parser.ignoredFieldCount - ignored0;
        if (!r.ok) {
          endRun();
          reject(r.reason);
          continue;
        }
        ev = r.event;
      }
      const refusal = l.refusal(ev);
      if (refusal !== undefined) {
        // a refused event changes nothing: the names its parse added are taken back, nor does it
        // widen what the next event may grow from
        parser.rollBack(mark);
        endRun();
        reject(refusal);
        continue;
      }
      events.push(ev);
      if (grewFrom === undefined && parser.grewSince(mark)) grewFrom = mark;
      if (e === end && end < bytes.length) {
        // the line and its newline, as received
        if (runStart < 0) runStart = lineStart;
        runEnd = end + 1;
      } else {
        endRun();
        walParts.push(bytes.subarray(lineStart, e), NEWLINE);
        walBytes += e - lineStart + 1;
      }
      // Long bodies: let other requests (e.g. /predict) in every few milliseconds.
      if ((lineNo & 31) === 0 && performance.now() - sliceStart > YIELD_MS) {
        const used = parser.namesUsed;
        await this.#yielder.yield();
        if (grewFrom !== undefined && parser.namesUsed !== used) namesShared = true;
        sliceStart = performance.now();
      }
    }
    endRun();
    const usedAfterParse = parser.namesUsed;
    if (stopped) {
      return {
        accepted: 0,
        duplicates: 0,
        rejectedCount: rejects.length,
        rejected: rejects.slice(0, MAX_REPORTED_REJECTS),
        durable: false,
        ignoredFields,
        unavailable: {
          reason: "the service is stopping; nothing of this body was applied",
          retryAfterSeconds: this.retryAfterSeconds,
        },
      };
    }
    // an empty body (or only blank lines) is a client error, not a successful no-op
    if (events.length === 0 && rejects.length === 0) {
      return {
        accepted: 0,
        duplicates: 0,
        rejectedCount: 1,
        rejected: [{ line: 1, reason: "the body holds no events (NDJSON: one JSON event a line)" }],
        durable: false,
        ignoredFields,
      };
    }
    // 2. log the accepted lines; 3. once they are durable, apply them (in log order)
    const wal = this.#wal;
    const durable = wal !== undefined && walParts.length > 0
      ? wal.append(concatBytes(walParts, walBytes))
      : undefined;
    let duplicates = 0;
    const refused = await this.#enqueue(async (): Promise<string | undefined> => {
      if (durable !== undefined) {
        try {
          await durable;
          this.#walError = undefined;
        } catch (err) {
          this.#storageFailed("wal", err);
          this.#error("write-ahead log", err);
          // nothing of the body is applied: nor do its new names stay (repeated failures would
          // fill --max-labels), unless something may have used or recorded them meanwhile
          if (grewFrom !== undefined && !namesShared && parser.namesUsed === usedAfterParse) {
            parser.rollBack(grewFrom);
          }
          return (err as Error).message;
        }
      }
      for (const r of rejects) {
        l.reject(source, r.line, r.reason);
        this.#growthRefusals.refused(source, r.reason);
      }
      let slice = performance.now();
      for (let i = 0; i < events.length; i++) {
        // the id check is made here, in log order (not at parsing): of two bodies racing with
        // the same id, the one logged first applies it; the replay then decides the same way
        if (!l.ingest(events[i])) duplicates++;
        if ((i & 31) === 31 && performance.now() - slice > YIELD_MS) {
          this.#afterIngest();
          await this.#yielder.yield();
          slice = performance.now();
        }
      }
      if (events.length > 0) this.#afterIngest();
      return undefined;
    });
    const rejected = rejects.slice(0, MAX_REPORTED_REJECTS);
    if (refused !== undefined) {
      return {
        accepted: 0,
        duplicates: 0,
        rejectedCount: rejects.length,
        rejected,
        durable: false,
        ignoredFields,
        unavailable: {
          reason:
            `the write-ahead log cannot be written (${refused}); nothing of this body was applied`,
          retryAfterSeconds: this.retryAfterSeconds,
        },
      };
    }
    return {
      accepted: events.length,
      duplicates,
      rejectedCount: rejects.length,
      rejected,
      durable: wal !== undefined && events.length > 0,
      ignoredFields,
    };
  }

  #afterIngest(): void {
    this.#lastIngestMs = performance.now();
    const o = this.options;
    const l = this.#learner;
    // Every checkpointEvery events, but not sooner than 10 times the last checkpoint's cost after
    // it: a base checkpoint is a copy of the whole learner (0.8 s at 10^6 labels; an incremental
    // one costs what changed, see checkpoint_chain.ts), and the write-ahead
    // log already makes every acknowledged event durable, so spacing them only lengthens the
    // replay after a crash, while taking one every 5000 events would stall a big model's learning
    // most of the time. At most about a tenth of the learning thread goes to checkpoints.
    // (checkpointEvery 0: none)
    // After failed attempts (a full disk), both spacings grow: see checkpoint_backoff.ts.
    const ckEvery = o.checkpointEvery ?? 5000;
    if (
      ckEvery > 0 &&
      l.applied - this.#appliedAtAttempt >= ckEvery * checkpointBackoff(this.#checkpointsFailed) &&
      this.#spacedFromLastAttempt()
    ) {
      this.#backgroundCheckpoint();
    }
    const every = o.publishEvery ?? 5000;
    if (
      every > 0 && l.applied - this.#appliedAtPublish >= every &&
      this.#publishing === undefined &&
      performance.now() - this.#lastPublishMs >=
        Math.max((o.publishMinSeconds ?? 10) * 1000, 10 * this.#publishCostMs)
    ) {
      this.publish().catch((e) => this.#error("publish", e));
    }
  }

  #error(what: string, e: unknown): void {
    this.lastError = `${what}: ${(e as Error)?.message ?? String(e)}`;
    this.#log(`error in ${this.lastError}`);
  }

  /**
   * Whether no checkpoint is being written and the last attempt, written or failed, ended at
   * least 10 times its own duration ago. (The back-off after failed attempts multiplies the event
   * count and the timer's ticks, not this: a paused Redis source waits for the timer's retry,
   * which should not grow with a slow failing write.)
   */
  #spacedFromLastAttempt(): boolean {
    return !this.#ckActive &&
      performance.now() - this.#checkpointEndMs >= 10 * this.#checkpointCostMs;
  }

  #backgroundCheckpoint(): void {
    this.checkpoint().catch((e) => {
      // a full disk fails every checkpoint alike (one every few events): logged once, then
      // again when the reason changes; the one that succeeds says how many failed
      const m = (e as Error)?.message ?? String(e);
      if (m === this.#checkpointErrorLogged) {
        this.lastError = `checkpoint: ${m}`;
        return;
      }
      this.#checkpointErrorLogged = m;
      this.#error("checkpoint", e);
    });
  }

  /**
   * Writes a checkpoint that starts after this call and resolves once it is durable and the
   * Redis entries it covers are acknowledged. Concurrent calls share checkpoints.
   */
  checkpoint(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#ckWaiters.push({ resolve, reject });
      if (!this.#ckActive) this.#runCheckpoints();
    });
  }

  async #runCheckpoints(): Promise<void> {
    this.#ckActive = true;
    try {
      while (this.#ckWaiters.length > 0) {
        const waiters = this.#ckWaiters.splice(0);
        try {
          await this.#writeCheckpoint();
          for (const w of waiters) w.resolve();
        } catch (e) {
          for (const w of waiters) w.reject(e as Error);
        }
      }
    } finally {
      this.#ckActive = false;
    }
  }

  async #writeCheckpoint(): Promise<void> {
    const l = this.#learner;
    const wal = this.#wal;
    // Bodies logged before this point are in the segments below `nextSegment`: the snapshot is
    // taken after they are applied (and before any body logged after), so it covers exactly them.
    const nextSegment = wal?.rotate();
    // The checkpoint's cost (its spacing: see #afterIngest) is its own work: from when its turn
    // in the queue comes (not the wait for it) until it is durable, less the file loop's turns
    // between the steps of its write, which goes on beside learning (a 24 kB checkpoint "took"
    // 100 ms behind the file loop's 20 ms slices, spacing the next one a second apart).
    let t0 = 0, fileLoopMs0 = 0;
    const attemptEnded = () => {
      this.#checkpointEndMs = performance.now();
      this.#checkpointCostMs = Math.max(
        0,
        this.#checkpointEndMs - (t0 || this.#checkpointEndMs) - (this.#fileLoopMs - fileLoopMs0),
      );
    };
    const snap = await this.#enqueue(() => {
      t0 = performance.now();
      fileLoopMs0 = this.#fileLoopMs;
      if (wal !== undefined && nextSegment !== undefined) {
        const p: WalPosition = { segment: nextSegment, seq: wal.startSeqOf(nextSegment) };
        l.position.wal = p;
      }
      this.#stampDeadLetters();
      // a failed attempt spaces the next one too (see #afterIngest): from its events and its end
      this.#appliedAtAttempt = l.applied;
      this.#ticksSinceAttempt = 0;
      let taken;
      try {
        taken = this.#files.take(l);
      } catch (e) {
        // the state could not be built or encoded (e.g. out of memory): no storage fault, but
        // an attempt as costly, spaced as a failed write is
        this.#checkpointsFailed++;
        attemptEnded();
        throw e;
      }
      const covered = this.#unacked;
      this.#unacked = [];
      return {
        taken,
        covered,
        applied: l.applied,
        progress: l.applied + l.rejected + l.duplicates,
      };
    });
    try {
      await this.#files.write(snap.taken);
    } catch (e) {
      this.#unacked = snap.covered.concat(this.#unacked);
      if (this.#deadLetters !== undefined) this.#deadLetters.changed = true;
      this.#storageFailed("checkpoint", e);
      this.#checkpointsFailed++;
      attemptEnded();
      throw e;
    }
    this.#checkpointError = undefined;
    if (this.#checkpointsFailed > 0) {
      const n = this.#checkpointsFailed;
      this.#log(`checkpoint written again after ${n} failed attempt${n === 1 ? "" : "s"}`);
      this.#checkpointsFailed = 0;
      this.#checkpointErrorLogged = undefined;
    }
    this.#appliedAtCheckpoint = snap.applied;
    this.#progressAtCheckpoint = snap.progress;
    this.checkpointsWritten++;
    if (snap.taken.delta) this.#checkpointDeltas++;
    attemptEnded();
    this.#lastCheckpoint = {
      delta: snap.taken.delta,
      bytes: snap.taken.bytes.length,
      ms: Math.round(this.#checkpointCostMs * 10) / 10,
    };
    if (nextSegment !== undefined) await wal!.release(nextSegment);
    if (snap.covered.length > 0 && this.#redis !== undefined) {
      // a reject whose dead-letter copy has not succeeded stays pending until it does
      const ack: string[] = [];
      for (const id of snap.covered) if (!this.#deadLetters?.hold(id)) ack.push(id);
      try {
        if (ack.length > 0) await this.#redis.ack(ack);
      } catch (e) {
        // Still pending in Redis: acknowledged at the next start (the checkpoint covers them).
        this.#error("redis ack", e);
      }
    }
  }

  /**
   * Builds and publishes a model file now (atomically written to `model.tsm` and kept in memory
   * for `GET /model`).
   */
  publish(): Promise<PublishedModel> {
    if (this.#publishing !== undefined) return this.#publishing;
    const run = this.#publish();
    this.#publishing = run;
    return run.finally(() => {
      this.#publishing = undefined;
    });
  }

  async #publish(): Promise<PublishedModel> {
    this.#lastPublishMs = performance.now();
    const l = this.#learner;
    const applied = l.applied;
    const version = l.modelVersion + 1;
    const est = l.estimator;
    const names = l.parser.labels.names;
    const labelNames = Array.from({ length: est.numLabels }, (_, i) => names[i] ?? String(i));
    const meta: Record<string, unknown> = {
      modelVersion: version,
      eventsApplied: applied,
      eventsLearned: l.learned,
      prequentialP1: finiteOrNull(l.window.precisionAt1),
      prequentialP5: finiteOrNull(l.window.precisionAt5),
      prequentialWindow: l.window.filled,
      publishedAt: new Date().toISOString(),
    };
    const context: PublishContext = {
      estimator: est,
      labelNames,
      // one count per label of the model: a model created with more labels than the stream has
      // named yet (--option numLabels) counts the unnamed ones 0
      labelCounts: countsOfEvery(l.labelCounts(), est.numLabels),
      applied,
      meta,
      validation: l.recentEvents(),
    };
    context.featureSpace = l.parser.featureSpace(est.numFeatures);
    const build = this.options.buildModel ?? plainModel;
    const { bytes, pruned, note } = await build.build(context);
    l.modelVersion = Math.max(l.modelVersion, version);
    this.#appliedAtPublish = applied;
    const etag = `"v${version}-${await sha1Hex(bytes)}"`;
    const m: PublishedModel = { bytes, version, etag, applied, pruned, note };
    await writeFileAtomic(this.modelPath, bytes);
    this.#published = m;
    this.#publishCostMs = performance.now() - this.#lastPublishMs;
    return m;
  }

  /** Events per second over about the last 5 seconds (for the progress line and `/metrics`). */
  recentRate(): number {
    return this.#rate.rate(this.#learner.applied);
  }

  /**
   * Metrics for `GET /metrics` (precision in percent; null before any event was scored).
   * `uptimeSeconds` and `startedAt`: since `open` began, before the state's loading, the
   * write-ahead log's replay and the published model's loading, which took
   * `checkpoint.openSeconds`; `eventsPerSecondSinceStart`:
   * the events applied since the service was ready (the replayed ones not counted) over the
   * seconds since then. `growth`: the growth limits in force, the vocabularies against them,
   * the events each refused since start (`refused`, by flag) and `warnings` while a vocabulary is
   * full (`GET /health` shows them).
   */
  async metrics(): Promise<Record<string, unknown>> {
    const l = this.#learner;
    const now = performance.now();
    const secs = (now - this.#readyMs) / 1000;
    const mem = Deno.memoryUsage();
    let redis: Record<string, unknown> | null = null;
    if (this.#redis !== undefined) {
      // at most PENDING_WAIT_MS: a silent Redis (its reply timeout is 10 s) would hold /metrics,
      // and /health would blame the learner for not answering
      let pending: number | null = null, timer: ReturnType<typeof setTimeout> | undefined;
      try {
        pending = await Promise.race([
          this.#redis.pending(),
          new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), PENDING_WAIT_MS)),
        ]);
      } catch {
        pending = null;
      } finally {
        clearTimeout(timer);
      }
      redis = {
        key: this.#redis.key,
        group: this.#redis.group,
        consumer: this.#redis.consumer,
        pending,
        unacked: this.#unacked.length,
        ackedOnRecovery: this.#redis.ackedOnRecovery,
        deadLetter: this.#deadLetters?.metrics() ?? null,
      };
    }
    return {
      model: l.estimator.kind,
      modelVersion: l.modelVersion,
      events: {
        applied: l.applied,
        learned: l.learned,
        queued: l.pendingCount,
        rejected: l.rejected,
        ignoredFields: l.parser.ignoredFieldCount,
      },
      // by name, as an array: field names are the clients', not Prometheus gauges
      ignoredFieldNames: Array.from(l.parser.ignoredFields, ([field, count]) => ({ field, count })),
      idDigest: l.idDigest,
      dedupWindow: {
        capacity: l.idWindow.capacity,
        ids: l.idWindow.size,
        bytes: l.idWindow.bytes,
        duplicates: l.duplicates,
      },
      lastRejects: l.lastRejects.slice(-5),
      numFeatures: l.estimator.numFeatures,
      numLabels: l.estimator.numLabels,
      prequential: {
        window: l.window.filled,
        "P@1": finiteOrNull(l.window.precisionAt1),
        "P@5": finiteOrNull(l.window.precisionAt5),
        cumulative: {
          "P@1": finiteOrNull(l.window.cumulativeP1),
          "P@5": finiteOrNull(l.window.cumulativeP5),
        },
        scored: l.window.totalScored,
      },
      eventsPerSecond: this.recentRate(),
      eventsPerSecondSinceStart: secs > 0 ? (l.applied - this.#appliedAtStart) / secs : 0,
      uptimeSeconds: (now - this.#openedMs) / 1000,
      startedAt: new Date(this.#openedAt).toISOString(),
      growth: this.#growthMetrics(),
      checkpoint: {
        applied: this.#appliedAtCheckpoint,
        written: this.checkpointsWritten,
        deltas: this.#checkpointDeltas,
        last: this.#lastCheckpoint ?? null,
        walReplayed: this.walReplayed,
        walReplayedDuplicates: this.walReplayedDuplicates,
        openSeconds: (this.#readyMs - this.#openedMs) / 1000,
      },
      redis,
      // without the rejects waiting for their dead-letter copy, which the position carries for
      // the checkpoint: clients' event lines (up to 10,000); `redis.deadLetter` counts them
      position: withoutDeadLetters(l.position),
      published: this.#published === undefined ? null : {
        version: this.#published.version,
        etag: this.#published.etag,
        bytes: this.#published.bytes.length,
        applied: this.#published.applied,
        pruned: this.#published.pruned,
        note: this.#published.note ?? null,
      },
      memory: { rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
      storage: this.storage,
      repair: this.repairReport ?? null,
      lastError: this.lastError ?? null,
    };
  }

  /** `/metrics` → `growth` (see {@linkcode LearningService.metrics}); null without limits. */
  #growthMetrics(): Record<string, unknown> | null {
    const p = this.#learner.parser;
    const g = p.growthLimits;
    if (g === undefined) return null;
    const refused = this.#growthRefusals.counts;
    const labels = p.labels.size;
    // name keys (not hashed): the feature vocabulary; index keys: the widest event so far
    const named = p.featureKeys === "name" && p.limits.hashing === undefined;
    const features = named ? p.features.size : p.mark().extent;
    const warnings: string[] = [];
    if (g.maxLabels !== undefined && labels >= g.maxLabels) {
      warnings.push(
        `the label vocabulary is full (--max-labels ${g.maxLabels} names): events with a new ` +
          `label are refused (${
            refused["--max-labels"]
          } since start); raise --max-labels at a restart`,
      );
    }
    if (named && g.maxFeatures !== undefined && features >= g.maxFeatures) {
      warnings.push(
        `the feature vocabulary is full (--max-features ${g.maxFeatures} names): events with a ` +
          `new feature are refused (${
            refused["--max-features"]
          } since start); raise --max-features at a restart`,
      );
    }
    return {
      maxLabels: g.maxLabels ?? null,
      labels,
      maxNewLabels: g.maxNewLabels ?? null,
      maxFeatures: g.maxFeatures ?? null,
      features,
      maxFeatureGrowth: g.maxFeatureGrowth ?? null,
      refused: {
        maxLabels: refused["--max-labels"],
        maxNewLabels: refused["--max-new-labels"],
        maxFeatures: refused["--max-features"],
        maxFeatureGrowth: refused["--max-feature-growth"],
      },
      warnings,
    };
  }

  // ---- Redis ----

  async #startRedis(o: RedisSourceOptions): Promise<void> {
    const src = await RedisStreamSource.connect(o);
    this.#redis = src;
    const l = this.#learner;
    const prev = l.position.redis;
    const same = prev !== undefined && prev.key === src.key && prev.group === src.group;
    const covered = same ? prev.lastId : "0-0";
    // the rejects the checkpoint holds uncopied: their entries stay pending until copied
    const kept = prev?.deadLetter ?? [];
    const dead = new DeadLetterQueue(src, {
      log: this.#log,
      error: (what, e) => this.#error(what, e),
      claimIdleMs: o.claimIdleMs ?? 60_000,
    });
    this.#deadLetters = dead;
    if (same && src.deadLetterKey !== "") dead.restore(kept);
    else if (kept.length > 0) {
      this.#log(
        `dropping the dead-letter copies of ${kept.length} rejected entries of stream ` +
          `${prev!.key} (group ${prev!.group}) that the checkpoint holds: ` +
          (src.deadLetterKey === "" ? "dead-letter copies are off" : `now reading ${src.key}`),
      );
    }
    for await (const entries of src.recover(covered, dead.held)) this.#applyEntries(entries);
    if (src.ackedOnRecovery > 0) {
      this.#log(`acknowledged ${src.ackedOnRecovery} pending entries the checkpoint covers`);
    }
    if (dead.held.size > 0) {
      this.#log(
        `${dead.held.size} rejected entries from before the restart wait for their copy to ` +
          `${src.deadLetterKey} (left pending until it is made)`,
      );
    }
    dead.start();
    this.#loops.push(this.#redisLoop(src));
  }

  #applyEntries(entries: readonly StreamEntry[]): void {
    const src = this.#redis!;
    const l = this.#learner;
    let any = false;
    const dead: DeadLetter[] = [];
    for (const e of entries) {
      const line = entryLine(e);
      if (line === undefined) {
        l.reject("redis", e.id, "entry has no 'event' field");
        dead.push({ id: e.id, line: "", reason: "entry has no 'event' field" });
      } else {
        const r = l.ingestLine(line, "redis", e.id);
        if (r.ok) any = true;
        else {
          dead.push({ id: e.id, line, reason: r.reason });
          this.#growthRefusals.refused(`redis ${src.key}`, r.reason, `entry ${e.id}`);
        }
      }
      l.position.redis = { key: src.key, group: src.group, lastId: e.id };
      this.#unacked.push(e.id);
    }
    if (dead.length > 0 && src.deadLetterKey !== "") {
      for (const r of dead) this.#deadLetters!.keep(r);
      this.#deadLetters!.start();
    }
    if (any) this.#afterIngest();
  }

  /** Records the rejects waiting for their dead-letter copy in the position a snapshot takes. */
  #stampDeadLetters(): void {
    const waiting = this.#deadLetters?.snapshot();
    const p = this.#learner.position.redis;
    if (p === undefined || this.#deadLetters === undefined) return;
    if (waiting !== undefined) p.deadLetter = waiting;
    else delete p.deadLetter;
  }

  async #redisLoop(src: RedisStreamSource): Promise<void> {
    while (!this.#stopping) {
      if (this.#checkpointError !== undefined) {
        // The state directory cannot take a checkpoint: stop reading (nothing read now could be
        // acknowledged) until one succeeds again. The checkpoint timer retries; without one
        // (--checkpoint-seconds 0) nothing else would (no event comes while the source waits):
        // this loop does, every second times the back-off after failed attempts.
        if (
          !this.#checkpointTimer && this.options.checkpointEvery !== 0 &&
          this.#spacedFromLastAttempt() &&
          performance.now() - this.#checkpointEndMs >=
            1000 * checkpointBackoff(this.#checkpointsFailed)
        ) this.#backgroundCheckpoint();
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      let entries: StreamEntry[];
      try {
        entries = await src.read();
      } catch (e) {
        if (this.#stopping) return;
        this.#error("redis read", e);
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (this.#stopping) return; // delivered but not applied: stays pending, re-read on restart
      if (entries.length > 0) this.#applyEntries(entries);
    }
  }

  // ---- file ----

  async #fileLoop(path: string, follow: boolean): Promise<void> {
    const l = this.#learner;
    const pos = l.position.file?.path === path ? l.position.file : { path, offset: 0, line: 0 };
    // a gzip file (by its content) is read once, decompressed; it cannot be followed
    const gzip = await isGzipFile(path);
    if (gzip && follow) {
      this.#error(
        `follow ${path}`,
        new TypeError(`${path} is gzip-compressed: it can be read once (--data), not followed`),
      );
      return;
    }
    const maxLineBytes = l.parser.maxLineBytes;
    const f = gzip
      ? new FileLines(path, pos, { maxLineBytes, tooLong: lineTooLong, log: this.#log })
      : new FileFollower(path, pos, { follow, maxLineBytes, log: this.#log });
    // A minibatch at a time (the lines up to the end of the learner's next minibatch, plain or
    // gzip): the position, a stop and the checkpoint-every count are seen between two (a read
    // is up to 1 MiB, a decompressed chunk up to 256 KiB: up to ~10^4 lines, seconds to minutes
    // of a slow learner), and the rest of the thread gets a turn every FILE_SLICE_MS at most.
    let slice = performance.now();
    // a followed file's refused lines on the log (a file read once: train's summary lists them)
    const refused = follow ? new RefusedLineLog(path, this.#log) : undefined;
    try {
      while (!this.#stopping) {
        let lines;
        try {
          lines = await f.next(Math.max(1, l.batchSize - l.pendingCount));
        } catch (e) {
          if (!follow) throw e;
          this.#error(`follow ${path}`, e);
          await new Promise((r) => setTimeout(r, 500));
          continue;
        }
        if (lines === null) {
          // (not awaited: the file is done, its publish goes on beside the other sources)
          this.#publishAtEnd();
          return;
        }
        const turn = performance.now();
        let any = false;
        for (const line of lines) {
          if (line.text === undefined) {
            const reason = line.error ?? "unreadable line";
            l.reject(path, line.line, reason);
            refused?.refused(line.line, reason);
          } else if (!isBlankLine(line.text)) {
            const r = l.ingestLine(line.text, path, line.line);
            if (r.ok) any = true;
            else {
              refused?.refused(line.line, r.reason);
              // counted for /metrics; the file's refused lines have their own log (or summary)
              this.#growthRefusals.refused(path, r.reason, undefined, false);
            }
          }
          l.position.file = { path, offset: line.offset, line: line.line, ino: f.ino };
        }
        refused?.tick();
        // the bytes before the last line's offset (a resume checks the file still has them)
        const tail = lines.length > 0 ? f.tail : undefined;
        if (tail !== undefined) l.position.file!.tail = tail;
        if (any) this.#afterIngest();
        // (this turn's time, which a checkpoint written meanwhile does not count as its own)
        this.#fileLoopMs += performance.now() - turn;
        if (lines.length > 0 && performance.now() - slice >= FILE_SLICE_MS) {
          await this.#yielder.yield();
          slice = performance.now();
        }
      }
    } finally {
      f.close();
      refused?.end();
    }
  }

  /**
   * At the end of a file read once (`--data`): learns the events still queued (as the idle flush
   * would) and publishes the model of every event, unless publishing is off or nothing is new
   * since the last publish. The periodic publishes hold the events up to the last multiple of
   * `publishEvery` only, and no later event would trigger another.
   */
  async #publishAtEnd(): Promise<void> {
    const l = this.#learner;
    l.flush();
    if ((this.options.publishEvery ?? 5000) === 0) return;
    try {
      // a publish in flight may have started before the file's last events: then one more
      await this.#publishing?.catch(() => {});
      if (l.applied > this.#appliedAtPublish && !this.#stopping) await this.publish();
    } catch (e) {
      this.#error("publish", e);
    }
  }

  /**
   * Stops the sources and timers, writes a final checkpoint (acknowledging what it covers) and
   * closes the write-ahead log. Queued events are saved in the checkpoint, not learned early, so
   * batches stay aligned across restarts. With `checkpointEvery: 0` no final checkpoint is
   * written (the queued events are lost with the state, which nobody resumes from), nor with
   * `{ checkpoint: false }`: the state directory keeps its last checkpoint and the write-ahead
   * log (`train`'s XC pass, interrupted or refused, saves nothing of a partial pass).
   */
  async stop(options: { checkpoint?: boolean } = {}): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    for (const t of this.#timers) clearInterval(t);
    await Promise.allSettled(this.#loops);
    await Promise.allSettled([...this.#bodies]);
    // a copy in flight ends before the last checkpoint records what still waits
    await this.#deadLetters?.stop();
    this.#growthRefusals.end();
    try {
      if (this.options.checkpointEvery !== 0 && options.checkpoint !== false) {
        await this.checkpoint();
      }
    } finally {
      await this.#publishing?.catch(() => {});
      this.options.buildModel?.close?.();
      await this.#wal?.close();
      this.#redis?.close();
      await this.#yielder.close();
    }
  }
}

const NEWLINE = Uint8Array.of(10);

/**
 * A line of JSON whitespace only (space, tab, CR), skipped as blank. Not `trim()`, which also
 * drops a U+FEFF (or a no-break space) that makes the line a bad one.
 */
function isBlankLine(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10) return false;
  }
  return true;
}

/** `position` without `redis.deadLetter` (a copy; the position itself is left as it is). */
function withoutDeadLetters(position: StreamPosition): StreamPosition {
  const redis = position.redis;
  if (redis?.deadLetter === undefined) return position;
  const { deadLetter: _, ...rest } = redis;
  return { ...position, redis: rest };
}

function finiteOrNull(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

/** `counts` with one entry per label of a model of `numLabels` labels (0 for the labels past it). */
function countsOfEvery(counts: Float64Array, numLabels: number): Float64Array {
  if (counts.length >= numLabels) return counts;
  const all = new Float64Array(numLabels);
  all.set(counts);
  return all;
}
