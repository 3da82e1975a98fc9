/**
 * SDK scorer of the `knn-embedding` kind (SLEEC). A deliberate copy of
 * src/models/sleec/predictor.ts (the SDK imports nothing from src/): same arithmetic in the same
 * order, so scores equal the trainer's. Per learner: the nearest cluster centroid to the
 * unit-normalised row, its embedding z = Vᵀx̂, the k nearest embedded training points by cosine
 * similarity, and their (optionally similarity-weighted) label distribution; the learners'
 * distributions are averaged.
 *
 * The scorer's `topK` gives the same answer without scanning the L labels: only the labels the
 * neighbours carry score above 0, and the others follow by index (the tie rule). The neighbours
 * come from ./knn_index.ts: exact (abandoning points early) for the dense scores and for `topK`
 * with `dense`, approximate from the file's list index when it has one (its `knnProbes` lists, or
 * `probes`).
 *
 * @module
 */
import { type TopK, topKTouched } from "../topk.ts";
import { f32s, fround, I32, i32s, invNorm, min, u8s, vecMat, zeros } from "../vector.ts";
import { knnSearch } from "./knn_index.ts";
import { bad, floats, intParam, ints, ptrs } from "./tensors.ts";
import type { KindFactory } from "./types.ts";

/**
 * Builds the `knn-embedding` scorer (tensors `centroids` [C, D], `clusterLearner` [C], `V`
 * [C·D, r], `pointPtr` [C+1], `points` [P, r], `labelPtr` [P+1], `labels`; params `rank`, `k`,
 * `weighted`, `numLearners`, and `votePower` when not 1).
 *
 * @example
 * ```ts
 * import { knnEmbedding } from "./knn_embedding.ts";
 * const s = knnEmbedding({
 *   kind: "knn-embedding", formatVersion: 1, numFeatures: 1, numLabels: 2,
 *   params: { rank: 1, k: 1, weighted: false, numLearners: 1, numClusters: 1 },
 *   tensors: {
 *     centroids: { shape: [1, 1], data: Float32Array.of(1) },
 *     clusterLearner: { shape: [1], data: Int32Array.of(0) },
 *     V: { shape: [1, 1], data: Float32Array.of(1) },
 *     pointPtr: { shape: [2], data: Int32Array.of(0, 1) },
 *     points: { shape: [1, 1], data: Float32Array.of(1) },
 *     labelPtr: { shape: [2], data: Int32Array.of(0, 1) },
 *     labels: { shape: [1], data: Int32Array.of(1) },
 *   },
 * });
 * console.log(s(Int32Array.of(0), Float64Array.of(3))); // Float32Array(2) [ 0, 1 ]
 * ```
 */
export const knnEmbedding: KindFactory = (m) => {
  const D = m.numFeatures, L = m.numLabels;
  // r ≤ 4096, SLEEC's largest rank: the scratch is sized by r, also in a file without points
  const r = intParam(m, "rank", 4096), kNN = intParam(m, "k");
  const NL = intParam(m, "numLearners"), weighted = m.params.weighted;
  // a boolean when present, as the trainer's reader requires (1 was served as unweighted; absent:
  // unweighted, as before)
  if (weighted !== undefined && weighted !== !!weighted) bad(m, `param "weighted"`);
  // the vote's power π, a positive integer (format version 4; 1 when absent)
  const power = intParam(m, "votePower", Infinity, 1);
  const learner = ints(m, "clusterLearner", NL - 1), C = learner.length;
  const labels = ints(m, "labels", L - 1), labelPtr = ptrs(m, "labelPtr", labels.length);
  const P = labelPtr.length - 1, pointPtr = ptrs(m, "pointPtr", P, C + 1);
  const cen = floats(m, "centroids", C * D), V = floats(m, "V", C * D * r);
  const pts = floats(m, "points", P * r);
  // at most P neighbours are kept (k' = min(k, points)): a larger k is valid, and k = 2^33 failed
  // to allocate these
  const z = zeros(r), nnIdx = i32s(min(kNN, P)), nnSim = zeros(min(kNN, P));
  // the learners that own a cluster, increasing: the others cast no vote (and a file may declare
  // far more learners than clusters: numLearners 2^53 hung every query)
  const voters = I32.from(new Set(learner)).sort();
  const acc = zeros(L), out = f32s(L), mark = u8s(L), touched = i32s(L);
  let n = 0;
  // acc[l] = Σ_t Σ_{p : l ∈ labels_p} w_p over the labels the neighbours carry (`touched`)
  const { search, probes: defaultProbes } = knnSearch(m, pts, r, pointPtr, z, nnIdx, nnSim);
  // the neighbours among the best `probes` lists of the index (undefined: the exact neighbours)
  const accumulate = (
    indices: Int32Array,
    values: Float32Array | Float64Array,
    probes?: number,
  ) => {
    while (n) acc[touched[--n]] = mark[touched[n]] = 0;
    const inv = invNorm(values, indices.length);
    for (const t of voters) {
      let best = -1, bestDot = -Infinity;
      for (let c = 0; c < C; c++) {
        if (learner[c] !== t || pointPtr[c + 1] === pointPtr[c]) continue;
        const o = c * D;
        let s = 0;
        for (let e = 0; e < indices.length; e++) s += values[e] * inv * cen[o + indices[e]];
        if (s > bestDot) {
          bestDot = s;
          best = c;
        }
      }
      if (best < 0) continue;
      vecMat(z, values, V, r, indices, inv, best * D * r, true);
      const zinv = invNorm(z, r), kk = min(kNN, pointPtr[best + 1] - pointPtr[best]);
      // a row embedded at 0 (no feature the model knows) is equally near every point: no vote
      if (!zinv) continue;
      const count = search(best, zinv, kk, probes);
      // neighbour weights: max(0, similarity)^π / their sum when `weighted` (unless that is 0),
      // else 1 / count
      let wsum = 0;
      for (let q = 0; q < count; q++) {
        wsum += nnSim[q] = nnSim[q] > 0 && weighted ? nnSim[q] ** power : 0;
      }
      if (!(wsum > 0)) {
        nnSim.fill(1, 0, count);
        wsum = count;
      }
      for (let q = 0; q < count; q++) {
        const w = nnSim[q] / wsum;
        for (let e = labelPtr[nnIdx[q]]; e < labelPtr[nnIdx[q] + 1]; e++) {
          const l = labels[e];
          if (!mark[l]) {
            mark[l] = 1;
            touched[n++] = l;
          }
          acc[l] += w;
        }
      }
    }
  };
  const scores = (indices: Int32Array, values: Float32Array | Float64Array) => {
    accumulate(indices, values);
    for (let l = 0; l < L; l++) out[l] = acc[l] / NL;
    return out;
  };
  // exact top k without scanning L: the neighbours' labels, then the others (score 0) by index
  scores.topK = (
    indices: Int32Array,
    values: Float32Array | Float64Array,
    k: number,
    dense?: boolean,
    p?: number,
  ): TopK => {
    accumulate(indices, values, dense ? undefined : p ?? defaultProbes);
    // the touched labels' float32 scores (acc is reset by the next query)
    for (let i = n; i--;) acc[touched[i]] = fround(acc[touched[i]] / NL);
    return topKTouched(k, L, acc, touched, n, mark);
  };
  return scores;
};
