/**
 * The observed label entries Ω of batch LEML (./batch.ts) for a loss other than the squared
 * one or for missing labels: by row and by column, with their 0/1 targets.
 *
 * @module
 */
import type { BinaryCsr } from "../../data/types.ts";

/**
 * Observed entries as CSR by row and by column, with 0/1 targets.
 *
 * @example
 * ```ts
 * import type { Omega } from "./omega.ts";
 * function entries(o: Omega): number { return o.label.length; }
 * console.log(typeof entries); // function
 * ```
 */
export interface Omega {
  /** Row pointers: row i's entries are [rowPtr[i], rowPtr[i + 1]). */
  rowPtr: Int32Array;
  /** Label of each entry (by row). */
  label: Int32Array;
  /** Target (0 or 1) of each entry (by row). */
  target: Uint8Array;
  /** Column pointers: label l's entries are [colPtr[l], colPtr[l + 1]). */
  colPtr: Int32Array;
  /** Row of each entry (by column). */
  colRow: Int32Array;
  /** Target of each entry (by column). */
  colTarget: Uint8Array;
}

/**
 * The observed entries Ω of the labels `y` (L columns): every label of a fully observed row (all
 * rows without `observed`), else the row's positives and its `observed` mask, merged.
 *
 * @example
 * ```ts
 * import { buildOmega } from "./omega.ts";
 * const y = { numRows: 1, numCols: 3, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) };
 * const o = buildOmega(y, 3, undefined, undefined);
 * console.log(o.label, o.target); // Int32Array(3) [ 0, 1, 2 ] Uint8Array(3) [ 0, 1, 0 ]
 * ```
 */
export function buildOmega(
  y: BinaryCsr,
  L: number,
  observed: BinaryCsr | undefined,
  full: Uint8Array | undefined,
): Omega {
  const n = y.numRows;
  const isFull = (i: number) => !observed || (full !== undefined && full[i] === 1);
  const rowPtr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    let c: number;
    if (isFull(i)) c = L;
    else {
      c = 0;
      let p = y.indptr[i], q = observed!.indptr[i];
      const p1 = y.indptr[i + 1], q1 = observed!.indptr[i + 1];
      while (p < p1 || q < q1) {
        const a = p < p1 ? y.indices[p] : Infinity, b = q < q1 ? observed!.indices[q] : Infinity;
        if (a <= b) p++;
        if (b <= a) q++;
        c++;
      }
    }
    rowPtr[i + 1] = rowPtr[i] + c;
  }
  const nnz = rowPtr[n];
  const label = new Int32Array(nnz), target = new Uint8Array(nnz);
  for (let i = 0; i < n; i++) {
    let e = rowPtr[i];
    const p1 = y.indptr[i + 1];
    if (isFull(i)) {
      let p = y.indptr[i];
      for (let l = 0; l < L; l++) {
        label[e] = l;
        if (p < p1 && y.indices[p] === l) {
          target[e] = 1;
          p++;
        }
        e++;
      }
      continue;
    }
    let p = y.indptr[i], q = observed!.indptr[i];
    const q1 = observed!.indptr[i + 1];
    while (p < p1 || q < q1) {
      const a = p < p1 ? y.indices[p] : Infinity, b = q < q1 ? observed!.indices[q] : Infinity;
      if (a <= b) {
        label[e] = a;
        target[e++] = 1;
        p++;
        if (a === b) q++;
      } else {
        label[e] = b;
        target[e++] = 0;
        q++;
      }
    }
  }
  const colPtr = new Int32Array(L + 1);
  for (let e = 0; e < nnz; e++) colPtr[label[e] + 1]++;
  for (let l = 0; l < L; l++) colPtr[l + 1] += colPtr[l];
  const fill = colPtr.slice(0, L);
  const colRow = new Int32Array(nnz), colTarget = new Uint8Array(nnz);
  for (let i = 0; i < n; i++) {
    for (let e = rowPtr[i]; e < rowPtr[i + 1]; e++) {
      const d = fill[label[e]]++;
      colRow[d] = i;
      colTarget[d] = target[e];
    }
  }
  return { rowPtr, label, target, colPtr, colRow, colTarget };
}
