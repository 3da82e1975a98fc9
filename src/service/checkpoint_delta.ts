/**
 * The incremental checkpoint: what changed in a learner since the previous checkpoint of its
 * chain (see `StreamLearner.toCheckpointBase`, `toCheckpointDelta` and `applyCheckpointDelta`
 * in `./learner.ts`, and the files in `./checkpoint_chain.ts`).
 *
 * @module
 */
import type { ModelState } from "../models/estimator.ts";
import type { PrequentialState } from "../metrics/prequential.ts";
import type { IdWindowState } from "./id_window.ts";
import type { LearnerCheckpoint, StreamPosition } from "./learner.ts";

/**
 * The `format` field of a {@linkcode CheckpointDelta}.
 *
 * @example
 * ```ts
 * import { CHECKPOINT_DELTA_FORMAT } from "./checkpoint_delta.ts";
 * console.log(CHECKPOINT_DELTA_FORMAT); // "tagstream-checkpoint-delta"
 * ```
 */
export const CHECKPOINT_DELTA_FORMAT = "tagstream-checkpoint-delta";

/**
 * One incremental checkpoint: the model's state delta (`Estimator.toStateDelta`), the names the
 * vocabularies gained, the label counts that changed and the ids the deduplication window
 * gained since the previous checkpoint of the chain; the small parts whole.
 *
 * @example
 * ```ts
 * import type { CheckpointDelta } from "./checkpoint_delta.ts";
 * const follows = (d: CheckpointDelta) => `${d.chain}:${d.base} -> ${d.seq}`;
 * console.log(typeof follows); // "function"
 * ```
 */
export interface CheckpointDelta {
  /** Always {@linkcode CHECKPOINT_DELTA_FORMAT}. */
  format: string;
  /** The model's kind. */
  kind: string;
  /** The chain (the `chain` of its base checkpoint). */
  chain: string;
  /** The chain sequence number it applies to. */
  base: number;
  /** The chain sequence number after it. */
  seq: number;
  /** The model's `toStateDelta()`. */
  state: ModelState;
  /** Feature names added since the vocabulary size `from`. */
  features: { from: number; names: string[] };
  /** Label names added since the vocabulary size `from`. */
  labels: { from: number; names: string[] };
  /** The labels whose count changed (increasing), and their counts now. */
  labelCounts: { labels: Int32Array; counts: Float64Array };
  /** Events applied but not yet learned (whole). */
  pending: LearnerCheckpoint["pending"];
  /** Events applied. */
  applied: number;
  /** Events learned. */
  learned: number;
  /** Lines rejected. */
  rejected: number;
  /** Events not applied because their id was in the deduplication window. */
  duplicates: number;
  /** Digest of the applied events' ids. */
  idDigest: [number, number];
  /**
   * The deduplication window: the hashes of the ids it gained (oldest first), or, when it
   * gained more than it holds, the whole window.
   */
  ids: { hashes?: Uint32Array; window?: IdWindowState };
  /** The prequential window. */
  window: PrequentialState;
  /** Position in the sources, covering every applied event. */
  position: StreamPosition;
  /** Version of the last published model file. */
  modelVersion: number;
  /** When it was taken (ISO 8601). */
  savedAt: string;
}
