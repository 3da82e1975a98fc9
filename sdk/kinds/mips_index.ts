/**
 * Approximate top-k over label vectors (maximum inner product search) for the kinds whose score
 * is score_l = bias_l + Σ_c q_c · M_{l,c} (`linear-lowrank`: q = xᵀW, M = H; `random-features`:
 * q = h Q, M = P). The file's optional index (docs/model-format.md, "Label index") groups the
 * labels by k-means clusters of their bias-augmented rows [M_l, bias_l]: a query ranks the
 * clusters by q·centroid + centroid_bias and scores only the labels of the `probes` best ones,
 * with the dense scorer's arithmetic (so every score it returns is the exact score).
 *
 * @module
 */
import { pushTop, type TopK } from "../topk.ts";
import { zeros } from "../vector.ts";
import { bad, floats, ints } from "./tensors.ts";
import type { DecodedModel } from "./types.ts";

/**
 * Searches a label index: the top `k` labels of the query `q` among the labels of the
 * `probes` clusters (default: the file's `mipsProbes`) that rank best for `q`, or undefined when
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
 * `mipsOrder` i32 [L], `mipsPtr` i32 [C+1], param `mipsProbes`), checked at load (a
 * `RangeError` naming the tensor when it is inconsistent). `M` is [L, r] row-major.
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
  const L = m.numLabels, order = ints(m, "mipsOrder", L - 1, L) as Int32Array;
  const ptr = ints(m, "mipsPtr", L, undefined, "ptr"), C = ptr.length - 1;
  const cen = floats(m, "mipsCentroids", C * (r + 1)), seen = new Uint8Array(L);
  for (let i = 0; i < L; i++) {
    if (seen[order[i]]++) bad(m, `tensor "mipsOrder" repeats label ${order[i]}`);
  }
  const p0 = m.params.mipsProbes;
  const def = Number.isInteger(p0) && (p0 as number) > 0 ? p0 as number : C;
  const cl = new Int32Array(C), cs = zeros(C);
  return (q, k, probes = def) => {
    const p = Math.min(C, Math.max(1, Math.floor(probes)));
    if (!(p < C)) return undefined;
    let n = 0;
    for (let c = 0, o = 0; c < C; c++, o += r + 1) {
      let s = cen[o + r];
      for (let a = 0; a < r; a++) s += q[a] * cen[o + a];
      n = pushTop(cl, cs, n, p, c, s === s ? s : -Infinity);
    }
    // probing a quarter of the labels in cluster order is slower than the sequential full scan
    let reach = 0;
    for (let i = 0; i < n; i++) reach += ptr[cl[i] + 1] - ptr[cl[i]];
    if (reach * 4 > L) return undefined;
    const cap = k < L ? k : L, labels = new Int32Array(cap), top = zeros(cap);
    let size = 0;
    for (let i = 0; i < n; i++) {
      for (let e = ptr[cl[i]], end = ptr[cl[i] + 1]; e < end; e++) {
        const l = order[e], o = l * r;
        let z = bias ? bias[l] : 0;
        for (let a = 0; a < r; a++) z += q[a] * M[o + a];
        z = Math.fround(z);
        size = pushTop(labels, top, size, cap, l, z === z ? z : -Infinity);
      }
    }
    return size < cap ? undefined : { labels, scores: Float32Array.from(top) };
  };
}
