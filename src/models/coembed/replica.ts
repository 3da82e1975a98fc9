/**
 * A CoEmbed prediction replica: the inductive predictor's tensors (what the `random-features`
 * model file holds) as an {@linkcode Estimator} that predicts exactly like the learner it was
 * taken from and cannot learn. The service's learner thread sends these to the serving thread:
 * rebuilding a full learner there regenerated the random Fourier directions from their seed
 * (37-48 ms for bibtex at 700 directions), a replica adopts them (well under a millisecond).
 * A replica can hold the model file's label index over P and bias (issue 15,
 * {@linkcode CoEmbedReplica.indexLabels}): it never learns, so the index stays valid.
 *
 * @module
 */
import { checkModelFileOptions } from "../file_options.ts";
import { checkK, checkProbes, checkRow } from "../query_check.ts";
import type { SparseVector } from "../../data/types.ts";
import { encodeModelFile } from "../../format/model_file.ts";
import { topKDense } from "../../../sdk/internal.ts";
import type { ModelFileOptions, ModelState, TopK } from "../estimator.ts";
import { PredictionReplica } from "../replica.ts";
import { checkFinite, checkScalar, checkStateKind, requireTensor } from "../state_check.ts";
import { predictorFileContent } from "./learner.ts";
import { restoredConfig } from "./settings.ts";
import { type PredictorTensors, RandomFeaturesPredictor, scoreOverflow } from "./predictor.ts";
import {
  LabelIndex,
  type LabelIndexBuildOptions,
  type LabelIndexInput,
  type TopKQueryOptions,
} from "../label_index.ts";

/** Marks a CoEmbed state as a replica's (`scalars.replica`). */
const REPLICA = 1;
const VARIANTS = ["L", "NL"] as const;
const ABSENT = ["zero", "missing"] as const;
const INPUTS = ["projected", "raw"] as const;
const ARRAYS = ["Q", "P", "bias", "V", "W"] as const;
/** Where a replica state's damage is named. */
const WHERE = "CoEmbed replica";

/**
 * The replica state of predictor tensors (fresh copies when `copy`, else the arrays
 * themselves), with the kernel's γ.
 *
 * @example
 * ```ts
 * import { CoEmbedEstimator } from "./estimator.ts";
 * import { replicaState } from "./replica.ts";
 * const m = CoEmbedEstimator.create({ variant: "L", seed: 1 }, 3, 2);
 * const s = replicaState(m.core.predictorTensors(), m.config.gamma, true);
 * console.log(s.kind, s.scalars.replica, Object.keys(s.tensors).join()); // coembed 1 Q,P,bias,V
 * ```
 */
export function replicaState(t: PredictorTensors, gamma: number, copy: boolean): ModelState {
  const tensors: Record<string, Float32Array> = {};
  for (const name of ARRAYS) {
    const a = t[name];
    if (a !== undefined) tensors[name] = copy ? a.slice() : a;
  }
  return {
    kind: "coembed",
    config: {
      variant: t.variant,
      absent: t.absent,
      input: t.input,
      gamma,
      lambdaX: t.lambdaX,
    },
    scalars: {
      replica: REPLICA,
      numFeatures: t.numFeatures,
      numLabels: t.numLabels,
      rankS: t.rankS,
      rankX: t.rankX,
      numRff: t.numRff,
    },
    tensors,
  };
}

/**
 * Whether a CoEmbed state is a replica's (see {@linkcode replicaState}).
 *
 * @example
 * ```ts
 * import { isReplicaState } from "./replica.ts";
 * console.log(isReplicaState({ kind: "coembed", config: {}, scalars: {}, tensors: {} })); // false
 * ```
 */
export function isReplicaState(state: ModelState): boolean {
  // (no state, or one without scalars, is not one: its restore names what is missing)
  return state?.kind === "coembed" && state.scalars?.replica === REPLICA;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], field: string): T {
  if (!allowed.includes(v as T)) {
    throw new TypeError(
      `${WHERE}: config.${field} is ${JSON.stringify(v)}, expected one of ${allowed.join(", ")}`,
    );
  }
  return v as T;
}

/**
 * A predict-only CoEmbed estimator over the inductive predictor's tensors.
 *
 * @example
 * ```ts
 * import { CoEmbedEstimator } from "./estimator.ts";
 * import { CoEmbedReplica } from "./replica.ts";
 * const m = CoEmbedEstimator.create({ variant: "NL", numRff: 8, seed: 1 }, 3, 2);
 * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
 * const r = CoEmbedReplica.fromState(m.toReplicaState(), true);
 * const x = { indices: Int32Array.of(0, 2), values: Float32Array.of(1, 0.5) };
 * console.log(r.predictScores(x).join() === m.predictScores(x).join()); // true
 * ```
 */
export class CoEmbedReplica extends PredictionReplica {
  /** Model family. */
  readonly kind = "coembed";
  readonly #predictor: RandomFeaturesPredictor;
  readonly #gamma: number;
  #index: LabelIndex | undefined;

  private constructor(t: PredictorTensors, gamma: number) {
    super();
    this.#gamma = gamma;
    this.#predictor = new RandomFeaturesPredictor(t);
  }

  /**
   * The replica of a {@linkcode replicaState} (with `adopt`, its arrays are used as they are;
   * otherwise copied). Every value is checked before anything is taken, with the shared rules
   * of ../state_check.ts: no state or one of another kind, a missing scalar, or a tensor missing
   * or of another array class is a `TypeError`; a size that is not an integer >= 0, a tensor of
   * another length than the sizes give or that is not finite, `lambdaX` out of range, a rank,
   * `numRff` or `gamma` past what `create` allows, a label whose scores can reach beyond float32
   * is a `RangeError` naming the field.
   */
  static fromState(state: ModelState, adopt = false): CoEmbedReplica {
    checkStateKind(state, "coembed", WHERE);
    if (!isReplicaState(state)) {
      throw new TypeError(`${WHERE}: the state is not a CoEmbed replica state`);
    }
    const s = state.scalars, c = state.config;
    const [D, L, rankS, rankX, numRff] = ["numFeatures", "numLabels", "rankS", "rankX", "numRff"]
      .map((k) => checkScalar(s, k, WHERE));
    const gamma = Number(c.gamma);
    if (!(gamma > 0) || !Number.isFinite(gamma)) {
      throw new RangeError(`${WHERE}: config.gamma is ${c.gamma}, not a number > 0`);
    }
    const lambdaX = Number(c.lambdaX);
    if (!(lambdaX >= 0) || !Number.isFinite(lambdaX)) {
      throw new RangeError(`${WHERE}: config.lambdaX is ${c.lambdaX}, not a number >= 0`);
    }
    const variant = oneOf(c.variant, VARIANTS, "variant");
    const nl = variant === "NL";
    // every tensor of the shape the sizes give (W only in NL: the L predictor has none)
    const shapes: (readonly [(typeof ARRAYS)[number], number, string, number, string])[] = [
      ["Q", nl ? 2 * numRff : D, nl ? "2·numRff" : "numFeatures", rankS, "rankS"],
      ["P", L, "numLabels", rankS, "rankS"],
      ["bias", L, "numLabels", 1, ""],
      ["V", D, "numFeatures", rankX, "rankX"],
      ...(nl ? [["W", D, "numFeatures", numRff, "numRff"] as const] : []),
    ];
    const arrays: Partial<Record<(typeof ARRAYS)[number], Float32Array>> = {};
    for (const [name, rows, rowsOf, cols, colsOf] of shapes) {
      const of = colsOf === ""
        ? `[${rowsOf}] = ${rows}`
        : `[${rowsOf}, ${colsOf}] = ${rows} × ${cols}`;
      const a = requireTensor(state.tensors, name, Float32Array, WHERE, rows * cols, of);
      // every score is a sum over these: one NaN would be served to every query
      checkFinite(a, name, WHERE);
      arrays[name] = adopt ? a : a.slice();
    }
    const t: PredictorTensors = {
      variant,
      numFeatures: D,
      numLabels: L,
      rankS,
      rankX,
      numRff,
      lambdaX,
      absent: oneOf(c.absent, ABSENT, "absent"),
      input: oneOf(c.input, INPUTS, "input"),
      Q: arrays.Q!,
      P: arrays.P!,
      bias: arrays.bias!,
      V: arrays.V!,
      ...(arrays.W === undefined ? {} : { W: arrays.W }),
    };
    // the settings it carries with the rules of `create` (ranks, numRff and the NL sizes, γ
    // within their declared ranges) before the predictor allocates from them
    restoredConfig({
      variant: t.variant,
      rankS: t.rankS,
      rankX: t.rankX,
      ...(t.variant === "NL" ? { numRff: t.numRff } : {}),
      gamma,
    });
    const replica = new CoEmbedReplica(t, gamma);
    // finite tensors whose scores are not (the learner never serves such a model)
    const overflow = scoreOverflow(t.variant, t.numLabels, t.rankS, t.P, t.Q, t.bias);
    if (overflow !== undefined) {
      throw new RangeError(`${WHERE}: ${overflow}, beyond float32`);
    }
    return replica;
  }

  /** Feature-space size. */
  get numFeatures(): number {
    return this.#predictor.t.numFeatures;
  }

  /** Label-space size. */
  get numLabels(): number {
    return this.#predictor.t.numLabels;
  }

  /** Scores of every label (as the learner it was taken from scored them). */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "coembed replica.predictScores");
    return this.#predictor.scores(x.indices, x.values, out);
  }

  /**
   * The k best labels: from the label index when the replica holds one (unless `exact`), else
   * by scoring every label. The index's answer is the SDK's for the exported file's index: its
   * scores are the predictor's own (the same serial sums from the bias, rounded to float32).
   */
  predictTopK(x: SparseVector, k: number, options: TopKQueryOptions = {}): TopK {
    checkRow(x, "coembed replica.predictTopK");
    checkK(k, "coembed replica.predictTopK");
    checkProbes(options.probes, "coembed replica.predictTopK");
    const index = options.exact ? undefined : this.#index;
    if (index !== undefined) {
      const top = index.search(this.#predictor.query(x.indices, x.values), k, options.probes);
      if (top !== undefined) return top;
    }
    return topKDense(this.predictScores(x), k);
  }

  /**
   * Builds the label index of the `random-features` file (`withLabelIndex` over P and bias,
   * the model file's defaults: none below `options.minLabels`, 4096 unless given; then
   * undefined) and answers {@linkcode CoEmbedReplica.predictTopK} from it.
   *
   * @example
   * ```ts
   * import { CoEmbedEstimator } from "./estimator.ts";
   * import { CoEmbedReplica } from "./replica.ts";
   * const m = CoEmbedEstimator.create({ variant: "L", seed: 1 }, 3, 40);
   * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
   * const r = CoEmbedReplica.fromState(m.toReplicaState(), true);
   * console.log(r.indexLabels(), r.indexLabels({ minLabels: 0 })?.numLabels); // undefined 40
   * ```
   */
  indexLabels(options: LabelIndexBuildOptions = {}): LabelIndex | undefined {
    const i = this.labelIndexInput();
    this.#index = LabelIndex.build(i, options);
    return this.#index;
  }

  /**
   * What {@linkcode CoEmbedReplica.indexLabels} builds from: P and the biases (views, not
   * copied), as the `random-features` file's index uses them.
   *
   * @example
   * ```ts
   * import { CoEmbedEstimator } from "./estimator.ts";
   * import { CoEmbedReplica } from "./replica.ts";
   * const m = CoEmbedEstimator.create({ variant: "L", seed: 1 }, 3, 40);
   * const i = CoEmbedReplica.fromState(m.toReplicaState(), true).labelIndexInput();
   * console.log(i.kind, i.rowsName, i.numLabels); // random-features P 40
   * ```
   */
  labelIndexInput(): LabelIndexInput {
    const t = this.#predictor.t;
    return {
      kind: "random-features",
      rowsName: "P",
      rows: t.P,
      bias: t.bias,
      numLabels: t.numLabels,
      rank: t.rankS,
    };
  }

  /** The label index built by {@linkcode CoEmbedReplica.indexLabels}, if any. */
  get labelIndex(): LabelIndex | undefined {
    return this.#index;
  }

  /** The `random-features` model file (the same file as the learner's). */
  toModelFile(options: ModelFileOptions = {}): Uint8Array {
    checkModelFileOptions(options, "coembed.toModelFile");
    const content = predictorFileContent(this.#predictor.t, this.#gamma, options);
    return encodeModelFile(content, options.quantize ? { quantize: options.quantize } : undefined);
  }

  /** The replica state (copies). */
  toState(): ModelState {
    return replicaState(this.#predictor.t, this.#gamma, true);
  }
}
