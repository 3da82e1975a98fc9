/**
 * SDK scorer of the `linear-sparse` kind (binary relevance, POP-pruned BR, popularity, ova):
 * score_l(x) = bias_l + Σ_j x_j · w_{j,l}, with feature-major sparse weights. Scores are
 * accumulated in float64 in the order of the row's entries, as the BR trainer does, so they
 * equal its scores.
 *
 * Top-k is exact without scanning all L labels: a query accumulates only the postings of its
 * features (the labels it touches); every other label scores its bias, so the answer is the best
 * of the touched labels and of the untouched ones met walking the labels by decreasing bias
 * (the file's `biasOrder`, else sorted once on the first query), until the walk cannot beat the
 * k-th best. Every row takes this path, however many labels its postings reach: switching to
 * dense scoring for rows that reach most labels was faster only at small L (top-5 p50 6.3
 * against 9.4 µs at L = 10³, rows reaching 99% of the labels) and cost SDK bytes. `dense` (the
 * caller's `exact`) scores every label through the same posting loop; both paths give the same
 * answer.
 *
 * @module
 */
import { type TopK, topK as topKDense, topKTouched } from "../topk.ts";
import { floats, ints, ptrs } from "./tensors.ts";
import type { KindFactory } from "./types.ts";
import { i32s, iota, rankable, U16, u8s, zeros } from "../vector.ts";

/**
 * Labels by decreasing `bias`, ties by the smaller index (NaN as -Infinity, -0 as 0): for files
 * without a usable `biasOrder` (written before it, or with a quantised bias), sorted once, on the
 * first query (a comparison sort: about 0.3 s at L = 10⁶; the writers store the order).
 *
 * @example
 * ```ts
 * import { biasOrder } from "./linear_sparse.ts";
 * console.log(biasOrder(Float32Array.of(-1, 2, NaN, 2, -0, 0, -Infinity))); // Int32Array(7) [ 1, 3, 4, 5, 0, 2, 6 ]
 * ```
 */
export const biasOrder = (bias: Float32Array): Int32Array =>
  iota(bias.length).sort((a, b) => rankable(bias[b]) - rankable(bias[a]) || a - b);

/**
 * Builds the `linear-sparse` scorer: tensors `featPtr` i32 [D+1], `labelIdx` i32|u16 [nnz],
 * `weights` [nnz], optional `bias` [L] and optional `biasOrder` i32 [L] (used when it orders
 * the decoded bias, else rebuilt). The scorer returns every label's score; its `topK` gives the
 * top k of those scores, touching only the row's postings.
 *
 * @example
 * ```ts
 * import { linearSparse } from "./linear_sparse.ts";
 * const s = linearSparse({
 *   kind: "linear-sparse", formatVersion: 1, numFeatures: 2, numLabels: 3, params: {},
 *   tensors: {
 *     featPtr: { shape: [3], data: Int32Array.of(0, 1, 2) },
 *     labelIdx: { shape: [2], data: Int32Array.of(1, 0) },
 *     weights: { shape: [2], data: Float32Array.of(2, 1) },
 *     bias: { shape: [3], data: Float32Array.of(0, 0, 1.5) },
 *   },
 * });
 * console.log(s(Int32Array.of(0), Float64Array.of(1))); // Float64Array(3) [ 0, 2, 1.5 ]
 * console.log(s.topK(Int32Array.of(0), Float64Array.of(1), 2).labels); // Int32Array(2) [ 1, 2 ]
 * ```
 */
export const linearSparse: KindFactory = (m) => {
  const L = m.numLabels, idx = ints(m, "labelIdx", L - 1, undefined, false, U16);
  const ptr = ptrs(m, "featPtr", idx.length, m.numFeatures + 1);
  const w = floats(m, "weights", idx.length), bias = floats(m, "bias", L, true);
  const s = zeros(L), mark = u8s(L), touched = i32s(L);
  // the file's order when its first L values order the decoded bias (strictly, so they are a
  // permutation of the labels; a shorter tensor fails at its end)
  let order = bias && m.tensors.biasOrder?.data as Int32Array | undefined, last = Infinity;
  for (let i = 0, p = -1; order && i < L; i++) {
    const l = order[i], x = rankable(bias![l]); // an untouched label's score
    if (!(l >>> 0 < L && (x < last || x === last && l > p))) order = undefined;
    last = x, p = l;
  }
  let n = 0; // the labels the last row touched: touched[0..n), marked
  // s_l = bias_l + the row's postings of l, for the n labels the row touches (in posting order)
  const add = (indices: Int32Array, values: Float32Array | Float64Array) => {
    while (n) mark[touched[--n]] = 0;
    for (let p = 0; p < indices.length; p++) {
      const j = indices[p], v = values[p], end = ptr[j + 1];
      for (let e = ptr[j]; e < end; e++) {
        const l = idx[e];
        if (!mark[l]) {
          mark[l] = 1;
          s[l] = bias ? bias[l] : 0;
          touched[n++] = l;
        }
        s[l] += v * w[e];
      }
    }
  };
  const scores = (indices: Int32Array, values: Float32Array | Float64Array) => {
    if (bias) s.set(bias);
    else s.fill(0);
    add(indices, values);
    return s;
  };
  // the top k: the touched labels, then the others by decreasing bias
  scores.topK = (
    indices: Int32Array,
    values: Float32Array | Float64Array,
    k: number,
    dense?: boolean,
  ): TopK => {
    if (dense) return topKDense(scores(indices, values), L, k);
    add(indices, values);
    if (bias) order ??= biasOrder(bias);
    return topKTouched(k, L, s, touched, n, mark, order, bias);
  };
  return scores;
};
