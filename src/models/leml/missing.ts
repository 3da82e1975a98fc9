/**
 * The missing-labels protocol of the LEML paper: a seeded uniform fraction of all (row, label)
 * entries, positives and negatives alike, is revealed; training sees only those entries.
 *
 * @module
 */
import type { BinaryCsr } from "../../data/types.ts";
import { SmallRng } from "../../random/mod.ts";

/**
 * Reveals each (row, label) entry independently with probability `fraction` (seeded). Returns
 * the observed mask (all revealed entries) and the labels restricted to it (revealed positives).
 * Skips through entries geometrically: O(fraction·n·L + nnz(Y)), not O(n·L) random draws.
 *
 * @example
 * ```ts
 * import { revealEntries } from "./missing.ts";
 * const y = { numRows: 2, numCols: 50, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(3, 7) };
 * const { observed, y: seen } = revealEntries(y, 0.2, 1);
 * console.log(observed.numRows, seen.indices.length <= 2); // 2 true
 * ```
 */
export function revealEntries(
  y: BinaryCsr,
  fraction: number,
  seed: number,
): { observed: BinaryCsr; y: BinaryCsr } {
  if (!(fraction > 0 && fraction <= 1)) {
    throw new RangeError(`revealEntries: fraction must be in (0, 1], got ${fraction}`);
  }
  const n = y.numRows, L = y.numCols;
  const rng = new SmallRng(seed);
  // log(1 − fraction); below about 1e-16, 1 − fraction rounds to 1 and its log is 0, which made
  // every skip −Infinity and the loop below reveal entries without end (until out of memory):
  // there log1p keeps it negative (≈ −fraction). Elsewhere the same value as before.
  let logq = Math.log(1 - fraction);
  if (!(logq < 0)) logq = Math.log1p(-fraction);
  const skip = (): number => fraction === 1 ? 0 : Math.floor(Math.log(1 - rng.next()) / logq);
  const oPtr = new Int32Array(n + 1), yPtr = new Int32Array(n + 1);
  const oIdx: number[] = [], yIdx: number[] = [];
  let pos = skip(); // flat index of the next revealed entry
  for (let i = 0; i < n; i++) {
    const end = (i + 1) * L;
    let p = y.indptr[i];
    const p1 = y.indptr[i + 1];
    while (pos < end) {
      const l = pos - i * L;
      oIdx.push(l);
      while (p < p1 && y.indices[p] < l) p++;
      if (p < p1 && y.indices[p] === l) yIdx.push(l);
      pos += 1 + skip();
    }
    oPtr[i + 1] = oIdx.length;
    yPtr[i + 1] = yIdx.length;
  }
  return {
    observed: { numRows: n, numCols: L, indptr: oPtr, indices: Int32Array.from(oIdx) },
    y: { numRows: n, numCols: L, indptr: yPtr, indices: Int32Array.from(yIdx) },
  };
}
