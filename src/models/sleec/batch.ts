/**
 * The batch SLEEC trainer (Algorithm 1) with an ensemble of learners that differ in their
 * clustering seed, and the trained model (prediction by Algorithm 2, export as `knn-embedding`).
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix, SparseVector } from "../../data/types.ts";
import { subsetRows } from "../../data/dataset.ts";
import { decodeModelFile } from "../../../sdk/internal.ts";
import { sphericalKMeans } from "../../linalg/kmeans.ts";
import { preprocessRows } from "../../data/preprocess.ts";
import { Rng } from "../../random/mod.ts";
import type { ModelFileOptions, TopK } from "../estimator.ts";
import { resolveConfig, type SleecConfig } from "./config.ts";
import { trainCluster } from "./learner.ts";
import { encodeKnnModel, knnModelFromContent } from "./model_file.ts";
import { type KnnCluster, type KnnModel, KnnPredictor } from "./predictor.ts";
import { TfIdf } from "../../data/tfidf.ts";
import { rowView } from "../../data/dataset_rows.ts";

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

  /** The row's values with the IDF weights (a copy), or the row's own values without IDF. */
  #values(x: SparseVector): Float32Array {
    const idf = this.idf;
    if (idf === undefined) return x.values;
    const out = new Float32Array(x.values.length);
    for (let e = 0; e < out.length; e++) {
      const j = x.indices[e];
      out[e] = j >= 0 && j < idf.length ? x.values[e] * idf[j] : 0;
    }
    return out;
  }

  /** Scores of every label (the averaged neighbour label distribution, in [0, 1]). */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    return this.#predictor.scores(x.indices, this.#values(x), out);
  }

  /** The k best labels (ties: the smaller label index). */
  predictTopK(x: SparseVector, k: number): TopK {
    return this.#predictor.topK(x.indices, this.#values(x), k);
  }

  /** The `knn-embedding` model file (with TF-IDF, the IDF goes into its preprocessing block). */
  toModelFile(options: ModelFileOptions = {}): Uint8Array {
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
 * seed `seed + t`). Rows are L2-normalised first (a copy: the inputs are not mutated).
 *
 * @throws {RangeError} on mismatched row counts or a bad label.
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
  const D = x.numCols, L = y.numCols;
  const idf = cfg.featureWeighting === "tfidf" ? inverseDocumentFrequency(x) : undefined;
  const xn = preprocessRows(x, { l2Normalize: true, tfidf: idf !== undefined, idf });
  const labels = labelLists(y);
  const clusters: KnnCluster[] = [];
  for (let learner = 0; learner < cfg.numLearners; learner++) {
    const { rows: kept, x: xl } = learnerView(xn, cfg.rowFraction, cfg.featureFraction, {
      seed: cfg.seed + 7919 * (learner + 1),
    });
    const km = sphericalKMeans(xl, cfg.numClusters, {
      seed: cfg.seed + learner,
      iterations: cfg.kmeansIterations,
    });
    for (let c = 0; c < km.clusters; c++) {
      const local: number[] = [];
      for (let i = 0; i < xl.numRows; i++) if (km.assignment[i] === c) local.push(i);
      if (local.length === 0) continue;
      const rows = local.map((i) => kept[i]);
      const sub = subsetRows(
        { name: "cluster", numFeatures: D, numLabels: L, x: xl, y: emptyLabels(xl.numRows) },
        local,
      ).x;
      const subLabels = rows.map((i) => labels[i]);
      const fit = trainCluster(sub, subLabels, L, { ...cfg, seed: cfg.seed + 101 * learner + c });
      clusters.push({
        learner,
        centroid: Float32Array.from(km.centroids.subarray(c * D, (c + 1) * D)),
        v: fit.v,
        numPoints: rows.length,
        points: fit.points,
        labels: subLabels,
      });
      onProgress?.({ learner, cluster: c, rows: rows.length, residual: fit.residual });
    }
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

/**
 * IDF of each column of `x` over its rows, by `TfIdf` (src/data/tfidf.ts): ln((1 + n) /
 * (1 + df_j)) + 1, the weights a model file's preprocessing block applies.
 *
 * @example
 * ```ts
 * import { inverseDocumentFrequency } from "./batch.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 2, 3), indices: Int32Array.of(0, 1, 0), values: Float32Array.of(1, 1, 1) };
 * console.log(Array.from(inverseDocumentFrequency(x), (v) => v.toFixed(3))); // [ "1.000", "1.405" ]
 * ```
 */
export function inverseDocumentFrequency(x: CsrMatrix): Float32Array {
  const t = new TfIdf();
  for (let i = 0; i < x.numRows; i++) t.observe(rowView(x, i));
  return t.idfVector(x.numCols);
}

/**
 * What one learner sees: a seeded subset of ⌈rowFraction · n⌉ rows (increasing, without
 * replacement; all rows at 1) and, with `featureFraction` < 1, only a seeded subset of
 * ⌈featureFraction · D⌉ features, the rows re-normalised to unit L2 (a row left empty stays
 * empty). `x` is not mutated; at fractions 1 and 1 the result is `x` itself.
 *
 * @example
 * ```ts
 * import { learnerView } from "./batch.ts";
 * const x = { numRows: 4, numCols: 1, indptr: Int32Array.of(0, 1, 2, 3, 4), indices: new Int32Array(4), values: Float32Array.of(1, 1, 1, 1) };
 * console.log(learnerView(x, 0.5, 1, { seed: 1 }).rows.length); // 2
 * ```
 */
export function learnerView(
  x: CsrMatrix,
  rowFraction: number,
  featureFraction: number,
  options: { seed: number },
): { rows: Int32Array; x: CsrMatrix } {
  const n = x.numRows, D = x.numCols;
  if (!(rowFraction > 0 && rowFraction <= 1 && featureFraction > 0 && featureFraction <= 1)) {
    throw new RangeError(
      `learnerView: rowFraction and featureFraction must be in (0, 1], got ${rowFraction}, ` +
        `${featureFraction}`,
    );
  }
  const rng = new Rng(options.seed);
  const pick = (total: number, fraction: number): Int32Array => {
    const m = Math.min(total, Math.ceil(fraction * total));
    const perm = Int32Array.from({ length: total }, (_, i) => i);
    for (let i = 0; i < m; i++) {
      const j = i + rng.nextInt(total - i);
      const t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    return perm.slice(0, m).sort();
  };
  const rows = rowFraction < 1 ? pick(n, rowFraction) : Int32Array.from({ length: n }, (_, i) => i);
  let view = rowFraction < 1
    ? subsetRows({ name: "learner", numFeatures: D, numLabels: 0, x, y: emptyLabels(n) }, rows).x
    : x;
  if (featureFraction < 1) {
    const keep = new Uint8Array(D);
    for (const j of pick(D, featureFraction)) keep[j] = 1;
    const indptr = new Int32Array(view.numRows + 1);
    const indices = new Int32Array(view.indptr[view.numRows]);
    const values = new Float32Array(indices.length);
    let m = 0;
    for (let i = 0; i < view.numRows; i++) {
      for (let e = view.indptr[i]; e < view.indptr[i + 1]; e++) {
        const j = view.indices[e];
        if (j >= 0 && j < D && keep[j] === 1) {
          indices[m] = j;
          values[m++] = view.values[e];
        }
      }
      indptr[i + 1] = m;
    }
    view = preprocessRows(
      {
        numRows: view.numRows,
        numCols: D,
        indptr,
        indices: indices.slice(0, m),
        values: values.slice(0, m),
      },
      { l2Normalize: true },
    );
  }
  return { rows, x: view };
}

/** A label matrix of `n` empty rows (for {@linkcode subsetRows} on features only). */
function emptyLabels(n: number): BinaryCsr {
  return { numRows: n, numCols: 0, indptr: new Int32Array(n + 1), indices: new Int32Array(0) };
}
