/**
 * Approximate top-k over label vectors (maximum inner product search) for the kinds whose score
 * is score_l = bias_l + Σ_c q_c · M_{l,c} (`linear-lowrank`: q = xᵀW, M = H; `random-features`:
 * q = h Q, M = P). The file's optional index (docs/model-format.md, "Label index") groups the
 * labels into leaves (k-means clusters of their bias-augmented rows [M_l, bias_l]) and the leaves
 * into groups: a query ranks the groups by q·centroid + centroid_bias + ‖q‖·spread, then the
 * leaves of the best groups the same way, and scores only the labels of the `probes` best leaves,
 * with the dense scorer's arithmetic (so every score it returns is the exact score). Files
 * without groups (written before them) are one group of all leaves.
 *
 * @module
 */
import { answer, pushTop, type TopK, topK, type TopKScorer } from "../topk.ts";
import {
  ceil,
  dot,
  f32s,
  fround,
  I32,
  i32s,
  matVec,
  min,
  rankable,
  sqrt,
  u8s,
  zeros,
} from "../vector.ts";
import { bad, floats, intParam, ints, ptrs } from "./tensors.ts";
import type { DecodedModel, KindScorer } from "./types.ts";

/**
 * Searches a label index: the top `k` labels of the query `q` among the labels of the
 * `probes` leaves (default: the file's `mipsProbes`) that rank best for `q` among the leaves of
 * the best groups (the file's `mipsGroupProbes`, more beyond the default probes), or undefined when
 * they hold more than a quarter of the labels (the sequential full scan is faster then) or
 * fewer than `k`: the caller then scans all labels.
 *
 * @example
 * ```ts
 * import type { MipsSearch } from "./mips_index.ts";
 * const none: MipsSearch = () => undefined;
 * console.log(none(new Float64Array(1), 5)); // undefined
 * ```
 */
export type MipsSearch = (q: Float64Array, k: number, probes?: number) => TopK | undefined;

/**
 * The label index of a decoded model, when it has one (tensors `mipsCentroids` f32 [C, r+1],
 * `mipsOrder` i32 [L], `mipsPtr` i32 [C+1], param `mipsProbes`; optional `mipsSpread` f32 [C];
 * optional groups `mipsGroupPtr` i32 [G+1], `mipsGroupCentroids` f32 [G, r+1], `mipsGroupSpread`
 * f32 [G], param `mipsGroupProbes`), checked at load (a `RangeError` naming the tensor when it is
 * inconsistent). `M` is [L, r] row-major.
 *
 * @example
 * ```ts
 * import { mipsIndex } from "./mips_index.ts";
 * const search = mipsIndex({
 *   kind: "linear-lowrank", formatVersion: 1, numFeatures: 1, numLabels: 3, params: { mipsProbes: 1 },
 *   tensors: {
 *     mipsCentroids: { shape: [2, 2], data: Float32Array.of(1, 0, -1, 0) },
 *     mipsOrder: { shape: [3], data: Int32Array.of(0, 2, 1) },
 *     mipsPtr: { shape: [3], data: Int32Array.of(0, 2, 3) },
 *   },
 * }, Float32Array.of(1, -1, 2), undefined, 1)!;
 * // probing would read more than a quarter of these 3 labels: the caller scans them all instead
 * console.log(search(Float64Array.of(1), 1)); // undefined
 * ```
 */
export const mipsIndex = (
  m: DecodedModel,
  M: Float32Array,
  bias: Float32Array | undefined,
  r: number,
): MipsSearch | undefined => {
  if (!m.tensors.mipsPtr) return undefined;
  const L = m.numLabels, w = r + 1, order = ints(m, "mipsOrder", L - 1, L) as Int32Array;
  const ptr = ptrs(m, "mipsPtr", L), C = ptr.length - 1;
  const grouped = m.tensors.mipsGroupPtr;
  const gptr = grouped ? ptrs(m, "mipsGroupPtr", C) : I32.of(0, C);
  const G = gptr.length - 1, cen = floats(m, "mipsCentroids", C * w);
  const spread = floats(m, "mipsSpread", C, true);
  const gcen = grouped ? floats(m, "mipsGroupCentroids", G * w) : cen;
  const gspread = grouped && floats(m, "mipsGroupSpread", G), seen = u8s(L);
  for (const l of order) if (seen[l]++) bad(m, `tensor "mipsOrder" repeats label ${l}`);
  // the rows [M_l, bias_l] in leaf order, each leaf copied the first time it is probed: a leaf's
  // rows are then read in sequence (at L = 10⁶, r = 32, scattered rows made the search 2.8 times
  // slower; copying all at load took 0.7 s; skipping labels by the bound bias + ‖q‖·‖M_l‖ saved
  // only 5%)
  const oM = f32s(L * w), ready = u8s(C);
  // the default probes in [1, C] and groups in [1, G] (G when absent), as docs/model-format.md
  // gives them (a missing, 0 or fractional mipsProbes probed every leaf)
  const def = intParam(m, "mipsProbes", C), gdef = intParam(m, "mipsGroupProbes", G, G);
  const gl = i32s(G), gs = zeros(G), cs = zeros(C);
  let cl = i32s(C), heap = i32s(C);
  // row c of x [·, r+1] as a score: bias (its last column) + ‖q‖ · spread + q · the rest (a
  // node's ranking score; a label's score, in the dense scorer's order, without spread: + -0
  // keeps every bias as it is, -0 included)
  const rank = (q: Float64Array, qn: number, c: number, x: Float32Array, s?: Float32Array) =>
    rankable(dot(q, x, c * w, r, x[c * w + r] + (s ? qn * s[c] : -0)));
  return (q, k, probes) => {
    // (null too: the default, as knn_index.ts reads it; probes is an integer ≥ 1, as loadModel
    // and the trainers' checkProbes require, and the file's default too)
    const p = min(C, probes ?? def);
    if (!(p < C)) return undefined;
    // groups: the file's count up to the default probes, then in proportion
    const pg = min(G, p > def ? ceil(gdef * p / def) : gdef); // 1 without groups
    let qn = 0, n = 0, ng = 0, size = 0;
    for (let a = 0; a < r; a++) qn += q[a] * q[a];
    qn = sqrt(qn);
    for (let g = 0; g < G; g++) ng = pushTop(gl, gs, ng, pg, g, rank(q, qn, g, gcen, gspread));
    for (let j = 0; j < ng; j++) {
      for (let c = gptr[gl[j]]; c < gptr[gl[j] + 1]; c++) {
        cl[n] = c, cs[n++] = rank(q, qn, c, cen, spread);
      }
    }
    // the p best candidate leaves (ties to the earlier candidate)
    if (n > p) {
      bestOf(cs, n, p, heap);
      for (let j = 0; j < p; j++) heap[j] = cl[heap[j]];
      [cl, heap, n] = [heap, cl, p]; // (the other array is scratch again)
    }
    // probing a quarter of the labels in cluster order is slower than the sequential full scan
    if (span(ptr, cl, n) * 4 > L) return undefined;
    const cap = k < L ? k : L, labels = i32s(cap), top = zeros(cap);
    for (let j = 0; j < n; j++) {
      const c = cl[j], end = ptr[c + 1];
      for (let e = ptr[c]; !ready[c] && e < end; e++) {
        const l = order[e];
        for (let a = r; a--;) oM[e * w + a] = M[l * r + a];
        oM[e * w + r] = bias ? bias[l] : 0;
      }
      ready[c] = 1;
      for (let e = ptr[c]; e < end; e++) {
        size = pushTop(labels, top, size, cap, order[e], fround(rank(q, qn, e, oM)));
      }
    }
    return size < cap ? undefined : answer(labels, top);
  };
};

/**
 * The positions of the `p` best of `s[0..n)` (p ≤ n; higher first, ties to the earlier
 * position), in no particular order, in `heap[0..p)`: a bounded min-heap, O(n log p). For
 * numbers without NaN. (Hoare's selection of the p-th best score, then a pass for the ties, was
 * 22 bytes larger and no faster: top-5 p50 793 against 752 µs at L = 10⁶, one run each;
 * insertion into a sorted list was 1.7 times slower there.)
 *
 * @example
 * ```ts
 * import { bestOf } from "./mips_index.ts";
 * const heap = bestOf(Float64Array.of(5, 1, 4, 9, 4), 5, 3, new Int32Array(3));
 * console.log([...heap].sort()); // [ 0, 2, 3 ]
 * ```
 */
export const bestOf = (s: Float64Array, n: number, p: number, heap: Int32Array): Int32Array => {
  // a ranks below b: a lower score, or the same score at a later position
  const below = (a: number, b: number) => s[a] < s[b] || s[a] === s[b] && a > b;
  for (let j = 0, i, c; j < n; j++) {
    if (j < p) { // sift j up from the end
      for (i = j; i && below(j, heap[c = (i - 1) >> 1]); i = c) heap[i] = heap[c];
    } else if (below(heap[0], j)) { // j replaces the worst (the root) and sifts down
      for (i = 0; (c = 2 * i + 1) < p; i = c) {
        if (c + 1 < p && below(heap[c + 1], heap[c])) c++;
        if (!below(heap[c], j)) break;
        heap[i] = heap[c];
      }
    } else continue;
    heap[i] = j;
  }
  return heap;
};

/**
 * How many items the first `n` lists of `ids` hold: Σ ptr[ids[i] + 1] − ptr[ids[i]].
 *
 * @example
 * ```ts
 * import { span } from "./mips_index.ts";
 * console.log(span(Int32Array.of(0, 2, 5, 9), Int32Array.of(2, 0), 2)); // 6
 * ```
 */
export const span = (ptr: Int32Array, ids: Int32Array, n: number): number => {
  let items = 0;
  for (let i = 0; i < n; i++) items += ptr[ids[i] + 1] - ptr[ids[i]];
  return items;
};

/**
 * The dense scorer of a kind whose label vectors are the rows of `M` [L, r] with `bias`, for the
 * query vector `query(indices, values)`: score = bias + M · query (float64 sums, float32 scores,
 * in a buffer reused by the next call), with a `topK` that searches the file's label index
 * (./mips_index.ts) and scores every label when the search gives up, when the file has no index,
 * or when `dense` (the caller's `exact`) asks for it.
 *
 * @example
 * ```ts
 * import { indexedScorer } from "./mips_index.ts";
 * const m = { kind: "k", formatVersion: 1, numFeatures: 1, numLabels: 2, params: {}, tensors: {} };
 * const s = indexedScorer(m, Float32Array.of(1, 2), undefined, 1, () => Float64Array.of(1));
 * console.log(s(Int32Array.of(0), Float64Array.of(1))); // Float32Array(2) [ 1, 2 ]
 * console.log(s.topK(Int32Array.of(0), Float64Array.of(1), 1)); // { labels: Int32Array(1) [ 1 ], scores: Float32Array(1) [ 2 ] }
 * ```
 */
export const indexedScorer = (
  m: DecodedModel,
  M: Float32Array,
  bias: Float32Array | undefined,
  r: number,
  query: (indices: Int32Array, values: Float32Array | Float64Array) => Float64Array,
): KindScorer & TopKScorer => {
  const search = mipsIndex(m, M, bias, r), L = m.numLabels, out = f32s(L);
  const score = (i: Int32Array, v: Float32Array | Float64Array) =>
    matVec(out, M, query(i, v), r, bias);
  score.topK = (
    i: Int32Array,
    v: Float32Array | Float64Array,
    k: number,
    dense?: boolean,
    p?: number,
  ) => !dense && search?.(query(i, v), k, p) || topK(score(i, v), L, k);
  return score;
};
