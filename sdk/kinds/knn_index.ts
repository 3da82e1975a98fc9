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
import { zeros } from "../vector.ts";
import { bad, floats, ints } from "./tensors.ts";
import type { DecodedModel } from "./types.ts";

/**
 * Finds the `kk` points of cluster `c` most similar to `z` (`zinv` = 1/‖z‖, or 0) into
 * `ids`/`sims` (best first, as `pushTop` keeps them) and returns how many it holds: exactly
 * when `probes` is undefined (or covers every list of the cluster), else among the points of
 * the best `probes` lists of the file's index (all points when the file has none, or when they
 * hold fewer than `kk` points).
 *
 * @example
 * ```ts
 * import type { KnnSearch } from "./knn_index.ts";
 * const none: KnnSearch = () => 0;
 * console.log(none(0, Float64Array.of(1), 1, 1, undefined, new Int32Array(1), new Float64Array(1))); // 0
 * ```
 */
export type KnnSearch = (
  c: number,
  z: Float64Array,
  zinv: number,
  kk: number,
  probes: number | undefined,
  ids: Int32Array,
  sims: Float64Array,
) => number;

/**
 * The neighbour search of a decoded `knn-embedding` model over its points `pts` [P, r] and
 * clusters `pointPtr` [C+1], with the file's list index when it has one (tensors `knnCentroids`
 * f32 [S, r], `knnLists` i32 [C+1], `knnPtr` i32 [S+1], `knnOrder` i32 [P]; param `knnProbes`,
 * the default `probes` of approximate queries), checked here (a `RangeError` naming the tensor
 * when inconsistent). Also returns that default (undefined without an index).
 *
 * @example
 * ```ts
 * import { knnSearch } from "./knn_index.ts";
 * const { search, probes } = knnSearch({
 *   kind: "knn-embedding", formatVersion: 1, numFeatures: 1, numLabels: 1,
 *   params: { knnProbes: 1 },
 *   tensors: {
 *     knnCentroids: { shape: [2, 1], data: Float32Array.of(1, -1) },
 *     knnLists: { shape: [2], data: Int32Array.of(0, 2) },
 *     knnPtr: { shape: [3], data: Int32Array.of(0, 2, 3) },
 *     knnOrder: { shape: [3], data: Int32Array.of(0, 2, 1) },
 *   },
 * }, Float32Array.of(1, -1, 0.5), 1, Int32Array.of(0, 3));
 * const ids = new Int32Array(1), sims = new Float64Array(1);
 * // probes the list {0, 2} (centroid 1) only: point 0 is the nearest to z = 1
 * console.log(search(0, Float64Array.of(1), 1, 1, probes, ids, sims), ids, sims); // 1 Int32Array(1) [ 0 ] Float64Array(1) [ 1 ]
 * ```
 */
export function knnSearch(
  m: DecodedModel,
  pts: Float32Array,
  r: number,
  pointPtr: Int32Array,
): { search: KnnSearch; probes: number | undefined } {
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
  for (let p = 0, o = 0; p < P; p++, o += r) {
    let ss = 0, a = r - 1;
    for (let i = nc - 1; i >= 0; i--) {
      for (; a >= cp[i]; a--) ss += pts[o + a] * pts[o + a];
      tail[p * nc + i] = Math.sqrt(ss);
    }
    for (; a >= 0; a--) ss += pts[o + a] * pts[o + a];
    norm[p] = Math.sqrt(ss);
    if (ss > 0 && half >= 0) late += tail[p * nc + half] ** 2 / ss;
  }
  // points whose energy is spread evenly over the coordinates (unstructured, e.g. random) are
  // abandoned too late to pay for the checks: scanned in full (trained embeddings: ~20%)
  const prune = P > 0 && late < 0.35 * P;
  let z = zeros(0), kk = 0, ids: Int32Array = new Int32Array(0), sims = zeros(0);
  let zinv = 0, zn = 0;
  // pushes point p unless its bound shows the full scan would reject it; returns the count
  const visit = (p: number, count: number) => {
    const o = p * r, zz = z; // a local: V8 keeps a captured `let` out of registers
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
  const start = (
    z0: Float64Array,
    zinv0: number,
    kk0: number,
    ids0: Int32Array,
    s0: Float64Array,
  ) => {
    z = z0, zinv = zinv0, kk = kk0, ids = ids0, sims = s0;
    let ss = 0;
    for (let i = nc - 1, a = r - 1; i >= 0; i--) {
      for (; a >= cp[i]; a--) ss += z[a] * z[a];
      ztail[i] = Math.sqrt(ss);
    }
    zn = zinv > 0 ? 1 / zinv : NaN; // z = 0: every sim is 0, nothing is abandoned
  };
  const scan: KnnSearch = (c, z0, zinv0, kk0, _probes, ids0, s0) => {
    start(z0, zinv0, kk0, ids0, s0);
    let count = 0;
    for (let p = pointPtr[c]; p < pointPtr[c + 1]; p++) count = visit(p, count);
    return count;
  };
  if (!m.tensors.knnOrder) return { search: scan, probes: undefined };

  const order = ints(m, "knnOrder", P - 1, P) as Int32Array;
  const ptr = ints(m, "knnPtr", P, undefined, "ptr") as Int32Array, S = ptr.length - 1;
  const lists = ints(m, "knnLists", S, C + 1, "ptr") as Int32Array;
  const cen = floats(m, "knnCentroids", S * r);
  // cluster c's lists hold exactly its points, each once
  const seen = new Uint8Array(P);
  let most = 0;
  for (let c = 0; c < C; c++) {
    const s0 = lists[c], s1 = lists[c + 1];
    most = Math.max(most, s1 - s0);
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
  const p0 = m.params.knnProbes;
  const def = Number.isInteger(p0) && (p0 as number) > 0 ? p0 as number : most;
  const ls = new Int32Array(most), lsim = zeros(most);
  const search: KnnSearch = (c, z0, zinv0, kk0, probes, ids0, s0) => {
    const f = lists[c], nl = lists[c + 1] - f;
    const np = probes === undefined ? nl : Math.min(nl, Math.max(1, Math.floor(probes)));
    // every list: their order only serves the abandoning; else the file order reads faster
    if (np === nl && !prune) return scan(c, z0, zinv0, kk0, undefined, ids0, s0);
    start(z0, zinv0, kk0, ids0, s0);
    let n = 0, reach = 0, count = 0;
    for (let s = f, o = f * r; s < f + nl; s++, o += r) {
      let d = 0;
      for (let a = 0; a < r; a++) d += z[a] * cen[o + a];
      n = pushTop(ls, lsim, n, np, s, d === d ? d : -Infinity);
    }
    for (let i = 0; i < n; i++) reach += ptr[ls[i] + 1] - ptr[ls[i]];
    if (reach < kk) return scan(c, z0, zinv0, kk0, undefined, ids0, s0);
    for (let i = 0; i < n; i++) {
      for (let e = ptr[ls[i]], end = ptr[ls[i] + 1]; e < end; e++) count = visit(order[e], count);
    }
    return count;
  };
  return { search, probes: def };
}
