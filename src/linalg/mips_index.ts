/**
 * The label index of the `linear-lowrank` and `random-features` model files (read by
 * sdk/kinds/mips_index.ts; format in docs/model-format.md, "Label index"): hierarchical k-means of
 * the bias-augmented label rows [M_l, bias_l] into ⌈√L⌉ groups of leaves (about 25 labels a
 * leaf), each node with its mean row and a spread (how far its rows stray from the mean, which
 * the query ranking adds as an optimistic bonus), the labels grouped by leaf, and default probe
 * counts (groups, leaves) calibrated on synthetic queries (recall@5 of the probed answer against
 * the exact one at the fewest rows scored). Measured on bench/sdk_scale.ts's topic-structured
 * embeddings (analysis at L = 10⁵ and 10⁶, rows scored for recall@5 ≈ 0.99): one level of ⌈2√L⌉
 * clusters of directions needed 20k of 10⁵ rows and a quarter of 10⁶; finer leaves alone trade
 * label scans for centroid scans (8000 leaves at 10⁵: ~9000 rows); groups of finer leaves need
 * a few thousand rows at 10⁵; clustering the augmented rows beat clustering directions for small
 * leaves, clustering them lifted to a common norm (the MIPS-to-nearest-neighbour reduction, so
 * large-norm rows, the usual winners, are not averaged with small ones) cut the leaves probed by
 * a third, the spread bonus cut the rows by a third, and flat k-means for the groups (instead of
 * a tree of small k-means) by several times. The exact top labels that remain hard to reach are
 * large-norm rows far from their leaf's mean: the synthetic rows' noise is isotropic in all r
 * dimensions, which no partition captures.
 *
 * @module
 */
import type { ModelFileContent, Tensor } from "../format/types.ts";
import { SmallRng } from "../random/mod.ts";

/**
 * The label count from which a model file carries a label index by default (below it, scanning
 * every label is as fast).
 *
 * @example
 * ```ts
 * import { LABEL_INDEX_MIN_LABELS } from "./mips_index.ts";
 * console.log(LABEL_INDEX_MIN_LABELS); // 4096
 * ```
 */
export const LABEL_INDEX_MIN_LABELS = 4096;

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
  /** Number of leaf clusters (about). Default ⌈L/25⌉. */
  clusters?: number;
  /** Number of groups of leaves (about; at most ⌈clusters/4⌉; 1: flat). Default ⌈√L⌉. */
  groups?: number;
  /**
   * The default leaf probe count written to the file (at most the leaves made). Default:
   * calibrated (see `recall`).
   */
  probes?: number;
  /** With `probes`: the group probe count written. Default: every group. */
  groupProbes?: number;
  /**
   * Calibration target: mean recall@5 on synthetic queries. Default 0.996, a margin over the
   * 0.99 wanted on real queries; the synthetic queries are only a proxy. On bench/sdk_scale.ts's
   * queries, probes calibrated for 0.99 reached recall 0.983 at L = 10⁶; for 0.995, 0.993 at 10⁶
   * and 0.988 at 10⁴; for 0.996, 0.991 at 10⁶ and 0.989 at 10⁴; for 0.997, 0.991 at 10⁴ but at
   * 10⁶ twice the probes (1.4 ms) for 0.995.
   */
  recall?: number;
  /**
   * The model's own query rows ([n, r] row-major: q = the row a query is scored with, e.g. xᵀW
   * of sample training rows), to calibrate the probe counts on instead of synthetic queries
   * (at most 1024 of them are used, evenly spaced). The recall the file promises then holds for
   * queries like these; synthetic queries are a proxy whose fit depends on the model.
   */
  queries?: Float32Array;
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
 * Lloyd's k-means of the rows `rows` of `v` (`iterations` on a sample of at most `perCentroid`
 * rows per centroid, seeded with distinct sampled rows); returns the centroids [k, w].
 */
function kmeans(
  v: Float64Array,
  w: number,
  rows: Int32Array,
  k: number,
  rng: SmallRng,
  perCentroid = 64,
  iterations = 8,
) {
  const n = rows.length, sample = Int32Array.from(rows);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [sample[i], sample[j]] = [sample[j], sample[i]];
  }
  const S = sample.subarray(0, Math.min(n, perCentroid * k));
  const cen = new Float64Array(k * w), half = new Float64Array(k);
  for (let c = 0; c < k; c++) cen.set(v.subarray(S[c] * w, S[c] * w + w), c * w);
  const sum = new Float64Array(k * w), count = new Int32Array(k);
  for (let it = 0; it < iterations; it++) {
    for (let c = 0; c < k; c++) {
      let s = 0;
      for (let a = 0; a < w; a++) s += cen[c * w + a] ** 2;
      half[c] = s / 2;
    }
    sum.fill(0);
    count.fill(0);
    const near = assign(v, w, S, cen, half, rng);
    for (let i = 0; i < S.length; i++) {
      const l = S[i], c = near[i];
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
 * The nearest centroid of each row of `rows`: exact up to 64 centroids, else the nearest among
 * the members of the 8 nearest of ⌈√k⌉ k-means groups of the centroids (O(√k·w) a row). With
 * the 3 nearest, the groups of L = 10⁶ labels were built in 16 s instead of 23 s, but ranked so
 * much worse that the calibrated probes went from 785 to 3,733 leaves (top-5 p50 0.74 → 2.9 ms,
 * `deno task sdk-scale --sizes 1e6 --kinds linear-lowrank`).
 */
function assign(
  v: Float64Array,
  w: number,
  rows: Int32Array,
  cen: Float64Array,
  half: Float64Array,
  rng: SmallRng,
) {
  const k = half.length;
  if (k <= 64) return rows.map((l) => nearest(v, w, l, cen, half));
  const ids = Int32Array.from({ length: k }, (_, c) => c);
  const sup = kmeans(cen, w, ids, Math.ceil(Math.sqrt(k)), rng), S = sup.half.length;
  const of = ids.map((c) => nearest(cen, w, c, sup.cen, sup.half));
  const ptr = new Int32Array(S + 1), members = new Int32Array(k);
  for (const g of of) ptr[g + 1]++;
  for (let g = 0; g < S; g++) ptr[g + 1] += ptr[g];
  const next = ptr.slice(0, S);
  ids.forEach((c) => (members[next[of[c]]++] = c));
  const NS = Math.min(8, S), best = new Int32Array(NS), bestS = new Float64Array(NS);
  return rows.map((l) => {
    bestS.fill(-Infinity);
    for (let g = 0; g < S; g++) {
      let s = -sup.half[g];
      for (let a = 0; a < w; a++) s += v[l * w + a] * sup.cen[g * w + a];
      let p = NS;
      for (; p > 0 && s > bestS[p - 1]; p--) {
        if (p < NS) bestS[p] = bestS[p - 1], best[p] = best[p - 1];
      }
      if (p < NS) bestS[p] = s, best[p] = g;
    }
    let arg = 0, argS = -Infinity;
    for (let i = 0; i < NS && bestS[i] > -Infinity; i++) {
      for (let e = ptr[best[i]]; e < ptr[best[i] + 1]; e++) {
        const c = members[e];
        let s = -half[c];
        for (let a = 0; a < w; a++) s += v[l * w + a] * cen[c * w + a];
        if (s > argS) argS = s, arg = c;
      }
    }
    return arg;
  });
}

/**
 * Splits `rows` into about `k` parts by k-means of their rows of `v`: flat up to 16 parts, else
 * ⌈√k⌉ parts each split in proportion to its size (so the cost per row is O(√k·w), not O(k·w)).
 * Writes the part of each row (from `base`) into `part` and returns the number of parts.
 */
function partition(
  v: Float64Array,
  w: number,
  rows: Int32Array,
  k: number,
  rng: SmallRng,
  part: Int32Array,
  base: number,
): number {
  k = Math.max(1, Math.min(k, rows.length));
  const flat = k <= 16, { cen, half } = kmeans(v, w, rows, flat ? k : Math.ceil(Math.sqrt(k)), rng);
  const sub = rows.map((l) => nearest(v, w, l, cen, half));
  if (flat) {
    rows.forEach((l, i) => (part[l] = base + sub[i]));
    return half.length;
  }
  const groups: number[][] = Array.from({ length: half.length }, () => []);
  sub.forEach((g, i) => groups[g].push(rows[i]));
  let n = 0;
  for (const g of groups) {
    if (g.length) {
      n += partition(
        v,
        w,
        Int32Array.from(g),
        // (all rows in one part: the rows are alike, a flat split of them will do)
        g.length < rows.length ? Math.round(k * g.length / rows.length) : Math.min(k, 16),
        rng,
        part,
        base + n,
      );
    }
  }
  return n;
}

/**
 * Per non-empty part of `part` (parts numbered by first appearance in `rows`' order, i.e. the
 * caller's order): the mean bias-augmented row and the spread α·√(mean ‖M_l − mean‖² / r).
 */
function summarize(v: Float64Array, w: number, order: Int32Array, ptr: Int32Array, alpha: number) {
  const P = ptr.length - 1, r = w - 1, centroids = new Float32Array(P * w);
  const spread = new Float32Array(P), mean = new Float64Array(w);
  for (let c = 0; c < P; c++) {
    const n = ptr[c + 1] - ptr[c];
    mean.fill(0);
    for (let e = ptr[c]; e < ptr[c + 1]; e++) {
      for (let a = 0; a < w; a++) mean[a] += v[order[e] * w + a];
    }
    for (let a = 0; a < w; a++) centroids[c * w + a] = mean[a] /= n;
    let ss = 0;
    for (let e = ptr[c]; e < ptr[c + 1]; e++) {
      for (let a = 0; a < r; a++) ss += (v[order[e] * w + a] - mean[a]) ** 2;
    }
    spread[c] = r > 0 ? alpha * Math.sqrt(ss / (n * r)) : 0;
  }
  return { centroids, spread };
}

/**
 * The rows [v_l, √(Φ² − ‖v_l‖²)] (Φ = the largest ‖v_l‖): all of norm Φ, so that the inner
 * product with [q, 1, 0] ranks as the Euclidean distance (the MIPS-to-nearest-neighbour
 * reduction) and k-means keeps rows of unlike norms apart.
 */
function lifted(v: Float64Array, w: number, L: number) {
  const x = new Float64Array(L * (w + 1)), n2 = new Float64Array(L);
  let max = 0;
  for (let l = 0; l < L; l++) {
    for (let a = 0; a < w; a++) n2[l] += (x[l * (w + 1) + a] = v[l * w + a]) ** 2;
    max = Math.max(max, n2[l]);
  }
  for (let l = 0; l < L; l++) x[l * (w + 1) + w] = Math.sqrt(max - n2[l]);
  return x;
}

/**
 * The two-level index: `G` groups of the bias-augmented rows (clustered {@link lifted}), each
 * split into leaves (about `C` in all, in proportion to the group's size); the labels ordered by group then leaf (increasing
 * within a leaf), the leaves' offsets, the groups' offsets into the leaves, and the means and
 * spreads of both levels.
 */
function cluster(v: Float64Array, w: number, L: number, C: number, G: number, rng: SmallRng) {
  const all = Int32Array.from({ length: L }, (_, l) => l), group = new Int32Array(L);
  const x = lifted(v, w, L), wx = w + 1;
  // groups: flat k-means with the accelerated assignment (a tree of small k-means, ⌈√G⌉ parts
  // each split again, made groups whose leaves ranked the exact top labels several times worse:
  // the large-norm rows that win inner products are the ones a coarse first split misplaces)
  const top = kmeans(x, wx, all, Math.min(G, L), rng), nG = top.half.length;
  group.set(assign(x, wx, all, top.cen, top.half, rng));
  const leaf = new Int32Array(L);
  const members: number[][] = Array.from({ length: nG }, () => []);
  for (let l = 0; l < L; l++) members[group[l]].push(l);
  const order = new Int32Array(L), ptr = [0], gptr = [0];
  let e = 0, leaves = 0;
  for (const g of members) {
    if (!g.length) continue;
    const rows = Int32Array.from(g),
      k = partition(x, wx, rows, Math.max(1, Math.round(C * g.length / L)), rng, leaf, 0);
    // counting sort of the group's rows by leaf (increasing labels within a leaf)
    const count = new Int32Array(k + 1);
    for (const l of rows) count[leaf[l] + 1]++;
    for (let c = 0; c < k; c++) count[c + 1] += count[c];
    for (const l of rows) order[e + count[leaf[l]]++] = l;
    for (let c = 0; c < k; c++) if (count[c] > (c ? count[c - 1] : 0)) ptr.push(e + count[c]);
    e += rows.length;
    leaves = ptr.length - 1;
    gptr.push(leaves);
  }
  const P = Int32Array.from(ptr), GP = Int32Array.from(gptr);
  const gOrderPtr = Int32Array.from(GP, (c) => P[c]);
  return {
    order,
    ptr: P,
    gptr: GP,
    leaves: summarize(v, w, order, P, LEAF_ALPHA),
    groups: summarize(v, w, order, gOrderPtr, GROUP_ALPHA),
  };
}

/** Spread weights (bench/sdk_scale.ts, L = 10⁵ and 10⁶: fewest rows scored for recall 0.99). */
const LEAF_ALPHA = 2.5, GROUP_ALPHA = 1;

type Index = ReturnType<typeof cluster>;

/** The ranking score of node `c`: q · mean + mean bias + ‖q‖ · spread (float64). */
function nodeScore(q: Float64Array, qn: number, s: Index["leaves"], c: number, r: number) {
  const w = r + 1;
  let z = s.centroids[c * w + r] + qn * s.spread[c];
  for (let a = 0; a < r; a++) z += q[a] * s.centroids[c * w + a];
  return z;
}

/**
 * The cheapest probe counts (groups P₁, leaves p) whose mean recall@5 reaches `target` on
 * the `given` query rows when there are any, else on synthetic queries (q = Σ of three random label rows, each divided by its squared norm: a row's
 * own label then scores about 1 above its bias, as a trained model scores a true label; every
 * other query scaled by 3, where the embedding outweighs the bias, since the scale of real
 * queries is unknown here: calibrated on the first kind alone, the probes reached recall 0.98 on
 * bench/sdk_scale.ts's queries at L = 10⁶). For each
 * P₁ of a geometric grid, p is the smallest count that finds the share `target` of the exact
 * top-5 labels among the best leaves of the best P₁ groups; the pair minimises the rows scored
 * (G group means, the leaves of P₁ groups, p leaves' labels).
 */
function calibrate(
  v: Float64Array,
  r: number,
  L: number,
  idx: Index,
  target: number,
  rng: SmallRng,
  given?: Float32Array,
) {
  const w = r + 1, C = idx.ptr.length - 1, G = idx.gptr.length - 1, leafOf = new Int32Array(L);
  const groupOf = new Int32Array(C);
  for (let g = 0; g < G; g++) groupOf.fill(g, idx.gptr[g], idx.gptr[g + 1]);
  for (let c = 0; c < C; c++) leafOf.fill(c, idx.ptr[c], idx.ptr[c + 1]);
  const where = new Int32Array(L);
  for (let e = 0; e < L; e++) where[idx.order[e]] = leafOf[e];
  const grid: number[] = [];
  for (let p = 1; p < G; p = Math.max(p + 1, Math.round(p * 1.25))) grid.push(p);
  grid.push(G);
  const nGiven = given !== undefined && r > 0 ? Math.floor(given.length / r) : 0;
  const queries = nGiven > 0
    ? Math.min(nGiven, 1024)
    : Math.max(64, Math.min(1024, Math.floor(4e9 / (L * w))));
  const q = new Float64Array(r),
    K = Math.min(5, L),
    tl = new Int32Array(K),
    ts = new Float64Array(K);
  const gs = new Float64Array(G), cs = new Float64Array(C), grank = new Int32Array(G);
  const need: number[][] = grid.map(() => []),
    width = grid.map(() => 0),
    seen = new Int32Array(grid.length);
  for (let t = 0; t < queries; t++) {
    q.fill(0);
    if (nGiven > 0) {
      const row = Math.floor((t * nGiven) / queries) * r;
      for (let a = 0; a < r; a++) q[a] = given![row + a];
    }
    for (let j = 0, scale = t % 2 ? 3 : 1; nGiven === 0 && j < 3; j++) {
      const l = Math.floor(rng.next() * L);
      let n2 = 0;
      for (let a = 0; a < r; a++) n2 += v[l * w + a] ** 2;
      for (let a = 0; n2 > 0 && a < r; a++) q[a] += scale * v[l * w + a] / n2;
    }
    let qn = 0;
    for (let a = 0; a < r; a++) qn += q[a] * q[a];
    qn = Math.sqrt(qn);
    ts.fill(-Infinity);
    for (let l = 0; l < L; l++) {
      let s = v[l * w + r];
      for (let a = 0; a < r; a++) s += q[a] * v[l * w + a];
      if (!(s > ts[K - 1])) continue;
      let p = K - 1;
      for (; p > 0 && s > ts[p - 1]; p--) ts[p] = ts[p - 1], tl[p] = tl[p - 1];
      ts[p] = s, tl[p] = l;
    }
    for (let g = 0; g < G; g++) gs[g] = nodeScore(q, qn, idx.groups, g, r);
    for (let c = 0; c < C; c++) cs[c] = nodeScore(q, qn, idx.leaves, c, r);
    const byG = Int32Array.from({ length: G }, (_, g) => g).sort((a, b) => gs[b] - gs[a] || a - b);
    byG.forEach((g, i) => (grank[g] = i));
    const targets = new Map<number, number>();
    for (let i = 0; i < K; i++) targets.set(where[tl[i]], (targets.get(where[tl[i]]) ?? 0) + 1);
    grid.forEach((P1, i) => {
      for (let j = 0; j < P1; j++) width[i] += idx.gptr[byG[j] + 1] - idx.gptr[byG[j]];
    });
    // walk the leaves best first: a leaf's rank among the leaves of the best P₁ groups
    seen.fill(0);
    const byC = Int32Array.from({ length: C }, (_, c) => c).sort((a, b) => cs[b] - cs[a] || a - b);
    for (const c of byC) {
      const gr = grank[groupOf[c]], hits = targets.get(c) ?? 0;
      grid.forEach((P1, i) => {
        if (gr < P1) seen[i]++;
        for (let h = 0; h < hits; h++) need[i].push(gr < P1 ? seen[i] : Infinity);
      });
    }
  }
  const perLeaf = L / C;
  let best = { groups: G, probes: C, cost: Infinity };
  grid.forEach((P1, i) => {
    const xs = need[i].sort((a, b) => a - b),
      p = xs[Math.max(0, Math.ceil(target * xs.length) - 1)];
    const cost = G + width[i] / queries + p * perLeaf;
    if (p < Infinity && cost < best.cost) best = { groups: P1, probes: p, cost };
  });
  return best;
}

/**
 * Throws a RangeError naming the option unless `options` are usable by
 * {@linkcode withLabelIndex}: `minLabels` a number, `clusters`, `groups`, `probes` and
 * `groupProbes` integers >= 1, `recall` in (0, 1].
 *
 * @example
 * ```ts
 * import { checkLabelIndexOptions } from "./mips_index.ts";
 * checkLabelIndexOptions({ clusters: 8, recall: 0.99 }); // fine
 * try {
 *   checkLabelIndexOptions({ clusters: NaN });
 * } catch (e) {
 *   console.log((e as Error).message); // "label index: option clusters must be an integer >= 1, got NaN"
 * }
 * ```
 */
export function checkLabelIndexOptions(options: LabelIndexOptions): void {
  const { minLabels, recall } = options;
  if (minLabels !== undefined && (typeof minLabels !== "number" || Number.isNaN(minLabels))) {
    throw new RangeError(`label index: option minLabels must be a number, got ${minLabels}`);
  }
  for (const key of ["clusters", "groups", "probes", "groupProbes"] as const) {
    const v = options[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && v >= 1)) {
      throw new RangeError(`label index: option ${key} must be an integer >= 1, got ${v}`);
    }
  }
  if (recall !== undefined && !(recall > 0 && recall <= 1)) {
    throw new RangeError(`label index: option recall must be a number in (0, 1], got ${recall}`);
  }
}

/**
 * Adds a label index over the rows of tensor `rows` ([L, r], with the content's `bias`) to a
 * `linear-lowrank` (`H`) or `random-features` (`P`) content: tensors `mipsCentroids` f32 [C, r+1],
 * `mipsOrder` i32 [L], `mipsPtr` i32 [C+1] and param `mipsProbes`. Returns the content unchanged
 * below `minLabels` labels. Readers that do not know the index answer exactly without it.
 *
 * @throws {RangeError} on an option out of range (checked by {@linkcode checkLabelIndexOptions}).
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
  checkLabelIndexOptions(options);
  const L = content.numLabels, M = content.tensors[rows], b = content.tensors.bias;
  if (L < (options.minLabels ?? LABEL_INDEX_MIN_LABELS) || L < 2 || !M || M.dtype !== "f32") {
    return content;
  }
  if (b && b.dtype !== "f32") return content;
  const r = M.shape[1], rng = new SmallRng(options.seed ?? 1);
  const v = augmented(M.data as Float32Array, b?.data as Float32Array | undefined, L, r);
  const C = Math.max(2, Math.min(L, options.clusters ?? Math.ceil(L / 25)));
  const G = Math.max(1, Math.min(Math.ceil(C / 4), options.groups ?? Math.ceil(Math.sqrt(L))));
  const idx = cluster(v, r + 1, L, C, G, rng), nC = idx.ptr.length - 1, nG = idx.gptr.length - 1;
  const cal = options.probes === undefined
    ? calibrate(v, r, L, idx, options.recall ?? 0.996, rng, options.queries)
    : { probes: Math.min(nC, options.probes), groups: Math.min(nG, options.groupProbes ?? nG) };
  const f32 = (shape: number[], data: Float32Array): Tensor => ({ dtype: "f32", shape, data });
  const i32 = (data: Int32Array): Tensor => ({ dtype: "i32", shape: [data.length], data });
  const tensors: Record<string, Tensor> = {
    ...content.tensors,
    mipsCentroids: f32([nC, r + 1], idx.leaves.centroids),
    mipsSpread: f32([nC], idx.leaves.spread),
    mipsOrder: i32(idx.order),
    mipsPtr: i32(idx.ptr),
  };
  const params: ModelFileContent["params"] = { ...content.params, mipsProbes: cal.probes };
  if (nG > 1) {
    tensors.mipsGroupCentroids = f32([nG, r + 1], idx.groups.centroids);
    tensors.mipsGroupSpread = f32([nG], idx.groups.spread);
    tensors.mipsGroupPtr = i32(idx.gptr);
    params.mipsGroupProbes = cal.groups;
  }
  return { ...content, params, tensors };
}

/**
 * The label index of `content` (a `linear-lowrank` or `random-features` content over the same
 * labels as `previous`) that keeps `previous`'s partition (the labels' leaves and groups and the
 * probe counts) with the means and spreads recomputed from the content's current rows and bias:
 * O(L·r), against the clustering and calibration of {@linkcode withLabelIndex}. For a model that
 * moved a little since `previous` was built: every score stays exact (the search scores the
 * current rows), only the recall may drift as the partition ages. `previous` holds the index
 * tensors (`mipsOrder`, `mipsPtr`, optionally `mipsGroupPtr`) and params (`mipsProbes`,
 * optionally `mipsGroupProbes`), e.g. an earlier `withLabelIndex` result. Returns the content
 * unchanged when `previous` has no index or indexes another number of labels.
 *
 * @example
 * ```ts
 * import { refreshLabelIndex, withLabelIndex } from "./mips_index.ts";
 * const L = 40, H = Float32Array.from({ length: L * 2 }, (_, i) => Math.sin(i));
 * const content = (H: Float32Array) => ({
 *   kind: "linear-lowrank" as const, numFeatures: 1, numLabels: L, params: { rank: 2 },
 *   tensors: { H: { dtype: "f32" as const, shape: [L, 2], data: H } },
 * });
 * const a = withLabelIndex(content(H), "H", { minLabels: 0, clusters: 4 });
 * const b = refreshLabelIndex(content(H.map((v) => 2 * v)), "H", a);
 * console.log(b.tensors.mipsOrder === a.tensors.mipsOrder, b.tensors.mipsCentroids.data[0] === 2 * a.tensors.mipsCentroids.data[0]); // true true
 * ```
 */
export function refreshLabelIndex(
  content: ModelFileContent,
  rows: string,
  previous: Pick<ModelFileContent, "params" | "tensors">,
): ModelFileContent {
  const L = content.numLabels, M = content.tensors[rows], b = content.tensors.bias;
  const p = previous.tensors;
  if (!M || M.dtype !== "f32" || (b && b.dtype !== "f32") || !p.mipsPtr || !p.mipsOrder) {
    return content;
  }
  if (p.mipsOrder.data.length !== L) return content;
  const r = M.shape[1], w = r + 1;
  const v = augmented(M.data as Float32Array, b?.data as Float32Array | undefined, L, r);
  const order = p.mipsOrder.data as Int32Array, ptr = p.mipsPtr.data as Int32Array;
  const leaves = summarize(v, w, order, ptr, LEAF_ALPHA), nC = ptr.length - 1;
  const tensors: Record<string, Tensor> = {
    ...content.tensors,
    mipsCentroids: { dtype: "f32", shape: [nC, w], data: leaves.centroids },
    mipsSpread: { dtype: "f32", shape: [nC], data: leaves.spread },
    mipsOrder: p.mipsOrder,
    mipsPtr: p.mipsPtr,
  };
  const params: ModelFileContent["params"] = {
    ...content.params,
    mipsProbes: previous.params.mipsProbes,
  };
  if (p.mipsGroupPtr) {
    const gptr = p.mipsGroupPtr.data as Int32Array, nG = gptr.length - 1;
    const groups = summarize(v, w, order, Int32Array.from(gptr, (c) => ptr[c]), GROUP_ALPHA);
    tensors.mipsGroupCentroids = { dtype: "f32", shape: [nG, w], data: groups.centroids };
    tensors.mipsGroupSpread = { dtype: "f32", shape: [nG], data: groups.spread };
    tensors.mipsGroupPtr = p.mipsGroupPtr;
    params.mipsGroupProbes = previous.params.mipsGroupProbes;
  }
  return { ...content, params, tensors };
}
