/**
 * The incremental checkpoint: what changed in a learner since the previous checkpoint of its
 * chain (see `StreamLearner.toCheckpointBase`, `toCheckpointDelta` and `applyCheckpointDelta`
 * in `./learner.ts`, and the files in `./checkpoint_chain.ts`).
 *
 * @module
 */
import type { IdWindowState } from "./id_window.ts";
import type { LearnerCheckpoint, LearnerDelta } from "./learner_types.ts";

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
export interface CheckpointDelta extends LearnerDelta {
  /** Always {@linkcode CHECKPOINT_DELTA_FORMAT}. */
  format: string;
  /** The chain (the `chain` of its base checkpoint). */
  chain: string;
  /** Events applied but not yet learned (whole). */
  pending: LearnerCheckpoint["pending"];
  /** Events not applied because their id was in the deduplication window. */
  duplicates: number;
  /**
   * The deduplication window: the hashes of the ids it gained (oldest first), or, when it
   * gained more than it holds, the whole window.
   */
  ids: { hashes?: Uint32Array; window?: IdWindowState };
  /** When it was taken (ISO 8601). */
  savedAt: string;
}
