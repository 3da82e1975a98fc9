/**
 * SLEEC prediction (Algorithm 2) on a kNN-embedding model, the scoring rule of the
 * `knn-embedding` model file. For a row x (indices `j`, values `x_j`; entries with
 * `j ≥ numFeatures` are ignored), in float64 arithmetic on the float32 model values:
 *
 * 0. x̂ = x · inv with `inv = 1/√(Σ_j x_j²)` (0 for an empty row); every product below uses
 *    `x_j · inv` computed first (the result does not depend on the row's scale).
 * 1. Per learner t: the cluster c of learner t (among those with at least one point) whose
 *    centroid has the largest inner product `Σ_j (x_j · inv) · centroid_c[j]` (ties: the
 *    smaller cluster index).
 * 2. z = Vᵀx̂ with V = `V_c` (numFeatures × rank), accumulated in the order of the row's
 *    entries.
 * 3. The cosine similarity of z to each of the cluster's points p (unit-norm float32 rows):
 *    `sim_p = (Σ_a point_p[a] · z[a]) / ‖z‖`; the k points with the largest similarity (ties:
 *    the smaller point index), k = min(model k, points of the cluster). When z = 0 (the row has
 *    no feature the model knows, or none that V maps anywhere) every point is as near as any
 *    other, and the learner has no neighbours and casts no vote. (Before, the first k points of
 *    the cluster voted: an answer that depended on how the points were stored, and that gave a
 *    row with no known feature full scores.)
 * 4. Weights: `w_p = max(0, sim_p)^π / Σ_q max(0, sim_q)^π` when `weighted` (π = `votePower`,
 *    default 1: the paper's rule; computed as `s ** π`), else `1 / k`; when the weighted sum is
 *    0 the weights fall back to `1 / k`.
 * 5. The learner's label distribution: `P_t(l) = Σ_{p : l ∈ labels_p} w_p`.
 *
 * A label's score is `Σ_t P_t(l) / numLearners` (a learner without clusters contributes 0),
 * rounded to float32; top-k breaks ties by the smaller label index. Scores are in [0, 1].
 * The SDK scorer (`sdk/kinds/knn_embedding.ts`) performs the same operations in the same order,
 * so both give bitwise-identical scores (the layout is documented in docs/model-format.md).
 *
 * @module
 */
import { scoresOut } from "../query_check.ts";
import type { TopK } from "../estimator.ts";
import { pushTop, topKSparse } from "../../../sdk/internal.ts";

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
  /** Learner (ensemble member) the cluster belongs to, in `[0, numLearners)`. */
  readonly learner: number;
  /** Unit-norm centroid over the feature space (at least numFeatures entries). */
  readonly centroid: Float32Array;
  /** Regressor V, row-major numFeatures × rank (at least that many entries). */
  readonly v: Float32Array;
  /** Number of embedded training points. */
  readonly numPoints: number;
  /** Unit-norm (or zero) embedded points, row-major, at least numPoints × rank. */
  readonly points: Float32Array;
  /** Positive labels of each point (at least numPoints lists). */
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
  /**
   * Exponent π of the weighted vote, a positive integer: a neighbour weighs max(0, sim)^π
   * (default 1, the paper's
   * rule; a sharper vote, e.g. 8, gained 0.7 mean P@1/3/5 on delicious' validation split). The
   * file's param `votePower`, written when not 1 (format version 4).
   */
  readonly votePower?: number;
  readonly clusters: readonly KnnCluster[];
}

/**
 * Step 4 of the rule: turns the similarities `sims[0..count)` into the neighbours' unnormalised
 * weights in place, max(0, sim)^`power` when `weighted`, else (or when those sum to 0) 1 each,
 * and returns their sum.
 *
 * @example
 * ```ts
 * import { voteWeights } from "./predictor.ts";
 * const w = Float64Array.of(0.5, -0.2, 1);
 * console.log(voteWeights(w, 3, true, 2), [...w]); // 1.25 [ 0.25, 0, 1 ]
 * console.log(voteWeights(Float64Array.of(-1, 0), 2, true, 1)); // 2
 * ```
 */
export function voteWeights(
  sims: Float64Array,
  count: number,
  weighted: boolean,
  power: number,
): number {
  let sum = 0;
  if (weighted) {
    for (let t = 0; t < count; t++) sum += sims[t] = sims[t] > 0 ? sims[t] ** power : 0;
  }
  if (sum > 0) return sum;
  sims.fill(1, 0, count);
  return count;
}

/**
 * Scores rows with a {@linkcode KnnModel}. Holds scratch buffers (never part of the model):
 * one predictor per model, not shared between concurrent callers.
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
  readonly #scores: Float32Array;
  /** The labels the last row's votes reached, `#touched[0, #n)`, each marked in `#mark`. */
  readonly #touched: Int32Array;
  readonly #mark: Uint8Array;
  #n = 0;
  /** The learners that own a cluster, increasing (the others cast no vote). */
  readonly #voters: number[];
  #sims = new Float64Array(0);

  constructor(model: KnnModel) {
    if (!Number.isInteger(model.k) || model.k < 1) {
      throw new RangeError(`KnnPredictor: k must be a positive integer, got ${model.k}`);
    }
    const power = model.votePower ?? 1;
    if (!(Number.isInteger(power) && power >= 1)) {
      throw new RangeError(`KnnPredictor: votePower must be a positive integer, got ${power}`);
    }
    this.#m = model;
    // a learner without clusters casts no vote, so only the learners that own one are visited: a
    // file may declare far more learners than it has clusters (numLearners 2^53 hung each query)
    const voters = new Set<number>();
    let points = 0;
    for (const cl of model.clusters) {
      const t = cl.learner;
      if (Number.isInteger(t) && t >= 0 && t < model.numLearners) voters.add(t);
      points += cl.numPoints;
    }
    this.#voters = [...voters].sort((a, b) => a - b);
    // no cluster has more than `points` neighbours to keep: a k past every cluster is valid
    // (k' = min(k, points)), and a k of 2^33 failed to allocate its buffers
    const kept = Math.min(model.k, points);
    this.#z = new Float64Array(model.rank);
    this.#nnIdx = new Int32Array(kept);
    this.#nnSim = new Float64Array(kept);
    this.#acc = new Float64Array(model.numLabels);
    this.#scores = new Float32Array(model.numLabels);
    this.#touched = new Int32Array(model.numLabels);
    this.#mark = new Uint8Array(model.numLabels);
  }

  /** The model scored. */
  get model(): KnnModel {
    return this.#m;
  }

  /** Index of the cluster of `learner` nearest to the row (scaled by `inv`), or -1. */
  #nearestCluster(
    learner: number,
    indices: Int32Array,
    values: Float32Array,
    inv: number,
  ): number {
    const D = this.#m.numFeatures;
    const clusters = this.#m.clusters;
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
    return best;
  }

  /** Fills `#nnIdx`/`#nnSim` with the cluster's nearest points; returns how many. */
  #neighbours(cl: KnnCluster, indices: Int32Array, values: Float32Array, inv: number): number {
    const m = this.#m;
    const D = m.numFeatures, r = m.rank;
    const z = this.#z, nnIdx = this.#nnIdx, nnSim = this.#nnSim;
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
    // a row embedded at 0 (no feature the model knows) is equally near every point, so no point
    // is nearer than another: no neighbours, and the learner casts no vote
    if (zinv === 0) return 0;
    const k = Math.min(m.k, cl.numPoints);
    const n = cl.numPoints;
    if (this.#sims.length < n) this.#sims = new Float64Array(n);
    const sims = this.#sims, pts = cl.points;
    // dot products four points at a time (z[a] is loaded once for the four); each point's sum
    // still runs over a = 0 … r − 1 in order, so the values are those of the one-point loop
    let p = 0;
    for (; p + 3 < n; p += 4) {
      const o0 = p * r, o1 = o0 + r, o2 = o1 + r, o3 = o2 + r;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let a = 0; a < r; a++) {
        const za = z[a];
        s0 += pts[o0 + a] * za;
        s1 += pts[o1 + a] * za;
        s2 += pts[o2 + a] * za;
        s3 += pts[o3 + a] * za;
      }
      sims[p] = s0 * zinv;
      sims[p + 1] = s1 * zinv;
      sims[p + 2] = s2 * zinv;
      sims[p + 3] = s3 * zinv;
    }
    for (; p < n; p++) {
      const o = p * r;
      let s = 0;
      for (let a = 0; a < r; a++) s += pts[o + a] * z[a];
      sims[p] = s * zinv;
    }
    let count = 0;
    for (let p = 0; p < n; p++) count = pushTop(nnIdx, nnSim, count, k, p, sims[p]);
    return count;
  }

  /** 1/‖x‖ over the row's entries within the feature space (0 for an empty row). */
  #inv(indices: Int32Array, values: Float32Array): number {
    const D = this.#m.numFeatures;
    let ss = 0;
    for (let e = 0; e < indices.length; e++) {
      if (indices[e] < D && indices[e] >= 0) ss += values[e] * values[e];
    }
    return ss > 0 ? 1 / Math.sqrt(ss) : 0;
  }

  /**
   * The neighbours `learner` votes with for the row (steps 1-3 of the rule above): the index in
   * `model.clusters` of the cluster it is routed to (−1 when the learner has no points), and
   * that cluster's `model.k` nearest points (indices into the cluster) with their cosine
   * similarities, best first (ties: the smaller index), in buffers the next call overwrites.
   *
   * @example
   * ```ts
   * import { KnnPredictor } from "./predictor.ts";
   * const p = new KnnPredictor({
   *   numFeatures: 1, numLabels: 1, rank: 1, numLearners: 1, k: 2, weighted: true,
   *   clusters: [{ learner: 0, centroid: Float32Array.of(1), v: Float32Array.of(1), numPoints: 3,
   *     points: Float32Array.of(-1, 1, 1), labels: [] }],
   * });
   * const n = p.nearest(Int32Array.of(0), Float32Array.of(2), 0);
   * console.log(n.cluster, [...n.points], [...n.sims]); // 0 [ 1, 2 ] [ 1, 1 ]
   * ```
   */
  nearest(
    indices: Int32Array,
    values: Float32Array,
    learner: number,
  ): { cluster: number; points: Int32Array; sims: Float64Array } {
    const inv = this.#inv(indices, values);
    const cluster = this.#nearestCluster(learner, indices, values, inv);
    const count = cluster < 0
      ? 0
      : this.#neighbours(this.#m.clusters[cluster], indices, values, inv);
    return {
      cluster,
      points: this.#nnIdx.subarray(0, count),
      sims: this.#nnSim.subarray(0, count),
    };
  }

  /**
   * Accumulates Σ_t P_t into the internal buffer (0 for every label no vote reaches; the labels
   * votes reach in `#touched[0, #n)`): O(votes), not O(numLabels), once the last row's are reset.
   */
  #score(indices: Int32Array, values: Float32Array): Float64Array {
    const m = this.#m;
    const L = m.numLabels;
    const acc = this.#acc, nnIdx = this.#nnIdx, nnSim = this.#nnSim;
    const touched = this.#touched, mark = this.#mark;
    for (let n = this.#n; n--;) acc[touched[n]] = mark[touched[n]] = 0;
    this.#n = 0; // (counted as labels are reached: a throw leaves none uncleared)
    const inv = this.#inv(indices, values), power = m.votePower ?? 1;
    for (const learner of this.#voters) {
      const best = this.#nearestCluster(learner, indices, values, inv);
      if (best < 0) continue;
      const cl = m.clusters[best];
      const count = this.#neighbours(cl, indices, values, inv);
      const wsum = voteWeights(nnSim, count, m.weighted, power);
      for (let t = 0; t < count; t++) {
        const w = nnSim[t] / wsum;
        if (w === 0) continue;
        const labs = cl.labels[nnIdx[t]];
        for (let q = 0; q < labs.length; q++) {
          const l = labs[q];
          if (l < L && l >= 0) {
            if (mark[l] === 0) mark[l] = 1, touched[this.#n++] = l;
            acc[l] += w;
          }
        }
      }
    }
    return acc;
  }

  /**
   * Scores of every label (length numLabels), into `out` when it has that length.
   *
   * @example
   * ```ts
   * import { KnnPredictor } from "./predictor.ts";
   * const p = new KnnPredictor({ numFeatures: 1, numLabels: 2, rank: 1, numLearners: 1, k: 1, weighted: false, clusters: [] });
   * console.log(Array.from(p.scores(Int32Array.of(0), Float32Array.of(1)))); // [ 0, 0 ]
   * ```
   */
  scores(indices: Int32Array, values: Float32Array, out?: Float32Array): Float32Array {
    const L = this.#m.numLabels;
    const res = scoresOut(out, L, "sleec.predictScores");
    const acc = this.#score(indices, values);
    const nl = this.#m.numLearners;
    for (let l = 0; l < L; l++) res[l] = acc[l] / nl;
    return res;
  }

  /**
   * The k best labels (decreasing score, ties: smaller index), k capped at numLabels.
   *
   * @example
   * ```ts
   * import { KnnPredictor } from "./predictor.ts";
   * const p = new KnnPredictor({ numFeatures: 1, numLabels: 3, rank: 1, numLearners: 1, k: 1, weighted: false, clusters: [] });
   * console.log(Array.from(p.topK(Int32Array.of(0), Float32Array.of(1), 2).labels)); // [ 0, 1 ]
   * ```
   */
  topK(indices: Int32Array, values: Float32Array, k: number): TopK {
    // the scores of `scores` (float32), of the labels votes reach; every other label scores 0:
    // topKSparse gives topKDense's answer in O(votes · k), not O(numLabels)
    const acc = this.#score(indices, values), nl = this.#m.numLearners, n = this.#n;
    const touched = this.#touched, s = this.#scores;
    for (let j = 0; j < n; j++) s[j] = acc[touched[j]] / nl;
    return topKSparse(touched.subarray(0, n), s.subarray(0, n), this.#m.numLabels, Math.max(0, k));
  }
}
