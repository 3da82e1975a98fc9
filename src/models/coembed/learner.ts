/**
 * The streaming CoEmbed learner. Each minibatch takes `streamSteps` steps of the batch fit's
 * minibatch update (./fit.ts): the new rows, joined by `replayRatio` times as many rows replayed
 * from a bounded reservoir of earlier rows (the shared ../../data/reservoir.ts; a fresh sample
 * for every step with `replayPerStep`), are folded in (U_i by ridge regression on the observed
 * features, G_i = 0, then `streamRowSteps` Adam steps on (U_i, G_i) with the globals fixed),
 * then the global factors (V, P, Q, H, bias) take one Adam step on them. By default no row step
 * is taken: the globals learn from the same label-free fold-in of a row that the inductive
 * predictor computes for a new row (see `CoEmbedConfig.streamRowSteps`). Optional warm start
 * (spectral V on the reservoir, `warmStart`). Predictions use the inductive predictor (see
 * ./predictor.ts); the model file kind is "random-features".
 *
 * The feature and label spaces grow with the batches (new rows of V, P, H and, for
 * ColEmbed-NL, of the random directions), to each batch's declared `x.numCols` and `y.numCols`:
 * unlike the other models, which grow to a batch's largest index, CoEmbed refuses a row whose
 * index is past both the model's size and its batch's declared size (a RangeError naming the
 * row, the index, the declared sizes and the sizes to declare).
 *
 * @module
 */
import { checkK, checkProbes, checkRow } from "../query_check.ts";
import { checkBatch, type SpaceLimits } from "../../data/batch_check.ts";
import { DEFAULT_LIMITS, storedLimits } from "../space_limits.ts";
import {
  checkFinite,
  checkGeneratorState,
  checkReservoirRows,
  checkScalar,
  checkStateKind,
  checkSums,
  requireTensor,
} from "../state_check.ts";
import { learnOneVia } from "../learn_one.ts";
import type { Batch, BinaryCsr, CsrMatrix, SparseVector } from "../../data/types.ts";
import type { ModelFileContent, Tensor } from "../../format/types.ts";
import type { ModelFileOptions, ModelState, TopK } from "../estimator.ts";
import { applyModelFileOptions } from "../file_options.ts";
import { withLabelIndex } from "../../linalg/mips_index.ts";
import { blockFromCsr } from "./blocks.ts";
import type { CoEmbedConfig } from "./config.ts";
import { checkedConfig, checkedLimits, MAX_STEPS, restoredConfig } from "./settings.ts";
import { CoEmbedCore, GLOBAL_NAMES, type RowBlock } from "./core.ts";
import { CoEmbedFit } from "./fit.ts";
import { checkSpectralSize, spectralInit } from "./spectral.ts";
import { type PredictorTensors, RandomFeaturesPredictor } from "./predictor.ts";
import { RowReservoir, withReplay } from "../../data/reservoir.ts";
import { topKDense } from "../../../sdk/internal.ts";
import {
  LabelIndex,
  type LabelIndexBuildOptions,
  type LabelIndexInput,
  type TopKQueryOptions,
} from "../label_index.ts";

/** The model-file kind written by CoEmbed. */
export const COEMBED_FILE_KIND = "random-features" as const;

/**
 * Builds the `random-features` model-file content of an inductive predictor.
 *
 * @example
 * ```ts
 * import { predictorFileContent } from "./learner.ts";
 * const c = predictorFileContent({
 *   variant: "L", numFeatures: 1, numLabels: 1, rankS: 1, rankX: 1, numRff: 0, lambdaX: 0.1,
 *   absent: "zero", input: "raw", Q: Float32Array.of(1), P: Float32Array.of(1), bias: Float32Array.of(0),
 *   V: Float32Array.of(1),
 * }, 0.05);
 * console.log(c.kind, Object.keys(c.tensors).sort().join()); // random-features P,Q,V,bias
 * ```
 */
export function predictorFileContent(
  t: PredictorTensors,
  gamma: number,
  options: ModelFileOptions = {},
): ModelFileContent {
  const F = t.variant === "NL" ? 2 * t.numRff : t.numFeatures;
  const tensors: Record<string, Tensor> = {
    Q: { dtype: "f32", shape: [F, t.rankS], data: t.Q },
    P: { dtype: "f32", shape: [t.numLabels, t.rankS], data: t.P },
    bias: { dtype: "f32", shape: [t.numLabels], data: t.bias },
    V: { dtype: "f32", shape: [t.numFeatures, t.rankX], data: t.V },
  };
  if (t.variant === "NL") {
    tensors.W = { dtype: "f32", shape: [t.numFeatures, t.numRff], data: t.W! };
  }
  const content: ModelFileContent = {
    kind: COEMBED_FILE_KIND,
    numFeatures: t.numFeatures,
    numLabels: t.numLabels,
    params: {
      variant: t.variant,
      numRff: t.numRff,
      gamma,
      rankS: t.rankS,
      rankX: t.rankX,
      lambdaX: t.lambdaX,
      absent: t.absent,
      input: t.input,
    },
    tensors,
  };
  // the label index over P's rows and bias (from 4096 labels; docs/model-format.md)
  return withLabelIndex(applyModelFileOptions(content, options, "coembed.toModelFile"), "P");
}

/**
 * The error of a learning step whose globals came out beyond what the float32 model holds
 * (`bad`, e.g. "V[3] = NaN"): it names the step-size settings that make Adam overshoot, the
 * row step size only when row steps are taken.
 */
function divergedError(
  c: CoEmbedConfig,
  where: string,
  bad: string,
  cause?: unknown,
): RangeError {
  const rowSteps = c.foldInSteps + c.streamRowSteps > 0;
  const settings = [
    `learningRate (${c.learningRate})`,
    ...(rowSteps ? [`rowLearningRate (${c.rowLearningRate})`] : []),
    `initScale (${c.initScale})`,
  ];
  return new DivergedError(
    `${where}: the update diverged (${bad}, beyond float32); the batch is refused and the ` +
      `model is unchanged: lower ${settings.join(" or ")}, or scale the features`,
    { cause },
  );
}

/** {@linkcode divergedError}'s class (a RangeError), so that it is not wrapped twice. */
class DivergedError extends RangeError {}

/**
 * The streaming CoEmbed learner: everything of the estimator except the model-file export
 * (see {@linkcode CoEmbedEstimator} in ./estimator.ts, which adds `toModelFile`).
 *
 * @example
 * ```ts
 * import { CoEmbedLearner } from "./learner.ts";
 * const m = CoEmbedLearner.create({ variant: "L", seed: 1 }, 3, 2);
 * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
 * console.log(m.predictScores({ indices: Int32Array.of(0), values: Float32Array.of(1) }).length); // 2
 * ```
 */
export class CoEmbedLearner {
  readonly kind = "coembed";
  readonly core: CoEmbedCore;
  /** Rows learned so far (the regulariser of a minibatch step is scaled by 1/rowsSeen). */
  rowsSeen: number;
  /** The replay reservoir (capacity `config.replay`). */
  readonly reservoir: RowReservoir;
  /**
   * Whether V has had its initialisation from data: the warm start (`config.warmStart`), or the
   * spectral start of the batch fit a learner was made from.
   */
  warmStarted: boolean;
  /** How far learning may grow the spaces (`maxFeatures`, `maxLabels`). */
  readonly limits: SpaceLimits;
  private predictor: RandomFeaturesPredictor | undefined;
  private predictorOf: PredictorTensors | undefined;
  /** The label index and the predictor tensors it was built on (see `indexLabels`). */
  #index: LabelIndex | undefined;
  #indexOf: PredictorTensors | undefined;

  constructor(
    core: CoEmbedCore,
    rowsSeen = 0,
    reservoir?: RowReservoir,
    warmStarted = rowsSeen > 0,
    limits: SpaceLimits = DEFAULT_LIMITS,
  ) {
    this.core = core;
    this.limits = limits;
    this.rowsSeen = rowsSeen;
    this.reservoir = reservoir ?? new RowReservoir(core.config.replay, core.config.seed);
    this.warmStarted = warmStarted;
  }

  /** A new estimator from options (see {@linkcode CoEmbedConfig}). */
  static create(
    options: Record<string, unknown> = {},
    numFeatures = 0,
    numLabels = 0,
  ): CoEmbedLearner {
    const limits = checkedLimits(options, numFeatures, numLabels);
    const core = new CoEmbedCore(checkedConfig(options), numFeatures, numLabels);
    return new CoEmbedLearner(core, 0, undefined, false, limits);
  }

  /**
   * A streaming estimator continuing from a batch fit's global factors (a copy: the fit and the
   * estimator share nothing mutable).
   */
  static fromFit(fit: { core: CoEmbedCore; numRows: number }): CoEmbedLearner {
    return CoEmbedLearner.restore(new CoEmbedLearner(fit.core, fit.numRows).toState());
  }

  /** Hyper-parameters. */
  get config(): CoEmbedConfig {
    return this.core.config;
  }

  get numFeatures(): number {
    return this.core.numFeatures;
  }

  get numLabels(): number {
    return this.core.numLabels;
  }

  learnMany(batch: Batch): void {
    const where = "coembed.learnMany";
    const [needD, needL] = checkBatch(batch, where, this.limits);
    const core = this.core, c = core.config;
    const D = Math.max(core.numFeatures, batch.x.numCols);
    const L = Math.max(core.numLabels, batch.y.numCols);
    // validates the new rows (throws before anything changes)
    try {
      blockFromCsr(batch.x, batch.y, D, L, c.absent, undefined, undefined, where);
    } catch (e) {
      // an index past both the model's size and the batch's declared numCols (the other
      // models grow to it): say why, and what to do
      if (needD <= D && needL <= L) throw e;
      throw new RangeError(
        `${(e as Error).message}: CoEmbed grows to a batch's declared sizes (x.numCols ` +
          `${batch.x.numCols}, y.numCols ${batch.y.numCols}), never past them; declare the ` +
          `columns the rows use (x.numCols ${needD}, y.numCols ${needL})`,
      );
    }
    // learning (even growing the spaces) invalidates the label index; a refused batch puts it
    // back with the model
    const restore = this.#save();
    this.#dropIndex();
    // A step can still diverge midway (an extreme learningRate, rowLearningRate or initScale),
    // or end with factors within float32 whose scores are not (a learningRate near 1e20): the
    // batch is then refused and the model put back as it was, bit for bit (the copy is one
    // global step's memory traffic; the rare path only restores it).
    try {
      this.#learn(batch, where);
      const bad = core.unservableModel();
      if (bad !== undefined) throw divergedError(c, where, bad);
    } catch (e) {
      // a step that diverged midway (a fold-in failing on the diverged V, say) is named as such
      const bad = core.unstorableFactor();
      restore();
      throw bad === undefined || e instanceof DivergedError ? e : divergedError(c, where, bad, e);
    }
    this.reservoir.addRows(batch);
  }

  /**
   * What {@linkcode learnMany} may change before the batch is known to be good (the core, the
   * row count, the warm-start flag, the replay sampler's draws, the label index), and the
   * function that puts it back.
   */
  #save(): () => void {
    const restoreCore = this.core.save();
    const rowsSeen = this.rowsSeen, warmStarted = this.warmStarted;
    const rng = this.reservoir.rngState;
    const index = this.#index, indexOf = this.#indexOf;
    return () => {
      restoreCore();
      this.rowsSeen = rowsSeen;
      this.warmStarted = warmStarted;
      this.reservoir.rngState = rng;
      this.#index = index;
      this.#indexOf = indexOf;
    };
  }

  /** The update of {@linkcode learnMany} on a checked batch, before the reservoir takes it. */
  #learn(batch: Batch, where: string): void {
    const core = this.core, c = core.config, B = batch.x.numRows;
    core.grow(batch.x.numCols, batch.y.numCols);
    if (B === 0) return;
    this.warmStart(batch);
    this.rowsSeen += B;
    const perStep = c.replayPerStep;
    let block: RowBlock | undefined;
    let U = new Float64Array(0), G = new Float64Array(0);
    let mom = { mU: U, vU: U, mG: U, vG: U }, tRow = new Int32Array(0);
    // streamSteps times the batch fit's minibatch update (./fit.ts runEpoch: row steps, then a
    // global step), each on the new rows and (replayPerStep) its own replay sample. A row
    // enters a step as in the batch fit's first epoch: U_i the ridge fit of its observed
    // features, G_i = 0, then streamRowSteps (default 0) row steps.
    for (let s = 0; s < c.streamSteps; s++) {
      if (block === undefined || perStep) {
        const replay = this.reservoir.sample(Math.round(c.replayRatio * B));
        const rows = withReplay({ x: batch.x, y: batch.y }, replay);
        block = this.blockOf(rows, where);
        const n = block.rows, kX = c.rankX, kE = c.rankE;
        U = new Float64Array(n * kX);
        G = new Float64Array(n * kE);
        core.ridgeFoldInRows(block, U);
        mom = {
          mU: new Float64Array(n * kX),
          vU: new Float64Array(n * kX),
          mG: new Float64Array(n * kE),
          vG: new Float64Array(n * kE),
        };
        tRow = new Int32Array(n);
        core.rowSteps(block, U, G, mom, tRow, c.foldInSteps);
      }
      core.rowSteps(block, U, G, mom, tRow, c.streamRowSteps);
      core.globalStep(block, U, G, this.rowsSeen);
    }
  }

  /** Rows in the model's current feature and label space as a CoEmbed row block. */
  private blockOf(rows: { x: CsrMatrix; y: BinaryCsr }, where: string): RowBlock {
    const core = this.core;
    return blockFromCsr(
      rows.x,
      rows.y,
      core.numFeatures,
      core.numLabels,
      core.config.absent,
      undefined,
      undefined,
      where,
    );
  }

  /**
   * The warm start (see `CoEmbedConfig.warmStart`): once enough rows are available, V takes the
   * spectral initialisation of the batch fit, computed on the minibatch plus the reservoir.
   */
  private warmStart(batch: Batch): void {
    const core = this.core, c = core.config, res = this.reservoir, B = batch.x.numRows;
    if (this.warmStarted || c.warmStart === 0) return;
    if (res.size + B < Math.min(c.warmStart, res.capacity + B)) return;
    const rows = withReplay({ x: batch.x, y: batch.y }, res.rows());
    // before the rows' dense block: the eigen-problem is min(rows, features) squared
    checkSpectralSize(rows.x.numRows, core.numFeatures, "CoEmbed warm start");
    const block = this.blockOf(rows, "CoEmbed warm start");
    spectralInit(core, block);
    core.m.V.fill(0);
    core.v.V.fill(0);
    this.warmStarted = true;
  }

  /**
   * Consolidation: `epochs` epochs over the rows kept in the replay reservoir, continuing from
   * the current globals, with the stream's update (each minibatch of `batchSize` rows, in a
   * seeded order, enters as its ridge fold-in with G_i = 0, takes `streamRowSteps` row steps,
   * then `globalSteps` global steps: ./fit.ts `runEpoch` with `refold`). Bounded work on at most
   * `replay` stored rows: no row of the stream is read again, and the rows seen stay as they
   * are. Meant for the end of a stream or before an export; nothing calls it implicitly.
   *
   * @example
   * ```ts
   * import { CoEmbedLearner } from "./learner.ts";
   * const m = CoEmbedLearner.create({ variant: "L", seed: 1, replay: 10 }, 2, 2);
   * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
   * m.learnOne({ indices: Int32Array.of(1), values: Float32Array.of(1) }, [1]);
   * const step = m.core.step;
   * m.consolidate(3);
   * console.log(m.core.step - step); // 3 (one minibatch of 2 stored rows per epoch)
   * ```
   */
  consolidate(epochs = this.config.consolidateEpochs, batchSize = 64): void {
    if (!Number.isInteger(epochs) || epochs < 0 || epochs > MAX_STEPS) {
      throw new RangeError(
        `CoEmbed consolidate: epochs ${epochs} must be an integer in [0, ${MAX_STEPS}]`,
      );
    }
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`CoEmbed consolidate: batchSize ${batchSize} must be an integer >= 1`);
    }
    const core = this.core, c = core.config;
    if (epochs === 0 || this.reservoir.size === 0) return;
    const rows = this.reservoir.rows();
    const block = this.blockOf(rows, "CoEmbed consolidate");
    const restore = this.#save();
    this.#dropIndex();
    try {
      const fit = new CoEmbedFit(core, block);
      for (let e = 0; e < epochs; e++) {
        fit.runEpoch(batchSize, { refold: true, rowSteps: c.streamRowSteps });
      }
      const bad = core.unservableModel();
      if (bad !== undefined) throw divergedError(c, "CoEmbed consolidate", bad);
    } catch (e) {
      // a step that diverged midway (a fold-in failing on the diverged V, say) is named as such
      const bad = core.unstorableFactor();
      restore();
      throw bad === undefined || e instanceof DivergedError
        ? e
        : divergedError(c, "CoEmbed consolidate", bad, e);
    }
  }

  learnOne(x: SparseVector, y: ArrayLike<number>): void {
    learnOneVia(this, x, y, "coembed");
  }

  private getPredictor(): RandomFeaturesPredictor {
    const t = this.core.predictorTensors();
    if (this.predictor === undefined || this.predictorOf !== t) {
      this.predictor = new RandomFeaturesPredictor(t);
      this.predictorOf = t;
    }
    return this.predictor;
  }

  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "coembed.predictScores");
    return this.getPredictor().scores(x.indices, x.values, out);
  }

  /**
   * The k best labels for `x`: from the label index when the learner holds one that still
   * describes the model (see {@linkcode CoEmbedLearner.indexLabels}) and `options.exact` is not
   * set, else by scoring every label ({@linkcode CoEmbedLearner.predictScores}, then the top k).
   * The index's answer is the SDK's for the exported file's index over the same P and bias: the
   * labels of the `options.probes` best leaves (default the index's calibrated count), scored
   * with the predictor's own arithmetic (serial float64 sums from the bias, rounded to float32),
   * so each returned score equals {@linkcode CoEmbedLearner.predictScores}' for that label. Never
   * changes the model.
   *
   * @example
   * ```ts
   * import { CoEmbedLearner } from "./learner.ts";
   * const m = CoEmbedLearner.create({ variant: "L", seed: 1 }, 3, 4);
   * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [2]);
   * const x = { indices: Int32Array.of(0), values: Float32Array.of(1) };
   * console.log(m.predictTopK(x, 2).labels.length, m.predictTopK(x, 2, { exact: true }).labels.length); // 2 2
   * ```
   */
  predictTopK(x: SparseVector, k: number, options: TopKQueryOptions = {}): TopK {
    checkRow(x, "coembed.predictTopK");
    checkK(k, "coembed.predictTopK");
    checkProbes(options.probes, "coembed.predictTopK");
    const index = options.exact ? undefined : this.labelIndex;
    if (index !== undefined) {
      const q = this.getPredictor().query(x.indices, x.values);
      const top = index.search(q, k, options.probes);
      if (top !== undefined) return top;
    }
    return topKDense(this.predictScores(x), k);
  }

  /**
   * Builds the label index of the current model (issue 15): the index the `random-features`
   * model file gets at export (`withLabelIndex` over P and bias, the model file's defaults: none
   * below `options.minLabels`, 4096 unless given, and undefined is returned then; `options.reuse`
   * keeps an earlier index's partition and recomputes only its means, O(L·r)), searched as the
   * SDK searches it. From then on {@linkcode CoEmbedLearner.predictTopK} answers from it (unless
   * asked `exact`) until the model learns: `learnMany`, `learnOne` and `consolidate` drop it, and
   * so does any other change of the globals (the index belongs to the float32 predictor tensors
   * it was built on, which the core rebuilds after every change).
   *
   * @example
   * ```ts
   * import { CoEmbedLearner } from "./learner.ts";
   * const m = CoEmbedLearner.create({ variant: "L", seed: 1 }, 3, 40);
   * const x = { indices: Int32Array.of(0), values: Float32Array.of(1) };
   * m.learnOne(x, [1]);
   * console.log(m.indexLabels()); // undefined (below 4096 labels)
   * const idx = m.indexLabels({ minLabels: 0 })!;
   * console.log(m.labelIndex === idx, idx.numLabels); // true 40
   * m.learnOne(x, [2]);
   * console.log(m.labelIndex); // undefined
   * ```
   */
  indexLabels(options: LabelIndexBuildOptions = {}): LabelIndex | undefined {
    const t = this.core.predictorTensors();
    this.#index = LabelIndex.build(this.#indexInput(t), options);
    this.#indexOf = this.#index === undefined ? undefined : t;
    return this.#index;
  }

  /**
   * What {@linkcode CoEmbedLearner.indexLabels} builds from: the current predictor's P and biases
   * (views of the core's cached float32 tensors, not copied), as the `random-features` file's
   * index uses them.
   *
   * @example
   * ```ts
   * import { CoEmbedLearner } from "./learner.ts";
   * const i = CoEmbedLearner.create({ variant: "L", seed: 1, rankS: 3 }, 2, 5).labelIndexInput();
   * console.log(i.kind, i.rowsName, i.numLabels, i.rank); // random-features P 5 3
   * ```
   */
  labelIndexInput(): LabelIndexInput {
    return this.#indexInput(this.core.predictorTensors());
  }

  /**
   * The label index built by {@linkcode CoEmbedLearner.indexLabels} while it still describes the
   * model (no learning since); undefined otherwise.
   *
   * @example
   * ```ts
   * import { CoEmbedLearner } from "./learner.ts";
   * console.log(CoEmbedLearner.create({ variant: "L" }, 2, 2).labelIndex); // undefined
   * ```
   */
  get labelIndex(): LabelIndex | undefined {
    if (this.#index === undefined) return undefined;
    // the core rebuilds its predictor tensors after any change of the globals
    if (this.#indexOf !== this.core.predictorTensors()) this.#dropIndex();
    return this.#index;
  }

  #indexInput(t: PredictorTensors): LabelIndexInput {
    return {
      kind: COEMBED_FILE_KIND,
      rowsName: "P",
      rows: t.P,
      bias: t.bias,
      numLabels: t.numLabels,
      rank: t.rankS,
    };
  }

  #dropIndex(): void {
    this.#index = undefined;
    this.#indexOf = undefined;
  }

  /** The `random-features` model-file content of the inductive predictor. */
  toModelFileContent(options: ModelFileOptions = {}): ModelFileContent {
    return predictorFileContent(this.core.predictorTensors(), this.config.gamma, options);
  }

  toState(): ModelState {
    const core = this.core;
    const tensors: ModelState["tensors"] = {};
    for (const name of GLOBAL_NAMES) {
      tensors[name] = core[name].slice();
      tensors[`m_${name}`] = core.m[name].slice();
      tensors[`v_${name}`] = core.v[name].slice();
    }
    const res = this.reservoir.toState();
    Object.assign(tensors, res.tensors);
    return {
      kind: "coembed",
      config: { ...core.config, ...this.limits },
      scalars: {
        numFeatures: core.numFeatures,
        numLabels: core.numLabels,
        step: core.step,
        rowsSeen: this.rowsSeen,
        replaySeen: res.scalars.seen,
        replayRng: res.scalars.rngState,
        warmStarted: this.warmStarted ? 1 : 0,
      },
      tensors,
    };
  }

  /** Rebuilds a learner from {@linkcode toState} output, bit for bit. */
  static restore(state: ModelState): CoEmbedLearner {
    const { core, rowsSeen, reservoir, warmStarted, limits } = restoreCore(state);
    return new CoEmbedLearner(core, rowsSeen, reservoir, warmStarted, limits);
  }
}

/**
 * Rebuilds the core, the row count, the replay reservoir and the warm-start flag of a
 * {@linkcode CoEmbedLearner.toState} snapshot (a state without reservoir tensors, e.g. one made
 * from a batch fit, gets an empty reservoir; a state without the flag counts as warm-started
 * once it has seen rows). Every value is checked before it is taken: the settings with the rules
 * of `create` (./settings.ts `restoredConfig`: each within its declared range, the ColEmbed-NL
 * sizes, the stream's passes; the error `create` gives), sizes within the stored limits, every
 * tensor of the shape the settings and sizes give (all before anything is allocated), finite
 * factors and first moments, second moments >= 0, replay rows within the sizes (sorted,
 * finite), and factors whose scores stay within float32 for every finite row (what `learnMany`
 * guarantees); a `RangeError` names the field. No state or one of another kind, a tensor missing
 * or of another array class, a missing scalar are `TypeError`s naming it (the words of every
 * model's restore: ../state_check.ts).
 *
 * @example
 * ```ts
 * import { CoEmbedLearner, restoreCore } from "./learner.ts";
 * const s = CoEmbedLearner.create({ variant: "L", seed: 1 }, 3, 2).toState();
 * console.log(restoreCore(s).core.numLabels); // 2
 * (s.tensors.P as Float64Array)[0] = NaN;
 * try {
 *   restoreCore(s);
 * } catch (e) {
 *   console.log((e as Error).message); // coembed.restore: P[0] = NaN is not finite
 * }
 * ```
 */
export function restoreCore(
  state: ModelState,
): {
  core: CoEmbedCore;
  rowsSeen: number;
  reservoir: RowReservoir;
  warmStarted: boolean;
  limits: SpaceLimits;
} {
  const where = "coembed.restore";
  checkStateKind(state, "coembed", where);
  // the settings with the rules of `create` (ranges, NL sizes, stream passes) before anything
  // is allocated from them
  const config = restoredConfig(state.config);
  const s = state.scalars ?? {};
  for (const k of ["numFeatures", "numLabels", "step", "rowsSeen"]) checkScalar(s, k, where);
  // the limits first: sizes past them are refused before the factors are allocated
  const limits = storedLimits("coembed", state.config, s.numFeatures, s.numLabels);
  const t = state.tensors;
  // every tensor of the shape the settings and sizes give, before the core is allocated: the
  // core is then no larger than what the state itself holds
  const D = s.numFeatures, L = s.numLabels, F = config.variant === "NL" ? 2 * config.numRff : D;
  const shapes: Record<string, [number, string, number, string]> = {
    V: [D, "numFeatures", config.rankX, "rankX"],
    P: [L, "numLabels", config.rankS, "rankS"],
    Q: [F, config.variant === "NL" ? "2·numRff" : "numFeatures", config.rankS, "rankS"],
    H: [L, "numLabels", config.rankE, "rankE"],
    b: [L, "numLabels", 1, ""],
  };
  for (const name of GLOBAL_NAMES) {
    const [rows, rowsOf, cols, colsOf] = shapes[name];
    const shape = colsOf === "" ? `[${rowsOf}]` : `[${rowsOf}, ${colsOf}]`;
    const of = `${shape} = ${colsOf === "" ? rows : `${rows} × ${cols}`}`;
    for (const field of [name, `m_${name}`, `v_${name}`]) {
      requireTensor(t, field, Float64Array, where, rows * cols, of);
    }
  }
  if (t.resXIndptr !== undefined) {
    // the replay rows were learned from: within the sizes, sorted, finite
    checkReservoirRows(t, s.numFeatures, s.numLabels, where);
    if (s.replaySeen !== undefined) checkScalar(s, "replaySeen", where, t.resXIndptr.length - 1);
    if (s.replayRng !== undefined) checkGeneratorState(s, "replayRng", where);
  }
  // the flag toState writes as 0 or 1 (7 or NaN restored as "not warm-started", silently)
  if (s.warmStarted !== undefined) checkScalar(s, "warmStarted", where, 0, 1);
  const core = new CoEmbedCore(config, s.numFeatures, s.numLabels);
  core.step = s.step;
  const moves: [Float64Array, Float64Array][] = [];
  for (const name of GLOBAL_NAMES) {
    for (const [prefix, target] of [["", core], ["m_", core.m], ["v_", core.v]] as const) {
      const field = `${prefix}${name}`, a = t[field] as Float64Array;
      const dst = (target as Record<string, Float64Array>)[name];
      // factors and first moments finite, second moments >= 0 (a NaN would be served)
      if (prefix === "v_") checkSums(a, field, where);
      else checkFinite(a, field, where);
      moves.push([dst, a]);
    }
  }
  for (const [dst, a] of moves) dst.set(a);
  core.changed();
  // finite factors whose scores are not (as learning refuses them: see `learnMany`)
  const unservable = core.unservableModel();
  if (unservable !== undefined) {
    throw new RangeError(
      `${where}: the factors give scores beyond float32 (${unservable}), which learning ` +
        `refuses: retrain with a lower learningRate (${config.learningRate})`,
    );
  }
  const reservoir = t.resXIndptr === undefined
    ? new RowReservoir(config.replay, config.seed)
    : RowReservoir.fromState(
      config.replay,
      config.seed,
      {
        seen: s.replaySeen,
        rngState: s.replayRng,
      },
      t,
      "coembed",
    );
  const warmStarted = s.warmStarted === undefined ? s.rowsSeen > 0 : s.warmStarted === 1;
  return { core, rowsSeen: s.rowsSeen, reservoir, warmStarted, limits };
}
