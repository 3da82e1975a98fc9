/**
 * Learning on its own thread: a {@linkcode LearningService} runs in a Worker (sources,
 * write-ahead log, checkpoints, publishing: everything as on one thread, so the exactly-once
 * guarantees are the same), and the serving thread answers predictions from a replica of the
 * learner that the worker refreshes.
 *
 * Why: on one thread, learning and serving share one event loop. Ingestion runs in slices that
 * let waiting requests in between them (see `task_yielder.ts`), but a `/predict` arriving
 * during a slice still waits for it: with 4 connections posting events and 64 asking
 * `/predict` (wrk, bibtex, LEML), the `/predict` p99 on one thread was 6.5-11 ms against
 * 2.3-3.7 ms without events (20-30 ms against 3.5-5 ms on a slower machine, with earlier
 * yields). With the learner on a worker, the serving thread only reads bodies, hands them over
 * and scores queries.
 *
 * Protocol (structured-clone messages):
 * - to the worker: `{op: "init", init}` once, then requests `{id, op, ...}` with `op` one of
 *   `ingest` (the body's bytes are transferred), `metrics`, `checkpoint`, `publish`, `stop`;
 *   `{op: "rebuilt", ms}` (no answer) after each replica the serving thread built or brought
 *   up to date; `{op: "resync"}` (no answer) when a delta could not be applied: the next
 *   snapshot is then a full one;
 * - from the worker: `{event: "ready", retryAfterSeconds}` (the service's option) or
 *   `{event: "failed", error}` after `init`; answers
 *   `{id, ok, value | error, applied}` (an `error` is a record of the error's class, name,
 *   message and fields, rebuilt here as the same class: a caller sees the error it would see
 *   with the service on its own thread); `{event: "closed"}` when the thread ends without being
 *   asked to (`close()`, `Deno.exit()`): it is then lost, as after an uncaught error;
 *   `{event: "snapshot", ck, names, stopping, costMs}` — the learner as a checkpoint without
 *   its queued events (its vocabularies' names packed apart in `names`: one string each, see
 *   `packNames`), sent every `snapshotMs` (default 100) while the model, counts or version
 *   change, but not sooner than 10 times the last snapshot's cost, or the last replica's
 *   rebuild time on the serving thread, after it (a big model: snapshots take at most about a
 *   tenth of the learner's time, and rebuilds about a tenth of the serving thread's), and at
 *   once after `checkpoint`/`publish`/`stop`;
 *   `{event: "published", model}` when a new model file was published.
 * - For a model with replica deltas (`beginReplicaDeltas`/`toReplicaDelta`/`applyReplicaDelta`,
 *   e.g. "ova"), a snapshot after the first full one is a delta when it can be:
 *   `{event: "snapshot", delta: true, d, stopping, costMs, bytes}` with `d` the learner's
 *   `StreamLearner.toReplicaDelta()` (the model's changes since the last snapshot, the names
 *   the vocabularies gained, the label counts that changed; its arrays transferred), which the
 *   serving thread applies to its replica in place. A full snapshot (`delta` absent; taken with
 *   `toReplicaBase()`, which restarts the delta log) comes instead when the model asks for one
 *   (a global prune, a delta not much smaller than the model) or after `resync`. A replica
 *   that fails to apply a delta or a full snapshot keeps answering as it was, records
 *   `replicaError` (cleared by the next one applied), skips the deltas already on their way and
 *   asks for a full snapshot (`resync`).
 *
 * The snapshot's model state is the model's `toReplicaState()` (the models but `knn` and
 * `popularity` have one; theirs is their full `toState()`, cloned):
 * only what prediction needs, transferred rather than cloned, and adopted by the replica without
 * a copy. LEML: W, H and the bias (and from 4096 labels the label index's calibration queries,
 * so that the replica's index calibrates as the learner's and its file's do); BR: weights and biases; CoEmbed: the inductive predictor's
 * tensors (a replica that only predicts, instead of regenerating the random Fourier directions:
 * 37-48 → 0.2 ms per rebuild on bibtex); SLEEC: the kNN-embedding model (5.6-11.5 → 0.9-2.1 ms).
 *
 * Replica: the latest full snapshot rebuilt (`StreamLearner.fromCheckpointSteps`), brought up
 * to date by the deltas since, so `/predict` answers with the model as it was one snapshot
 * interval ago, plus the time to rebuild or update it (`/metrics` → `learnerThread`:
 * `replicaApplied`, `replicas` (full snapshots applied), `replicaBuildMs`, `snapshotCostMs`,
 * `deltas` (deltas applied), `deltaBytes`, `deltaCostMs` and `deltaApplyMs` of the last one,
 * `resyncs`).
 *
 * A full rebuild never holds `/predict` up for long, whatever L: it runs in slices of about
 * `sliceMs` (1 ms) with a turn for waiting requests between them (./task_yielder.ts), the
 * previous replica answering until the new one is complete (double-buffered: nothing of the
 * replica answering changes during a rebuild); the deltas that come during one are applied to
 * the new replica before it takes over. A full snapshot that comes during a rebuild waits for it
 * (with the deltas that follow it) and is rebuilt next; a newer one replaces it (a rebuild in
 * progress is never dropped, so that the replica is refreshed however often snapshots come).
 * The label names stay packed in the replica (`Vocabulary.adoptPacked`: prediction maps
 * indices to names, never names to indices), the feature names are mapped a few at a time, and
 * the model is restored in steps when its factory has `restoreSteps` ("ova"), in one step
 * otherwise. A delta is applied in place, in one go: one of more than `maxDeltaApplyBytes`
 * (1 MiB) is not, and a full snapshot is asked for instead (`deltasTooBig`). `/metrics` →
 * `learnerThread` also has `replicaBuildWallMs` (arrival to answering), `replicaSlices`,
 * `replicaMaxSliceMs`, `rebuilding`, `replicasSuperseded`; `replicaBuildMs` is the sum of the
 * slices (what the snapshot spacing counts).
 *
 * At L = 10⁶ labels ("ova", D = 10⁶, 50 non-zeros and 5 labels a row, 150k rows learned,
 * 9.7M weights; 2 cores): a full snapshot is 86 MB (81 ms to take, 258 ms to restore the model;
 * with the 10⁶-name vocabularies 132 ms to take, 132 ms to clone and 1.7 s to rebuild, in one
 * go, before the slices and the packed names), a delta per 100 ms of learning (512 rows)
 * 2.1-2.3 MB, 15-17 ms to take and 21-23 ms to apply. Under 8 senders posting 500 events at a
 * time (bench/replica_stall.ts), the one-go rebuilds held `/predict` up to 0.96 s (4 probes
 * over 500 ms in 120k events); see the README for the sliced numbers.
 *
 * Label index (issue 15; on unless `labelIndex.enabled` is false, `serve --no-label-index`): a
 * replica of a model that can hold the model file's label index (LEML, CoEmbed) with at least
 * 4096 labels is indexed after each rebuild or delta (./replica_index.ts): the full build
 * (clustering + calibration) runs on an index worker of its own, at most once per max(1 s,
 * 10 × its cost), from a copy of the replica's rows, so it never holds `/predict` up; this thread
 * only applies the partition that comes back to its current replica, and the replicas in
 * between refresh it in O(L·r), so `/predict` answers from it with exact scores;
 * `/metrics` → `learnerThread.labelIndex` says whether the replica is indexed, what the builds
 * cost and whether one is in flight.
 *
 * Why one file of more than 500 lines: both ends of one message protocol (the worker's loop
 * and the serving thread's replica) live together so that the protocol is read in one place.
 *
 * @module
 */
import type { EstimatorFactory } from "../models/estimator.ts";
import { type LearnerCheckpoint, type ReplicaDelta, StreamLearner } from "./learner.ts";
import type { IngestResult, LearningService, PublishedModel } from "./service.ts";
import type { ServiceHandle } from "./service_handle.ts";
import { RateMeter } from "./rate_meter.ts";
import { checkIndexOptions, ReplicaIndexer, type ReplicaIndexOptions } from "./replica_index.ts";
import {
  checkOptionKeys,
  functionOption,
  isPlainObject,
  typed,
  wrongType,
} from "../data/option_check.ts";
import { factoryOption } from "./option_rules.ts";
import { type PackedNames, packNames, VocabularyError } from "../data/vocabulary.ts";
import { TaskYielder } from "./task_yielder.ts";
import { WalDamageError } from "./wal_reader.ts";
import { CheckpointDamageError } from "./checkpoint.ts";
import {
  CheckpointFieldError,
  CheckpointKindError,
  NotACheckpointError,
} from "./checkpoint_fields.ts";
import { UnreadableCheckpointError } from "./open_state.ts";
import { DamagedDeltaError } from "./checkpoint_chain.ts";
import { RedisConnectionError } from "./redis_client.ts";
import { ModelFormatError } from "../../sdk/internal.ts";

/** The worker scope's messaging (typed here: the project compiles against `deno.window`). */
interface WorkerScope {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent) => void) | null;
  addEventListener(type: string, listener: (e: Event) => void): void;
  close(): void;
}

interface Snapshot {
  event: "snapshot";
  delta?: undefined;
  /** The learner without its queued events, its vocabularies' names empty (see `names`). */
  ck: LearnerCheckpoint;
  /** The vocabularies' names, packed (one string each rather than 10⁶ to clone). */
  names?: { labels: PackedNames; features: PackedNames };
  stopping: boolean;
  /** Milliseconds the learning thread spent taking and sending it. */
  costMs: number;
}

interface DeltaSnapshot {
  event: "snapshot";
  delta: true;
  d: ReplicaDelta;
  stopping: boolean;
  /** Milliseconds the learning thread spent taking and sending it. */
  costMs: number;
  /** Bytes of its arrays and names. */
  bytes: number;
}

/** A full rebuild in progress on the serving thread. */
interface Build {
  m: Snapshot;
  /** Its number among the full snapshots received (see `#snapshotsReceived`). */
  gen: number;
  steps: Generator<void, StreamLearner, void>;
  /** `performance.now()` when the snapshot came. */
  at: number;
  /** Milliseconds of its slices so far. */
  ms: number;
  slices: number;
  maxSliceMs: number;
}

/** Names added or values restored per step of a rebuild (a step is well under a millisecond). */
const BUILD_STEP = 8192;

/** Bytes of a replica delta's arrays and names (what crosses the threads). */
function deltaBytes(d: ReplicaDelta): number {
  let n = 0;
  for (const t of Object.values(d.state.tensors)) n += t.byteLength;
  for (const name of d.features.names) n += name.length;
  for (const name of d.labels.names) n += name.length;
  return n + d.labelCounts.labels.byteLength + d.labelCounts.counts.byteLength +
    d.window.p1.byteLength + d.window.p5.byteLength;
}

interface Answer {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: ErrorRecord;
  applied: number;
}

type FromWorker =
  | Snapshot
  | DeltaSnapshot
  | Answer
  | { event: "ready"; retryAfterSeconds?: number }
  | { event: "failed"; error: ErrorRecord }
  | { event: "published"; model: PublishedModel }
  | { event: "metrics"; value: Record<string, unknown>; at: number }
  | { event: "closed" };

/**
 * An error as it crosses the threads (structured-clonable): what {@linkcode rebuildError} needs to
 * throw the same class with the same fields on the other side, so that a caller sees what it
 * would see with the service on its own thread (`instanceof`, `name`, `message`, and the data of
 * e.g. a `WalDamageError`, a `VocabularyError` or an OS error's `code`). The CLI's exit status
 * depends on the built-in class (2 for a TypeError, RangeError or SyntaxError, subclasses
 * included).
 */
interface ErrorRecord {
  /** The error's `name`. */
  name: string;
  /** The error's `message`. */
  message: string;
  /** Its class (`constructor.name`), e.g. "WalDamageError", "VocabularyError", "NotFound". */
  type: string;
  /** The built-in class it is an instance of: "TypeError", "RangeError", "SyntaxError", ... "Error". */
  base: string;
  /** Its own fields that a structured clone carries (`file`, `offset`, `reason`, `code`, ...). */
  data: Record<string, unknown>;
}

/** The built-in error classes an error record's `base` names (any other: Error). */
const BUILT_IN_ERRORS: Record<string, ErrorConstructor> = {
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

/**
 * The project's error classes that the learning thread may throw, rebuilt as themselves (Deno's
 * `Deno.errors` classes are too); another class is rebuilt as its built-in class, with its name
 * and fields.
 */
const KNOWN_ERRORS: Record<string, unknown> = {
  VocabularyError,
  WalDamageError,
  CheckpointDamageError,
  CheckpointFieldError,
  NotACheckpointError,
  CheckpointKindError,
  UnreadableCheckpointError,
  DamagedDeltaError,
  RedisConnectionError,
  ModelFormatError,
};

/** The record of an error (or of any thrown value) to send to the other thread. */
function errorRecord(e: unknown): ErrorRecord {
  const err = e as { name?: unknown; message?: unknown } | null | undefined;
  const name = typeof err?.name === "string" ? err.name : "Error";
  const message = typeof err?.message === "string" ? err.message : String(e);
  if (!(e instanceof Error)) {
    return { name, message, type: "", base: name in BUILT_IN_ERRORS ? name : "Error", data: {} };
  }
  const base = Object.keys(BUILT_IN_ERRORS).find((b) => e instanceof BUILT_IN_ERRORS[b]) ??
    "Error";
  const data: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === "message" || k === "stack") continue; // an own `name` is kept: it is one of them
    try {
      data[k] = structuredClone(v);
    } catch {
      // a field a message cannot carry is left out
    }
  }
  return { name, message, type: e.constructor?.name ?? "", base, data };
}

/** The error an {@linkcode ErrorRecord} describes: the same class, name, message and fields. */
function rebuildError(r: ErrorRecord): Error {
  const Base = BUILT_IN_ERRORS[r.base] ?? Error;
  const known = KNOWN_ERRORS[r.type] ?? (Deno.errors as Record<string, unknown>)[r.type];
  const C = typeof known === "function" && (known === Base || known.prototype instanceof Base)
    ? known
    : Base;
  // the class's prototype, built as its built-in class is (its constructor's arguments differ)
  const e: Error = r.type === "DOMException"
    ? new DOMException(r.message, r.name)
    : Reflect.construct(Base, [String(r.message)], C);
  if (e.name !== r.name) e.name = r.name;
  for (const [k, v] of Object.entries(r.data ?? {})) {
    try {
      (e as unknown as Record<string, unknown>)[k] = v;
    } catch {
      // a read-only field of the class keeps its own value
    }
  }
  return e;
}

/** What a message from the learning thread that is not an object is, for the error naming it. */
function shape(m: unknown): string {
  return m === null ? "null" : typeof m;
}

/**
 * Options of {@linkcode LearnerThread.open}.
 *
 * @example
 * ```ts
 * import type { LearnerThreadOptions } from "./learner_thread.ts";
 * import { factory } from "../models/leml/mod.ts";
 * const o: LearnerThreadOptions = {
 *   workerUrl: new URL("../cli/commands/serve_learner.ts", import.meta.url),
 *   init: ["--state-dir", "/tmp/state", "--model", "leml"],
 *   factory,
 * };
 * console.log(o.factory.kind); // "leml"
 * ```
 */
export interface LearnerThreadOptions {
  /** The worker's module: it calls {@linkcode serveLearnerThread}. */
  workerUrl: URL | string;
  /** What the worker's `open` gets (structured-clonable), e.g. the `serve` flags. */
  init: unknown;
  /** The model's factory (for the replica). */
  factory: EstimatorFactory;
  /**
   * Called once if the learning thread dies (an uncaught error): the service is then stopping
   * (`/events` answers 503) and predictions come from the last replica. `serve` logs it and
   * exits with status 1, so that a supervisor restarts it from the durable state.
   */
  onFailure?: (message: string) => void;
  /**
   * The replica's label index (see ./replica_index.ts; default: from 4096 labels, built on an
   * index worker; `enabled: false`: none).
   */
  labelIndex?: ReplicaIndexOptions;
}

/**
 * A {@linkcode LearningService} on a worker thread, seen as a {@linkcode ServiceHandle}.
 *
 * @example
 * ```ts
 * import { LearnerThread } from "./learner_thread.ts";
 * import { factory } from "../models/leml/mod.ts";
 * const dir = await Deno.makeTempDir();
 * const s = await LearnerThread.open({
 *   workerUrl: new URL("../cli/commands/serve_learner.ts", import.meta.url),
 *   init: ["--state-dir", dir, "--model", "leml", "--option", "rank=4", "--batch-size", "1"],
 *   factory,
 * });
 * const r = await s.ingestBody('{"features": {"0": 1}, "labels": ["news"]}\n', "http");
 * await s.checkpoint(); // also refreshes the replica
 * console.log(r.accepted, s.applied, s.predictor.predict({ "0": 1 }, 1).labels); // 1 1 [ "news" ]
 * await s.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class LearnerThread implements ServiceHandle {
  readonly #worker: Worker;
  readonly #factory: EstimatorFactory;
  #predictor: StreamLearner;
  #published: PublishedModel | undefined;
  #applied: number;
  #stopping = false;
  #retryAfterSeconds = 2;
  #failed: string | undefined;
  #nextId = 1;
  #calls = new Map<
    number,
    { op: string; resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  #rate = new RateMeter();
  #stopped: Promise<void> | undefined;
  /** The learning thread's last pushed metrics and when it took them (wall clock, ms). */
  #latest: { value: Record<string, unknown>; at: number } | undefined;
  /** Replicas built so far (the first one included). */
  replicas = 1;
  /**
   * Milliseconds the last replica took to rebuild on the serving thread: the sum of its slices
   * (the time it held `/predict` up, at most about {@linkcode LearnerThread.sliceMs} at a time).
   */
  replicaBuildMs = 0;
  /** Milliseconds from the last full snapshot's arrival to its replica answering. */
  replicaBuildWallMs = 0;
  /** Slices the last full rebuild took (requests are answered between them). */
  replicaSlices = 0;
  /** The longest slice of the last full rebuild (ms). */
  replicaMaxSliceMs = 0;
  /** Full snapshots dropped unbuilt because a newer one came while they waited for a rebuild. */
  replicasSuperseded = 0;
  /**
   * A full rebuild runs in slices of about this many milliseconds (its steps run until the
   * slice is over), with a turn for waiting requests between them (./task_yielder.ts); the
   * previous replica answers until the new one is complete. 0: one step per slice. (At 10⁶
   * labels under 8 senders, bench/replica_stall.ts: /predict p99 27 ms with 4 ms slices, 19.5
   * ms with 1 ms; the turns cost about 30 µs each.)
   */
  sliceMs = 1;
  /**
   * A delta of more bytes than this is not applied (in place, in one go: at 10⁶ labels about
   * 230 ns a weight, 75 ms for 3.9 MB alone, 82-137 ms for 0.4-0.5 MB under load, 7.8 MB up to
   * 1.2 s): a full snapshot, rebuilt in slices, is asked for instead (`resync`). Default 1 MiB.
   */
  maxDeltaApplyBytes = 1024 * 1024;
  /** Deltas not applied for their size (a full snapshot asked for instead). */
  deltasTooBig = 0;
  /** The full rebuild in progress (the current replica answers meanwhile). */
  #build: Build | undefined;
  /** Deltas that came during the rebuild: applied to the new replica when it is complete. */
  #queued: DeltaSnapshot[] = [];
  /**
   * A full snapshot that came during a rebuild, with the deltas that followed it: rebuilt when
   * the one in progress is complete (a newer one replaces it). The rebuild in progress is never
   * dropped, so that the replica is refreshed however often snapshots come.
   */
  #next: { m: Snapshot; gen: number; queued: DeltaSnapshot[] } | undefined;
  /** Full snapshots received, and the number of the one the replica was last rebuilt from. */
  #snapshotsReceived = 0;
  #builtGen = 0;
  /**
   * Answers to checkpoint/publish/stop held until the replica holds the full snapshot received
   * before them (`gen`).
   */
  #afterBuild: { gen: number; settle: () => void }[] = [];
  readonly #yielder = new TaskYielder();
  #yielderClosed: Promise<void> | undefined;
  /** Milliseconds the learning thread spent on the last snapshot. */
  snapshotCostMs = 0;
  /**
   * Why the last snapshot (or delta) could not be turned into a replica, if it could not
   * (cleared when one is applied again).
   */
  replicaError: string | undefined;
  /** Replica deltas applied (see the module doc). */
  deltas = 0;
  /** Bytes of the last delta applied. */
  deltaBytes = 0;
  /** Milliseconds the learning thread spent on the last delta applied. */
  deltaCostMs = 0;
  /** Milliseconds the last delta took to apply on the serving thread. */
  deltaApplyMs = 0;
  /** Full snapshots asked for because a delta (or a full snapshot) could not be applied. */
  resyncs = 0;
  /** Deltas dropped while waiting for a full snapshot after a failed one. */
  deltasSkipped = 0;
  #awaitingFull = false;
  readonly #indexer: ReplicaIndexer;
  #indexTimer: ReturnType<typeof setTimeout> | undefined;

  private constructor(
    worker: Worker,
    factory: EstimatorFactory,
    first: Snapshot,
    index: ReplicaIndexOptions = {},
  ) {
    this.#worker = worker;
    this.#factory = factory;
    const steps = StreamLearner.fromCheckpointSteps(factory, first.ck, {
      adopt: true,
      names: first.names,
    });
    let r = steps.next();
    while (!r.done) r = steps.next();
    this.#predictor = r.value;
    this.#applied = first.ck.applied;
    this.#indexer = new ReplicaIndexer(index);
    this.#indexReplica();
  }

  /** Indexes the replica (./replica_index.ts), or comes back when a full build is due. */
  #indexReplica(): void {
    if (this.#failed !== undefined) return;
    const wait = this.#indexer.update(this.#predictor.estimator);
    if (wait > 0 && this.#indexTimer === undefined) {
      this.#indexTimer = setTimeout(() => {
        this.#indexTimer = undefined;
        this.#indexReplica();
      }, wait);
    }
  }

  /**
   * Starts the worker, opens and starts its service (resume, write-ahead-log replay, sources)
   * and waits for its first snapshot. Rejects with the worker's error when it cannot open (the
   * same class, message and fields as `LearningService.open` and `start` would reject with on
   * this thread), before starting it with a TypeError or RangeError for a bad option (see
   * {@linkcode checkThreadOptions}), and with an Error saying `learner thread failed: ...` when
   * the thread dies, ends itself, or sends a message that cannot be read or a first snapshot
   * that cannot be restored (one it cannot take or send: its error, `the learner's first
   * snapshot could not be sent: ...`). The worker is ended in every case.
   */
  static open(options: LearnerThreadOptions): Promise<LearnerThread> {
    try {
      checkThreadOptions(options);
    } catch (e) {
      return Promise.reject(e);
    }
    let worker: Worker;
    try {
      worker = new Worker(options.workerUrl, { type: "module" });
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<LearnerThread>((resolve, reject) => {
      let thread: LearnerThread | undefined;
      let first: Snapshot | undefined;
      let published: PublishedModel | undefined;
      // the thread is lost (its error, or a message that cannot be read: the answer it carried
      // never comes): the calls waiting are refused, the service stops
      const lost = (message: string) => {
        if (thread === undefined) {
          worker.terminate();
          reject(new Error(message));
        } else if (thread.#failed === undefined) {
          thread.#fail(message);
          options.onFailure?.(message);
        }
      };
      worker.onerror = (e) => {
        e.preventDefault();
        lost(`learner thread failed: ${e.message}`);
      };
      worker.onmessageerror = () => {
        lost("learner thread failed: a message from it could not be read");
      };
      worker.onmessage = (e: MessageEvent<FromWorker>) => {
        const m: FromWorker = e.data;
        // whatever goes wrong with a message fails the thread: never an uncaught error on the
        // serving thread, nor an open() that waits for ever
        if (m === null || typeof m !== "object") {
          return lost(`learner thread failed: a message from it could not be read (${shape(m)})`);
        }
        if ("event" in m && m.event === "closed") {
          return lost(
            `learner thread failed: it closed itself${
              thread === undefined ? " while opening" : ""
            }`,
          );
        }
        try {
          if (thread !== undefined) return thread.#receive(m);
          if ("event" in m && m.event === "snapshot" && !m.delta) first = m;
          else if ("event" in m && m.event === "published") published = m.model;
          else if ("event" in m && m.event === "failed") {
            worker.terminate();
            reject(rebuildError(m.error));
          } else if ("event" in m && m.event === "ready") {
            if (first === undefined) {
              return lost("learner thread failed: it was ready before its first snapshot");
            }
            let t: LearnerThread;
            try {
              t = new LearnerThread(worker, options.factory, first, options.labelIndex);
            } catch (err) {
              return lost(
                `learner thread failed: its first snapshot could not be restored: ${
                  (err as Error)?.message ?? String(err)
                }`,
              );
            }
            thread = t;
            thread.#published = published;
            // the thread's service's option (2, its default, from a thread that does not say)
            if (typeof m.retryAfterSeconds === "number") {
              thread.#retryAfterSeconds = m.retryAfterSeconds;
            }
            resolve(thread);
          }
        } catch (err) {
          lost(
            `learner thread failed: a message from it could not be handled: ${
              (err as Error)?.message ?? String(err)
            }`,
          );
        }
      };
      try {
        worker.postMessage({ op: "init", init: options.init });
      } catch (e) {
        // checkThreadOptions clones it first: not expected
        worker.terminate();
        reject(e);
      }
    });
  }

  #receive(m: FromWorker): void {
    if ("id" in m) {
      this.#applied = Math.max(this.#applied, m.applied);
      const call = this.#calls.get(m.id);
      if (call === undefined) return;
      this.#calls.delete(m.id);
      const settle = () => m.ok ? call.resolve(m.value) : call.reject(rebuildError(m.error!));
      // "resolves once the replica is refreshed": the snapshot sent before the answer may still
      // be rebuilding (or wait for the one in progress)
      const gen = this.#snapshotsReceived;
      if (gen > this.#builtGen && call.op !== "ingest" && call.op !== "metrics") {
        this.#afterBuild.push({ gen, settle });
      } else settle();
      return;
    }
    if (m.event === "snapshot" && m.delta) {
      if (this.#awaitingFull) {
        this.deltasSkipped++; // sent before the worker saw the resync
        return;
      }
      if (m.bytes > this.maxDeltaApplyBytes) {
        // too big to apply in one go: a full snapshot instead, rebuilt in slices
        this.deltasTooBig++;
        this.#awaitingFull = true;
        if (this.#next !== undefined) this.#next.queued = [];
        else this.#queued = [];
        this.#worker.postMessage({ op: "resync" });
        return;
      }
      if (this.#next !== undefined) {
        this.#next.queued.push(m); // it follows the snapshot waiting to be rebuilt
        return;
      }
      if (this.#build !== undefined) {
        this.#queued.push(m); // it follows the snapshot being rebuilt
        return;
      }
      if (this.#applyDelta(this.#predictor, m)) this.#indexReplica();
    } else if (m.event === "snapshot") {
      const gen = ++this.#snapshotsReceived;
      this.#awaitingFull = false; // the deltas from now on follow this snapshot
      if (this.#build !== undefined) {
        // rebuilt once the one in progress is complete (a snapshot waiting is dropped for it)
        if (this.#next !== undefined) this.replicasSuperseded++;
        this.#next = { m, gen, queued: [] };
        return;
      }
      this.#startBuild(m, gen, []);
    } else if (m.event === "published") {
      this.#published = m.model;
    } else if (m.event === "metrics") {
      this.#latest = { value: m.value, at: m.at };
    }
  }

  /** Starts rebuilding the replica from the full snapshot `m`, then the deltas `queued`. */
  #startBuild(m: Snapshot, gen: number, queued: DeltaSnapshot[]): void {
    const steps = StreamLearner.fromCheckpointSteps(this.#factory, m.ck, {
      adopt: true,
      names: m.names,
      step: BUILD_STEP,
    });
    const b: Build = { m, gen, steps, at: performance.now(), ms: 0, slices: 0, maxSliceMs: 0 };
    this.#build = b;
    this.#queued = queued;
    this.#runBuild(b).catch((e) => this.#buildFailed(b, e));
  }

  /** Starts the snapshot that waited for the rebuild just ended, if one did. */
  #startNext(): void {
    const n = this.#next;
    if (n === undefined || this.#failed !== undefined) return;
    this.#next = undefined;
    this.#startBuild(n.m, n.gen, n.queued);
  }

  /**
   * Applies a delta to `replica` in place (in one go: see `maxDeltaApplyBytes`); false (and a
   * resync asked for) when it does not apply.
   */
  #applyDelta(replica: StreamLearner, m: DeltaSnapshot): boolean {
    const t0 = performance.now();
    try {
      replica.applyReplicaDelta(m.d);
    } catch (e) {
      // never take the serving thread down: keep answering, ask for a full snapshot
      this.replicaError = `${(e as Error)?.message ?? String(e)}`;
      this.#awaitingFull = true;
      this.#queued = [];
      this.resyncs++;
      this.#worker.postMessage({ op: "resync" });
      return false;
    }
    this.replicaError = undefined;
    this.deltaApplyMs = performance.now() - t0;
    this.#worker.postMessage({ op: "rebuilt", ms: this.deltaApplyMs });
    this.deltaCostMs = m.costMs;
    this.deltaBytes = m.bytes;
    this.deltas++;
    this.#applied = Math.max(this.#applied, m.d.applied);
    if (m.stopping) this.#stopping = true;
    return true;
  }

  /**
   * Runs a full rebuild in slices of about `sliceMs`: the first one at once (a small model's
   * rebuild is over in it, before the next message), then each after a turn for waiting
   * requests; the current replica answers until the new one is complete, then the deltas that
   * came meanwhile are applied to it and it takes over.
   */
  async #runBuild(b: Build): Promise<void> {
    while (this.#slice(b)) {
      await this.#yielder.yield();
      if (this.#build !== b || this.#failed !== undefined) return; // ended
    }
  }

  /** One slice of a rebuild; whether there is more to do. */
  #slice(b: Build): boolean {
    const t0 = performance.now();
    let r: IteratorResult<void, StreamLearner>;
    try {
      r = b.steps.next();
      while (!r.done && performance.now() - t0 < this.sliceMs) r = b.steps.next();
    } catch (e) {
      b.ms += performance.now() - t0;
      this.#buildFailed(b, e);
      return false;
    }
    const ms = performance.now() - t0;
    b.ms += ms;
    b.slices++;
    b.maxSliceMs = Math.max(b.maxSliceMs, ms);
    if (!r.done) return true;
    this.#build = undefined;
    const replica = r.value, queued = this.#queued;
    this.#queued = [];
    this.replicaError = undefined;
    // (#awaitingFull was cleared when the snapshot came: set since, a resync is on its way)
    this.replicaBuildMs = b.ms;
    this.replicaBuildWallMs = performance.now() - b.at;
    this.replicaSlices = b.slices;
    this.replicaMaxSliceMs = b.maxSliceMs;
    this.#worker.postMessage({ op: "rebuilt", ms: b.ms });
    this.snapshotCostMs = b.m.costMs;
    this.replicas++;
    this.#applied = Math.max(this.#applied, b.m.ck.applied);
    if (b.m.stopping) this.#stopping = true;
    let ok = true;
    for (const d of queued) if (ok) ok = this.#applyDelta(replica, d);
    // (a delta that did not apply left the new replica as the full snapshot made it)
    this.#predictor = replica;
    this.#builtGen = b.gen;
    this.#indexReplica();
    this.#startNext();
    this.#settleAfterBuild();
    return false;
  }

  /**
   * A full rebuild that failed: the replica answers as it was; the snapshot that waited is
   * rebuilt next, else a full snapshot is asked for. (The answers held for it are given: the
   * replica will not hold it.)
   */
  #buildFailed(b: Build, e: unknown): void {
    if (this.#build !== b) return;
    this.#build = undefined;
    this.#queued = [];
    this.#builtGen = Math.max(this.#builtGen, b.gen);
    this.replicaError = `${(e as Error)?.message ?? String(e)}`;
    this.resyncs++;
    if (this.#failed === undefined) {
      // spaced by what the failed attempt cost here, as a rebuild is
      this.#worker.postMessage({ op: "rebuilt", ms: b.ms });
      if (this.#next === undefined) {
        this.#awaitingFull = true;
        this.#worker.postMessage({ op: "resync" });
      }
    }
    this.#startNext();
    this.#settleAfterBuild();
  }

  /** Gives the answers held for a snapshot the replica now holds (all of them: `all`). */
  #settleAfterBuild(all = false): void {
    const waiting = this.#afterBuild;
    this.#afterBuild = [];
    for (const w of waiting) {
      if (all || w.gen <= this.#builtGen) w.settle();
      else this.#afterBuild.push(w);
    }
  }

  /** Whether a full rebuild is in progress (the previous replica answering meanwhile). */
  get rebuilding(): boolean {
    return this.#build !== undefined;
  }

  #fail(message: string): void {
    clearTimeout(this.#indexTimer);
    this.#indexTimer = undefined;
    this.#indexer.close();
    this.#build = undefined; // (its slices stop)
    this.#next = undefined;
    this.#queued = [];
    this.#settleAfterBuild(true);
    this.#yielderClosed ??= this.#yielder.close();
    this.#failed = message;
    this.#stopping = true;
    for (const c of this.#calls.values()) c.reject(new Error(message));
    this.#calls.clear();
    this.#worker.terminate();
  }

  #call<T>(
    op: string,
    fields: Record<string, unknown> = {},
    transfer?: Transferable[],
  ): Promise<T> {
    if (this.#failed !== undefined) return Promise.reject(new Error(this.#failed));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#calls.set(id, { op, resolve: resolve as (v: unknown) => void, reject });
      this.#worker.postMessage({ id, op, ...fields }, transfer ?? []);
    });
  }

  /** Events applied by the learning thread (as of its latest answer or snapshot). */
  get applied(): number {
    return this.#applied;
  }

  /** The replica answering predictions (see the module doc). */
  get predictor(): StreamLearner {
    return this.#predictor;
  }

  /** The last published model file, if any. */
  get published(): PublishedModel | undefined {
    return this.#published;
  }

  /** Whether the service is stopping (or the learning thread failed). */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** Seconds a 503 tells the client to wait: the learning thread's service's option. */
  get retryAfterSeconds(): number {
    return this.#retryAfterSeconds;
  }

  /** Why the learning thread failed or stopped, if it did. */
  get failure(): string | undefined {
    return this.#failed;
  }

  /** Validates and applies a body on the learning thread (the bytes are handed over). */
  ingestBody(body: Uint8Array | string, source: string): Promise<IngestResult> {
    let bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
    // Transfer the bytes when they own their buffer, copy them otherwise.
    if (bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) {
      bytes = bytes.slice();
    }
    return this.#call<IngestResult>("ingest", { bytes, source }, [bytes.buffer as ArrayBuffer]);
  }

  /**
   * The metrics the learning thread pushed last (once a second while it runs), at once, with
   * the replica's and their age (`metricsAgeSeconds`); undefined before the first push. `GET
   * /metrics` and `GET /health` answer from them: asking the thread waits for whatever it is
   * doing (a full checkpoint of a 10⁶-label model holds it 1-4 s).
   */
  latestMetrics(): Record<string, unknown> | undefined {
    const l = this.#latest;
    if (l === undefined) return undefined;
    return {
      ...l.value,
      metricsAgeSeconds: Math.max(0, Date.now() - l.at) / 1000,
      learnerThread: this.#threadMetrics(),
    };
  }

  /** The learning thread's metrics, asked now, plus the replica's: events it covers and rebuild time. */
  async metrics(): Promise<Record<string, unknown>> {
    const m = await this.#call<Record<string, unknown>>("metrics");
    this.#latest = { value: m, at: Date.now() };
    return { ...m, metricsAgeSeconds: 0, learnerThread: this.#threadMetrics() };
  }

  /** `/metrics` → `learnerThread`: the replica's side. */
  #threadMetrics(): Record<string, unknown> {
    return {
      replicaApplied: this.#predictor.applied,
      replicas: this.replicas,
      replicaBuildMs: Math.round(this.replicaBuildMs * 1000) / 1000,
      replicaBuildWallMs: Math.round(this.replicaBuildWallMs * 1000) / 1000,
      replicaSlices: this.replicaSlices,
      replicaMaxSliceMs: Math.round(this.replicaMaxSliceMs * 1000) / 1000,
      rebuilding: this.#build !== undefined,
      replicasSuperseded: this.replicasSuperseded,
      deltasTooBig: this.deltasTooBig,
      snapshotCostMs: Math.round(this.snapshotCostMs * 1000) / 1000,
      replicaError: this.replicaError ?? null,
      deltas: this.deltas,
      deltaBytes: this.deltaBytes,
      deltaCostMs: Math.round(this.deltaCostMs * 1000) / 1000,
      deltaApplyMs: Math.round(this.deltaApplyMs * 1000) / 1000,
      resyncs: this.resyncs,
      labelIndex: this.#indexer.metrics(this.#predictor.estimator),
    };
  }

  /** Writes a checkpoint now; resolves once it is durable and the replica is refreshed. */
  async checkpoint(): Promise<void> {
    await this.#call("checkpoint");
  }

  /** Builds and publishes a model file now (the replica is refreshed too). */
  async publish(): Promise<PublishedModel> {
    await this.#call("publish");
    return this.#published!;
  }

  /** Events per second over about the last 5 seconds (from the applied counts seen here). */
  recentRate(): number {
    return this.#rate.rate(this.#applied);
  }

  /** Stops the service on the learning thread (last checkpoint) and ends the thread. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#stopping = true;
      try {
        if (this.#failed === undefined) await this.#call("stop");
      } finally {
        this.#fail("the learner thread has stopped");
        await this.#yielderClosed;
      }
    })();
    return this.#stopped;
  }
}

/**
 * The worker side: call it from the worker's module with a function opening the service from
 * the `init` value. Answers the host's requests, sends snapshots (see the module doc) and keeps
 * running until `stop`.
 *
 * @example
 * ```ts
 * import { serveLearnerThread } from "./learner_thread.ts";
 * // in a worker module: serveLearnerThread((init) => LearningService.open(optionsFrom(init)));
 * console.log(typeof serveLearnerThread); // "function"
 * ```
 */
export function serveLearnerThread(
  open: (init: unknown) => Promise<LearningService>,
  options: { snapshotMs?: number; metricsMs?: number } = {},
): void {
  const scope = globalThis as unknown as WorkerScope;
  const snapshotMs = options.snapshotMs ?? 100;
  let service: LearningService | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let metricsTimer: ReturnType<typeof setInterval> | undefined;
  let sent = "";
  let sentPublished: PublishedModel | undefined;
  /** Whether `stop` was asked for (the thread then ends as expected) or "closed" was sent. */
  let ended = false;
  // A thread that ends itself (`close()`, `Deno.exit()` in a worker) raises no event on the
  // serving thread: say so, or the calls waiting (and an open() before "ready") wait for ever.
  const closed = () => {
    if (ended) return;
    ended = true;
    scope.postMessage({ event: "closed" });
  };
  scope.addEventListener("unload", closed); // Deno.exit()
  const close = scope.close.bind(scope);
  scope.close = () => { // a message posted after close() is not delivered
    closed();
    close();
  };
  // a request that cannot be read is never answered: fail the thread (the serving thread then
  // refuses the calls waiting) rather than leave its caller waiting for ever
  scope.addEventListener("messageerror", () => {
    throw new Error("a request to the learner thread could not be read");
  });
  scope.addEventListener("unhandledrejection", (e) => {
    e.preventDefault();
    const reason = (e as PromiseRejectionEvent).reason as Error;
    console.error(`[tagstream] unhandled rejection: ${reason?.message ?? String(reason)}`);
  });
  // the metrics pushed every metricsMs (default 1 s), which GET /metrics and /health answer from
  let pushing = false;
  const pushMetrics = async () => {
    if (service === undefined || pushing || ended) return;
    pushing = true;
    try {
      const value = await service.metrics();
      if (!ended) scope.postMessage({ event: "metrics", value, at: Date.now() });
    } catch {
      // the next tick tries again (a request asking for them gets the error)
    } finally {
      pushing = false;
    }
  };
  let notBefore = 0;
  let lastSentAt = 0;
  /** The serving thread asked for a full snapshot (a delta did not apply). */
  let resync = false;
  /**
   * Sends a snapshot when the learner changed since the last one (`periodic`: not before 10
   * times the last snapshot's cost, or the serving thread's last rebuild time, has passed, so
   * that snapshots and rebuilds of a big model take at most about a tenth of either thread's
   * time), and a new published model.
   */
  const update = (periodic: boolean) => {
    if (service === undefined) return;
    const p = service.published;
    if (p !== undefined && p !== sentPublished) {
      sentPublished = p;
      scope.postMessage({ event: "published", model: p });
    }
    const l = service.learner;
    const key = `${l.learned}/${l.applied}/${l.rejected}/${l.modelVersion}/${service.stopping}`;
    const t0 = performance.now();
    if (key === sent || (periodic && t0 < notBefore)) return;
    sent = key;
    // a delta when the model has them and the replica can take it, else a full snapshot
    const d = resync ? undefined : l.toReplicaDelta();
    const transfer = new Set<ArrayBuffer>();
    const own = (arrays: Iterable<unknown>) => {
      for (const t of arrays) {
        if (ArrayBuffer.isView(t) && t.buffer instanceof ArrayBuffer) transfer.add(t.buffer);
      }
    };
    if (d !== undefined) {
      // fresh arrays: hand them over instead of cloning them
      own(Object.values(d.state.tensors));
      own([d.labelCounts.labels, d.labelCounts.counts]);
      const bytes = deltaBytes(d);
      const costMs = performance.now() - t0;
      const stopping = service.stopping;
      scope.postMessage({ event: "snapshot", delta: true, d, stopping, costMs, bytes }, [
        ...transfer,
      ]);
    } else {
      resync = false;
      const { ck, owned } = l.toReplicaBase();
      // The replica state's arrays are fresh copies: hand them over instead of cloning them.
      if (owned) own(Object.values(ck.state.tensors));
      // the names as one string each: 10⁶ strings took 70-240 ms to clone on the serving thread
      const names = { labels: packNames(ck.labels.names), features: packNames(ck.features.names) };
      ck.labels = { names: [] };
      ck.features = { names: [] };
      own([names.labels.ends, names.features.ends]);
      const costMs = performance.now() - t0;
      scope.postMessage({ event: "snapshot", ck, names, stopping: service.stopping, costMs }, [
        ...transfer,
      ]);
    }
    notBefore = t0 + 10 * (performance.now() - t0);
    lastSentAt = t0;
  };
  scope.onmessage = async (e: MessageEvent) => {
    const m = e.data as {
      id?: number;
      op: string;
      init?: unknown;
      bytes?: Uint8Array;
      source?: string;
      ms?: number;
    };
    if (m.op === "resync") {
      // the next snapshot is a full one, even if the learner has not changed since
      resync = true;
      sent = "";
      return;
    }
    if (m.op === "rebuilt") {
      // the serving thread's rebuild of the snapshot sent at lastSentAt took m.ms
      notBefore = Math.max(notBefore, lastSentAt + 10 * (m.ms ?? 0));
      return;
    }
    if (m.op === "init") {
      try {
        service = await open(m.init);
        await service.start();
      } catch (err) {
        await service?.stop().catch(() => {});
        scope.postMessage({ event: "failed", error: errorRecord(err) });
        return;
      }
      try {
        update(false);
      } catch (err) {
        // without its first snapshot the serving thread cannot answer: refuse the start
        await service.stop().catch(() => {});
        const error = errorRecord(err);
        error.message = `the learner's first snapshot could not be sent: ${error.message}`;
        scope.postMessage({ event: "failed", error });
        return;
      }
      scope.postMessage({ event: "ready", retryAfterSeconds: service.retryAfterSeconds });
      timer = setInterval(() => update(true), snapshotMs);
      metricsTimer = setInterval(pushMetrics, options.metricsMs ?? 1000);
      return;
    }
    const s = service!;
    let value: unknown;
    try {
      switch (m.op) {
        case "ingest":
          value = await s.ingestBody(m.bytes!, m.source ?? "http");
          break;
        case "metrics":
          value = await s.metrics();
          break;
        case "checkpoint":
          await s.checkpoint();
          update(false);
          break;
        case "publish":
          // the model file travels once, in the "published" event sent before this answer
          await s.publish();
          update(false);
          break;
        case "stop":
          ended = true;
          clearInterval(timer);
          clearInterval(metricsTimer);
          await s.stop();
          update(false);
          break;
        default:
          throw new TypeError(`unknown learner-thread request '${m.op}'`);
      }
    } catch (err) {
      scope.postMessage({ id: m.id, ok: false, error: errorRecord(err), applied: s.applied });
      return;
    }
    try {
      scope.postMessage({ id: m.id, ok: true, value, applied: s.applied });
    } catch (err) {
      // an answer a message cannot carry: its caller is told so instead of waiting for ever
      const error = errorRecord(err);
      error.message = `the answer to '${m.op}' could not be sent: ${error.message}`;
      scope.postMessage({ id: m.id, ok: false, error, applied: s.applied });
    }
  };
}

const THREAD_KEYS = [
  "workerUrl",
  "init",
  "factory",
  "onFailure",
  "labelIndex",
] as const satisfies readonly (keyof LearnerThreadOptions)[];

/**
 * Checks the options of `LearnerThread.open` ({@linkcode LearnerThreadOptions}, its
 * `labelIndex` included) before the worker starts, and returns them.
 *
 * @throws {TypeError} for a non-object, an unknown key, a missing `workerUrl` or `factory`, a
 * value of the wrong type, or an `init` that a message cannot carry (holding a function, a
 * symbol, ...)
 * @throws {RangeError} for a `labelIndex` value out of range
 *
 * @example
 * ```ts
 * import { factory } from "../models/leml/mod.ts";
 * import { checkThreadOptions } from "./learner_thread.ts";
 * try {
 *   checkThreadOptions({ workerUrl: "./w.ts", init: [], factory, labelIndex: { minLabel: 9 } });
 * } catch (e) {
 *   console.log((e as Error).message.startsWith('LearnerThread.open: labelIndex: unknown option "minLabel"')); // true
 * }
 * ```
 */
export function checkThreadOptions(options: unknown): LearnerThreadOptions {
  const where = "LearnerThread.open";
  const o = checkOptionKeys(where, options as LearnerThreadOptions, THREAD_KEYS);
  const url = o.workerUrl;
  if (!(url instanceof URL) && (typeof url !== "string" || url === "")) {
    wrongType(where, "workerUrl", "a URL or a non-empty string", url);
  }
  factoryOption(where, o.factory);
  try {
    structuredClone(o.init); // what postMessage will do with it: refused now, before the worker
  } catch (e) {
    throw new TypeError(
      `${where}: option init must be a value a message can carry (structured-clonable): ${
        (e as Error)?.message ?? String(e)
      }`,
    );
  }
  functionOption(where, "onFailure", o.onFailure);
  typed(where, "labelIndex", o.labelIndex, "an object", isPlainObject(o.labelIndex));
  checkIndexOptions(`${where}: labelIndex`, o.labelIndex);
  return o;
}
