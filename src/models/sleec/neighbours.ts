/**
 * The SVP observation set Ω of SLEEC (Algorithm 1, step 3): for each training point, the n̄
 * points with the largest label-vector inner products (itself included), symmetrised, with the
 * inner products ⟨y_i, y_j⟩ as values.
 *
 * @module
 */
import type { SymSparse } from "../../linalg/svp.ts";

function mix(i: number, j: number, seed: number): number {
  let h = (Math.imul(i, 0x9e3779b1) ^ Math.imul(j + 0x7f4a7c15, 0x85ebca77) ^ seed) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return ((h ^ (h >>> 16)) >>> 0) & 0xffffff;
}

/**
 * Builds P_Ω(YYᵀ) for the rows' label sets. Ties in the inner product are broken by a seeded
 * hash of the pair (so no position in the data is favoured). Rows without labels get no entry.
 *
 * @example
 * ```ts
 * import { labelNeighbourhood } from "./neighbours.ts";
 * const g = labelNeighbourhood([Int32Array.of(0, 1), Int32Array.of(1), Int32Array.of(2)], 3, 2);
 * console.log(Array.from(g.indices.subarray(g.indptr[0], g.indptr[1]))); // [ 0, 1 ]
 * console.log(Array.from(g.values.subarray(g.indptr[0], g.indptr[1]))); // [ 2, 1 ]
 * ```
 */
export function labelNeighbourhood(
  labels: readonly Int32Array[],
  numLabels: number,
  neighbours: number,
  seed = 0,
): SymSparse {
  const n = labels.length;
  const nbar = Math.max(1, Math.floor(neighbours));
  const lcount = new Int32Array(numLabels + 1);
  for (const ls of labels) for (let q = 0; q < ls.length; q++) lcount[ls[q] + 1]++;
  for (let l = 0; l < numLabels; l++) lcount[l + 1] += lcount[l];
  const lrows = new Int32Array(lcount[numLabels]);
  const fill = lcount.slice(0, numLabels);
  for (let i = 0; i < n; i++) {
    const ls = labels[i];
    for (let q = 0; q < ls.length; q++) lrows[fill[ls[q]]++] = i;
  }
  const cnt = new Int32Array(n);
  const touched = new Int32Array(n);
  const heapKey = new Float64Array(nbar);
  const heapIdx = new Int32Array(nbar);
  // directed edges (i, j, value)
  let er = new Int32Array(n * Math.min(nbar, 8) + 16);
  let ec = new Int32Array(er.length);
  let ev = new Int32Array(er.length);
  let ne = 0;
  const push = (i: number, j: number, v: number) => {
    if (ne === er.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      er = grow(er);
      ec = grow(ec);
      ev = grow(ev);
    }
    er[ne] = i;
    ec[ne] = j;
    ev[ne++] = v;
  };
  for (let i = 0; i < n; i++) {
    const ls = labels[i];
    let t = 0;
    for (let q = 0; q < ls.length; q++) {
      const l = ls[q];
      for (let e = lcount[l]; e < lcount[l + 1]; e++) {
        const j = lrows[e];
        if (cnt[j] === 0) touched[t++] = j;
        cnt[j]++;
      }
    }
    // bounded min-heap on key = count * 2^24 + hash (larger is better)
    let h = 0;
    for (let q = 0; q < t; q++) {
      const j = touched[q];
      const key = cnt[j] * 16777216 + (j === i ? 16777215 : mix(i, j, seed));
      if (h < nbar) {
        let p = h++;
        while (p > 0) {
          const parent = (p - 1) >> 1;
          if (heapKey[parent] <= key) break;
          heapKey[p] = heapKey[parent];
          heapIdx[p] = heapIdx[parent];
          p = parent;
        }
        heapKey[p] = key;
        heapIdx[p] = j;
      } else if (key > heapKey[0]) {
        let p = 0;
        for (;;) {
          const a = 2 * p + 1, b = a + 1;
          let m = p;
          let mk = key;
          if (a < h && heapKey[a] < mk) {
            m = a;
            mk = heapKey[a];
          }
          if (b < h && heapKey[b] < mk) {
            m = b;
          }
          if (m === p) break;
          heapKey[p] = heapKey[m];
          heapIdx[p] = heapIdx[m];
          p = m;
        }
        heapKey[p] = key;
        heapIdx[p] = j;
      }
    }
    for (let q = 0; q < h; q++) {
      const j = heapIdx[q];
      push(i, j, cnt[j]);
      if (j !== i) push(j, i, cnt[j]);
    }
    for (let q = 0; q < t; q++) cnt[touched[q]] = 0;
  }
  // CSR by row, columns sorted, duplicates merged
  const rowCount = new Int32Array(n + 1);
  for (let e = 0; e < ne; e++) rowCount[er[e] + 1]++;
  for (let i = 0; i < n; i++) rowCount[i + 1] += rowCount[i];
  const keys = new Float64Array(ne);
  const pos = rowCount.slice(0, n);
  for (let e = 0; e < ne; e++) keys[pos[er[e]]++] = ec[e] * 65536 + Math.min(ev[e], 65535);
  const indptr = new Int32Array(n + 1);
  const indices = new Int32Array(ne);
  const values = new Float64Array(ne);
  let out = 0;
  for (let i = 0; i < n; i++) {
    const seg = keys.subarray(rowCount[i], rowCount[i + 1]);
    seg.sort();
    let last = -1;
    for (let q = 0; q < seg.length; q++) {
      const c = Math.floor(seg[q] / 65536);
      if (c === last) continue;
      last = c;
      indices[out] = c;
      values[out++] = seg[q] - c * 65536;
    }
    indptr[i + 1] = out;
  }
  return { n, indptr, indices: indices.slice(0, out), values: values.slice(0, out) };
}
