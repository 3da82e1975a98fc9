/**
 * The River-shaped estimator contract every Tagstream model implements.
 *
 * @module
 */
import type { Batch, SparseVector } from "../data/types.ts";
import type { FeatureSpace } from "../format/types.ts";
import type { TopK } from "../../sdk/mod.ts";
import type { ModelSettings } from "./settings.ts";

// the top-k answer is the SDK's (labels best first, ties by the smaller label; their scores)
export type { TopK } from "../../sdk/mod.ts";

/**
 * Serialisable full training state of a model (for checkpoints): a JSON-able config plus named
 * typed arrays. Restoring it must give a model that continues learning exactly as the original.
 *
 * @example
 * ```ts
 * import type { ModelState } from "./estimator.ts";
 * const s: ModelState = { kind: "br", config: { lambda: 0.01 }, scalars: { step: 3 }, tensors: { w: new Float32Array(4) } };
 * console.log(s.kind); // "br"
 * ```
 */
export interface ModelState {
  /** The model family that wrote it (its factory's kind). */
  readonly kind: string;
  /** JSON-able configuration. */
  readonly config: Record<string, unknown>;
  /** Scalar state (sizes, step counters, RNG state). */
  readonly scalars: Record<string, number>;
  /** Array state, copied. */
  readonly tensors: Record<string, Float32Array | Float64Array | Int32Array | Uint8Array>;
}

/**
 * A multi-label estimator.
 *
 * Rules: learning never mutates its inputs; prediction never mutates the model; the same seed
 * and the same data give the same model; new features and labels (indices at or beyond the
 * current sizes) grow the model.
 *
 * @example
 * ```ts
 * import type { Estimator } from "./estimator.ts";
 * function top1(m: Estimator, x: { indices: Int32Array; values: Float32Array }): number {
 *   return m.predictTopK(x, 1).labels[0] ?? -1;
 * }
 * console.log(typeof top1); // "function"
 * ```
 */
export interface Estimator {
  /** Model family, e.g. "leml", "sleec", "coembed", "br". */
  readonly kind: string;
  /** Current feature-space size. */
  readonly numFeatures: number;
  /** Current label-space size. */
  readonly numLabels: number;
  /** Learns from a minibatch. */
  learnMany(batch: Batch): void;
  /** Learns from one example; `y` lists the positive labels. */
  learnOne(x: SparseVector, y: ArrayLike<number>): void;
  /** The k best labels for `x`. */
  predictTopK(x: SparseVector, k: number): TopK;
  /**
   * Scores of every label for `x` (length `numLabels`), written into `out` when given.
   * Used by evaluation (AUC, Hamming loss: a label counts as predicted when its score is > 0).
   */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array;
  /** Inference-only model file (see docs/model-format.md). */
  toModelFile(options?: ModelFileOptions): Uint8Array;
  /** Full training state for checkpoints. */
  toState(): ModelState;
  /**
   * Optional: why `learnMany` would refuse a row with features `x` under this model's settings
   * (e.g. a raw value past what its loss or optimiser can learn), or undefined when it would
   * learn it. Reads `x` only. The service asks before it accepts an event, so that it never
   * accepts one it cannot learn.
   */
  learnRefusal?(x: SparseVector): string | undefined;
  /**
   * Optional: what the user of the model as learned so far should know and would not see
   * otherwise, in a sentence naming the model and the setting (e.g. knn's `k` above the rows it
   * stored: each query votes over all of them), or undefined when there is nothing to say. Shown as
   * `note` by `tagstream train`'s summary and by `eval --state-dir` and `inspect --state-dir`; it
   * changes nothing of the model.
   */
  trainingNote?(): string | undefined;
  /**
   * Optional: the state of a prediction replica — only what prediction needs (no optimizer
   * moments, no replay rows), as fresh arrays the caller owns (they may be transferred to
   * another thread). `factory.restore(state, { adopt: true })` of it predicts exactly like this
   * model. The service's learner thread sends these to the serving thread.
   */
  toReplicaState?(): ModelState;
  /**
   * Optional (with {@linkcode Estimator.toReplicaDelta} and
   * {@linkcode Estimator.applyReplicaDelta}): starts (or restarts) logging what learning
   * changes, at O(1) per changed parameter, so that replicas built from a `toReplicaState()`
   * taken right after this call can be kept up to date at the cost of the changes instead of a
   * copy of the whole model (the service's learner thread does so for big models).
   */
  beginReplicaDeltas?(): void;
  /**
   * Optional: what changed since `beginReplicaDeltas()` or the previous delta, as a state
   * (`scalars.delta = 1`; fresh arrays the caller owns) for `applyReplicaDelta`; clears the
   * log. `undefined` when a full `toReplicaState()` is needed instead (logging not begun, a
   * change touching most of the model, or a delta that would not be much smaller than the full
   * replica state); logging then stops until the next `beginReplicaDeltas()`.
   */
  toReplicaDelta?(): ModelState | undefined;
  /**
   * Optional: applies a `toReplicaDelta()` to this replica (restored from `toReplicaState()`
   * and the deltas before it) in place, so that it predicts exactly like the model did when it
   * made the delta. Checks the delta first (a RangeError naming the problem, the replica
   * unchanged).
   */
  applyReplicaDelta?(delta: ModelState): void;
  /**
   * Optional (with {@linkcode Estimator.toStateDelta} and
   * {@linkcode Estimator.applyStateDelta}): starts (or restarts) logging what learning changes
   * for incremental checkpoints, independently of the replica's log; take the full `toState()`
   * right after this call.
   */
  beginStateDeltas?(): void;
  /**
   * Optional: what changed since `beginStateDeltas()` or the previous state delta — everything
   * `applyStateDelta` needs to rebuild this exact training state (optimiser sums, counts,
   * generators) from the previous one; clears the log. `undefined` when a full `toState()` is
   * needed instead; logging then stops until the next `beginStateDeltas()`.
   */
  toStateDelta?(): ModelState | undefined;
  /**
   * Optional: applies a `toStateDelta()` to this model (restored from the `toState()` taken at
   * `beginStateDeltas()`, and the state deltas before it) in place, so that it is the model that
   * made the delta and learns on exactly as it would. Checks the delta first.
   */
  applyStateDelta?(delta: ModelState): void;
}

/**
 * Options for {@linkcode Estimator.toModelFile}.
 *
 * @example
 * ```ts
 * import type { ModelFileOptions } from "./estimator.ts";
 * const o: ModelFileOptions = { labelNames: ["a", "b"], quantize: "f16" };
 * console.log(o.quantize); // "f16"
 * ```
 */
export interface ModelFileOptions {
  /** Label names, in label-index order (one per label). */
  labelNames?: readonly string[];
  /** Feature names, in column order: the file's feature space becomes a vocabulary. */
  featureNames?: readonly string[];
  /**
   * The feature space instead of `featureNames`, e.g. the hashing parameters of the
   * `FeatureHasher` that produced the model's columns (`hasher.featureSpace()`), so the SDK maps
   * named features the same way.
   */
  featureSpace?: FeatureSpace;
  /** Storage of the float tensors (default f32). */
  quantize?: "f32" | "f16" | "i8";
  /** Training metadata and metrics (JSON-able). */
  meta?: Record<string, unknown>;
  /**
   * Preprocessing the pipeline applied to rows before the model saw them (recorded in the file
   * so the SDK applies it to raw rows; `idf` is required when `tfidf` is set).
   */
  preprocess?: { tfidf?: boolean; l2Normalize?: boolean; idf?: Float32Array };
}

/**
 * How the CLI, the service and the shared estimator checks create and restore a model.
 * Each `src/models/<model>/mod.ts` exports one as `factory`.
 *
 * @example
 * ```ts
 * import type { EstimatorFactory } from "./estimator.ts";
 * function kindOf(f: EstimatorFactory): string { return f.kind; }
 * console.log(typeof kindOf);
 * ```
 */
export interface EstimatorFactory {
  /** Name used on the command line: "leml", "sleec", "coembed", "br". */
  readonly kind: string;
  /**
   * The model's declared settings (see ./settings.ts): what `create` accepts, with
   * defaults and ranges. `create` validates its options against them (an unknown key or a bad
   * value is an error naming the key and what is allowed); callers that only keep options for
   * later (a service resuming from a checkpoint) can check them with `settings.resolve`.
   */
  readonly settings?: ModelSettings<object>;
  /**
   * A new streaming estimator. `numFeatures`/`numLabels` are initial sizes (the model grows when
   * batches are larger); other options are model-specific and optional (defaults must work).
   * The options are checked against `settings`: an unknown key or a bad value is an error
   * naming it, and a string value (the command line's) is parsed by the declared kind.
   */
  create(
    options: { seed?: number; numFeatures?: number; numLabels?: number } & Record<string, unknown>,
  ): Estimator;
  /**
   * Rebuilds an estimator from {@linkcode Estimator.toState}, bit-for-bit. With `adopt`, the
   * estimator may keep the state's typed arrays instead of copying them (the caller gives them
   * up); factories without zero-copy restore ignore it. The state is checked before anything
   * of it is taken (./state_check.ts): a value the model never writes — a weight that is not
   * finite, a negative second moment, a count that is not a non-negative integer, sizes past
   * the limits, a replay row past the sizes — is a RangeError naming the field (a TypeError
   * for a value of the wrong type).
   */
  restore(state: ModelState, options?: { adopt?: boolean }): Estimator;
}
