/**
 * SLEEC prediction (Algorithm 2) on a kNN-embedding model: per learner, the nearest cluster
 * centroid, the embedding z = Vᵀx̂, the k nearest embedded training points by cosine
 * similarity, and their (optionally similarity-weighted) empirical label distribution; the
 * learners' distributions are averaged. The SDK scorer `sdk/kinds/knn_embedding.ts` is a copy
 * of this routine (same arithmetic in the same order), so both give identical scores.
 *
 * @module
 */
import type { TopK } from "../estimator.ts";

/**
 * One cluster of one learner.
 *
 * @example
 * ```ts
 * import type { KnnCluster } from "./predictor.ts";
 * const c: KnnCluster = {
 *   learner: 0, centroid: Float32Array.of(1), v: Float32Array.of(1), numPoints: 1,
 *   points: Float32Array.of(1), labels: [Int32Array.of(0)],
 * };
 * console.log(c.numPoints); // 1
 * ```
 */
export interface KnnCluster {
  /** Learner (ensemble member) the cluster belongs to. */
  readonly learner: number;
  /** Unit-norm centroid over the feature space (length numFeatures). */
  readonly centroid: Float32Array;
  /** Regressor V, row-major numFeatures × rank. */
  readonly v: Float32Array;
  /** Number of embedded training points. */
  readonly numPoints: number;
  /** Unit-norm (or zero) embedded points, row-major, at least numPoints × rank. */
  readonly points: Float32Array;
  /** Positive labels of each point. */
  readonly labels: readonly Int32Array[];
}

/**
 * A kNN-embedding model (what the `knn-embedding` model file holds).
 *
 * @example
 * ```ts
 * import type { KnnModel } from "./predictor.ts";
 * const m: KnnModel = { numFeatures: 1, numLabels: 1, rank: 1, numLearners: 1, k: 1, weighted: true, clusters: [] };
 * console.log(m.k); // 1
 * ```
 */
export interface KnnModel {
  readonly numFeatures: number;
  readonly numLabels: number;
  /** Embedding dimension. */
  readonly rank: number;
  /** Ensemble size (scores are averaged over it). */
  readonly numLearners: number;
  /** Neighbours used for prediction. */
  readonly k: number;
  /** Weight neighbours by their (non-negative) cosine similarity instead of uniformly. */
  readonly weighted: boolean;
  readonly clusters: readonly KnnCluster[];
}

/**
 * Scores rows with a {@linkcode KnnModel}. Holds scratch buffers (never part of the model).
 *
 * @example
 * ```ts
 * import { KnnPredictor } from "./predictor.ts";
 * const p = new KnnPredictor({
 *   numFeatures: 1, numLabels: 2, rank: 1, numLearners: 1, k: 1, weighted: false,
 *   clusters: [{ learner: 0, centroid: Float32Array.of(1), v: Float32Array.of(1), numPoints: 1,
 *     points: Float32Array.of(1), labels: [Int32Array.of(1)] }],
 * });
 * console.log(p.topK(Int32Array.of(0), Float32Array.of(3), 1).labels[0]); // 1
 * ```
 */
export class KnnPredictor {
  readonly #m: KnnModel;
  readonly #z: Float64Array;
  readonly #nnIdx: Int32Array;
  readonly #nnSim: Float64Array;
  readonly #acc: Float64Array;

  constructor(model: KnnModel) {
    this.#m = model;
    this.#z = new Float64Array(model.rank);
    this.#nnIdx = new Int32Array(Math.max(1, model.k));
    this.#nnSim = new Float64Array(Math.max(1, model.k));
    this.#acc = new Float64Array(model.numLabels);
  }

  /** The model scored. */
  get model(): KnnModel {
    return this.#m;
  }

  /** Accumulates the averaged label distribution into the internal buffer. */
  #score(indices: Int32Array, values: Float32Array): Float64Array {
    const m = this.#m;
    const D = m.numFeatures, L = m.numLabels, r = m.rank;
    const acc = this.#acc;
    acc.fill(0);
    let ss = 0;
    for (let e = 0; e < indices.length; e++) {
      if (indices[e] < D && indices[e] >= 0) ss += values[e] * values[e];
    }
    const inv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
    const z = this.#z, nnIdx = this.#nnIdx, nnSim = this.#nnSim;
    const clusters = m.clusters;
    for (let learner = 0; learner < m.numLearners; learner++) {
      let best = -1, bestDot = -Infinity;
      for (let c = 0; c < clusters.length; c++) {
        const cl = clusters[c];
        if (cl.learner !== learner || cl.numPoints === 0) continue;
        const cen = cl.centroid;
        let s = 0;
        for (let e = 0; e < indices.length; e++) {
          const j = indices[e];
          if (j < D && j >= 0) s += values[e] * inv * cen[j];
        }
        if (s > bestDot) {
          bestDot = s;
          best = c;
        }
      }
      if (best < 0) continue;
      const cl = clusters[best];
      const v = cl.v;
      z.fill(0);
      for (let e = 0; e < indices.length; e++) {
        const j = indices[e];
        if (j >= D || j < 0) continue;
        const w = values[e] * inv;
        const o = j * r;
        for (let a = 0; a < r; a++) z[a] += w * v[o + a];
      }
      let zz = 0;
      for (let a = 0; a < r; a++) zz += z[a] * z[a];
      const zinv = zz > 0 ? 1 / Math.sqrt(zz) : 0;
      const k = Math.min(m.k, cl.numPoints);
      let count = 0;
      const pts = cl.points;
      for (let p = 0; p < cl.numPoints; p++) {
        const o = p * r;
        let s = 0;
        for (let a = 0; a < r; a++) s += pts[o + a] * z[a];
        s *= zinv;
        if (count < k) {
          let t = count++;
          while (t > 0 && nnSim[t - 1] < s) {
            nnSim[t] = nnSim[t - 1];
            nnIdx[t] = nnIdx[t - 1];
            t--;
          }
          nnSim[t] = s;
          nnIdx[t] = p;
        } else if (s > nnSim[k - 1]) {
          let t = k - 1;
          while (t > 0 && nnSim[t - 1] < s) {
            nnSim[t] = nnSim[t - 1];
            nnIdx[t] = nnIdx[t - 1];
            t--;
          }
          nnSim[t] = s;
          nnIdx[t] = p;
        }
      }
      let wsum = 0;
      if (m.weighted) { for (let t = 0; t < count; t++) wsum += nnSim[t] > 0 ? nnSim[t] : 0; }
      const uniform = !(wsum > 0);
      if (uniform) wsum = count;
      for (let t = 0; t < count; t++) {
        const w = (uniform ? 1 : (nnSim[t] > 0 ? nnSim[t] : 0)) / wsum;
        if (w === 0) continue;
        const labs = cl.labels[nnIdx[t]];
        for (let q = 0; q < labs.length; q++) {
          const l = labs[q];
          if (l < L) acc[l] += w;
        }
      }
    }
    return acc;
  }

  /**
   * Scores of every label (length numLabels), into `out` when given.
   *
   * @example
   * ```ts
   * import { KnnPredictor } from "./predictor.ts";
   * const p = new KnnPredictor({ numFeatures: 1, numLabels: 2, rank: 1, numLearners: 1, k: 1, weighted: false, clusters: [] });
   * console.log(Array.from(p.scores(Int32Array.of(0), Float32Array.of(1)))); // [ 0, 0 ]
   * ```
   */
  scores(indices: Int32Array, values: Float32Array, out?: Float32Array): Float32Array {
    const acc = this.#score(indices, values);
    const L = this.#m.numLabels;
    const res = out && out.length >= L ? out : new Float32Array(L);
    const nl = this.#m.numLearners;
    for (let l = 0; l < L; l++) res[l] = acc[l] / nl;
    return res;
  }

  /**
   * The k best labels (ties: smaller index first).
   *
   * @example
   * ```ts
   * import { KnnPredictor } from "./predictor.ts";
   * const p = new KnnPredictor({ numFeatures: 1, numLabels: 3, rank: 1, numLearners: 1, k: 1, weighted: false, clusters: [] });
   * console.log(Array.from(p.topK(Int32Array.of(0), Float32Array.of(1), 2).labels)); // [ 0, 1 ]
   * ```
   */
  topK(indices: Int32Array, values: Float32Array, k: number): TopK {
    const acc = this.#score(indices, values);
    const L = this.#m.numLabels;
    const kk = Math.max(0, Math.min(k, L));
    const labels = new Int32Array(kk);
    const scores = new Float32Array(kk);
    const nl = this.#m.numLearners;
    let count = 0;
    for (let l = 0; l < L; l++) {
      const s = Math.fround(acc[l] / nl);
      if (count < kk) {
        let t = count++;
        while (t > 0 && scores[t - 1] < s) {
          scores[t] = scores[t - 1];
          labels[t] = labels[t - 1];
          t--;
        }
        scores[t] = s;
        labels[t] = l;
      } else if (kk > 0 && s > scores[kk - 1]) {
        let t = kk - 1;
        while (t > 0 && scores[t - 1] < s) {
          scores[t] = scores[t - 1];
          labels[t] = labels[t - 1];
          t--;
        }
        scores[t] = s;
        labels[t] = l;
      }
    }
    return { labels, scores };
  }
}
