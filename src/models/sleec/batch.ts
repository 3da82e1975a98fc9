/**
 * The batch SLEEC trainer (Algorithm 1) with an ensemble of learners that differ in their
 * clustering seed, and the trained model (prediction by Algorithm 2, export as `knn-embedding`).
 *
 * @module
 */
import { checkModelFileOptions } from "../file_options.ts";
import { checkK, checkRow } from "../query_check.ts";
import { checkTrainingSet } from "../training_check.ts";
import type { BinaryCsr, CsrMatrix, SparseVector } from "../../data/types.ts";
import { subsetRows } from "../../data/dataset.ts";
import { decodeModelFile } from "../../../sdk/internal.ts";
import { sphericalKMeans } from "../../linalg/kmeans.ts";
import { preprocessRows } from "../../data/preprocess.ts";
import type { ModelFileOptions, TopK } from "../estimator.ts";
import { DEFAULT_CONFIG, resolveConfig, type SleecConfig } from "./config.ts";
import { type ClusterFit, trainCluster } from "./learner.ts";
import { encodeKnnModel, knnModelFromContent } from "./model_file.ts";
import { type KnnCluster, type KnnModel, KnnPredictor } from "./predictor.ts";
import { inverseDocumentFrequency } from "../../data/inverse_document_frequency.ts";
import { emptyLabels, learnerView } from "./learner_view.ts";
import { weightRow } from "../../data/tfidf_overflow.ts";

/**
 * A trained (batch) SLEEC model: predicts and exports; it does not learn further (the
 * streaming estimator is `SleecStream`).
 *
 * @example
 * ```ts
 * import { trainSleec } from "./batch.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const y = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) };
 * const m = trainSleec(x, y, { rank: 2, k: 1 });
 * console.log(m.predictTopK({ indices: Int32Array.of(1), values: Float32Array.of(1) }, 1).labels[0]); // 1
 * ```
 */
export class SleecModel {
  readonly kind = "sleec";
  readonly #predictor: KnnPredictor;
  /** The kNN-embedding model. */
  readonly knn: KnnModel;
  /** IDF weights applied to raw rows before prediction (`featureWeighting: "tfidf"`), or none. */
  readonly idf: Float32Array | undefined;
  #weighted = new Float32Array(0);

  constructor(knn: KnnModel, idf?: Float32Array) {
    this.knn = knn;
    this.idf = idf;
    this.#predictor = new KnnPredictor(knn);
  }

  /**
   * Reads a `knn-embedding` model file.
   *
   * @example
   * ```ts
   * import { SleecModel, trainSleec } from "./batch.ts";
   * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
   * const y = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) };
   * const back = SleecModel.fromModelFile(trainSleec(x, y, { rank: 1, k: 1 }).toModelFile());
   * console.log(back.numLabels); // 2
   * ```
   */
  static fromModelFile(bytes: Uint8Array): SleecModel {
    const content = decodeModelFile(bytes);
    const idf = content.preprocess?.tfidf ? content.tensors.idf?.data : undefined;
    return new SleecModel(
      knnModelFromContent(content),
      idf ? Float32Array.from(idf as ArrayLike<number>) : undefined,
    );
  }

  /** Feature-space size. */
  get numFeatures(): number {
    return this.knn.numFeatures;
  }

  /** Label-space size. */
  get numLabels(): number {
    return this.knn.numLabels;
  }

  /**
   * The same model with another k (neighbours) and weighting; shares all arrays.
   *
   * @example
   * ```ts
   * import { trainSleec } from "./batch.ts";
   * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
   * const y = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
   * console.log(trainSleec(x, y, { rank: 1 }).withPrediction(3, false).knn.k); // 3
   * ```
   */
  withPrediction(k: number, weighted = this.knn.weighted): SleecModel {
    return new SleecModel({ ...this.knn, k, weighted }, this.idf);
  }

  /**
   * The row's values with the IDF weights (in a scratch buffer), or the row's own values. A row
   * whose weighted values would overflow a float32 is scaled by a power of two first, as in
   * training (../../data/tfidf_overflow.ts): prediction does not depend on the row's scale.
   */
  #values(x: SparseVector): Float32Array {
    const idf = this.idf, n = x.values.length;
    if (idf === undefined) return x.values;
    // a scratch buffer (grown when needed): no allocation per query
    if (this.#weighted.length < n) {
      this.#weighted = new Float32Array(Math.max(n, 2 * this.#weighted.length));
    }
    const out = this.#weighted.subarray(0, n);
    weightRow(x.indices, x.values, 0, n, idf, out, true);
    return out;
  }

  /** Scores of every label (the averaged neighbour label distribution, in [0, 1]). */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "sleec.predictScores");
    return this.#predictor.scores(x.indices, this.#values(x), out);
  }

  /** The k best labels (ties: the smaller label index). */
  predictTopK(x: SparseVector, k: number): TopK {
    checkRow(x, "sleec.predictTopK");
    checkK(k, "sleec.predictTopK");
    return this.#predictor.topK(x.indices, this.#values(x), k);
  }

  /** The `knn-embedding` model file (with TF-IDF, the IDF goes into its preprocessing block). */
  toModelFile(options: ModelFileOptions = {}): Uint8Array {
    checkModelFileOptions(options, "sleec.toModelFile");
    const idf = this.idf;
    return encodeKnnModel(
      this.knn,
      idf ? { ...options, preprocess: { tfidf: true, l2Normalize: true, idf } } : options,
    );
  }
}

/**
 * Progress callback of {@linkcode trainSleec}: called after each trained cluster.
 *
 * @example
 * ```ts
 * import type { SleecProgress } from "./batch.ts";
 * const log: SleecProgress = (e) => console.log(`learner ${e.learner} cluster ${e.cluster}: ${e.rows} rows`);
 * log({ learner: 0, cluster: 1, rows: 10, residual: 0.1 }); // learner 0 cluster 1: 10 rows
 * ```
 */
export type SleecProgress = (event: {
  learner: number;
  cluster: number;
  rows: number;
  residual: number;
}) => void;

/**
 * The label lists of `y`'s rows, sorted and de-duplicated (copies).
 *
 * @throws {RangeError} on a label outside `[0, y.numCols)`, naming the row.
 *
 * @example
 * ```ts
 * import { labelLists } from "./batch.ts";
 * const y = { numRows: 1, numCols: 5, indptr: Int32Array.of(0, 3), indices: Int32Array.of(4, 1, 4) };
 * console.log(labelLists(y)[0]); // Int32Array(2) [ 1, 4 ]
 * ```
 */
export function labelLists(y: BinaryCsr): Int32Array[] {
  const out: Int32Array[] = [];
  for (let i = 0; i < y.numRows; i++) {
    out.push(sortedLabels(y.indices, y.indptr[i], y.indptr[i + 1], y.numCols, i));
  }
  return out;
}

/**
 * A sorted, de-duplicated copy of `labels[start..end)`; throws a RangeError naming `row` for a
 * label outside `[0, numLabels)`.
 *
 * @example
 * ```ts
 * import { sortedLabels } from "./batch.ts";
 * console.log(sortedLabels(Int32Array.of(3, 1, 3), 0, 3, 4, 0)); // Int32Array(2) [ 1, 3 ]
 * ```
 */
export function sortedLabels(
  labels: ArrayLike<number>,
  start: number,
  end: number,
  numLabels: number,
  row: number,
): Int32Array {
  const a = new Int32Array(end - start);
  let sorted = true;
  for (let e = start; e < end; e++) {
    const l = labels[e];
    if (!(Number.isInteger(l) && l >= 0 && l < numLabels)) {
      throw new RangeError(`SLEEC: row ${row} has label ${l} outside [0, ${numLabels})`);
    }
    a[e - start] = l;
    if (e > start && !(l > labels[e - 1])) sorted = false;
  }
  if (sorted) return a;
  a.sort();
  let m = 0;
  for (let q = 0; q < a.length; q++) if (q === 0 || a[q] !== a[q - 1]) a[m++] = a[q];
  return a.slice(0, m);
}

/**
 * Trains SLEEC on rows `x` with labels `y` (Algorithm 1 per learner; learner t clusters with
 * seed `seed + t`). Rows are L2-normalised first (a copy: the inputs are not mutated); with
 * `featureWeighting: "tfidf"`, IDF-weighted first (a row whose weighted values would overflow a
 * float32 is scaled by a power of two before: ../../data/tfidf_overflow.ts).
 *
 * @throws {RangeError} on mismatched row counts, a malformed row of `x` (indices negative, not
 * increasing or beyond `x.numCols`, values not finite; naming the row), a bad label, or an
 * option only the streaming estimator uses (a streaming setting such as `learningRate` off its
 * default, or `numFeatures`, `numLabels`, `maxFeatures`, `maxLabels`), which would be ignored.
 *
 * @example
 * ```ts
 * import { trainSleec } from "./batch.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const y = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
 * console.log(trainSleec(x, y, { rank: 1 }).numLabels); // 1
 * ```
 */
export function trainSleec(
  x: CsrMatrix,
  y: BinaryCsr,
  options: Partial<SleecConfig> = {},
  onProgress?: SleecProgress,
): SleecModel {
  if (x.numRows !== y.numRows) {
    throw new RangeError(`trainSleec: ${x.numRows} feature rows but ${y.numRows} label rows`);
  }
  checkTrainingSet(x, y, "trainSleec", { anyLabelOrder: true });
  const cfg = resolveConfig(options as Record<string, unknown>);
  checkBatchOptions(options as Record<string, unknown>, cfg);
  const D = x.numCols, L = y.numCols;
  const idf = cfg.featureWeighting === "tfidf" ? inverseDocumentFrequency(x) : undefined;
  // (a row whose weighted values would overflow a float32 is scaled first: tfidf_overflow.ts)
  const xn = preprocessRows(x, { l2Normalize: true, tfidf: idf !== undefined, idf });
  const labels = labelLists(y);
  const clusters: KnnCluster[] = [];
  for (let learner = 0; learner < cfg.numLearners; learner++) {
    const { rows: kept, x: xl } = learnerView(xn, cfg.rowFraction, cfg.featureFraction, {
      seed: cfg.seed + 7919 * (learner + 1),
    });
    const km = sphericalKMeans(xl, learner < cfg.unclusteredLearners ? 1 : cfg.numClusters, {
      seed: cfg.seed + learner,
      iterations: cfg.kmeansIterations,
    });
    const learnerLabels = Array.from(kept, (i) => labels[i]);
    fitClusters(xl, learnerLabels, L, km.assignment, km.clusters, cfg, cfg.seed + 101 * learner, (
      c,
      rows,
      fit,
    ) => {
      clusters.push({
        learner,
        centroid: Float32Array.from(km.centroids.subarray(c * D, (c + 1) * D)),
        v: fit.v,
        numPoints: rows.length,
        points: fit.points,
        labels: Array.from(rows, (i) => learnerLabels[i]),
      });
      onProgress?.({ learner, cluster: c, rows: rows.length, residual: fit.residual });
    });
  }
  return new SleecModel({
    numFeatures: D,
    numLabels: L,
    rank: cfg.rank,
    numLearners: cfg.numLearners,
    k: cfg.k,
    weighted: cfg.weighted,
    clusters,
    ...(cfg.votePower !== 1 ? { votePower: cfg.votePower } : {}),
  }, idf);
}

/** The settings only the streaming estimator uses (the batch trainer refuses other values). */
const STREAM_ONLY = [
  "reservoirSize",
  "refreshEvery",
  "firstRefresh",
  "refreshSvpIterations",
  "refreshAdmmIterations",
  "learningRate",
  "reembedEvery",
] as const;

/**
 * Refuses what `trainSleec` would ignore: a streaming-only setting off its default (as the
 * streaming estimator refuses the batch-only ones) and the streaming estimator's sizes and growth
 * limits (the batch sizes are those of x and y).
 */
function checkBatchOptions(options: Record<string, unknown>, cfg: SleecConfig): void {
  for (const name of STREAM_ONLY) {
    if (cfg[name] !== DEFAULT_CONFIG[name]) {
      throw new RangeError(
        `trainSleec: ${name} is an option of the streaming estimator (SleecStream), got ${
          cfg[name]
        }`,
      );
    }
  }
  for (const name of ["numFeatures", "numLabels", "maxFeatures", "maxLabels"]) {
    if (options[name] !== undefined) {
      throw new RangeError(
        `trainSleec: ${name} is an option of the streaming estimator (SleecStream); the batch ` +
          `sizes are those of x and y, got ${options[name]}`,
      );
    }
  }
}

/**
 * Fits the clusters of one learner: for each non-empty cluster c of `assignment` (c in
 * `[0, numClusters)`, over the rows of `x`), SLEEC's embedding and regressor of its rows
 * (`trainCluster`) with seed `seed + c`, then `onCluster(c, rows, fit)` with the cluster's rows
 * of `x` in increasing order. `labels[i]` are the labels of row i of `x`.
 *
 * @example
 * ```ts
 * import { fitClusters } from "./batch.ts";
 * import { resolveConfig } from "./config.ts";
 * const x = { numRows: 3, numCols: 2, indptr: Int32Array.of(0, 1, 2, 3), indices: Int32Array.of(0, 1, 0), values: Float32Array.of(1, 1, 1) };
 * const labels = [Int32Array.of(0), Int32Array.of(1), Int32Array.of(0)];
 * fitClusters(x, labels, 2, Int32Array.of(1, 0, 1), 3, resolveConfig({ rank: 1 }), 0, (c, rows) => console.log(c, [...rows]));
 * // 0 [ 1 ]
 * // 1 [ 0, 2 ]
 * ```
 */
export function fitClusters(
  x: CsrMatrix,
  labels: readonly Int32Array[],
  numLabels: number,
  assignment: Int32Array,
  numClusters: number,
  cfg: SleecConfig,
  seed: number,
  onCluster: (cluster: number, rows: Int32Array, fit: ClusterFit) => void,
): void {
  for (let c = 0; c < numClusters; c++) {
    const local: number[] = [];
    for (let i = 0; i < x.numRows; i++) if (assignment[i] === c) local.push(i);
    if (local.length === 0) continue;
    const sub = subsetRows(
      { name: "cluster", numFeatures: x.numCols, numLabels, x, y: emptyLabels(x.numRows) },
      local,
    ).x;
    const fit = trainCluster(sub, local.map((i) => labels[i]), numLabels, {
      ...cfg,
      seed: seed + c,
    });
    onCluster(c, Int32Array.from(local), fit);
  }
}
