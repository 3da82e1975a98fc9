/**
 * The neighbour search of `knn-embedding` (docs/model-format.md, "`knn-embedding`"): the `kk`
 * points of a cluster most similar to the query embedding z, sim_p = (Σ_a point_p[a] · z[a]) /
 * ‖z‖ accumulated in a = 0, 1, … order, ties to the earlier point.
 *
 * Exact, without computing every sum in full: once `kk` points are held, a point is abandoned
 * after the first m coordinates (m = 8, 16, …) when a partial sum over them plus
 * ‖point_p[m:]‖ · ‖z[m:]‖ (Cauchy-Schwarz, with a slack far above the rounding error) is below
 * the current kk-th similarity: the ordered sum would be rejected too, and the kk best under the
 * strict (similarity, index) order do not depend on the visiting order. Only the points that
 * pass get the ordered sum, checked against the same bar before it is ranked. The partial sum
 * adds 8 products a step, unrolled (its order does not matter, the slack covers it): a plain
 * loop over the 8 was 20% slower on trained delicious. The points are read in place, in list
 * order: the trainer stores each list as one block of the points tensor (`knnOrder` the
 * identity), so a list reads as one block; files with any other order are answered alike. At load
 * only the points' suffix norms every 8 coordinates (rounded up) are computed, in list order (in
 * descending order of the rows: the backward sums of a row then read memory as one descending
 * stream, 3 times faster than ascending rows on a 36 MB tensor). The search kept a copy of the
 * points before, each row followed by its norms: queries were 3-6% faster that way (`deno task
 * sdk-scale --kinds knn-embedding`, p50 at 10³-10⁶ labels; on the delicious 7-learner file the
 * in-place search is as fast, 0.88-0.91 against 0.93-0.94 ms), but the copy took as much memory as
 * the points (36 MB on the delicious 7-learner file, 100 MB held in all) and 15% of the load.
 * Embeddings put most of their energy in the first coordinates (SLEEC's
 * come from eigenvectors), so most points stop after 8-24 coordinates. Structureless points
 * (random on the sphere) are checked too: skipping the checks for them was slower (376 against
 * 316 µs top-5 p50 at 6000 points, rank 100).
 *
 * The lists are those of the file's optional index (written by src/models/sleec/knn_index.ts:
 * each cluster's points split by spherical k-means), or one list per cluster. They are visited
 * best first (by z · list centroid), which raises the kk-th similarity early; with `probes` below
 * the cluster's list count only the best `probes` lists are visited (approximate; exact whenever
 * the true neighbours lie in them). Every similarity found is the exact one, so neighbours found
 * are ranked as the full scan ranks them.
 *
 * @module
 */
import { pushTop } from "../topk.ts";
import { abs, dot, f32s, i32s, iota, max, min, rankable, sqrt, u8s, zeros } from "../vector.ts";
import { span } from "./mips_index.ts";
import { bad, floats, intParam, ints, ptrs } from "./tensors.ts";
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
 * the tensor when inconsistent). Also returns that default (undefined without an index). Keeps
 * the points' suffix norms in list order, P · (⌊r/8⌋ + 1) float32s, and reads `pts` in place.
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
  const C = pointPtr.length - 1, P = pointPtr[C], t = m.tensors.knnOrder;
  // without an index: one list per cluster (centroid 0), the points in file order
  let order: Int32Array = iota(P), ptr = pointPtr, lists: Int32Array = iota(C + 1), most = 1;
  let cen: Float32Array = f32s(C * r);
  if (t) {
    order = ints(m, "knnOrder", P - 1, P) as Int32Array;
    ptr = ptrs(m, "knnPtr", P);
    const S = ptr.length - 1, seen = u8s(P);
    lists = ptrs(m, "knnLists", S, C + 1);
    cen = floats(m, "knnCentroids", S * r);
    // cluster c's lists hold exactly its points, each once: they start at its first point (and
    // end at the next cluster's first, checked with it; the last at P, as "knnPtr" does)
    for (let c = 0; c < C; c++) {
      const s0 = lists[c], s1 = lists[c + 1];
      let fail = ptr[s0] !== pointPtr[c];
      most = max(most, s1 - s0);
      for (let e = ptr[s0], p; e < ptr[s1]; e++) {
        fail ||= (p = order[e]) < pointPtr[c] || p >= pointPtr[c + 1] || !!seen[p]++;
      }
      if (fail) bad(m, `knnPtr, knnOrder: lists of cluster ${c} are not its points`);
    }
  }
  // the points' suffix norms in list order (row e: point order[e]): ‖point[8j:]‖ (rounded up)
  // for j = 0 … r/8, w floats a row
  const w = (r >> 3) + 1, norms = f32s(P * w), ztail = zeros(w);
  let big = 0; // the largest ‖point‖
  // ‖v[o + a … o + r)‖ into out[at + a/8] for a = 0, 8, …; returns ‖v[o … o + r)‖
  const tails = (v: ArrayLike<number>, o: number, out: Float32Array | Float64Array, at = 0) => {
    let ss = 0;
    for (let a = r; a--;) {
      ss += v[o + a] * v[o + a];
      if (!(a & 7)) out[at + a / 8] = sqrt(ss) * 1.000001;
    }
    return sqrt(ss);
  };
  for (let e = P; e--;) big = max(big, tails(pts, order[e] * r, norms, e * w));
  // a NaN similarity beats nothing and nothing beats it: the neighbours found then depended on
  // the visiting order (the trainer's and the indexed searches disagreed)
  if (!(big < Infinity)) bad(m, `tensor "points" holds a value that is not finite`);
  const h = r & ~7; // the checks cover the coordinates a < h
  let kk = 0, zinv = 0, zn = 0;
  // pushes the points at list positions e … end − 1 but those a bound shows the exact sums would reject;
  // returns the count
  const scan = (e: number, end: number, count: number) => {
    const zz = z;
    let lim = NaN;
    next: for (; e < end; e++) {
      const o = order[e] * r;
      if (count === kk) {
        if (lim !== lim) {
          // bounds: a partial sum (in any order: within 1e-13 of the scales of the ordered
          // sum) plus ‖p[a:]‖·‖z[a:]‖ (Cauchy-Schwarz), then the ordered sum; the slack (1e-9
          // of the scales) exceeds every rounding error of the sums, the norms and lim
          lim = sims[kk - 1] * zn;
          lim -= 1e-9 * (big * zn + abs(lim));
        }
        for (let a = 0, i = o, j = e * w, t = 0, s = 0; a < h; a += 8, i += 8) {
          s += pts[i] * zz[a] + pts[i + 1] * zz[a + 1] + pts[i + 2] * zz[a + 2] +
            pts[i + 3] * zz[a + 3] + pts[i + 4] * zz[a + 4] + pts[i + 5] * zz[a + 5] +
            pts[i + 6] * zz[a + 6] + pts[i + 7] * zz[a + 7];
          if (s + norms[++j] * ztail[++t] < lim) continue next;
        }
      }
      // the similarity, accumulated in order
      const s = dot(zz, pts, o, r);
      if (s < lim) continue; // below the bar too (lim is NaN until kk points are held)
      count = pushTop(ids, sims, count, kk, order[e], s * zinv);
      lim = NaN;
    }
    return count;
  };
  const ls = i32s(most), lsim = zeros(most);
  const search: KnnSearch = (c, zinv0, kk0, probes) => {
    zinv = zinv0, kk = kk0;
    tails(z, 0, ztail);
    zn = zinv > 0 ? 1 / zinv : NaN; // z = 0: every sim is 0, nothing is abandoned
    const f = lists[c], nl = lists[c + 1] - f;
    let count = 0, n = 0;
    // the lists best first (by z · centroid; the best `probes` of them, else all): the early
    // neighbours raise the bounds' bar
    const cap = min(nl, probes ?? nl);
    for (let s = f; s < f + nl; s++) {
      n = pushTop(ls, lsim, n, cap, s, rankable(dot(z, cen, s * r, r)));
    }
    // too few points in the best lists: every point of the cluster (its lists cover the rows
    // pointPtr[c] … pointPtr[c+1] − 1)
    if (span(ptr, ls, n) < kk) return scan(pointPtr[c], pointPtr[c + 1], 0);
    for (let i = 0; i < n; i++) count = scan(ptr[ls[i]], ptr[ls[i] + 1], count);
    return count;
  };
  // with an index, its default probes: a positive integer (a missing, 0 or fractional knnProbes
  // probed every list)
  return { search, probes: t && intParam(m, "knnProbes") };
};
