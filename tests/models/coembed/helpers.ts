/** Synthetic low-rank multi-label data for the CoEmbed tests. */
import { SmallRng } from "../../../src/random/mod.ts";
import type { Batch, BinaryCsr, CsrMatrix } from "../../../src/data/types.ts";
import { rowsOf } from "../../../src/data/dataset.ts";
import type { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";

/** A seeded uniform generator in [0, 1). */
export function rand(seed: number): () => number {
  const rng = new SmallRng(seed);
  return () => rng.next();
}

/** Dense rows x = z A + noise (rank r), labels = sign of a nonlinear function of z. */
export interface Synthetic {
  N: number;
  D: number;
  L: number;
  x: Float64Array;
  y: Uint8Array;
}

/** Generates a synthetic problem whose labels depend on the low-rank latent factors. */
export function synthetic(N: number, D: number, L: number, seed: number, r = 3): Synthetic {
  const g = rand(seed);
  const normal = () => Math.sqrt(-2 * Math.log(g() + 1e-12)) * Math.cos(2 * Math.PI * g());
  const A = Float64Array.from({ length: r * D }, normal);
  const B = Float64Array.from({ length: r * L }, normal);
  const x = new Float64Array(N * D), y = new Uint8Array(N * L);
  const z = new Float64Array(r);
  for (let i = 0; i < N; i++) {
    for (let k = 0; k < r; k++) z[k] = normal();
    for (let d = 0; d < D; d++) {
      let s = 0.05 * normal();
      for (let k = 0; k < r; k++) s += z[k] * A[k * D + d];
      x[i * D + d] = s / Math.sqrt(r);
    }
    for (let j = 0; j < L; j++) {
      let s = 0;
      for (let k = 0; k < r; k++) s += z[k] * B[k * L + j];
      y[i * L + j] = s > 0.3 ? 1 : 0;
    }
  }
  return { N, D, L, x, y };
}

/** CSR views of rows [from, to): observed entries (keep prob), weak labels (flip prob tau). */
export function maskedCsr(
  s: Synthetic,
  from: number,
  to: number,
  keep: number,
  tau: number,
  seed: number,
): { x: CsrMatrix; y: BinaryCsr; observed: BinaryCsr; mask: Uint8Array; weak: Uint8Array } {
  const g = rand(seed);
  const n = to - from, { D, L } = s;
  const mask = new Uint8Array(n * D), weak = new Uint8Array(n * L);
  const xp = new Int32Array(n + 1), yp = new Int32Array(n + 1);
  const xi: number[] = [], xv: number[] = [], yi: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let d = 0; d < D; d++) {
      if (g() < keep) {
        mask[i * D + d] = 1;
        xi.push(d);
        xv.push(s.x[(from + i) * D + d]);
      }
    }
    xp[i + 1] = xi.length;
    for (let j = 0; j < L; j++) {
      if (s.y[(from + i) * L + j] && g() >= tau) {
        weak[i * L + j] = 1;
        yi.push(j);
      }
    }
    yp[i + 1] = yi.length;
  }
  const indices = Int32Array.from(xi);
  return {
    x: { numRows: n, numCols: D, indptr: xp, indices, values: Float32Array.from(xv) },
    y: { numRows: n, numCols: L, indptr: yp, indices: Int32Array.from(yi) },
    observed: { numRows: n, numCols: D, indptr: xp, indices },
    mask,
    weak,
  };
}

/** Exact AUC of one label over rows (ties one half); NaN without positives or negatives. */
export function auc(scores: ArrayLike<number>, truth: ArrayLike<number>): number {
  let pos = 0, neg = 0, wins = 0;
  for (let a = 0; a < scores.length; a++) {
    if (!truth[a]) continue;
    pos++;
    for (let b = 0; b < scores.length; b++) {
      if (truth[b]) continue;
      if (scores[a] > scores[b]) wins++;
      else if (scores[a] === scores[b]) wins += 0.5;
    }
  }
  for (let b = 0; b < scores.length; b++) if (!truth[b]) neg++;
  return pos && neg ? wins / (pos * neg) : NaN;
}

/** Macro AUC of row-major [n, L] scores (labels without positives or negatives left out). */
export function macroAucOf(scores: ArrayLike<number>, truth: Uint8Array, n: number, L: number) {
  let sum = 0, used = 0;
  for (let j = 0; j < L; j++) {
    const s = Array.from({ length: n }, (_, i) => scores[i * L + j]);
    const t = Array.from({ length: n }, (_, i) => truth[i * L + j]);
    const a = auc(s, t);
    if (!Number.isNaN(a)) {
      sum += a;
      used++;
    }
  }
  return sum / used;
}

/** Rows [from, from + n) of CSR features and labels as a streaming minibatch (views). */
export function rowsBatch(m: { x: CsrMatrix; y: BinaryCsr }, from: number, n: number): Batch {
  return rowsOf(m, from, from + n);
}

/**
 * A stream sorted by label (as scene's file order): 600 synthetic rows with one label each (the
 * argmax of a latent score); rows 0..499 sorted by label as the masked training stream `m`,
 * rows 500..599 of `s` held out.
 */
export function labelSortedProblem(): { s: Synthetic; m: ReturnType<typeof maskedCsr> } {
  const s = synthetic(600, 12, 4, 31);
  s.y.fill(0);
  const g = rand(33);
  const B = Float64Array.from({ length: s.D * s.L }, () => g() - 0.5);
  for (let r = 0; r < s.N; r++) {
    let best = 0, bestScore = -Infinity;
    for (let j = 0; j < s.L; j++) {
      let z = 0;
      for (let d = 0; d < s.D; d++) z += s.x[r * s.D + d] * B[d * s.L + j];
      if (z > bestScore) [best, bestScore] = [j, z];
    }
    s.y[r * s.L + best] = 1;
  }
  const label = (r: number) => s.y.subarray(r * s.L, (r + 1) * s.L).indexOf(1);
  const order = Array.from({ length: 500 }, (_, r) => r).sort((a, b) =>
    label(a) - label(b) || a - b
  );
  const sorted = { ...s, x: s.x.slice(), y: s.y.slice() };
  order.forEach((r, i) => {
    sorted.x.set(s.x.subarray(r * s.D, (r + 1) * s.D), i * s.D);
    sorted.y.set(s.y.subarray(r * s.L, (r + 1) * s.L), i * s.L);
  });
  return { s, m: maskedCsr(sorted, 0, 500, 0.6, 0.3, 32) };
}

/** Macro-AUC of a model on the held-out rows 500..599 of {@linkcode labelSortedProblem} (full features). */
export function heldOutMacroAuc(
  est: Pick<CoEmbedLearner, "predictScores">,
  s: Synthetic,
): number {
  const all = Int32Array.from({ length: s.D }, (_, d) => d);
  const scores = new Float32Array(100 * s.L);
  for (let i = 0; i < 100; i++) {
    const x = Float32Array.from(s.x.subarray((500 + i) * s.D, (501 + i) * s.D));
    scores.set(est.predictScores({ indices: all, values: x }), i * s.L);
  }
  return macroAucOf(scores, s.y.subarray(500 * s.L), 100, s.L);
}
