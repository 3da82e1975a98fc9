/**
 * The label index of the `linear-lowrank` and `random-features` model files (read by
 * sdk/kinds/mips_index.ts; format in docs/model-format.md, "Label index"): k-means clusters of
 * the label rows' directions M_l/‖M_l‖ (two-level for many clusters, so building stays
 * O(L·√C·r)), ranked at query time by the mean bias-augmented row [M_l, bias_l] of each cluster;
 * the labels grouped by cluster; and a default probe count calibrated on synthetic queries
 * (recall@5 of the probed answer against the exact one). Clustering the directions rather than
 * the augmented rows needed fewer probes for the same recall (bench/sdk_scale.ts, L = 10⁴: 23
 * against 67 probes of 200 clusters for recall@5 ≈ 0.99).
 *
 * @module
 */
import type { ModelFileContent, Tensor } from "../format/types.ts";
import { SmallRng } from "../random/mod.ts";

/**
 * Options of {@linkcode withLabelIndex}.
 *
 * @example
 * ```ts
 * import type { LabelIndexOptions } from "./mips_index.ts";
 * const o: LabelIndexOptions = { minLabels: 0, clusters: 4 };
 * console.log(o.clusters); // 4
 * ```
 */
export interface LabelIndexOptions {
  /** No index below this many labels (scanning them all is as fast). Default 4096. */
  minLabels?: number;
  /** Number of clusters. Default ⌈2√L⌉. */
  clusters?: number;
  /** The default probe count written to the file. Default: calibrated (see `recall`). */
  probes?: number;
  /** Calibration target: mean recall@5 on synthetic queries. Default 0.99. */
  recall?: number;
  /** Seed of the sampling. Default 1. */
  seed?: number;
}

/** Rows [L, w] of v_l = [M_l, bias_l], as float64. */
function augmented(M: Float32Array, bias: Float32Array | undefined, L: number, r: number) {
  const w = r + 1, v = new Float64Array(L * w);
  for (let l = 0; l < L; l++) {
    for (let a = 0; a < r; a++) v[l * w + a] = M[l * r + a];
    v[l * w + r] = bias ? bias[l] : 0;
  }
  return v;
}

/** The nearest (Euclidean) of `k` centroids to row `l`: argmax v·c − ‖c‖²/2. */
function nearest(v: Float64Array, w: number, l: number, cen: Float64Array, half: Float64Array) {
  let best = 0, bestS = -Infinity;
  for (let c = 0, o = 0; c < half.length; c++, o += w) {
    let s = -half[c];
    for (let a = 0; a < w; a++) s += v[l * w + a] * cen[o + a];
    if (s > bestS) bestS = s, best = c;
  }
  return best;
}

/**
 * Lloyd's k-means of the rows `rows` of `v` (8 iterations on a sample of at most 64 rows per
 * centroid, seeded with distinct sampled rows); returns the centroids [k, w].
 */
function kmeans(v: Float64Array, w: number, rows: Int32Array, k: number, rng: SmallRng) {
  const n = rows.length, sample = Int32Array.from(rows);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [sample[i], sample[j]] = [sample[j], sample[i]];
  }
  const S = sample.subarray(0, Math.min(n, 64 * k));
  const cen = new Float64Array(k * w), half = new Float64Array(k);
  for (let c = 0; c < k; c++) cen.set(v.subarray(S[c] * w, S[c] * w + w), c * w);
  const sum = new Float64Array(k * w), count = new Int32Array(k);
  for (let it = 0; it < 8; it++) {
    for (let c = 0; c < k; c++) {
      let s = 0;
      for (let a = 0; a < w; a++) s += cen[c * w + a] ** 2;
      half[c] = s / 2;
    }
    sum.fill(0);
    count.fill(0);
    for (const l of S) {
      const c = nearest(v, w, l, cen, half);
      count[c]++;
      for (let a = 0; a < w; a++) sum[c * w + a] += v[l * w + a];
    }
    for (let c = 0; c < k; c++) {
      if (count[c]) { for (let a = 0; a < w; a++) cen[c * w + a] = sum[c * w + a] / count[c]; }
    }
  }
  for (let c = 0; c < k; c++) {
    let s = 0;
    for (let a = 0; a < w; a++) s += cen[c * w + a] ** 2;
    half[c] = s / 2;
  }
  return { cen, half };
}

/**
 * Clusters the label rows: flat k-means for up to 48 clusters, else ⌈√C⌉ groups each split in
 * proportion to its size. Returns the non-empty clusters' centroids (means of their rows), the
 * labels grouped by cluster (increasing within a cluster) and the offsets.
 */
function cluster(
  v: Float64Array,
  w: number,
  L: number,
  C: number,
  rng: SmallRng,
  rows: Float64Array,
) {
  const assign = new Int32Array(L), all = Int32Array.from({ length: L }, (_, l) => l);
  let leaves = 0;
  const split = (rows: Int32Array, k: number) => {
    const { cen, half } = kmeans(v, w, rows, Math.min(k, rows.length), rng);
    const sub = rows.map((l) => nearest(v, w, l, cen, half));
    return { k: half.length, sub };
  };
  if (C <= 48) {
    const { sub } = split(all, C);
    assign.set(sub);
    leaves = C;
  } else {
    const top = split(all, Math.ceil(Math.sqrt(C)));
    const groups: number[][] = Array.from({ length: top.k }, () => []);
    top.sub.forEach((g, l) => groups[g].push(l));
    for (const g of groups) {
      if (!g.length) continue;
      const rows = Int32Array.from(g),
        { k, sub } = split(rows, Math.max(1, Math.round(C * g.length / L)));
      rows.forEach((l, i) => (assign[l] = leaves + sub[i]));
      leaves += k;
    }
  }
  // counting sort by cluster; centroids are the means of the final members; drop empty ones
  const count = new Int32Array(leaves + 1);
  for (let l = 0; l < L; l++) count[assign[l] + 1]++;
  const remap = new Int32Array(leaves);
  let kept = 0;
  for (let c = 0; c < leaves; c++) remap[c] = count[c + 1] ? kept++ : -1;
  const ptr = new Int32Array(kept + 1);
  for (let c = 0; c < leaves; c++) if (remap[c] >= 0) ptr[remap[c] + 1] = count[c + 1];
  for (let c = 0; c < kept; c++) ptr[c + 1] += ptr[c];
  const next = ptr.slice(0, kept), order = new Int32Array(L), sum = new Float64Array(kept * w);
  for (let l = 0; l < L; l++) {
    const c = remap[assign[l]];
    order[next[c]++] = l;
    for (let a = 0; a < w; a++) sum[c * w + a] += rows[l * w + a];
  }
  const centroids = new Float32Array(kept * w);
  for (let c = 0; c < kept; c++) {
    for (let a = 0; a < w; a++) centroids[c * w + a] = sum[c * w + a] / (ptr[c + 1] - ptr[c]);
  }
  return { centroids, order, ptr };
}

/**
 * The smallest probe count whose mean recall@5 reaches `target` on synthetic queries: q = Σ of
 * three random label rows, each divided by its squared norm (a row's own label then scores about
 * 1 above its bias, as a trained model scores a true label).
 */
function calibrate(
  v: Float64Array,
  r: number,
  L: number,
  idx: { centroids: Float32Array; order: Int32Array; ptr: Int32Array },
  target: number,
  rng: SmallRng,
) {
  const w = r + 1, C = idx.ptr.length - 1, of = new Int32Array(L);
  for (let c = 0; c < C; c++) {
    for (let e = idx.ptr[c]; e < idx.ptr[c + 1]; e++) of[idx.order[e]] = c;
  }
  const queries = Math.max(16, Math.min(200, Math.floor(4e8 / (L * w))));
  const q = new Float64Array(r), rank = new Int32Array(C), cs = new Float64Array(C);
  const ranks: number[] = [], K = Math.min(5, L);
  const tl = new Int32Array(K), ts = new Float64Array(K);
  for (let t = 0; t < queries; t++) {
    q.fill(0);
    for (let j = 0; j < 3; j++) {
      const l = Math.floor(rng.next() * L);
      let n2 = 0;
      for (let a = 0; a < r; a++) n2 += v[l * w + a] ** 2;
      for (let a = 0; n2 > 0 && a < r; a++) q[a] += v[l * w + a] / n2;
    }
    ts.fill(-Infinity);
    for (let l = 0; l < L; l++) {
      let s = v[l * w + r];
      for (let a = 0; a < r; a++) s += q[a] * v[l * w + a];
      if (!(s > ts[K - 1])) continue;
      let p = K - 1;
      for (; p > 0 && s > ts[p - 1]; p--) ts[p] = ts[p - 1], tl[p] = tl[p - 1];
      ts[p] = s, tl[p] = l;
    }
    for (let c = 0; c < C; c++) {
      let s = idx.centroids[c * w + r];
      for (let a = 0; a < r; a++) s += q[a] * idx.centroids[c * w + a];
      cs[c] = s;
    }
    const byScore = Int32Array.from({ length: C }, (_, c) => c).sort((a, b) => cs[b] - cs[a]);
    byScore.forEach((c, i) => (rank[c] = i));
    for (let i = 0; i < K; i++) ranks.push(rank[of[tl[i]]]);
  }
  ranks.sort((a, b) => a - b);
  return ranks[Math.min(ranks.length - 1, Math.ceil(target * ranks.length) - 1)] + 1;
}

/**
 * Adds a label index over the rows of tensor `rows` ([L, r], with the content's `bias`) to a
 * `linear-lowrank` (`H`) or `random-features` (`P`) content: tensors `mipsCentroids` f32 [C, r+1],
 * `mipsOrder` i32 [L], `mipsPtr` i32 [C+1] and param `mipsProbes`. Returns the content unchanged
 * below `minLabels` labels. Readers that do not know the index answer exactly without it.
 *
 * @example
 * ```ts
 * import { withLabelIndex } from "./mips_index.ts";
 * const L = 40, H = Float32Array.from({ length: L * 2 }, (_, i) => Math.sin(i));
 * const c = withLabelIndex({
 *   kind: "linear-lowrank", numFeatures: 1, numLabels: L, params: { rank: 2 },
 *   tensors: {
 *     W: { dtype: "f32", shape: [1, 2], data: Float32Array.of(1, 1) },
 *     H: { dtype: "f32", shape: [L, 2], data: H },
 *   },
 * }, "H", { minLabels: 0, clusters: 4 });
 * console.log(c.tensors.mipsOrder.shape, (c.params.mipsProbes as number) >= 1); // [ 40 ] true
 * ```
 */
export function withLabelIndex(
  content: ModelFileContent,
  rows: string,
  options: LabelIndexOptions = {},
): ModelFileContent {
  const L = content.numLabels, M = content.tensors[rows], b = content.tensors.bias;
  if (L < (options.minLabels ?? 4096) || L < 2 || !M || M.dtype !== "f32") return content;
  if (b && b.dtype !== "f32") return content;
  const r = M.shape[1], rng = new SmallRng(options.seed ?? 1);
  const v = augmented(M.data as Float32Array, b?.data as Float32Array | undefined, L, r);
  const C = Math.max(2, Math.min(L, options.clusters ?? Math.ceil(2 * Math.sqrt(L))));
  // cluster the directions of the rows (unit M_l, bias left out: the query's scale, unknown
  // here, decides how much the bias counts), then rank clusters by their mean augmented row
  const dir = new Float64Array(L * (r + 1));
  for (let l = 0; l < L; l++) {
    let n = 0;
    for (let a = 0; a < r; a++) n += v[l * (r + 1) + a] ** 2;
    for (let a = 0; n > 0 && a < r; a++) dir[l * (r + 1) + a] = v[l * (r + 1) + a] / Math.sqrt(n);
  }
  const idx = cluster(dir, r + 1, L, C, rng, v);
  const probes = options.probes ?? calibrate(v, r, L, idx, options.recall ?? 0.99, rng);
  const tensors: Record<string, Tensor> = {
    ...content.tensors,
    mipsCentroids: { dtype: "f32", shape: [idx.ptr.length - 1, r + 1], data: idx.centroids },
    mipsOrder: { dtype: "i32", shape: [L], data: idx.order },
    mipsPtr: { dtype: "i32", shape: [idx.ptr.length], data: idx.ptr },
  };
  return { ...content, params: { ...content.params, mipsProbes: probes }, tensors };
}
