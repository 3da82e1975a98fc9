/**
 * The batch SLEEC trainer (Algorithm 1) with an ensemble of learners that differ in their
 * clustering seed, and the trained model (prediction by Algorithm 2, export as `knn-embedding`).
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix, SparseVector } from "../../data/types.ts";
import { sphericalKMeans } from "../../linalg/kmeans.ts";
import type { ModelFileOptions, TopK } from "../estimator.ts";
import { resolveConfig, type SleecConfig } from "./config.ts";
import { normalizeRows, trainCluster } from "./learner.ts";
import { encodeKnnModel } from "./model_file.ts";
import { type KnnCluster, type KnnModel, KnnPredictor } from "./predictor.ts";

/**
 * A trained (batch) SLEEC model: predicts and exports; it does not learn further.
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

  constructor(knn: KnnModel) {
    this.knn = knn;
    this.#predictor = new KnnPredictor(knn);
  }

  /** Feature-space size. */
  get numFeatures(): number {
    return this.knn.numFeatures;
  }

  /** Label-space size. */
  get numLabels(): number {
    return this.knn.numLabels;
  }

  /** The same model with another k (neighbours) and weighting; shares all arrays. */
  withPrediction(k: number, weighted = this.knn.weighted): SleecModel {
    return new SleecModel({ ...this.knn, k, weighted });
  }

  /** Scores of every label. */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    return this.#predictor.scores(x.indices, x.values, out);
  }

  /** The k best labels. */
  predictTopK(x: SparseVector, k: number): TopK {
    return this.#predictor.topK(x.indices, x.values, k);
  }

  /** The `knn-embedding` model file. */
  toModelFile(options: ModelFileOptions = {}): Uint8Array {
    return encodeKnnModel(this.knn, options);
  }
}

/** Progress callback of {@linkcode trainSleec}. */
export type SleecProgress = (event: { learner: number; cluster: number; rows: number }) => void;

/**
 * Trains SLEEC on rows `x` with labels `y` (Algorithm 1 per learner; learners use clustering
 * seeds `seed + learner`).
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
  const cfg = resolveConfig(options as Record<string, unknown>);
  const D = x.numCols, L = y.numCols, r = cfg.rank;
  const xn = normalizeRows(x);
  const clusters: KnnCluster[] = [];
  for (let learner = 0; learner < cfg.numLearners; learner++) {
    const km = sphericalKMeans(xn, cfg.numClusters, {
      seed: cfg.seed + learner,
      iterations: cfg.kmeansIterations,
    });
    for (let c = 0; c < km.clusters; c++) {
      const rows: number[] = [];
      for (let i = 0; i < xn.numRows; i++) if (km.assignment[i] === c) rows.push(i);
      if (rows.length === 0) continue;
      const sub = subRows(xn, rows);
      const labels = rows.map((i) => y.indices.slice(y.indptr[i], y.indptr[i + 1]));
      const fit = trainCluster(sub, labels, L, { ...cfg, seed: cfg.seed + 101 * learner + c });
      clusters.push({
        learner,
        centroid: Float32Array.from(km.centroids.subarray(c * D, (c + 1) * D)),
        v: Float32Array.from(fit.v),
        numPoints: rows.length,
        points: fit.points,
        labels,
      });
      onProgress?.({ learner, cluster: c, rows: rows.length });
    }
  }
  return new SleecModel({
    numFeatures: D,
    numLabels: L,
    rank: r,
    numLearners: cfg.numLearners,
    k: cfg.k,
    weighted: cfg.weighted,
    clusters,
  });
}

/**
 * The given rows of a CSR matrix, as a new CSR matrix.
 *
 * @example
 * ```ts
 * import { subRows } from "./batch.ts";
 * const m = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 2) };
 * console.log(Array.from(subRows(m, [1]).values)); // [ 2 ]
 * ```
 */
export function subRows(x: CsrMatrix, rows: readonly number[]): CsrMatrix {
  const indptr = new Int32Array(rows.length + 1);
  rows.forEach((i, q) => indptr[q + 1] = indptr[q] + x.indptr[i + 1] - x.indptr[i]);
  const indices = new Int32Array(indptr[rows.length]);
  const values = new Float32Array(indptr[rows.length]);
  rows.forEach((i, q) => {
    indices.set(x.indices.subarray(x.indptr[i], x.indptr[i + 1]), indptr[q]);
    values.set(x.values.subarray(x.indptr[i], x.indptr[i + 1]), indptr[q]);
  });
  return { numRows: rows.length, numCols: x.numCols, indptr, indices, values };
}
