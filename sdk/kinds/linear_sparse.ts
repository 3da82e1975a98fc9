/**
 * SDK scorer of the `linear-sparse` kind (binary relevance, POP-pruned BR, popularity):
 * score_l(x) = bias_l + Σ_j x_j · w_{j,l}, with feature-major sparse weights. Scores are
 * accumulated in float64 in the order of the row's entries, as the BR trainer does, so they
 * equal its scores.
 *
 * @module
 */
import { floats, ints } from "./tensors.ts";
import type { KindFactory } from "./types.ts";
import { zeros } from "../vector.ts";

/**
 * Builds the `linear-sparse` scorer: tensors `featPtr` i32 [D+1], `labelIdx` i32|u16 [nnz],
 * `weights` [nnz] and optional `bias` [L].
 *
 * @example
 * ```ts
 * import { linearSparse } from "./linear_sparse.ts";
 * const s = linearSparse({
 *   kind: "linear-sparse", formatVersion: 1, numFeatures: 2, numLabels: 2, params: {},
 *   tensors: {
 *     featPtr: { shape: [3], data: Int32Array.of(0, 1, 2) },
 *     labelIdx: { shape: [2], data: Int32Array.of(1, 0) },
 *     weights: { shape: [2], data: Float32Array.of(2, 1) },
 *   },
 * });
 * console.log(s(Int32Array.of(0), Float64Array.of(1))); // Float64Array(2) [ 0, 2 ]
 * ```
 */
export const linearSparse: KindFactory = (m) => {
  const L = m.numLabels, idx = ints(m, "labelIdx", L - 1, undefined, "u16");
  const ptr = ints(m, "featPtr", idx.length, m.numFeatures + 1, "ptr");
  const w = floats(m, "weights", idx.length), bias = floats(m, "bias", L, true);
  const s = zeros(L);
  return (indices, values) => {
    if (bias) s.set(bias);
    else s.fill(0);
    for (let p = 0; p < indices.length; p++) {
      const j = indices[p], v = values[p], end = ptr[j + 1];
      for (let e = ptr[j]; e < end; e++) s[idx[e]] += v * w[e];
    }
    return s;
  };
};
