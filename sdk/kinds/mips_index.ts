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
import { pushTop, type TopK } from "../topk.ts";
import { zeros } from "../vector.ts";
import { bad, floats, ints } from "./tensors.ts";
import type { DecodedModel } from "./types.ts";

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
export function mipsIndex(
  m: DecodedModel,
  M: Float32Array,
  bias: Float32Array | undefined,
  r: number,
): MipsSearch | undefined {
  if (!m.tensors.mipsPtr) return undefined;
  const L = m.numLabels, w = r + 1, order = ints(m, "mipsOrder", L - 1, L) as Int32Array;
  const ptr = ints(m, "mipsPtr", L, undefined, "ptr"), C = ptr.length - 1;
  const grouped = !!m.tensors.mipsGroupPtr;
  const gptr = grouped ? ints(m, "mipsGroupPtr", C, undefined, "ptr") : Int32Array.of(0, C);
  const G = gptr.length - 1, cen = floats(m, "mipsCentroids", C * w);
  const spread = floats(m, "mipsSpread", C, true);
  const gcen = grouped ? floats(m, "mipsGroupCentroids", G * w) : cen;
  const gspread = grouped ? floats(m, "mipsGroupSpread", G) : undefined, seen = new Uint8Array(L);
  for (let e = 0; e < L; e++) {
    if (seen[order[e]]++) bad(m, `tensor "mipsOrder" repeats label ${order[e]}`);
  }
  // M and bias in leaf order, each leaf copied the first time it is probed: a leaf's rows are then
  // read in sequence (at L = 10⁶, r = 32, scattered rows made the search 2.8 times slower; copying
  // all at load took 0.7 s; skipping labels by the bound bias + ‖q‖·‖M_l‖ saved only 5%)
  const oM = new Float32Array(L * r), ob = new Float32Array(L);
  const ready = new Uint8Array(C);
  const count = (p: unknown, n: number) =>
    Number.isInteger(p) && (p as number) > 0 ? p as number : n;
  const def = count(m.params.mipsProbes, C), gdef = count(m.params.mipsGroupProbes, G);
  const gl = new Int32Array(G), gs = zeros(G), cl = new Int32Array(C), cs = zeros(C), t = zeros(C);
  // the ranking score of node c: q · mean + mean bias + ‖q‖ · spread
  const rank = (q: Float64Array, qn: number, c: number, x: Float32Array, s?: Float32Array) => {
    let z = x[c * w + r] + (s ? qn * s[c] : 0);
    for (let a = 0, o = c * w; a < r; a++) z += q[a] * x[o + a];
    return z === z ? z : -Infinity;
  };
  return (q, k, probes = def) => {
    const p = Math.min(C, Math.max(1, Math.floor(probes)));
    if (!(p < C)) return undefined;
    // groups: the file's count up to the default probes, then in proportion
    const pg = grouped ? Math.min(G, p > def ? Math.ceil(gdef * p / def) : gdef) : 1;
    let qn = 0, n = 0, ng = 0;
    for (let a = 0; a < r; a++) qn += q[a] * q[a];
    qn = Math.sqrt(qn);
    for (let g = 0; g < G; g++) {
      if (pg < G) ng = pushTop(gl, gs, ng, pg, g, rank(q, qn, g, gcen, gspread));
      else gl[ng++] = g;
    }
    for (let i = 0; i < ng; i++) {
      for (let c = gptr[gl[i]]; c < gptr[gl[i] + 1]; c++) {
        cl[n] = c, cs[n++] = rank(q, qn, c, cen, spread);
      }
    }
    // the p best candidate leaves: those above the p-th best score, then ties in candidate order
    let keep = n;
    if (n > p) {
      t.set(cs.subarray(0, n));
      const bar = select(t, n, p - 1);
      let ties = p;
      for (let i = 0; i < n; i++) if (cs[i] > bar) ties--;
      keep = 0;
      for (let i = 0; i < n; i++) {
        if (cs[i] > bar || cs[i] === bar && ties-- > 0) cl[keep++] = cl[i];
      }
    }
    // probing a quarter of the labels in cluster order is slower than the sequential full scan
    let reach = 0;
    for (let i = 0; i < keep; i++) reach += ptr[cl[i] + 1] - ptr[cl[i]];
    if (reach * 4 > L) return undefined;
    const cap = k < L ? k : L, labels = new Int32Array(cap), top = zeros(cap);
    let size = 0;
    for (let i = 0; i < keep; i++) {
      const c = cl[i], end = ptr[c + 1];
      for (let e = ptr[c]; !ready[c] && e < end; e++) {
        const l = order[e];
        for (let a = 0; a < r; a++) oM[e * r + a] = M[l * r + a];
        ob[e] = bias ? bias[l] : 0;
      }
      ready[c] = 1;
      for (let e = ptr[c]; e < end; e++) {
        const l = order[e], o = e * r;
        let z = ob[e];
        for (let a = 0; a < r; a++) z += q[a] * oM[o + a];
        z = Math.fround(z);
        size = pushTop(labels, top, size, cap, l, z === z ? z : -Infinity);
      }
    }
    return size < cap ? undefined : { labels, scores: Float32Array.from(top) };
  };
}

/** The value of rank `j` (0: the largest) of `a[0 … n)`, reordering `a` (quickselect). */
function select(a: Float64Array, n: number, j: number): number {
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo, k = hi;
    while (i <= k) {
      while (a[i] > pivot) i++;
      while (a[k] < pivot) k--;
      if (i <= k) {
        const x = a[i];
        a[i++] = a[k], a[k--] = x;
      }
    }
    if (j <= k) hi = k;
    else if (j >= i) lo = i;
    else return a[j];
  }
  return a[j];
}
