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
import {
  type ArrayClass,
  checkFinite,
  checkScalar,
  checkStateKind,
  requireTensor,
} from "../state_check.ts";
import { SLEEC_SETTINGS } from "./config.ts";
import { encodeKnnModel, knnModelContent, knnModelFromContent } from "./model_file.ts";
import { type KnnModel, KnnPredictor } from "./predictor.ts";

const PARAMS = ["rank", "k", "numLearners", "numClusters"] as const;
/** Where a replica state's damage is named. */
const WHERE = "SLEEC replica";

/**
 * The last entry of a row pointer, checked to start at 0 and never decrease (the next tensor's
 * length comes from it).
 */
function pointerEnd(ptr: Int32Array, name: string): number {
  if (ptr[0] !== 0) throw new RangeError(`${WHERE}: ${name}[0] = ${ptr[0]}, not 0`);
  for (let i = 1; i < ptr.length; i++) {
    if (!(ptr[i] >= ptr[i - 1])) {
      throw new RangeError(`${WHERE}: ${name}[${i}] = ${ptr[i]} is below ${name}[${i - 1}]`);
    }
  }
  return ptr[ptr.length - 1];
}

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
   * are; otherwise copied). Every value is checked before anything is taken, with the shared
   * rules of ../state_check.ts: no state or one of another kind, a missing scalar, or a tensor
   * missing or of another array class is a `TypeError`; a size or parameter that is not an
   * integer in its range, a tensor of another length than the sizes give, a float tensor that
   * is not finite, a pointer that decreases or an index out of range is a `RangeError` naming
   * the field.
   */
  static fromState(state: ModelState, adopt = false): SleecReplica {
    checkStateKind(state, "sleec", WHERE);
    if (!isSleecReplicaState(state)) {
      throw new TypeError(`${WHERE}: the state is not a SLEEC replica state`);
    }
    const s = state.scalars;
    // the sizes size every answer (a fractional or negative count of labels would fail at the
    // first query, not here), and with the parameters every tensor
    const D = checkScalar(s, "numFeatures", WHERE);
    const L = checkScalar(s, "numLabels", WHERE);
    const r = checkScalar(s, "rank", WHERE, 1, SLEEC_SETTINGS.specs.rank.max);
    checkScalar(s, "k", WHERE, 1);
    checkScalar(s, "numLearners", WHERE, 1);
    const C = checkScalar(s, "numClusters", WHERE);
    const tensors: Record<string, Tensor> = {};
    const take = <T extends Float32Array | Int32Array>(
      name: string,
      type: ArrayClass<T>,
      length: number,
      lengthOf: string,
    ): T => {
      const data = requireTensor(state.tensors, name, type, WHERE, length, lengthOf);
      // centroids, V and the points: a NaN would be served (the indices are checked by
      // knnModelFromContent)
      if (data instanceof Float32Array) checkFinite(data, name, WHERE);
      const d = adopt ? data : data.slice() as T;
      tensors[name] = {
        dtype: d instanceof Float32Array ? "f32" : "i32",
        shape: [d.length],
        data: d,
      };
      return d;
    };
    take("centroids", Float32Array, C * D, `[numClusters, numFeatures] = ${C} × ${D}`);
    take("clusterLearner", Int32Array, C, `[numClusters] = ${C}`);
    take("V", Float32Array, C * D * r, `[numClusters · numFeatures, rank] = ${C * D} × ${r}`);
    const pointPtr = take("pointPtr", Int32Array, C + 1, `[numClusters + 1] = ${C + 1}`);
    const P = pointerEnd(pointPtr, "pointPtr");
    take("points", Float32Array, P * r, `[pointPtr[${C}], rank] = ${P} × ${r}`);
    const labelPtr = take("labelPtr", Int32Array, P + 1, `[pointPtr[${C}] + 1] = ${P + 1}`);
    const n = pointerEnd(labelPtr, "labelPtr");
    take("labels", Int32Array, n, `[labelPtr[${P}]] = ${n}`);
    const params: Record<string, number | boolean> = { weighted: s.weighted === 1 };
    for (const p of PARAMS) params[p] = s[p];
    if (s.votePower !== undefined) params.votePower = s.votePower;
    const content: ModelFileContent = {
      kind: "knn-embedding",
      numFeatures: D,
      numLabels: L,
      params,
      tensors,
    };
    // checks the rest (cluster learners and labels in range, votePower), naming the bad one
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
