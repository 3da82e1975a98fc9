/**
 * The common part of prediction replicas: estimators restored from a model's
 * `toReplicaState()` that predict exactly like the model and refuse to learn (the service's
 * learner thread sends replica states to the serving thread).
 *
 * @module
 */
import type { Batch, SparseVector } from "../data/types.ts";
import type { Estimator, ModelFileOptions, ModelState, TopK } from "./estimator.ts";

/**
 * A predict-only {@linkcode Estimator}: `learnMany`/`learnOne` throw a `TypeError`, and its
 * replica state is its state.
 *
 * @example
 * ```ts
 * import { PredictionReplica } from "./replica.ts";
 * class Constant extends PredictionReplica {
 *   readonly kind = "constant";
 *   readonly numFeatures = 1;
 *   readonly numLabels = 1;
 *   predictScores() { return Float32Array.of(1); }
 *   predictTopK() { return { labels: Int32Array.of(0), scores: Float32Array.of(1) }; }
 *   toModelFile() { return new Uint8Array(0); }
 *   toState() { return { kind: "constant", config: {}, scalars: { replica: 1 }, tensors: {} }; }
 * }
 * try {
 *   new Constant().learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
 * } catch (e) {
 *   console.log((e as Error).message); // constant replica: a prediction replica cannot learn (restore the learner's toState())
 * }
 * ```
 */
export abstract class PredictionReplica implements Estimator {
  /** Model family. */
  abstract readonly kind: string;
  /** Feature-space size. */
  abstract readonly numFeatures: number;
  /** Label-space size. */
  abstract readonly numLabels: number;
  /** Scores of every label, as the model the replica was taken from scored them. */
  abstract predictScores(x: SparseVector, out?: Float32Array): Float32Array;
  /** The k best labels, as the model the replica was taken from ranked them. */
  abstract predictTopK(x: SparseVector, k: number): TopK;
  /** The model file (the same file as the model's). */
  abstract toModelFile(options?: ModelFileOptions): Uint8Array;
  /** The replica state (copies). */
  abstract toState(): ModelState;

  /** A replica does not learn: always throws a `TypeError`. */
  learnMany(_batch: Batch): void {
    throw new TypeError(
      `${this.kind} replica: a prediction replica cannot learn (restore the learner's toState())`,
    );
  }

  /** A replica does not learn: always throws a `TypeError`. */
  learnOne(_x: SparseVector, _y: ArrayLike<number>): void {
    this.learnMany({} as Batch);
  }

  /** The replica state (copies). */
  toReplicaState(): ModelState {
    return this.toState();
  }
}
