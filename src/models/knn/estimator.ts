/**
 * The cosine k-nearest-neighbour baseline as a streaming {@linkcode Estimator}: learning stores
 * the L2-normalised rows; a query's label scores are the similarity-weighted votes of its `k`
 * most cosine-similar stored rows.
 *
 * @module
 */
import { checkK as checkTopK, checkRow, scoresOut } from "../query_check.ts";
import { checkBatch, checkCsr, type SpaceLimits } from "../../data/batch_check.ts";
import { spaceLimits, type SpaceLimitSettings, withStoredLimits } from "../space_limits.ts";
import { learnOneVia } from "../learn_one.ts";
import type { Batch, SparseVector } from "../../data/types.ts";
import type { Estimator, ModelFileOptions, ModelState, TopK } from "../estimator.ts";
import { topKSparse } from "../../../sdk/internal.ts";
import { KNN_SETTINGS, type KnnSettings } from "./settings.ts";
import { CosineIndex, type Neighbours } from "./index.ts";
import { checkScalar, checkStateKind, requireTensor } from "../state_check.ts";

/**
 * Options of {@linkcode KnnEstimator}.
 *
 * @example
 * ```ts
 * import type { KnnOptions } from "./estimator.ts";
 * const o: KnnOptions = { k: 20, threshold: 0.5 };
 * console.log(o.k); // 20
 * ```
 */
export interface KnnOptions extends SpaceLimitSettings {
  /**
   * Number of neighbours (default 10). While fewer rows are stored, a query votes over all of
   * them ({@linkcode KnnEstimator.trainingNote} says so).
   */
  k?: number;
  /**
   * Vote share above which a label counts as predicted (score > 0); default 0.5. Scores are
   * `share_l − threshold` with `share_l = Σ_n w_n [l ∈ y_n] / Σ_n w_n`, `w_n = max(0, cos)`.
   */
  threshold?: number;
  /** Initial feature-space size. */
  numFeatures?: number;
  /** Initial label-space size. */
  numLabels?: number;
}

function checkK(k: number): number {
  if (!Number.isInteger(k) || k < 1) {
    throw new RangeError(`knn: k must be a positive integer, got ${k}`);
  }
  return k;
}

/**
 * Cosine kNN over stored training rows. Deterministic (no randomness: the seed is unused).
 * Not exportable as a model file ({@linkcode KnnEstimator.toModelFile} throws): serving it would
 * mean shipping the whole training set.
 *
 * @example
 * ```ts
 * import { KnnEstimator } from "./estimator.ts";
 * const m = new KnnEstimator({ k: 2 });
 * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
 * m.learnOne({ indices: Int32Array.of(1), values: Float32Array.of(1) }, [1, 2]);
 * const top = m.predictTopK({ indices: Int32Array.of(1), values: Float32Array.of(3) }, 2);
 * console.log([...top.labels], [...top.scores]); // [1, 2] [0.5, 0.5]
 * ```
 */
export class KnnEstimator implements Estimator {
  readonly kind = "knn";
  readonly k: number;
  readonly threshold: number;
  readonly #limits: SpaceLimits;
  #numFeatures: number;
  #numLabels: number;
  #index: CosineIndex;
  // prediction scratch (not model state)
  #votes = new Float64Array(0);
  #labelStamp = new Int32Array(0);
  #voted = new Int32Array(0);
  #stampId = 0;

  /**
   * @param options see {@linkcode KnnOptions}; validated against {@linkcode KNN_SETTINGS} (an
   * unknown key or a bad value is an error naming it); @param index the neighbour index.
   */
  constructor(options: KnnOptions = {}, index = new CosineIndex()) {
    const o = KNN_SETTINGS.resolve(options as Readonly<Record<string, unknown>>);
    this.k = o.k!;
    this.threshold = o.threshold!;
    this.#limits = spaceLimits("knn", o as Required<KnnSettings>);
    this.#numFeatures = o.numFeatures!;
    this.#numLabels = o.numLabels!;
    this.#index = index;
  }

  /** Current feature-space size. */
  get numFeatures(): number {
    return this.#numFeatures;
  }

  /** Current label-space size. */
  get numLabels(): number {
    return this.#numLabels;
  }

  /** Number of stored training rows. */
  get numRows(): number {
    return this.#index.numRows;
  }

  /**
   * Says when `k` is above the rows stored: every query then votes over all of them (the model
   * answers with what it has, as it does at the start of every stream), which a `k` chosen for
   * more data may not mean. Undefined otherwise.
   *
   * @example
   * ```ts
   * import { KnnEstimator } from "./estimator.ts";
   * const m = new KnnEstimator({ k: 100 });
   * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
   * console.log(m.trainingNote());
   * // knn: k = 100 neighbours but only 1 row learnt: each query votes over every row learnt (a similarity-weighted popularity); learn more rows or lower k
   * ```
   */
  trainingNote(): string | undefined {
    const n = this.#index.numRows;
    if (n >= this.k) return undefined;
    return `knn: k = ${this.k} neighbours but only ${n} row${n === 1 ? "" : "s"} learnt: ` +
      "each query votes over every row learnt (a similarity-weighted popularity); learn more " +
      "rows or lower k";
  }

  /** Stores every row of the batch (the batch is not mutated). */
  learnMany(batch: Batch): void {
    const [needD, needL] = checkBatch(batch, "knn.learnMany", this.#limits);
    const { x, y } = batch;
    this.#numFeatures = Math.max(this.#numFeatures, needD);
    this.#numLabels = Math.max(this.#numLabels, needL);
    for (let i = 0; i < x.numRows; i++) {
      const a = x.indptr[i], b = x.indptr[i + 1];
      this.#index.add(
        { indices: x.indices.subarray(a, b), values: x.values.subarray(a, b) },
        y.indices.subarray(y.indptr[i], y.indptr[i + 1]),
      );
    }
  }

  /** Stores one row; `y` lists its positive labels (any order, duplicates ignored). */
  learnOne(x: SparseVector, y: ArrayLike<number>): void {
    learnOneVia(this, x, y, "knn");
  }

  /**
   * The `k` (or the given number of) nearest stored rows of `x`.
   *
   * @throws {RangeError} naming the entry when `x` is not a well-formed row, or when `k` is not
   * a positive integer
   */
  neighbours(x: SparseVector, k = this.k): Neighbours {
    checkRow(x, "knn.neighbours");
    return this.#index.neighbours(x, checkK(k), this.#numFeatures);
  }

  /**
   * Accumulates the neighbours' weighted votes; returns the number of voted labels (listed in
   * the `voted` scratch) and the total weight.
   */
  #vote(nb: Neighbours, k: number): { count: number; total: number } {
    const L = this.#numLabels;
    if (this.#votes.length < L) {
      this.#votes = new Float64Array(L);
      const stamp = new Int32Array(L);
      stamp.set(this.#labelStamp);
      this.#labelStamp = stamp;
      this.#voted = new Int32Array(L);
    }
    const id = ++this.#stampId;
    let count = 0;
    let total = 0;
    const n = Math.min(k, nb.rows.length), rows = this.#index.numRows;
    for (let t = 0; t < n; t++) {
      const w = nb.sims[t];
      // a row past the store read the labels' spare capacity as votes (shares above 1)
      if (!(nb.rows[t] >= 0 && nb.rows[t] < rows)) {
        throw new RangeError(
          `knn: neighbour ${t} is row ${nb.rows[t]}, not one of the ${rows} stored rows`,
        );
      }
      if (!(w > 0)) continue;
      total += w;
      const labels = this.#index.labelsOf(nb.rows[t]);
      for (let i = 0; i < labels.length; i++) {
        const l = labels[i];
        if (this.#labelStamp[l] !== id) {
          this.#labelStamp[l] = id;
          this.#votes[l] = 0;
          this.#voted[count++] = l;
        }
        this.#votes[l] += w;
      }
    }
    return { count, total };
  }

  /**
   * Label scores from already-found neighbours, using the first `k` of them (for choosing k on
   * a validation set without searching again). Same values as {@linkcode predictScores}.
   *
   * @throws {RangeError} when one of those neighbours is not a stored row
   */
  scoresFromNeighbours(nb: Neighbours, k: number, out?: Float32Array): Float32Array {
    const L = this.#numLabels;
    const scores = scoresOut(out, L, "knn.predictScores");
    scores.fill(-this.threshold);
    const { count, total } = this.#vote(nb, checkK(k));
    for (let i = 0; i < count; i++) {
      const l = this.#voted[i];
      scores[l] = this.#votes[l] / total - this.threshold;
    }
    return scores;
  }

  /**
   * Top-k labels from already-found neighbours (first `kNeighbours` of them).
   *
   * @throws {RangeError} when one of those neighbours is not a stored row
   */
  topKFromNeighbours(nb: Neighbours, kNeighbours: number, k: number): TopK {
    const { count, total } = this.#vote(nb, checkK(kNeighbours));
    const labels = this.#voted.subarray(0, count);
    // ranked by the float32 scores returned (and given by predictScores), shifted so that an
    // unvoted label's score, fround(−threshold), is 0 as topKSparse assumes: ranking by the
    // float64 share put labels whose float32 scores tie out of index order (NaN of an infinite
    // fround(−threshold): every score is that infinity, a tie)
    const shares = new Float64Array(count), base = Math.fround(-this.threshold);
    for (let i = 0; i < count; i++) {
      shares[i] = Math.fround(this.#votes[labels[i]] / total - this.threshold) - base || 0;
    }
    const top = topKSparse(labels, shares, this.#numLabels, k);
    const scores = new Float32Array(top.labels.length);
    for (let i = 0; i < scores.length; i++) {
      const l = top.labels[i];
      const voted = this.#labelStamp[l] === this.#stampId;
      scores[i] = (voted ? this.#votes[l] / total : 0) - this.threshold;
    }
    return { labels: top.labels, scores };
  }

  /** The `k` best labels (decreasing score, ties: smaller label index). */
  predictTopK(x: SparseVector, k: number): TopK {
    checkRow(x, "knn.predictTopK");
    checkTopK(k, "knn.predictTopK");
    return this.topKFromNeighbours(this.#index.neighbours(x, this.k, this.#numFeatures), this.k, k);
  }

  /** One score per label, `share_l − threshold` (see {@linkcode KnnOptions.threshold}). */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "knn.predictScores");
    return this.scoresFromNeighbours(
      this.#index.neighbours(x, this.k, this.#numFeatures),
      this.k,
      out,
    );
  }

  /**
   * Always throws: the kNN baseline is not exportable (its "model" is the training set).
   * @throws {TypeError}
   */
  toModelFile(_options?: ModelFileOptions): Uint8Array {
    throw new TypeError(
      "knn.toModelFile: the kNN baseline is not exportable (it would ship the whole training " +
        "set); export an embedding model (sleec, knn-embedding kind) instead",
    );
  }

  /** Full state: config, sizes and the stored rows (copies). */
  toState(): ModelState {
    return {
      kind: this.kind,
      config: { k: this.k, threshold: this.threshold, ...this.#limits },
      scalars: { numFeatures: this.#numFeatures, numLabels: this.#numLabels },
      tensors: this.#index.toArrays(),
    };
  }

  /**
   * Rebuilds an estimator from {@linkcode KnnEstimator.toState}. The state is checked first,
   * with the words of every model's restore (../state_check.ts): no state or another kind, a
   * tensor missing or of another array class, a missing scalar are TypeErrors naming it; a
   * tensor of the wrong length, stored rows that do not hold together or past the sizes are
   * RangeErrors naming the part. Its config is checked as `create` checks options (an unknown
   * key is a TypeError naming it, a bad value a RangeError).
   *
   * @example
   * ```ts
   * import { KnnEstimator } from "./estimator.ts";
   * const a = new KnnEstimator({ k: 3 });
   * a.learnOne({ indices: Int32Array.of(2), values: Float32Array.of(1) }, [4]);
   * const b = KnnEstimator.fromState(a.toState());
   * console.log(b.numRows, b.numLabels, b.k); // 1 5 3
   * ```
   */
  static fromState(state: ModelState): KnnEstimator {
    const where = "knn.restore";
    checkStateKind(state, "knn", where);
    const t = state.tensors;
    const rowPtr = requireTensor(t, "rowPtr", Int32Array, where);
    const rowIdx = requireTensor(t, "rowIdx", Int32Array, where);
    const rowVal = requireTensor(t, "rowVal", Float32Array, where);
    // one label row per stored row
    const labelPtr = requireTensor(
      t,
      "labelPtr",
      Int32Array,
      where,
      rowPtr.length,
      "one per entry of rowPtr",
    );
    const labelIdx = requireTensor(t, "labelIdx", Int32Array, where);
    // a state that does not hold together (truncated tensors, entries past its sizes) would
    // answer wrongly or read past its arrays: refused here, naming the part
    const n = rowPtr.length - 1;
    if (n < 0) throw new RangeError(`${where}: tensor rowPtr is empty (no row pointer)`);
    const scalars = state.scalars ?? {};
    const numFeatures = checkScalar(scalars, "numFeatures", where);
    const numLabels = checkScalar(scalars, "numLabels", where);
    const row = (i: number) => `stored row ${i}`;
    const needD = checkCsr(rowPtr, rowIdx, n, 0, "rows", "feature", where, row, rowVal);
    const needL = checkCsr(labelPtr, labelIdx, n, 0, "labels", "label", where, row);
    if (needD > numFeatures || needL > numLabels) {
      throw new RangeError(
        `${where}: the stored rows need ${needD} features and ${needL} labels, the state ` +
          `declares ${numFeatures} and ${numLabels}`,
      );
    }
    const index = CosineIndex.fromArrays({ rowPtr, rowIdx, rowVal, labelPtr, labelIdx });
    // every key of the config checked as `create` checks it (a key that is not a setting is
    // refused, naming it, not dropped: the model would differ from the one saved)
    return new KnnEstimator({ ...withStoredLimits(state.config), numFeatures, numLabels }, index);
  }
}
