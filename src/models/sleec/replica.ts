/**
 * A SLEEC prediction replica: the kNN-embedding model (centroids, regressors, embedded points
 * and their labels: what the `knn-embedding` model file holds) as an estimator that predicts
 * exactly like the streaming learner it was taken from and cannot learn. The learner's own
 * state also carries Adam's moments, the reservoir rows the SVP refresh learns from and their
 * SVP embeddings; a replica leaves them out (on bibtex about a third of the bytes to clone and
 * no per-row arrays to rebuild).
 *
 * @module
 */
import { checkModelFileOptions } from "../file_options.ts";
import { checkK, checkRow } from "../query_check.ts";
import type { SparseVector } from "../../data/types.ts";
import type { ModelFileContent, Tensor } from "../../format/types.ts";
import type { ModelFileOptions, ModelState, TopK } from "../estimator.ts";
import { PredictionReplica } from "../replica.ts";
import { checkFinite, checkScalar } from "../state_check.ts";
import { encodeKnnModel, knnModelContent, knnModelFromContent } from "./model_file.ts";
import { type KnnModel, KnnPredictor } from "./predictor.ts";

const PARAMS = ["rank", "k", "numLearners", "numClusters"] as const;

/**
 * The replica state of a kNN-embedding model (fresh flat copies of its arrays).
 *
 * @example
 * ```ts
 * import { SleecStream } from "./stream.ts";
 * import { sleecReplicaState } from "./replica.ts";
 * const m = new SleecStream({ rank: 2, firstRefresh: 1 });
 * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
 * const s = sleecReplicaState(m.knnModel());
 * console.log(s.scalars.replica, Object.keys(s.tensors).length); // 1 7
 * ```
 */
export function sleecReplicaState(model: KnnModel): ModelState {
  const content = knnModelContent(model);
  const tensors: ModelState["tensors"] = {};
  for (const [name, t] of Object.entries(content.tensors)) {
    tensors[name] = t.data as Float32Array | Int32Array;
  }
  const scalars: Record<string, number> = {
    replica: 1,
    numFeatures: model.numFeatures,
    numLabels: model.numLabels,
    weighted: model.weighted ? 1 : 0,
  };
  for (const p of PARAMS) scalars[p] = content.params[p] as number;
  if (content.params.votePower !== undefined) {
    scalars.votePower = content.params.votePower as number;
  }
  return { kind: "sleec", config: {}, scalars, tensors };
}

/**
 * Whether a SLEEC state is a replica's (see {@linkcode sleecReplicaState}).
 *
 * @example
 * ```ts
 * import { isSleecReplicaState } from "./replica.ts";
 * console.log(isSleecReplicaState({ kind: "sleec", config: {}, scalars: {}, tensors: {} })); // false
 * ```
 */
export function isSleecReplicaState(state: ModelState): boolean {
  // (no state, or one without scalars, is not one: its restore names what is missing)
  return state?.kind === "sleec" && state.scalars?.replica === 1;
}

/**
 * A predict-only SLEEC estimator over a kNN-embedding model.
 *
 * @example
 * ```ts
 * import { SleecStream } from "./stream.ts";
 * import { SleecReplica } from "./replica.ts";
 * const m = new SleecStream({ rank: 2, firstRefresh: 1 });
 * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
 * const r = SleecReplica.fromState(m.toReplicaState(), true);
 * const x = { indices: Int32Array.of(0), values: Float32Array.of(1) };
 * console.log(r.predictTopK(x, 1).labels[0], m.predictTopK(x, 1).labels[0]); // 1 1
 * ```
 */
export class SleecReplica extends PredictionReplica {
  /** Model family. */
  readonly kind = "sleec";
  readonly #predictor: KnnPredictor;

  private constructor(model: KnnModel) {
    super();
    this.#predictor = new KnnPredictor(model);
  }

  /**
   * The replica of a {@linkcode sleecReplicaState} (with `adopt`, its arrays are used as they
   * are; otherwise copied). Throws a `TypeError`/`RangeError` naming the bad entry (sizes
   * that are not non-negative integers, a float tensor that is not finite, an index out of
   * range) before anything is taken.
   */
  static fromState(state: ModelState, adopt = false): SleecReplica {
    if (!isSleecReplicaState(state)) {
      throw new TypeError("SLEEC replica: the state is not a SLEEC replica state");
    }
    const s = state.scalars;
    // the sizes size every answer (a fractional or negative count of labels would fail at the
    // first query, not here)
    checkScalar(s, "numFeatures", "SLEEC replica");
    checkScalar(s, "numLabels", "SLEEC replica");
    const tensors: Record<string, Tensor> = {};
    for (const [name, data] of Object.entries(state.tensors)) {
      if (!(data instanceof Float32Array || data instanceof Int32Array)) {
        throw new TypeError(`SLEEC replica: tensor ${name} must be a Float32Array or Int32Array`);
      }
      // centroids, V and the points: a NaN would be served (the indices are checked below)
      if (data instanceof Float32Array) checkFinite(data, name, "SLEEC replica");
      const d = adopt ? data : data.slice();
      tensors[name] = {
        dtype: d instanceof Float32Array ? "f32" : "i32",
        shape: [d.length],
        data: d,
      };
    }
    const params: Record<string, number | boolean> = { weighted: s.weighted === 1 };
    for (const p of PARAMS) params[p] = s[p];
    if (s.votePower !== undefined) params.votePower = s.votePower;
    const content: ModelFileContent = {
      kind: "knn-embedding",
      numFeatures: s.numFeatures,
      numLabels: s.numLabels,
      params,
      tensors,
    };
    // checks every parameter and tensor, naming the bad one
    return new SleecReplica(knnModelFromContent(content));
  }

  /** Feature-space size. */
  get numFeatures(): number {
    return this.#predictor.model.numFeatures;
  }

  /** Label-space size. */
  get numLabels(): number {
    return this.#predictor.model.numLabels;
  }

  /** The k best labels (as the learner it was taken from ranked them). */
  predictTopK(x: SparseVector, k: number): TopK {
    checkRow(x, "sleec replica.predictTopK");
    checkK(k, "sleec replica.predictTopK");
    return this.#predictor.topK(x.indices, x.values, k);
  }

  /** Scores of every label (as the learner it was taken from scored them). */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "sleec replica.predictScores");
    return this.#predictor.scores(x.indices, x.values, out);
  }

  /** The `knn-embedding` model file (the same file as the learner's). */
  toModelFile(options: ModelFileOptions = {}): Uint8Array {
    checkModelFileOptions(options, "sleec.toModelFile");
    return encodeKnnModel(this.#predictor.model, options);
  }

  /** The replica state (copies). */
  toState(): ModelState {
    return sleecReplicaState(this.#predictor.model);
  }
}
