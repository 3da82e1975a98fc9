/**
 * SDK scorer of the `knn-embedding` kind (SLEEC). A deliberate copy of
 * src/models/sleec/predictor.ts (the SDK imports nothing from src/): same arithmetic in the same
 * order, so scores equal the trainer's. Per learner: the nearest cluster centroid to the
 * unit-normalised row, its embedding z = Vᵀx̂, the k nearest embedded training points by cosine
 * similarity, and their (optionally similarity-weighted) label distribution; the learners'
 * distributions are averaged.
 *
 * @module
 */
import { topK } from "../topk.ts";
import { checkIndices, floats, intParam, ints } from "./tensors.ts";
import type { KindFactory } from "./types.ts";

/**
 * Builds the `knn-embedding` scorer (tensors `centroids` [C, D], `clusterLearner` [C], `V`
 * [C·D, r], `pointPtr` [C+1], `points` [P, r], `labelPtr` [P+1], `labels`; params `rank`, `k`,
 * `weighted`, `numLearners`).
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
 * console.log(s.topK(Int32Array.of(0), Float64Array.of(3), 1).labels[0]); // 1
 * ```
 */
export const knnEmbedding: KindFactory = (m) => {
  const D = m.numFeatures, L = m.numLabels;
  const r = intParam(m, "rank", 1), kNN = intParam(m, "k", 1);
  const NL = intParam(m, "numLearners", 1), weighted = m.params.weighted === true;
  const learner = ints(m, "clusterLearner"), C = learner.length;
  const cen = floats(m, "centroids", C * D), V = floats(m, "V", C * D * r);
  const pointPtr = ints(m, "pointPtr", C + 1), labelPtr = ints(m, "labelPtr");
  const P = labelPtr.length - 1;
  const pts = floats(m, "points", P * r), labels = ints(m, "labels");
  checkIndices(m, "clusterLearner", learner, NL);
  checkIndices(m, "pointPtr", pointPtr, P + 1, P);
  checkIndices(m, "labelPtr", labelPtr, labels.length + 1, labels.length);
  const z = new Float64Array(r), nnIdx = new Int32Array(kNN), nnSim = new Float64Array(kNN);
  const acc = new Float64Array(L), out = new Float32Array(L);
  return {
    topK(indices, values, k) {
      acc.fill(0);
      let ss = 0;
      for (let e = 0; e < indices.length; e++) ss += values[e] * values[e];
      const inv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
      for (let t = 0; t < NL; t++) {
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
        z.fill(0);
        const vo = best * D * r;
        for (let e = 0; e < indices.length; e++) {
          const w = values[e] * inv, o = vo + indices[e] * r;
          for (let a = 0; a < r; a++) z[a] += w * V[o + a];
        }
        let zz = 0;
        for (let a = 0; a < r; a++) zz += z[a] * z[a];
        const zinv = zz > 0 ? 1 / Math.sqrt(zz) : 0;
        const p0 = pointPtr[best], n = pointPtr[best + 1] - p0, kk = Math.min(kNN, n);
        let count = 0;
        for (let p = 0; p < n; p++) {
          const o = (p0 + p) * r;
          let s = 0;
          for (let a = 0; a < r; a++) s += pts[o + a] * z[a];
          s *= zinv;
          if (count < kk || s > nnSim[kk - 1]) {
            let q = count < kk ? count++ : kk - 1;
            while (q > 0 && nnSim[q - 1] < s) {
              nnSim[q] = nnSim[q - 1];
              nnIdx[q] = nnIdx[q - 1];
              q--;
            }
            nnSim[q] = s;
            nnIdx[q] = p0 + p;
          }
        }
        let wsum = 0;
        if (weighted) { for (let q = 0; q < count; q++) wsum += nnSim[q] > 0 ? nnSim[q] : 0; }
        const uniform = !(wsum > 0);
        if (uniform) wsum = count;
        for (let q = 0; q < count; q++) {
          const w = (uniform ? 1 : (nnSim[q] > 0 ? nnSim[q] : 0)) / wsum;
          if (w === 0) continue;
          for (let e = labelPtr[nnIdx[q]]; e < labelPtr[nnIdx[q] + 1]; e++) {
            const l = labels[e];
            if (l < L) acc[l] += w;
          }
        }
      }
      for (let l = 0; l < L; l++) out[l] = acc[l] / NL;
      return topK(out, L, k);
    },
  };
};
