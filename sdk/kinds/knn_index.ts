/**
 * The neighbour search of `knn-embedding` (docs/model-format.md, "`knn-embedding`"): the `kk`
 * points of a cluster most similar to the query embedding z, sim_p = (Σ_a point_p[a] · z[a]) /
 * ‖z‖ accumulated in a = 0, 1, … order, ties to the earlier point.
 *
 * Exact, without computing every sum in full: once `kk` points are held, a point is abandoned
 * after a checkpoint prefix a < m when its partial sum plus ‖point_p[m:]‖ · ‖z[m:]‖ (Cauchy-Schwarz,
 * with a slack far above the rounding error) cannot reach the current kk-th similarity: the full
 * scan would reject it too, and the kk best under the strict (similarity, index) order do not
 * depend on the visiting order. The suffix norms are computed at load. Embeddings put most of
 * their energy in the first coordinates (SLEEC's come from eigenvectors), so most points stop
 * after a few checkpoints.
 *
 * With the file's optional list index (written by src/models/sleec/knn_index.ts: each cluster's
 * points split into lists by spherical k-means), the lists are visited best first (by z · list
 * centroid), which raises the kk-th similarity early; with `probes` below the cluster's list count
 * only the best `probes` lists are visited (approximate; exact whenever the true neighbours lie
 * in them). Every similarity found is the exact one, so neighbours found are ranked as the full
 * scan ranks them.
 *
 * @module
 */
import { pushTop } from "../topk.ts";
import { i32s, max, rankable, sqrt, u8s, zeros } from "../vector.ts";
import { probeCount } from "./mips_index.ts";
import { bad, count, floats, ints, ptrs } from "./tensors.ts";
import type { DecodedModel } from "./types.ts";

/**
 * Finds the `kk` points of cluster `c` most similar to the query embedding (the `z` given to
 * {@linkcode knnSearch}; `zinv` = 1/‖z‖, or 0) into its `ids`/`sims` (best first, as `pushTop`
 * keeps them) and returns how many it holds: exactly when `probes` is undefined (or covers every
 * list of the cluster), else among the points of the best `probes` lists of the file's index (all
 * points when the file has none, or when they hold fewer than `kk` points).
 *
 * @example
 * ```ts
 * import type { KnnSearch } from "./knn_index.ts";
 * const none: KnnSearch = () => 0;
 * console.log(none(0, 1, 1, undefined)); // 0
 * ```
 */
export type KnnSearch = (c: number, zinv: number, kk: number, probes?: number) => number;

/**
 * The neighbour search of a decoded `knn-embedding` model over its points `pts` [P, r] and
 * clusters `pointPtr` [C+1], for the query embedding `z` and into `ids`/`sims` (arrays the caller
 * fills before and reads after each search), with the file's list index when it has one (tensors
 * `knnCentroids` f32 [S, r], `knnLists` i32 [C+1], `knnPtr` i32 [S+1], `knnOrder` i32 [P]; param
 * `knnProbes`, the default `probes` of approximate queries), checked here (a `RangeError` naming
 * the tensor when inconsistent). Also returns that default (undefined without an index).
 *
 * @example
 * ```ts
 * import { knnSearch } from "./knn_index.ts";
 * const z = Float64Array.of(1), ids = new Int32Array(1), sims = new Float64Array(1);
 * const { search, probes } = knnSearch({
 *   kind: "knn-embedding", formatVersion: 1, numFeatures: 1, numLabels: 1,
 *   params: { knnProbes: 1 },
 *   tensors: {
 *     knnCentroids: { shape: [2, 1], data: Float32Array.of(1, -1) },
 *     knnLists: { shape: [2], data: Int32Array.of(0, 2) },
 *     knnPtr: { shape: [3], data: Int32Array.of(0, 2, 3) },
 *     knnOrder: { shape: [3], data: Int32Array.of(0, 2, 1) },
 *   },
 * }, Float32Array.of(1, -1, 0.5), 1, Int32Array.of(0, 3), z, ids, sims);
 * // probes the list {0, 2} (centroid 1) only: point 0 is the nearest to z = 1
 * console.log(search(0, 1, 1, probes), ids, sims); // 1 Int32Array(1) [ 0 ] Float64Array(1) [ 1 ]
 * ```
 */
export const knnSearch = (
  m: DecodedModel,
  pts: Float32Array,
  r: number,
  pointPtr: Int32Array,
  z: Float64Array,
  ids: Int32Array,
  sims: Float64Array,
): { search: KnnSearch; probes: number | undefined } => {
  const C = pointPtr.length - 1, P = pointPtr[C];
  // checkpoints cp[0] < cp[1] < … < r and the points' suffix norms tail[p·nc + i] = ‖p[cp_i:]‖
  const cp = Int32Array.from(
    new Set(
      [.05, .1, .15, .2, .3, .4, .5, .7].map((f) => Math.round(f * r)).filter((a) =>
        a > 0 && a < r
      ),
    ),
  );
  const nc = cp.length, tail = zeros(P * nc), ztail = zeros(nc), norm = zeros(P);
  const half = cp.indexOf(Math.round(r / 2));
  let late = 0; // Σ_p ‖p[r/2:]‖² / ‖p‖²: the energy share of the second half of the coordinates
  // the suffix norms of row p of `v` (from offset o) into `out` at `at`; returns ‖row‖²
  const tails = (v: ArrayLike<number>, o: number, out: Float64Array, at: number) => {
    let ss = 0, a = r - 1;
    for (let i = nc - 1; i >= 0; i--) {
      for (; a >= cp[i]; a--) ss += v[o + a] * v[o + a];
      out[at + i] = sqrt(ss);
    }
    for (; a >= 0; a--) ss += v[o + a] * v[o + a];
    return ss;
  };
  for (let p = 0; p < P; p++) {
    const ss = tails(pts, p * r, tail, p * nc);
    norm[p] = sqrt(ss);
    if (ss > 0 && half >= 0) late += tail[p * nc + half] ** 2 / ss;
  }
  // points whose energy is spread evenly over the coordinates (unstructured, e.g. random) are
  // abandoned too late to pay for the checks: scanned in full (trained embeddings: ~20%)
  const prune = P > 0 && late < 0.35 * P;
  let kk = 0, zinv = 0, zn = 0;
  // pushes point p unless its bound shows the full scan would reject it; returns the count
  const visit = (p: number, count: number) => {
    const o = p * r, zz = z;
    let s = 0, a = 0;
    if (count === kk && prune) {
      // the slack (1e-9 of the scales) exceeds every rounding error of s, the norms and lim
      let lim = sims[kk - 1] * zn;
      lim -= 1e-9 * (norm[p] * zn + Math.abs(lim));
      for (let i = 0, t = p * nc; i < nc; i++) {
        for (const e = cp[i]; a < e; a++) s += pts[o + a] * zz[a];
        if (s + tail[t + i] * ztail[i] < lim) return count;
      }
    }
    for (; a < r; a++) s += pts[o + a] * zz[a];
    return pushTop(ids, sims, count, kk, p, s * zinv);
  };
  let order: Int32Array | undefined, ptr = order, lists = order, cen, most = 0;
  if (m.tensors.knnOrder) {
    order = ints(m, "knnOrder", P - 1, P) as Int32Array;
    ptr = ptrs(m, "knnPtr", P);
    const S = ptr.length - 1, seen = u8s(P);
    lists = ptrs(m, "knnLists", S, C + 1);
    cen = floats(m, "knnCentroids", S * r);
    // cluster c's lists hold exactly its points, each once
    for (let c = 0; c < C; c++) {
      const s0 = lists[c], s1 = lists[c + 1];
      most = max(most, s1 - s0);
      if (ptr[s0] !== pointPtr[c] || ptr[s1] !== pointPtr[c + 1]) {
        bad(m, `tensor "knnPtr": the lists of cluster ${c} do not hold its points`);
      }
      for (let e = ptr[s0]; e < ptr[s1]; e++) {
        const p = order[e];
        if (p < pointPtr[c] || p >= pointPtr[c + 1] || seen[p]++) {
          bad(m, `tensor "knnOrder": point ${p} is repeated or outside cluster ${c}`);
        }
      }
    }
  }
  const ls = i32s(most), lsim = zeros(most);
  const search: KnnSearch = (c, zinv0, kk0, probes) => {
    zinv = zinv0, kk = kk0;
    tails(z, 0, ztail, 0);
    zn = zinv > 0 ? 1 / zinv : NaN; // z = 0: every sim is 0, nothing is abandoned
    let count = 0, n = 0, reach = 0;
    if (lists) {
      const f = lists[c], nl = lists[c + 1] - f;
      const np = probes === undefined ? nl : probeCount(probes, nl);
      // every list: their order only serves the abandoning; else the file order reads faster
      if (np !== nl || prune) {
        for (let s = f, o = f * r; s < f + nl; s++, o += r) {
          let d = 0;
          for (let a = 0; a < r; a++) d += z[a] * cen![o + a];
          n = pushTop(ls, lsim, n, np, s, rankable(d));
        }
        for (let i = 0; i < n; i++) reach += ptr![ls[i] + 1] - ptr![ls[i]];
        // too few points in the best lists: every point
        if (reach >= kk) {
          for (let i = 0; i < n; i++) {
            for (let e = ptr![ls[i]], end = ptr![ls[i] + 1]; e < end; e++) {
              count = visit(order![e], count);
            }
          }
          return count;
        }
      }
    }
    for (let p = pointPtr[c]; p < pointPtr[c + 1]; p++) count = visit(p, count);
    return count;
  };
  return { search, probes: lists && count(m.params.knnProbes, most) };
};
