/**
 * The learner's data types: its options, position in the sources, rejects, the checkpoint object
 * and the replica delta (`./learner.ts` re-exports them).
 *
 * @module
 */
import type { ModelState } from "../models/estimator.ts";
import type { VocabularyJSON } from "../data/vocabulary.ts";
import type { EventLimits, LineResult } from "./events.ts";
import type { PrequentialState } from "../metrics/prequential.ts";
import type { IdWindowState } from "./id_window.ts";

/**
 * Where the learner is in its sources; saved in the same checkpoint as the model.
 *
 * @example
 * ```ts
 * import type { StreamPosition } from "./learner.ts";
 * const p: StreamPosition = { redis: { key: "ev", group: "g", lastId: "5-0" }, wal: { segment: 3 } };
 * console.log(p.redis?.lastId); // "5-0"
 * ```
 */
export interface StreamPosition {
  /**
   * File source (`--follow`, or `--data` and its gzip): path, byte offset after the last
   * applied line (decompressed bytes for gzip), that line's number, the
   * file's inode (a resume whose file has another inode reads it from its start; absent in older
   * checkpoints: not checked) and `tail`, the last bytes before the offset in hex (a resume whose
   * file has other bytes there, truncated and written again, reads it from its start; absent:
   * not checked).
   */
  file?: { path: string; offset: number; line: number; ino?: number | null; tail?: string };
  /**
   * Redis stream: id of the last applied entry, and `deadLetter`, the rejected entries whose
   * copy to the dead-letter stream has not succeeded yet (oldest first; the entry's id, its
   * event line, "" when it had no `event` field, and why it was rejected): a restart copies them,
   * and their entries stay pending until it does. Absent: none waits.
   */
  redis?: {
    key: string;
    group: string;
    lastId: string;
    deadLetter?: { id: string; line: string; reason: string }[];
  };
  /** Write-ahead log of HTTP events: the first segment NOT covered by the checkpoint. */
  wal?: { segment: number };
}

/**
 * Options of {@linkcode StreamLearner.create}.
 *
 * @example
 * ```ts
 * import type { LearnerOptions } from "./learner.ts";
 * const o: LearnerOptions = { batchSize: 64, windowSize: 500, modelOptions: { rank: 16 } };
 * console.log(o.batchSize); // 64
 * ```
 */
export interface LearnerOptions {
  /** Events per learned minibatch (default 32). Batches are cut at multiples of this count. */
  batchSize?: number;
  /** Prequential window length (default 1000). */
  windowSize?: number;
  /** Event validation limits and key mode. */
  limits?: EventLimits;
  /** Options passed to `factory.create` (seed, rank, initial sizes, ...). */
  modelOptions?: Record<string, unknown>;
  /** Initial label names (index order), e.g. a dataset's label list. */
  labelNames?: readonly string[];
  /** Initial feature names (name mode only). */
  featureNames?: readonly string[];
  /**
   * Event ids remembered for deduplication (default 1,000,000; 0: off): an event whose id is
   * among the last this many distinct ids applied is not applied again (see `id_window.ts`).
   */
  dedupWindow?: number;
}

/**
 * What {@linkcode StreamLearner.ingestLine} did with a line: the parse result, and
 * `duplicate: true` when the event was valid but its id was already applied within the
 * deduplication window (it was not applied again).
 *
 * @example
 * ```ts
 * import type { IngestLineResult } from "./learner.ts";
 * const r: IngestLineResult = { ok: false, reason: "malformed JSON" };
 * console.log(r.ok); // false
 * ```
 */
export type IngestLineResult = LineResult & { readonly duplicate?: boolean };

/**
 * One rejected line, as reported by `/metrics` and the `/events` answer.
 *
 * @example
 * ```ts
 * import type { Reject } from "./learner.ts";
 * const r: Reject = { source: "http", line: 3, reason: "malformed JSON" };
 * console.log(r.line); // 3
 * ```
 */
export interface Reject {
  /** Where it came from ("http", "redis", a file path). */
  source: string;
  /** 1-based line number within its request or file, or the Redis entry id. */
  line: number | string;
  /** Why it was rejected. */
  reason: string;
}

/** The `format` of a {@linkcode LearnerCheckpoint}. */
export const CHECKPOINT_FORMAT = "tagstream-checkpoint";
/** The checkpoint `version` this code writes and reads. */
export const CHECKPOINT_VERSION = 1;

/**
 * The checkpoint object written by {@linkcode StreamLearner.toCheckpoint} (encode it with
 * `encodeCheckpoint` from `./checkpoint.ts`).
 *
 * @example
 * ```ts
 * import type { LearnerCheckpoint } from "./learner.ts";
 * function applied(c: LearnerCheckpoint): number { return c.applied; }
 * console.log(typeof applied); // "function"
 * ```
 */
export interface LearnerCheckpoint {
  /** Always `tagstream-checkpoint`. */
  format: string;
  /** Checkpoint format version (1). */
  version: number;
  /** The model's kind (`leml`, `br`, ...). */
  kind: string;
  /** The learner's batch size, prequential window and event limits. */
  options: { batchSize: number; windowSize: number; limits: EventLimits };
  /** The model's state (`Estimator.toState`, or `toReplicaState` in a replica's snapshot). */
  state: ModelState;
  /** Feature vocabulary (name keys). */
  features: VocabularyJSON;
  /** Label vocabulary. */
  labels: VocabularyJSON;
  /** Events applied but not yet learned (waiting for their minibatch). */
  pending: {
    id?: string;
    indices: Int32Array;
    values: Float32Array;
    labels: Int32Array;
    negatives?: Int32Array;
  }[];
  /** Events applied. */
  applied: number;
  /** Events learned. */
  learned: number;
  /** Lines rejected. */
  rejected: number;
  /** Order-independent digest of the applied events' ids (see {@linkcode StreamLearner.idDigest}). */
  idDigest: [number, number];
  /**
   * The deduplication window (the last distinct ids applied, hashed; see `id_window.ts`).
   * Absent in a replica's snapshot and in checkpoints of older versions (an empty window).
   */
  ids?: IdWindowState;
  /** Events not applied because their id was in the window (absent: 0). */
  duplicates?: number;
  /** Positive count of each label among the applied events. */
  labelCounts: Float64Array;
  /** The prequential window. */
  window: PrequentialState;
  /** Position in the sources, covering every applied event. */
  position: StreamPosition;
  /** Version of the last published model file. */
  modelVersion: number;
  /** When it was taken (ISO 8601). */
  savedAt: string;
  /**
   * In a replica's snapshot: the replica sequence number it is at (the `base` of the next
   * {@linkcode ReplicaDelta}; see {@linkcode StreamLearner.toReplicaDelta}).
   */
  replicaSeq?: number;
  /**
   * The chain of incremental checkpoints this checkpoint is part of (see
   * {@linkcode StreamLearner.toCheckpointBase}), and its sequence number in it: the deltas of the
   * same chain from `chainSeq` on apply to it. Absent before the first base.
   */
  chain?: string;
  /** See `chain`. */
  chainSeq?: number;
}

/** The `format` of a {@linkcode ReplicaDelta}. */
export const DELTA_FORMAT = "tagstream-replica-delta";

/**
 * What changed in a learner since its last replica snapshot or delta
 * ({@linkcode StreamLearner.toReplicaDelta}), for {@linkcode StreamLearner.applyReplicaDelta}:
 * the model's delta, the names the vocabularies gained, the label counts that changed, and the
 * counters, window, position and version (small) as they are now.
 *
 * @example
 * ```ts
 * import type { ReplicaDelta } from "./learner.ts";
 * function newLabels(d: ReplicaDelta): string[] { return d.labels.names; }
 * console.log(typeof newLabels); // "function"
 * ```
 */
export interface ReplicaDelta extends LearnerDelta {
  /** Always `tagstream-replica-delta`. */
  format: string;
}

/**
 * What a learner delta — a {@linkcode ReplicaDelta} or an incremental checkpoint
 * (`CheckpointDelta`, ./checkpoint_delta.ts) — holds: the model's delta, the names the
 * vocabularies gained, the label counts that changed, and the small parts as they are now.
 *
 * @example
 * ```ts
 * import type { LearnerDelta } from "./learner_types.ts";
 * const follows = (d: LearnerDelta) => `${d.base} -> ${d.seq}`;
 * console.log(typeof follows); // "function"
 * ```
 */
export interface LearnerDelta {
  /** The model's kind. */
  kind: string;
  /** The sequence number it applies to. */
  base: number;
  /** The sequence number after it. */
  seq: number;
  /** The model's delta (`toReplicaDelta()` or `toStateDelta()`). */
  state: ModelState;
  /** Feature names added since the vocabulary size `from`. */
  features: { from: number; names: string[] };
  /** Label names added since the vocabulary size `from`. */
  labels: { from: number; names: string[] };
  /** The labels whose count changed (increasing), and their counts now. */
  labelCounts: { labels: Int32Array; counts: Float64Array };
  /** Events applied. */
  applied: number;
  /** Events learned. */
  learned: number;
  /** Lines rejected. */
  rejected: number;
  /** Digest of the applied events' ids. */
  idDigest: [number, number];
  /** The prequential window. */
  window: PrequentialState;
  /** Position in the sources. */
  position: StreamPosition;
  /** Version of the last published model file. */
  modelVersion: number;
}
