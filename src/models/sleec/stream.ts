/**
 * The streaming SLEEC estimator: rows are L2-normalised and, in each learner of the ensemble,
 * routed to the most similar of at most `numClusters` clusters (online spherical k-means); each
 * cluster keeps a bounded reservoir of rows and learns V by Adam between refreshes; every
 * refresh (after `firstRefresh` rows, then 2×, 4×, … up to every `refreshEvery` rows, and on
 * request) re-runs SVP on each reservoir warm-started from the previous embedding, then ADMM,
 * and re-embeds the kNN points. Memory is bounded by `numLearners × numClusters ×
 * reservoirSize` rows plus V.
 *
 * Clusters open online: while a learner has fewer than `numClusters` clusters, a row opens a
 * new one with probability `1 − (its best cosine similarity to the existing centroids)` (a
 * seeded hash decides), so the first row always opens cluster 0 and rows unlike the existing
 * clusters open the others, as k-means++ seeding would.
 *
 * @module
 */
import { checkModelFileOptions } from "../file_options.ts";
import { checkK, checkRow } from "../query_check.ts";
import { checkBatch, type SpaceLimits } from "../../data/batch_check.ts";
import { spaceLimits, type SpaceLimitSettings, withStoredLimits } from "../space_limits.ts";
import { learnOneVia } from "../learn_one.ts";
import type { Batch, SparseVector } from "../../data/types.ts";
import { preprocessRows } from "../../data/preprocess.ts";
import type { Estimator, ModelFileOptions, ModelState, TopK } from "../estimator.ts";
import { hashUniform } from "../../random/mod.ts";
import { DEFAULT_CONFIG, resolveConfig, SLEEC_SETTINGS, type SleecConfig } from "./config.ts";
import { encodeKnnModel } from "./model_file.ts";
import { type KnnModel, KnnPredictor } from "./predictor.ts";
import { StreamCluster } from "./stream_cluster.ts";
import { isSleecReplicaState, sleecReplicaState } from "./replica.ts";
import { checkScalar, checkStateKind } from "../state_check.ts";

/**
 * Options of {@linkcode SleecStream}: any {@linkcode SleecConfig} field plus the initial sizes.
 *
 * @example
 * ```ts
 * import type { SleecStreamOptions } from "./stream.ts";
 * const o: SleecStreamOptions = { rank: 32, reservoirSize: 2000, numLabels: 10 };
 * console.log(o.rank); // 32
 * ```
 */
export type SleecStreamOptions = Partial<SleecConfig> & SpaceLimitSettings & {
  numFeatures?: number;
  numLabels?: number;
};

/**
 * Streaming SLEEC (kind "sleec"), an {@linkcode Estimator}.
 *
 * @example
 * ```ts
 * import { SleecStream } from "./stream.ts";
 * const m = new SleecStream({ rank: 4, firstRefresh: 2 });
 * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
 * m.learnOne({ indices: Int32Array.of(1), values: Float32Array.of(1) }, [1]);
 * console.log(m.predictTopK({ indices: Int32Array.of(1), values: Float32Array.of(1) }, 1).labels[0]); // 1
 * ```
 */
export class SleecStream implements Estimator {
  readonly kind = "sleec";
  readonly #cfg: SleecConfig;
  readonly #limits: SpaceLimits;
  #numFeatures: number;
  #numLabels: number;
  #rows = 0;
  #nextRefresh: number;
  #refreshes = 0;
  readonly #learners: StreamCluster[][];
  #predictor: KnnPredictor | undefined;

  constructor(options: SleecStreamOptions = {}) {
    const resolved = SLEEC_SETTINGS.resolve(options as Record<string, unknown>);
    const { numFeatures, numLabels } = resolved;
    this.#cfg = resolveConfig(resolved as Record<string, unknown>);
    this.#limits = spaceLimits("sleec", resolved as Required<SleecStreamOptions>);
    for (
      const name of [
        "rowFraction",
        "featureFraction",
        "featureWeighting",
        "unclusteredLearners",
      ] as const
    ) {
      if (this.#cfg[name] !== DEFAULT_CONFIG[name]) {
        throw new RangeError(
          `SleecStream: ${name} is an option of the batch trainer (trainSleec), got ${
            this.#cfg[name]
          }`,
        );
      }
    }
    this.#numFeatures = numFeatures!;
    this.#numLabels = numLabels!;
    this.#nextRefresh = this.#cfg.firstRefresh;
    this.#learners = Array.from({ length: this.#cfg.numLearners }, () => []);
  }

  /** The resolved hyper-parameters. */
  get config(): Readonly<SleecConfig> {
    return this.#cfg;
  }

  /** Current feature-space size. */
  get numFeatures(): number {
    return this.#numFeatures;
  }

  /** Current label-space size. */
  get numLabels(): number {
    return this.#numLabels;
  }

  /** Rows learned so far. */
  get rowsSeen(): number {
    return this.#rows;
  }

  /** Refreshes run so far (scheduled and requested). */
  get refreshes(): number {
    return this.#refreshes;
  }

  /** Rows held in all reservoirs (the memory bound is numLearners × numClusters × reservoirSize). */
  get storedRows(): number {
    let n = 0;
    for (const clusters of this.#learners) for (const c of clusters) n += c.size;
    return n;
  }

  /** Learns every row of the batch in order (the batch is not mutated). */
  learnMany(batch: Batch): void {
    const [needD, needL] = checkBatch(batch, "sleec.learnMany", this.#limits);
    const { x, y } = batch;
    this.#grow(needD, needL);
    const xn = preprocessRows(x, { l2Normalize: true });
    for (let i = 0; i < x.numRows; i++) {
      const a = xn.indptr[i], b = xn.indptr[i + 1];
      this.#learnRow(
        xn.indices.subarray(a, b),
        xn.values.subarray(a, b),
        y.indices.slice(y.indptr[i], y.indptr[i + 1]), // checked: strictly increasing, in range
      );
    }
  }

  /** Learns one row; `y` lists its positive labels (any order, duplicates ignored). */
  learnOne(x: SparseVector, y: ArrayLike<number>): void {
    learnOneVia(this, x, y, "sleec");
  }

  /**
   * Grows the feature and label spaces: every cluster's arrays are allocated first, then put
   * in place, so a size that cannot be allocated is a RangeError naming it, the model unchanged.
   */
  #grow(numFeatures: number, numLabels: number): void {
    if (numFeatures > this.#numFeatures) {
      const commits: (() => void)[] = [];
      try {
        for (const clusters of this.#learners) {
          for (const c of clusters) commits.push(c.prepareGrowth(numFeatures));
        }
      } catch (e) {
        throw new RangeError(
          `sleec.learnMany: cannot grow the model to ${numFeatures} features (${numFeatures} × rank ${this.#cfg.rank} weights per cluster): ${
            (e as Error).message
          }`,
        );
      }
      for (const commit of commits) commit();
      this.#numFeatures = numFeatures;
      this.#predictor = undefined;
    }
    if (numLabels > this.#numLabels) {
      // the predictor answers numLabels scores: a batch of no rows grows the spaces too (its
      // predictor answered the old count, a restored copy the new one)
      this.#numLabels = numLabels;
      this.#predictor = undefined;
    }
  }

  #learnRow(indices: Int32Array, values: Float32Array, labels: Int32Array): void {
    this.#predictor = undefined;
    const row = this.#rows;
    const cfg = this.#cfg;
    for (let t = 0; t < this.#learners.length; t++) {
      const clusters = this.#learners[t];
      let best = -1, bestSim = -Infinity;
      for (let c = 0; c < clusters.length; c++) {
        const s = clusters[c].similarity(indices, values);
        if (s > bestSim) {
          bestSim = s;
          best = c;
        }
      }
      if (clusters.length < cfg.numClusters && indices.length > 0) {
        const open = best < 0 ? 1 : 1 - Math.max(0, bestSim);
        const u = 0.5 * (hashUniform(cfg.seed + t, row, 0x0c1) + 1);
        if (u < open) {
          best = clusters.length;
          clusters.push(new StreamCluster(cfg, t * 65536 + best, this.#numFeatures));
        }
      }
      if (best < 0) {
        // an empty row (or a row unlike every empty centroid): the first cluster takes it
        best = 0;
        if (clusters.length === 0) {
          clusters.push(new StreamCluster(cfg, t * 65536, this.#numFeatures));
        }
      }
      clusters[best].add(indices, values, labels, row, this.#numLabels);
    }
    this.#rows++;
    if (this.#rows >= this.#nextRefresh) {
      this.refresh();
      this.#nextRefresh = this.#rows + Math.min(cfg.refreshEvery, Math.max(1, this.#rows));
    }
  }

  /**
   * Refreshes every cluster now: SVP on its reservoir (warm-started after the first time),
   * ADMM, re-embedded kNN points. The schedule of the automatic refreshes is not changed.
   *
   * @example
   * ```ts
   * import { SleecStream } from "./stream.ts";
   * const m = new SleecStream({ rank: 2, firstRefresh: 100 });
   * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
   * m.refresh();
   * console.log(m.refreshes); // 1
   * ```
   */
  refresh(): void {
    this.#predictor = undefined;
    for (let t = 0; t < this.#learners.length; t++) {
      const clusters = this.#learners[t];
      for (let c = 0; c < clusters.length; c++) {
        clusters[c].refresh(this.#numLabels, 101 * t + c + 7919 * this.#refreshes);
      }
    }
    this.#refreshes++;
  }

  /** The current model as a kNN-embedding model (views into the estimator's arrays). */
  knnModel(): KnnModel {
    const clusters = [];
    for (let t = 0; t < this.#learners.length; t++) {
      for (const c of this.#learners[t]) clusters.push(c.view(t));
    }
    return {
      numFeatures: this.#numFeatures,
      numLabels: this.#numLabels,
      rank: this.#cfg.rank,
      numLearners: this.#cfg.numLearners,
      k: this.#cfg.k,
      weighted: this.#cfg.weighted,
      ...(this.#cfg.votePower !== 1 ? { votePower: this.#cfg.votePower } : {}),
      clusters,
    };
  }

  #getPredictor(): KnnPredictor {
    this.#predictor ??= new KnnPredictor(this.knnModel());
    return this.#predictor;
  }

  /** The k best labels (ties: the smaller label index). */
  predictTopK(x: SparseVector, k: number): TopK {
    checkRow(x, "sleec.predictTopK");
    checkK(k, "sleec.predictTopK");
    return this.#getPredictor().topK(x.indices, x.values, k);
  }

  /** One score per label: the neighbours' label distribution averaged over learners. */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "sleec.predictScores");
    return this.#getPredictor().scores(x.indices, x.values, out);
  }

  /** The `knn-embedding` model file of the current model. */
  toModelFile(options: ModelFileOptions = {}): Uint8Array {
    checkModelFileOptions(options, "sleec.toModelFile");
    return encodeKnnModel(this.knnModel(), options);
  }

  /**
   * The kNN-embedding model as a replica state (copies): the factory restores it as a
   * predict-only `SleecReplica` (./replica.ts), which predicts exactly like this estimator.
   */
  toReplicaState(): ModelState {
    return sleecReplicaState(this.knnModel());
  }

  /** Full training state (copies). */
  toState(): ModelState {
    const scalars: Record<string, number> = {
      numFeatures: this.#numFeatures,
      numLabels: this.#numLabels,
      rows: this.#rows,
      nextRefresh: this.#nextRefresh,
      refreshes: this.#refreshes,
    };
    const tensors: ModelState["tensors"] = {};
    this.#learners.forEach((clusters, t) => {
      scalars[`l${t}.clusters`] = clusters.length;
      clusters.forEach((c, i) => c.saveState(`l${t}.c${i}`, scalars, tensors));
    });
    return { kind: this.kind, config: { ...this.#cfg, ...this.#limits }, scalars, tensors };
  }

  /**
   * Rebuilds an estimator from {@linkcode SleecStream.toState}; it predicts and learns exactly
   * as the original.
   *
   * @throws {TypeError | RangeError} on a state of another kind or with missing entries.
   *
   * @example
   * ```ts
   * import { SleecStream } from "./stream.ts";
   * const a = new SleecStream({ rank: 2, firstRefresh: 1 });
   * a.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
   * console.log(SleecStream.fromState(a.toState()).rowsSeen); // 1
   * ```
   */
  static fromState(state: ModelState): SleecStream {
    const where = "sleec.restore";
    checkStateKind(state, "sleec", where);
    if (isSleecReplicaState(state)) {
      throw new TypeError(
        `${where}: a replica state holds only the kNN model (restore it with the factory)`,
      );
    }
    const scalar = (name: string): number => checkScalar(state.scalars ?? {}, name, where);
    const m = new SleecStream({
      ...(withStoredLimits(state.config) as SleecStreamOptions),
      numFeatures: scalar("numFeatures"),
      numLabels: scalar("numLabels"),
    });
    m.#rows = scalar("rows");
    m.#nextRefresh = scalar("nextRefresh");
    m.#refreshes = scalar("refreshes");
    for (let t = 0; t < m.#learners.length; t++) {
      const count = scalar(`l${t}.clusters`);
      for (let i = 0; i < count; i++) {
        m.#learners[t].push(
          StreamCluster.fromState(
            m.#cfg,
            t * 65536 + i,
            m.#numFeatures,
            `l${t}.c${i}`,
            state,
            m.#numLabels,
          ),
        );
      }
    }
    return m;
  }
}
