/**
 * The popularity baseline as a streaming {@linkcode Estimator}: every row gets the same label
 * scores, each label's frequency among the rows seen so far (minus a threshold, so that only
 * labels carried by more than that share of rows count as predicted).
 *
 * @module
 */
import { checkK, checkRow, scoresOut } from "../query_check.ts";
import { checkBatch, type SpaceLimits } from "../../data/batch_check.ts";
import { spaceLimits, type SpaceLimitSettings, withStoredLimits } from "../space_limits.ts";
import { learnOneVia } from "../learn_one.ts";
import type { Batch, SparseVector } from "../../data/types.ts";
import type { Estimator, ModelFileOptions, ModelState, TopK } from "../estimator.ts";
import type { ModelFileContent } from "../../format/types.ts";
import { topKDense } from "../../../sdk/internal.ts";
import {
  type FeatureMajor,
  linearSparseFile,
  type LinearSparseModel,
  linearSparseModelContent,
} from "../linear_sparse_file.ts";
import { POPULARITY_SETTINGS, type PopularitySettings } from "./settings.ts";
import { checkCounts, checkScalar, checkStateKind, requireTensor } from "../state_check.ts";

/**
 * Options of {@linkcode PopularityEstimator}.
 *
 * @example
 * ```ts
 * import type { PopularityOptions } from "./estimator.ts";
 * const o: PopularityOptions = { threshold: 0.5 };
 * console.log(o.threshold); // 0.5
 * ```
 */
export interface PopularityOptions extends SpaceLimitSettings {
  /** Frequency in [0, 1] above which a label counts as predicted (score > 0); default 0.5. */
  threshold?: number;
  /** Initial feature-space size (features are ignored, but the size is tracked). */
  numFeatures?: number;
  /** Initial label-space size. */
  numLabels?: number;
}

/**
 * Label popularity: `score_l = count_l / rows − threshold`, where `count_l` is the number of
 * rows seen with label `l` (an explicit negative or a missing entry counts as "not carried").
 * Exported as a `linear-sparse` model file with no weights and the scores as `bias`.
 *
 * @example
 * ```ts
 * import { PopularityEstimator } from "./estimator.ts";
 * const m = new PopularityEstimator();
 * const x = { indices: new Int32Array(0), values: new Float32Array(0) };
 * m.learnOne(x, [2]);
 * m.learnOne(x, [0, 2]);
 * console.log([...m.predictTopK(x, 2).labels], [...m.predictScores(x)]); // [2, 0] [0, -0.5, 0.5]
 * ```
 */
export class PopularityEstimator implements Estimator {
  readonly kind = "popularity";
  readonly threshold: number;
  readonly #limits: SpaceLimits;
  #numFeatures: number;
  #counts: Float64Array;
  #numLabels: number;
  #rows = 0;
  // the last top k (every row's), until the counts change: a top k of all L scores was O(L) per
  // query (29 ms at 2^21 labels) for the same answer every time
  #top: TopK | undefined;

  /**
   * @param options see {@linkcode PopularityOptions}; validated against
   * {@linkcode POPULARITY_SETTINGS} (an unknown key or a bad value is an error naming it).
   */
  constructor(options: PopularityOptions = {}) {
    const o = POPULARITY_SETTINGS.resolve(options as Readonly<Record<string, unknown>>);
    this.threshold = o.threshold!;
    this.#limits = spaceLimits("popularity", o as Required<PopularitySettings>);
    this.#numFeatures = o.numFeatures!;
    this.#numLabels = o.numLabels!;
    this.#counts = new Float64Array(Math.max(8, this.#numLabels));
  }

  /** Current feature-space size. */
  get numFeatures(): number {
    return this.#numFeatures;
  }

  /** Current label-space size. */
  get numLabels(): number {
    return this.#numLabels;
  }

  /** Number of rows learned from. */
  get rows(): number {
    return this.#rows;
  }

  #growLabels(n: number): void {
    if (n <= this.#numLabels) return;
    if (n > this.#counts.length) {
      const next = new Float64Array(Math.max(n, 2 * this.#counts.length));
      next.set(this.#counts);
      this.#counts = next;
    }
    this.#numLabels = n;
  }

  /** Counts the batch's label occurrences (the batch is not mutated). */
  learnMany(batch: Batch): void {
    const [needD, needL] = checkBatch(batch, "popularity.learnMany", this.#limits);
    const { y } = batch;
    this.#numFeatures = Math.max(this.#numFeatures, needD);
    this.#growLabels(needL);
    const end = y.indptr[y.numRows];
    for (let p = y.indptr[0]; p < end; p++) this.#counts[y.indices[p]]++;
    this.#rows += y.numRows;
    this.#top = undefined;
  }

  /** Counts one row's labels (any order, duplicates counted once). */
  learnOne(x: SparseVector, y: ArrayLike<number>): void {
    learnOneVia(this, x, y, "popularity");
  }

  /** One score per label, the same for every `x`: frequency − threshold. */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "popularity.predictScores");
    const L = this.#numLabels;
    const scores = scoresOut(out, L, "popularity.predictScores");
    const inv = this.#rows > 0 ? 1 / this.#rows : 0;
    for (let l = 0; l < L; l++) scores[l] = this.#counts[l] * inv - this.threshold;
    return scores;
  }

  /**
   * The `k` most frequent labels (ties: smaller label index): the same for every row, so the
   * last answer is kept until the model learns (a smaller k takes its first k).
   */
  predictTopK(x: SparseVector, k: number): TopK {
    checkRow(x, "popularity.predictTopK");
    checkK(k, "popularity.predictTopK");
    const m = Math.min(k, this.#numLabels);
    if (!(this.#top && this.#top.labels.length >= m)) {
      this.#top = topKDense(this.predictScores(x), k);
    }
    return { labels: this.#top.labels.slice(0, m), scores: this.#top.scores.slice(0, m) };
  }

  /**
   * The model file content: `linear-sparse` with an empty weight matrix and `bias` = scores.
   *
   * @example
   * ```ts
   * import { PopularityEstimator } from "./estimator.ts";
   * const m = new PopularityEstimator({ numFeatures: 3 });
   * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
   * const c = m.toModelContent();
   * console.log(c.kind, c.tensors.bias.data); // linear-sparse Float32Array(2) [ -0.5, 0.5 ]
   * ```
   */
  toModelContent(options: ModelFileOptions = {}): ModelFileContent {
    const D = this.#numFeatures, L = this.#numLabels;
    return linearSparseModelContent(this.#noWeights(), D, L, this.#bias(), options, this.#file());
  }

  /**
   * Inference-only model file (`linear-sparse`, see {@linkcode toModelContent}), written by the
   * one writer of `linear-sparse` files (`linearSparseFile` of ../linear_sparse_file.ts).
   */
  toModelFile(options: ModelFileOptions = {}): Uint8Array {
    const D = this.#numFeatures, L = this.#numLabels;
    return linearSparseFile(this.#noWeights(), D, L, this.#bias(), options, this.#file());
  }

  /** The empty weight matrix of the file: every feature without weights. */
  #noWeights(): FeatureMajor {
    return {
      featPtr: new Int32Array(this.#numFeatures + 1),
      labelIdx: new Int32Array(0),
      weights: new Float32Array(0),
    };
  }

  /** The file's bias: every label's score (the same for every row). */
  #bias(): Float32Array {
    return this.predictScores({ indices: new Int32Array(0), values: new Float32Array(0) });
  }

  /**
   * What the file records besides the scores: its params are popularity's own (no `nnz`) and it
   * has no `biasOrder` (as it never had: the file's bytes are those of before the writer was
   * shared; docs/model-format.md).
   */
  #file(): LinearSparseModel {
    return {
      where: "popularity.toModelFile",
      meta: { trainer: "popularity", rows: this.#rows },
      params: { trainer: "popularity", threshold: this.threshold },
      biasOrder: false,
      nnzParam: false,
    };
  }

  /** Full state: threshold, sizes, row count and label counts (copies). */
  toState(): ModelState {
    return {
      kind: this.kind,
      config: { threshold: this.threshold, ...this.#limits },
      scalars: { numFeatures: this.#numFeatures, numLabels: this.#numLabels, rows: this.#rows },
      tensors: { counts: this.#counts.slice(0, this.#numLabels) },
    };
  }

  /**
   * Rebuilds an estimator from {@linkcode PopularityEstimator.toState}. The counts are checked
   * first: `rows` and every label count a non-negative integer, no count above `rows` (a
   * `RangeError` naming the field); the config as `create` checks options (an unknown key is a
   * TypeError naming it).
   *
   * @example
   * ```ts
   * import { PopularityEstimator } from "./estimator.ts";
   * const a = new PopularityEstimator();
   * a.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [3]);
   * console.log(PopularityEstimator.fromState(a.toState()).numLabels); // 4
   * ```
   */
  static fromState(state: ModelState): PopularityEstimator {
    const where = "popularity.restore";
    checkStateKind(state, "popularity", where);
    // (a state without scalars or tensors is refused naming the first one missing)
    const scalars = state.scalars ?? {}, { numFeatures } = scalars;
    const numLabels = checkScalar(scalars, "numLabels", where);
    const counts = requireTensor(state.tensors, "counts", Float64Array, where, numLabels);
    // a label is counted once per row that carries it: every count is a whole number of rows
    // (a NaN or fractional count, or one above the rows, would be served as a score)
    const rows = checkScalar(scalars, "rows", where);
    checkCounts(counts, "counts", where);
    for (let l = 0; l < counts.length; l++) {
      if (counts[l] > rows) {
        throw new RangeError(
          `${where}: counts[${l}] = ${counts[l]} is above the rows seen (${rows})`,
        );
      }
    }
    // every key of the config checked as `create` checks it (a key that is not a setting is
    // refused, naming it, not dropped: the model would differ from the one saved)
    const m = new PopularityEstimator({
      ...withStoredLimits(state.config),
      numFeatures,
      numLabels,
    });
    m.#counts.set(counts);
    m.#rows = rows;
    return m;
  }
}
