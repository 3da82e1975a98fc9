/**
 * The neighbour index of the `knn-embedding` model file (read by sdk/kinds/knn_embedding.ts;
 * format in docs/model-format.md, "`knn-embedding`"): each cluster's embedded points are split
 * into lists by spherical k-means (an inverted-file index, IVF); a query ranks its cluster's lists
 * by z · list centroid and compares z only with the points of the best `knnProbes` lists. The
 * default probe count is calibrated on the model's own points: leave-one-out queries (a stored
 * point, itself excluded, stands for a query: stored points are embeddings of training rows as
 * queries are of test rows), the fewest probes whose top-5 labels reach the target mean recall
 * against the exact neighbour search.
 *
 * Each cluster's points are stored list by list ({@linkcode pointsInOrder}, their labels with
 * them), so `knnOrder` is the identity and a list is one block of the `points` tensor: the SDK
 * reads the points in place, in the order it visits them (files written before, whose `knnOrder`
 * is any permutation within the clusters, are answered alike, with scattered reads). Before the
 * lists are built, each cluster's embedding space is turned to the principal axes of its points
 * ({@linkcode toPrincipalAxes}; option `principalAxes`), which keeps every similarity up to float
 * rounding and lets the SDK's search abandon points sooner. Without that turn a file with the index
 * answers `exact` queries, and queries whose true neighbours all lie in the probed lists, exactly
 * as the same file without it, its points in the same order; with it, as that file turned. (Ties
 * between equally similar neighbours go to the earlier point of the file, so the stored order
 * decides them.)
 *
 * @module
 */
import { pushTop } from "../../../sdk/internal.ts";
import { dequantize } from "../../format/quantize.ts";
import type { ModelFileContent } from "../../format/types.ts";
import { SmallRng } from "../../random/mod.ts";
import { pointsInOrder } from "./points_in_order.ts";
import { toPrincipalAxes } from "./principal_axes.ts";

/**
 * Options of {@linkcode withKnnIndex}.
 *
 * @example
 * ```ts
 * import type { KnnIndexOptions } from "./knn_index.ts";
 * const o: KnnIndexOptions = { minPoints: 0, listSize: 50 };
 * console.log(o.listSize); // 50
 * ```
 */
export interface KnnIndexOptions {
  /** No index unless some cluster has at least this many points (scanning is as fast). 1024. */
  minPoints?: number;
  /**
   * Mean points per list: a cluster of n points gets max(1, round(n / listSize)) lists. Default:
   * 32 or 64, whichever needs fewer point rows per query at the calibrated probes (centroids plus
   * the probed lists' points; synthetic topics at 10⁴ labels take 32, bibtex 64).
   */
  listSize?: number;
  /** k-means iterations. Default 8. */
  iterations?: number;
  /** The default probe count written to the file (`knnProbes`). Default: calibrated. */
  probes?: number;
  /**
   * Calibration target: mean recall@5 of the labels, leave-one-out. Default 0.999. Stored points
   * are easier queries than new rows: at 0.995 bibtex's test rows reached 0.986; at 0.997 they
   * reached 0.990 (delicious 0.994) and P@1/3/5 fast differed from exact by up to 0.11 (0.25)
   * points; at 0.999, 0.996 (0.997) and 0.08 (0.06), debtags 0.018, while synthetic topic
   * points at 10⁴ labels still answer in ~90 µs (`deno task knn-fast-exact`, `sdk-scale`).
   */
  recall?: number;
  /** Calibration queries per cluster. Default 200. */
  sample?: number;
  /** Seed of the k-means start and of the calibration sample. Default 1. */
  seed?: number;
  /**
   * Turn each cluster's embedding space to the principal axes of its points first
   * ({@linkcode toPrincipalAxes}): the same similarities, about 9% faster indexed queries on
   * trained SLEEC models. Default true.
   */
  principalAxes?: boolean;
}

/** Spherical k-means of rows p0 … p1 − 1 of `pts` into `S` lists: the list of each point. */
function kmeans(
  pts: Float32Array,
  r: number,
  p0: number,
  p1: number,
  S: number,
  iterations: number,
  rng: SmallRng,
): { assign: Int32Array; cen: Float64Array } {
  const n = p1 - p0, cen = new Float64Array(S * r), assign = new Int32Array(n);
  // start: S distinct points (a partial Fisher-Yates shuffle)
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  for (let s = 0; s < S; s++) {
    const j = s + rng.nextInt(n - s);
    [perm[s], perm[j]] = [perm[j], perm[s]];
    for (let a = 0; a < r; a++) cen[s * r + a] = pts[(p0 + perm[s]) * r + a];
  }
  const count = new Int32Array(S);
  for (let it = 0; it <= iterations; it++) {
    for (let i = 0; i < n; i++) assign[i] = nearest(pts, (p0 + i) * r, cen, S, r);
    if (it === iterations) break;
    cen.fill(0);
    count.fill(0);
    for (let i = 0; i < n; i++) {
      const o = assign[i] * r, q = (p0 + i) * r;
      count[assign[i]]++;
      for (let a = 0; a < r; a++) cen[o + a] += pts[q + a];
    }
    for (let s = 0; s < S; s++) {
      // an empty list restarts at a random point
      if (count[s] === 0) {
        const q = (p0 + rng.nextInt(n)) * r;
        for (let a = 0; a < r; a++) cen[s * r + a] = pts[q + a];
      }
      normalize(cen, s * r, r);
    }
  }
  return { assign, cen };
}

function nearest(pts: Float32Array, q: number, cen: Float64Array, S: number, r: number) {
  let best = 0, bestS = -Infinity;
  for (let s = 0, o = 0; s < S; s++, o += r) {
    let d = 0;
    for (let a = 0; a < r; a++) d += pts[q + a] * cen[o + a];
    if (d > bestS) bestS = d, best = s;
  }
  return best;
}

function normalize(v: Float64Array, o: number, r: number) {
  let ss = 0;
  for (let a = 0; a < r; a++) ss += v[o + a] * v[o + a];
  const inv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
  for (let a = 0; a < r; a++) v[o + a] *= inv;
}

/** The file's vote rule: params `weighted` and `votePower` (π, default 1). */
interface VoteRule {
  weighted: boolean;
  power: number;
}

/**
 * The top-5 labels (positive scores) of the neighbours ids/sim[0, n) under the file's vote rule
 * (weights max(0, sim)^power/Σ when `weighted` and that sum is positive, else equal).
 */
function vote(
  ids: Int32Array,
  sim: Float64Array,
  n: number,
  rule: VoteRule,
  labelPtr: Int32Array,
  labels: Int32Array,
  acc: Map<number, number>,
): number[] {
  acc.clear();
  let wsum = 0;
  const { weighted, power } = rule;
  for (let q = 0; q < n; q++) wsum += weighted && sim[q] > 0 ? sim[q] ** power : 0;
  for (let q = 0; q < n; q++) {
    const w = wsum > 0 ? (sim[q] > 0 ? sim[q] ** power / wsum : 0) : 1 / n;
    if (w === 0) continue;
    for (let e = labelPtr[ids[q]]; e < labelPtr[ids[q] + 1]; e++) {
      acc.set(labels[e], (acc.get(labels[e]) ?? 0) + w);
    }
  }
  return [...acc].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 5).map((e) => e[0]);
}

/**
 * `content` (a `knn-embedding` model file content, e.g. from `knnModelContent`) with the
 * neighbour index added: tensors `knnCentroids` f32 [S, r] (unit-norm list centroids, the lists
 * of cluster 0 first), `knnLists` i32 [C+1] (cluster c owns lists knnLists[c] … knnLists[c+1] −
 * 1), `knnPtr` i32 [S+1] and `knnOrder` i32 [P] (list s holds points knnOrder[knnPtr[s]] …
 * knnOrder[knnPtr[s+1] − 1]; written as the identity, the points and their labels stored list by
 * list, in increasing order within a list), and param `knnProbes`. The content is returned
 * unchanged (the same object) when no cluster has `minPoints` points; else, unless
 * `principalAxes` is false, with points and V turned by {@linkcode toPrincipalAxes}. Uses the
 * points as a reader decodes them (quantised points dequantised).
 *
 * @throws {RangeError} when an option is out of range.
 *
 * @example
 * ```ts
 * import { knnModelContent } from "./model_file.ts";
 * import { withKnnIndex } from "./knn_index.ts";
 * const n = 40, points = Float32Array.from({ length: 2 * n }, (_, i) => Math.cos(i));
 * const c = withKnnIndex(knnModelContent({
 *   numFeatures: 1, numLabels: 2, rank: 2, numLearners: 1, k: 3, weighted: true,
 *   clusters: [{ learner: 0, centroid: Float32Array.of(1), v: Float32Array.of(1, 0), numPoints: n,
 *     points, labels: Array.from({ length: n }, (_, i) => Int32Array.of(i % 2)) }],
 * }), { minPoints: 0, listSize: 10 });
 * console.log(c.tensors.knnPtr.shape, (c.params.knnProbes as number) <= 4); // [ 5 ] true
 * ```
 */
export function withKnnIndex(
  given: ModelFileContent,
  options: KnnIndexOptions = {},
): ModelFileContent {
  const minPoints = options.minPoints ?? 1024;
  const iterations = options.iterations ?? 8, target = options.recall ?? 0.999;
  const sample = options.sample ?? 200, seed = options.seed ?? 1;
  // an explicit list size, else the cheaper of 32 and 64 (see KnnIndexOptions.listSize)
  const sizes = options.listSize !== undefined ? [options.listSize] : [64, 32];
  for (const [name, v] of [["listSize", sizes[0]], ["sample", sample]] as const) {
    if (!(Number.isInteger(v) && v >= 1)) {
      throw new RangeError(`withKnnIndex: ${name} must be a positive integer, got ${v}`);
    }
  }
  if (options.probes !== undefined && !(Number.isInteger(options.probes) && options.probes > 0)) {
    throw new RangeError(`withKnnIndex: probes must be a positive integer, got ${options.probes}`);
  }
  if (options.principalAxes !== undefined && typeof options.principalAxes !== "boolean") {
    throw new TypeError(
      `withKnnIndex: principalAxes must be a boolean, got ${options.principalAxes}`,
    );
  }
  const r = given.params.rank as number, kNN = given.params.k as number;
  const rule: VoteRule = {
    weighted: given.params.weighted === true,
    power: (given.params.votePower as number | undefined) ?? 1,
  };
  const pointPtr = given.tensors.pointPtr.data as Int32Array, C = pointPtr.length - 1;
  const labelPtr = given.tensors.labelPtr.data as Int32Array;
  const labels = given.tensors.labels.data as Int32Array;
  let largest = 0;
  for (let c = 0; c < C; c++) largest = Math.max(largest, pointPtr[c + 1] - pointPtr[c]);
  if (largest === 0 || largest < minPoints) return given;
  const content = options.principalAxes === false ? given : toPrincipalAxes(given);
  const pts = dequantize(content.tensors.points), P = pointPtr[C];

  let best: ReturnType<typeof buildLists> & { probes: number; cost: number } | undefined;
  for (const listSize of sizes) {
    const rng = new SmallRng(seed);
    const ix = buildLists(pts, r, pointPtr, listSize, iterations, rng);
    const probes = options.probes ??
      calibrate(
        pts,
        r,
        kNN,
        rule,
        pointPtr,
        labelPtr,
        labels,
        ix,
        ix.maxLists,
        target,
        sample,
        rng,
      );
    // the expected work of a query (in point rows): its cluster's centroids, then the points
    // of the probed lists (clusters weighted by their points, as queries land)
    let cost = 0;
    for (let c = 0; c < C; c++) {
      const n = pointPtr[c + 1] - pointPtr[c], nl = ix.lists[c + 1] - ix.lists[c];
      if (nl > 0) cost += n * (nl + (Math.min(probes, nl) * n) / nl);
    }
    if (best === undefined || cost < best.cost) best = { ...ix, probes, cost };
  }
  const { lists, knnPtr, order: byList, cen: knnCentroids, probes } = best!;
  const S = knnPtr.length - 1, order = Int32Array.from({ length: P }, (_, p) => p);
  // the points stored list by list: a list is one block, which the SDK reads in place
  const sorted = pointsInOrder(content, byList);
  return {
    ...sorted,
    params: { ...content.params, knnProbes: probes },
    tensors: {
      ...sorted.tensors,
      knnCentroids: { dtype: "f32", shape: [S, r], data: knnCentroids },
      knnLists: { dtype: "i32", shape: [C + 1], data: lists },
      knnPtr: { dtype: "i32", shape: [S + 1], data: knnPtr },
      knnOrder: { dtype: "i32", shape: [P], data: order },
    },
  };
}

/**
 * Each cluster's points split into lists of about `listSize` by spherical k-means: the index's
 * tensors (empty lists dropped) and the most lists of a cluster.
 */
function buildLists(
  pts: Float32Array,
  r: number,
  pointPtr: Int32Array,
  listSize: number,
  iterations: number,
  rng: SmallRng,
) {
  const C = pointPtr.length - 1, P = pointPtr[C];
  const lists = new Int32Array(C + 1), order = new Int32Array(P);
  const ptr: number[] = [0], cens: Float64Array[] = [];
  for (let c = 0; c < C; c++) {
    const p0 = pointPtr[c], p1 = pointPtr[c + 1], n = p1 - p0;
    const S = n === 0 ? 0 : Math.max(1, Math.round(n / listSize));
    const { assign, cen } = kmeans(pts, r, p0, p1, S, iterations, rng);
    // points grouped by list, increasing within a list; empty lists dropped
    const count = new Int32Array(S + 1);
    for (let i = 0; i < n; i++) count[assign[i] + 1]++;
    for (let s = 0; s < S; s++) count[s + 1] += count[s];
    const next = count.slice(0, S);
    for (let i = 0; i < n; i++) order[p0 + next[assign[i]]++] = p0 + i;
    for (let s = 0; s < S; s++) {
      if (count[s + 1] === count[s]) continue;
      ptr.push(p0 + count[s + 1]);
      cens.push(cen.subarray(s * r, (s + 1) * r));
    }
    lists[c + 1] = cens.length;
  }
  const cen = new Float32Array(cens.length * r);
  cens.forEach((v, s) => cen.set(v, s * r));
  let maxLists = 0;
  for (let c = 0; c < C; c++) maxLists = Math.max(maxLists, lists[c + 1] - lists[c]);
  return { lists, knnPtr: Int32Array.from(ptr), order, cen, maxLists };
}

/**
 * The fewest probes whose mean leave-one-out recall@5 (of the voted labels, against the exact
 * neighbours) reaches `target`, over `sample` queries per cluster (pooled).
 */
function calibrate(
  pts: Float32Array,
  r: number,
  kNN: number,
  rule: VoteRule,
  pointPtr: Int32Array,
  labelPtr: Int32Array,
  labels: Int32Array,
  ix: { lists: Int32Array; knnPtr: Int32Array; order: Int32Array; cen: Float32Array },
  maxLists: number,
  target: number,
  sample: number,
  rng: SmallRng,
): number {
  const C = pointPtr.length - 1, recallAt = new Float64Array(maxLists + 1);
  // at most n − 1 neighbours (a k past every cluster is valid: k = 2^33 failed to allocate these)
  const most = Math.min(kNN, pointPtr[C]);
  const ids = new Int32Array(most), sim = new Float64Array(most);
  const lids = new Int32Array(maxLists), ls = new Float64Array(maxLists);
  const acc = new Map<number, number>();
  let queries = 0;
  for (let c = 0; c < C; c++) {
    const p0 = pointPtr[c], n = pointPtr[c + 1] - p0, s0 = ix.lists[c];
    const nl = ix.lists[c + 1] - s0, kk = Math.min(kNN, n - 1);
    if (kk < 1) continue;
    for (let t = 0; t < Math.min(sample, n); t++) {
      const q = p0 + rng.nextInt(n), qo = q * r;
      // the exact neighbours and their top-5 labels
      let size = 0;
      for (let p = p0; p < p0 + n; p++) {
        if (p !== q) size = pushTop(ids, sim, size, kk, p, dot(pts, qo, p * r, r));
      }
      const want = new Set(vote(ids, sim, size, rule, labelPtr, labels, acc));
      // the lists by z · centroid, then the neighbours among the first 1, 2, … lists
      let nls = 0;
      for (let s = 0; s < nl; s++) {
        let d = 0;
        for (let a = 0; a < r; a++) d += pts[qo + a] * ix.cen[(s0 + s) * r + a];
        nls = pushTop(lids, ls, nls, nl, s0 + s, d);
      }
      size = 0;
      for (let i = 0; i < nl; i++) {
        const s = lids[i];
        for (let e = ix.knnPtr[s]; e < ix.knnPtr[s + 1]; e++) {
          const p = ix.order[e];
          if (p !== q) size = pushTop(ids, sim, size, kk, p, dot(pts, qo, p * r, r));
        }
        let hit = 0;
        for (const l of vote(ids, sim, size, rule, labelPtr, labels, acc)) {
          hit += +want.has(l);
        }
        recallAt[i + 1] += want.size ? hit / want.size : 1;
      }
      for (let i = nl + 1; i <= maxLists; i++) recallAt[i] += 1;
      queries++;
    }
  }
  for (let p = 1; p <= maxLists; p++) if (recallAt[p] >= target * queries) return p;
  return Math.max(1, maxLists);
}

function dot(pts: Float32Array, a: number, b: number, r: number) {
  let s = 0;
  for (let i = 0; i < r; i++) s += pts[a + i] * pts[b + i];
  return s;
}
