/**
 * The types of the learning service's contract: its options, what a model builder gets and
 * returns when the service publishes, what an ingested body gives back, the storage status and
 * the repair report (the service itself: `./service.ts`, which re-exports them).
 *
 * @module
 */
import type { Example } from "../data/types.ts";
import type { Estimator, EstimatorFactory } from "../models/estimator.ts";
import type { FeatureSpace } from "../format/types.ts";
import type { LearnerOptions } from "./learner_types.ts";
import type { RedisSourceOptions } from "./redis_source.ts";
import type { WalLoss } from "./wal.ts";
import type { GrowthLimits } from "./events.ts";

/**
 * What a model-file builder gets when the service publishes: the model, the vocabularies'
 * names, the label counts of the applied events and the latest labelled events (for POP's
 * validation; empty unless `validationEvents` is set), plus the metadata to record.
 *
 * @example
 * ```ts
 * import type { PublishContext } from "./service.ts";
 * function size(c: PublishContext): number { return c.estimator.numLabels; }
 * console.log(typeof size); // "function"
 * ```
 */
export interface PublishContext {
  /** The model. */
  estimator: Estimator;
  /** Label names in label-index order. */
  labelNames: string[];
  /** The feature space the model file declares (vocabulary names or hashing parameters). */
  featureSpace?: FeatureSpace;
  /** Positive count of each label among the applied events. */
  labelCounts: Float64Array;
  /** Events applied. */
  applied: number;
  /** Metadata to record in the file. */
  meta: Record<string, unknown>;
  /** The latest labelled events (POP's validation rows). */
  validation: readonly Example[];
}

/**
 * Builds the published model files (`note` of the result: a one-line remark, e.g. why it was
 * not pruned); `close` releases its resources when the service stops. The default writes the
 * unpruned `toModelFile()`.
 *
 * @example
 * ```ts
 * import type { ModelBuilder } from "./service.ts";
 * const plain: ModelBuilder = {
 *   build: (c) => ({
 *     bytes: c.estimator.toModelFile({ labelNames: c.labelNames, meta: c.meta }),
 *     pruned: false,
 *     note: "unpruned",
 *   }),
 * };
 * console.log(typeof plain.build); // "function"
 * ```
 */
export interface ModelBuilder {
  /** Builds the model file of `context`. */
  build(context: PublishContext): BuiltModel | Promise<BuiltModel>;
  /** Releases the builder's resources (e.g. its worker). */
  close?(): void;
}

/**
 * What a {@linkcode ModelBuilder} returns.
 *
 * @example
 * ```ts
 * import type { BuiltModel } from "./service.ts";
 * const b: BuiltModel = { bytes: new Uint8Array(0), pruned: false, note: "empty" };
 * console.log(b.pruned); // false
 * ```
 */
export interface BuiltModel {
  /** The model file. */
  bytes: Uint8Array;
  /** Whether it was POP-pruned. */
  pruned: boolean;
  /** A one-line remark (e.g. why it was not pruned). */
  note?: string;
}

/**
 * Options of {@linkcode LearningService.open}.
 *
 * @example
 * ```ts
 * import type { ServiceOptions } from "./service.ts";
 * import { factory } from "../models/leml/mod.ts";
 * const o: ServiceOptions = { factory, stateDir: "/tmp/ts", checkpointEvery: 1000 };
 * console.log(o.checkpointEvery); // 1000
 * ```
 */
export interface ServiceOptions extends LearnerOptions {
  /** Model factory. */
  factory: EstimatorFactory;
  /** Directory of `checkpoint.msgpack`, `model.tsm` and `wal/` (created when missing). */
  stateDir: string;
  /**
   * Checkpoint after this many applied events (default 5000). 0: never on its own (not every N
   * events, nor every `checkpointSeconds`, nor at start or stop; `checkpoint()` still writes
   * one), for a state directory nobody resumes from: needs `wal: false` and no `redis`.
   */
  checkpointEvery?: number;
  /** Checkpoint at least this often while events arrive, in seconds (default 5). */
  checkpointSeconds?: number;
  /** Publish a model file after this many applied events (default 5000; 0: never). */
  publishEvery?: number;
  /** Seconds at least between two automatic publishes (default 10). */
  publishMinSeconds?: number;
  /** Learn a partial batch after this many idle milliseconds (default 200; 0: never). */
  flushMs?: number;
  /** Consume a Redis Stream. */
  redis?: RedisSourceOptions;
  /** Read an NDJSON file from the checkpointed offset. */
  file?: string;
  /** Keep following `file` for appended lines (default true); false: stop at its end. */
  followFile?: boolean;
  /** Log HTTP events to a write-ahead log before answering (default true). */
  wal?: boolean;
  /** Builds published model files (default: the unpruned model file). */
  buildModel?: ModelBuilder;
  /** Latest labelled events kept for the builder's validation (default 0). */
  validationEvents?: number;
  /** Log lines (default: stderr). */
  log?: (message: string) => void;
  /**
   * Start despite a damaged write-ahead log or checkpoint: drop the damaged part, log and save
   * (`repair-<time>.json` in the state directory) exactly what was lost. Default false: refuse
   * to start with an error naming the file and offset.
   */
  repair?: boolean;
  /** Bounds on the growth of the model by new events (see `GrowthLimits` in `events.ts`). */
  growth?: GrowthLimits;
  /** `Retry-After` seconds of a 503 while the state directory cannot be written (default 2). */
  retryAfterSeconds?: number;
}

/**
 * What a `--repair` start dropped (also saved as `repair-<time>.json` in the state directory).
 *
 * @example
 * ```ts
 * import type { RepairReport } from "./service.ts";
 * function lost(r: RepairReport): number { return r.eventsLost; }
 * console.log(typeof lost); // "function"
 * ```
 */
export interface RepairReport {
  /** When the repair ran (ISO 8601). */
  at: string;
  /** The damaged checkpoint, moved aside (its model and every event it covered are lost). */
  checkpoint?: { movedTo: string; reason: string };
  /**
   * A damaged incremental checkpoint and the ones after it, moved aside: the service resumed
   * from the checkpoint before them (the events they covered and the write-ahead log had
   * released are lost, and counted in the `wal` losses as missing records).
   */
  checkpointDeltas?: { movedTo: string[]; reason: string };
  /** Dropped or missing write-ahead-log records. */
  wal: WalLoss[];
  /** Events lost (records dropped or missing; not counting a dropped checkpoint's). */
  eventsLost: number;
}

/**
 * Why the state directory cannot take writes right now (a full disk, an I/O error): `/events`
 * answers 503 with `Retry-After`, `/health` reports it, the Redis source stops reading and
 * acknowledging.
 *
 * @example
 * ```ts
 * import type { StorageStatus } from "./service.ts";
 * const s: StorageStatus = { ok: false, wal: "No space left on device (os error 28)", checkpoint: null, since: "2026-01-01T00:00:00.000Z" };
 * console.log(s.ok); // false
 * ```
 */
export interface StorageStatus {
  /** Whether the last write-ahead-log append and the last checkpoint both succeeded. */
  ok: boolean;
  /** The last write-ahead-log failure, until an append succeeds again. */
  wal: string | null;
  /** The last checkpoint failure, until a checkpoint succeeds again. */
  checkpoint: string | null;
  /** Since when (ISO 8601), or null. */
  since: string | null;
}

/**
 * A published model file.
 *
 * @example
 * ```ts
 * import type { PublishedModel } from "./service.ts";
 * function tag(m: PublishedModel): string { return m.etag; }
 * console.log(typeof tag); // "function"
 * ```
 */
export interface PublishedModel {
  /** The model file. */
  readonly bytes: Uint8Array;
  /** Model version (1, 2, ...). */
  readonly version: number;
  /** The `ETag` of `GET /model`. */
  readonly etag: string;
  /** Applied events when it was built. */
  readonly applied: number;
  /** Whether the file was POP-pruned. */
  readonly pruned: boolean;
  /** The builder's remark (e.g. why it was not pruned). */
  readonly note?: string;
}

/**
 * Answer to an ingested body: accepted count (of which `duplicates` were already applied),
 * rejected lines (the first 100 with reasons) and whether the accepted events are durable (in
 * the write-ahead log).
 *
 * @example
 * ```ts
 * import type { IngestResult } from "./service.ts";
 * const r: IngestResult = { accepted: 2, duplicates: 1, rejectedCount: 1, rejected: [{ line: 3, reason: "x" }], durable: true };
 * console.log(r.accepted - r.duplicates, r.rejected[0].line); // 1 3
 * ```
 */
export interface IngestResult {
  /** Lines accepted (valid; applied, or acknowledged as duplicates). */
  accepted: number;
  /**
   * Accepted events not applied again: their id was already applied within the deduplication
   * window (earlier, or earlier in the same body).
   */
  duplicates: number;
  /** Lines rejected. */
  rejectedCount: number;
  /** The first 100 rejected lines: 1-based line number and reason. */
  rejected: { line: number; reason: string }[];
  /** Whether the accepted lines are in the write-ahead log. */
  durable: boolean;
  /**
   * Unknown fields (e.g. timestamps) ignored in the body's lines, accepted or rejected for
   * another reason (see `EventParser.ignoredFieldCount`); 0 when none.
   */
  ignoredFields?: number;
  /**
   * Set when the body was refused because the write-ahead log could not be written (a full
   * disk) or the service was stopping: nothing of it was applied; retry after
   * `retryAfterSeconds` (`/events`: 503).
   */
  unavailable?: { reason: string; retryAfterSeconds: number };
}
