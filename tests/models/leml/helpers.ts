/**
 * Data builders of the LEML tests: small random, sparse, planted low-rank and per-topic batches.
 *
 * @module
 */
import type { Batch } from "../../../src/data/types.ts";
import { SmallRng } from "../../../src/random/mod.ts";

/**
 * A batch of `xp.length − 1` rows over D features and L labels from CSR arrays: feature row i is
 * `xi`/`xv` over `[xp[i], xp[i + 1])`, label row i is `yi` over `[yp[i], yp[i + 1])`.
 */
export function csrBatch(
  D: number,
  L: number,
  xp: number[],
  xi: number[],
  xv: number[],
  yp: number[],
  yi: number[],
): Batch {
  const n = xp.length - 1;
  return {
    x: {
      numRows: n,
      numCols: D,
      indptr: Int32Array.from(xp),
      indices: Int32Array.from(xi),
      values: Float32Array.from(xv),
    },
    y: { numRows: n, numCols: L, indptr: Int32Array.from(yp), indices: Int32Array.from(yi) },
  };
}

/**
 * A random batch of n rows over D features and L labels (about 40% of the features and 30% of
 * the labels per row); with `masked`, odd rows carry an observed mask.
 */
export function randomBatch(seed: number, n: number, D: number, L: number, masked = false): Batch {
  const rng = new SmallRng(seed);
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  const op = [0], oi: number[] = [];
  const full = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < D; j++) {
      if (rng.next() < 0.4) {
        xi.push(j);
        xv.push(Math.round((rng.next() * 2 - 0.5) * 100) / 100);
      }
    }
    xp.push(xi.length);
    for (let l = 0; l < L; l++) if (rng.next() < 0.3) yi.push(l);
    yp.push(yi.length);
    const partial = masked && i % 2 === 1;
    full[i] = partial ? 0 : 1;
    if (partial) { for (let l = 0; l < L; l++) if (rng.next() < 0.5) oi.push(l); }
    op.push(oi.length);
  }
  const b = csrBatch(D, L, xp, xi, xv, yp, yi);
  if (!masked) return b;
  return {
    ...b,
    observed: { numRows: n, numCols: L, indptr: Int32Array.from(op), indices: Int32Array.from(oi) },
    fullyObserved: full,
  };
}

/** A sparse-label batch: every row has 1–2 labels out of L, 3–6 features out of D. */
export function sparseBatch(seed: number, n: number, D: number, L: number): Batch {
  const rng = new SmallRng(seed);
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (let i = 0; i < n; i++) {
    const fs = new Set<number>();
    const nf = 3 + rng.nextInt(4);
    while (fs.size < nf) fs.add(rng.nextInt(D));
    for (const j of [...fs].sort((a, b) => a - b)) {
      xi.push(j);
      xv.push(0.5 + rng.next());
    }
    xp.push(xi.length);
    const ls = new Set<number>([rng.nextInt(L)]);
    if (rng.next() < 0.5) ls.add(rng.nextInt(L));
    yi.push(...[...ls].sort((a, b) => a - b));
    yp.push(yi.length);
  }
  return csrBatch(D, L, xp, xi, xv, yp, yi);
}

/**
 * Planted low-rank data: n rows over 20 features and 12 labels, 4 topics, features and labels
 * tied to topics, plus noise. Feature values are 1, or with `weighted` 0.5 + U(0, 1).
 */
export function planted(n: number, seed: number, weighted = false): Batch {
  const rng = new SmallRng(seed);
  const D = 20, L = 12;
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = rng.nextInt(4);
    const feats = new Set([t, t + 4, t + 8, 12 + rng.nextInt(8)]);
    for (const j of [...feats].sort((a, b) => a - b)) {
      xi.push(j);
      xv.push(weighted ? 0.5 + rng.next() : 1);
    }
    xp.push(xi.length);
    for (let l = t; l < L; l += 4) if (rng.next() < 0.9) yi.push(l);
    yp.push(yi.length);
  }
  return csrBatch(D, L, xp, xi, xv, yp, yi);
}

/**
 * A batch with one row per topic t in `topics` (features t, t + 3 of 9, value 1; labels
 * l ≡ t mod 3 of 12).
 */
export function topicRows(topics: readonly number[]): Batch {
  const xp = [0], xi: number[] = [], yp = [0], yi: number[] = [];
  for (const t of topics) {
    xi.push(t, t + 3);
    xp.push(xi.length);
    for (let l = t; l < 12; l += 3) yi.push(l);
    yp.push(yi.length);
  }
  return csrBatch(9, 12, xp, xi, xi.map(() => 1), yp, yi);
}
