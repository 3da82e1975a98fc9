/**
 * Top eigenpairs of a large symmetric operator by block subspace iteration with Rayleigh-Ritz,
 * on row-major typed-array blocks. The operator is only touched through block products, so a
 * low-rank-plus-sparse matrix (SVP's iterate) never has to be formed. The small dense parts
 * (the block's Gram matrix and the block × block Rayleigh quotient) go to
 * {@linkcode choleskyFactor} and to ml-matrix through {@linkcode symmetricEigen}.
 *
 * Block layout: an `n × b` block is a `Float64Array(n * b)`, row-major: entry (i, c) is at
 * `i * b + c`. Row-major keeps the sparse product's inner loop contiguous.
 *
 * @module
 */
import { Rng } from "../random/mod.ts";
import { choleskyFactor } from "./cholesky.ts";
import { gram, symmetricEigen } from "./dense.ts";
import { overflowScale } from "./overflow_scale.ts";

/**
 * A symmetric linear operator on `R^n`, applied to a row-major `n × cols` block.
 *
 * @example
 * ```ts
 * import type { SymOperator } from "./eigen.ts";
 * const twice: SymOperator = { n: 2, apply: (q, b, out) => { for (let i = 0; i < 2 * b; i++) out[i] = 2 * q[i]; } };
 * console.log(twice.n); // 2
 * ```
 */
export interface SymOperator {
  /** Dimension. */
  readonly n: number;
  /** Writes `A · block` into `out` (both row-major `n × cols`; `out` is fully overwritten). */
  apply(block: Float64Array, cols: number, out: Float64Array): void;
}

/**
 * Eigenpairs of a small dense symmetric matrix (row-major `m × m`) in decreasing eigenvalue
 * order (ties: the order ml-matrix returns). `vectors` is row-major `m × m` with the eigenvector
 * of `values[c]` in column `c`.
 *
 * @example
 * ```ts
 * import { sortedSymmetricEigen } from "./eigen.ts";
 * const { values, vectors } = sortedSymmetricEigen(Float64Array.of(2, 0, 0, 5), 2);
 * console.log(Array.from(values), Array.from(vectors)); // [ 5, 2 ] [ 0, 1, 1, 0 ]
 * ```
 */
export function sortedSymmetricEigen(
  a: Float64Array,
  m: number,
): { values: Float64Array; vectors: Float64Array } {
  const { values: raw, vectors: rawVec } = symmetricEigen(a, m);
  const order = Array.from({ length: m }, (_, i) => i).sort((x, y) => raw[y] - raw[x] || x - y);
  const values = new Float64Array(m);
  const vectors = new Float64Array(m * m);
  for (let c = 0; c < m; c++) {
    const src = order[c];
    values[c] = raw[src];
    for (let i = 0; i < m; i++) vectors[i * m + c] = rawVec[i * m + src];
  }
  return { values, vectors };
}

/**
 * Orthonormalises the columns of a row-major `n × b` block in place (`b ≤ n`) by Cholesky QR,
 * repeated until the columns are orthonormal to 1e-10 (two passes when well conditioned; a
 * shifted factorisation rescues ill-conditioned blocks). Columns that are zero or numerically
 * dependent are replaced by seeded random directions first, so the result always has `b`
 * orthonormal columns. A block whose entries are so large or small (beyond 1e±150) that their
 * squares would overflow or underflow is rescaled first, so its span is kept. The passes judge
 * each column against the longest one; when they fail on columns of very different lengths (a
 * zero or dependent column next to one a million times longer), they run again on the block
 * with each column divided by its largest entry (the same span).
 *
 * @throws {RangeError} when `b > n`, or when no orthonormal block is reached.
 *
 * @example
 * ```ts
 * import { orthonormalizeBlock } from "./eigen.ts";
 * const q = Float64Array.of(1, 1, 1, 0, 0, 0); // rows of a 3 × 2 block: columns (1,1,0), (1,0,0)
 * orthonormalizeBlock(q, 3, 2);
 * const dot = q[0] * q[1] + q[2] * q[3] + q[4] * q[5];
 * console.log(Math.abs(dot) < 1e-12); // true
 * ```
 */
export function orthonormalizeBlock(q: Float64Array, n: number, b: number, seed = 1): void {
  if (b > n) throw new RangeError(`orthonormalizeBlock: ${b} columns exceed dimension ${n}`);
  if (b === 0) return;
  // the block as given, for the retry below, kept only when its columns are long or of very
  // different lengths (the cases the retry is for): a copy in every call, every SVP iteration,
  // raised training's peak memory by about 15%
  const start = columnsAtRisk(q, n, b) ? q.slice() : undefined;
  const failed = choleskyQr(q, n, b, seed);
  if (failed === undefined) return;
  if (start === undefined) throw new RangeError(`orthonormalizeBlock: ${failed}`);
  // the passes judge every column against the longest one (1e-12 of its squared length counts
  // as zero; the shifts are relative to it): next to columns a million times longer, a zero or
  // dependent column was refilled pass after pass until they ran out (topEigen threw on a
  // rank-deficient operator of norm 1e12). Scaling a column leaves the span: start again with
  // each column divided by its largest entry
  q.set(start);
  for (let c = 0; c < b; c++) {
    let m = 0;
    for (let i = 0; i < n; i++) m = Math.max(m, Math.abs(q[i * b + c]));
    if (m > 0 && m < Infinity) { for (let i = 0; i < n; i++) q[i * b + c] /= m; }
  }
  const failure = choleskyQr(q, n, b, seed);
  if (failure !== undefined) throw new RangeError(`orthonormalizeBlock: ${failure}`);
}

/**
 * Whether the passes of {@linkcode orthonormalizeBlock} may fail on the block for the lengths of
 * its columns alone: a column entry past 1e4 (the random refill of a dependent column, ±0.5,
 * then counts as zero), or a nonzero column whose largest entry is below 1e-4 of the largest.
 */
function columnsAtRisk(q: Float64Array, n: number, b: number): boolean {
  let big = 0, small = Infinity;
  for (let c = 0; c < b; c++) {
    let m = 0;
    for (let i = 0; i < n; i++) m = Math.max(m, Math.abs(q[i * b + c]));
    big = Math.max(big, m);
    if (m > 0) small = Math.min(small, m);
  }
  return big > 1e4 || small < 1e-4 * big;
}

/**
 * Cholesky QR passes of {@linkcode orthonormalizeBlock} on `q` (`n × b`, `0 < b ≤ n`) in place:
 * undefined once its columns are orthonormal, else why they are not.
 */
function choleskyQr(q: Float64Array, n: number, b: number, seed: number): string | undefined {
  // the Gram matrix squares the entries: rescale a block whose entries would overflow (or
  // underflow) there first, which leaves its span, and so the result, unchanged
  let big = 0;
  for (let i = 0; i < n * b; i++) {
    const v = Math.abs(q[i]);
    if (v > big) big = v;
  }
  if (big < Infinity && overflowScale(big) !== 1) {
    for (let i = 0; i < n * b; i++) q[i] /= big;
  }
  const g = new Float64Array(b * b);
  const l = new Float64Array(b * b);
  const row = new Float64Array(b);
  let rng: Rng | undefined;
  const refill = (c: number) => {
    rng ??= new Rng(seed);
    for (let i = 0; i < n; i++) q[i * b + c] = rng.next() - 0.5;
  };
  for (let pass = 0; pass < 6; pass++) {
    gram(q, n, b, g);
    let scale = 0;
    for (let c = 0; c < b; c++) scale = Math.max(scale, g[c * b + c]);
    let dev = 0, refilled = false;
    for (let c = 0; c < b; c++) {
      if (!(g[c * b + c] > 1e-24 * Math.max(scale, 1e-300))) {
        refill(c);
        refilled = true;
      }
      for (let d = 0; d < b; d++) dev = Math.max(dev, Math.abs(g[c * b + d] - (c === d ? 1 : 0)));
    }
    if (refilled) continue;
    if (dev < 1e-10) return undefined;
    let factored = false, shift = 0;
    for (let shiftExp = -15; shiftExp <= -3 && !factored; shiftExp += 3) {
      try {
        choleskyFactor(g, b, l);
        factored = true;
      } catch {
        // shifted Cholesky QR: G + s·I (s relative to the largest diagonal entry)
        const s = scale * 10 ** shiftExp;
        shift += s;
        for (let c = 0; c < b; c++) g[c * b + c] += s;
      }
    }
    if (!factored) return `Gram matrix of the ${n} x ${b} block is not usable`;
    // a column keeping less than 1e-4 of its length once the previous ones are projected out
    // (or not above the shift) is numerically dependent on them: replace it
    for (let c = 0; c < b; c++) {
      const piv = l[c * b + c] * l[c * b + c];
      if (!(piv > 1e-8 * g[c * b + c]) || !(piv > 1e3 * shift)) {
        refill(c);
        refilled = true;
      }
    }
    if (refilled) continue;
    // Q ← Q L⁻ᵀ: each row r of Q becomes the solution x of L x = rᵀ.
    for (let i = 0; i < n; i++) {
      const o = i * b;
      for (let c = 0; c < b; c++) {
        let s = q[o + c];
        const lo = c * b;
        for (let p = 0; p < c; p++) s -= l[lo + p] * row[p];
        row[c] = s / l[lo + c];
      }
      for (let c = 0; c < b; c++) q[o + c] = row[c];
    }
  }
  return `no orthonormal basis after 6 passes (${n} x ${b})`;
}

/**
 * Rayleigh-Ritz on an orthonormal row-major block `q` (`n × b`) given `y = A q`: the top `k`
 * Ritz values (decreasing) and their Ritz vectors (row-major `n × k`).
 *
 * @example
 * ```ts
 * import { rayleighRitz } from "./eigen.ts";
 * const q = Float64Array.of(1, 0, 0, 1); // identity, n = 2, b = 2
 * const y = Float64Array.of(3, 0, 0, 1); // A = diag(3, 1)
 * console.log(Array.from(rayleighRitz(q, y, 2, 2, 1).values)); // [ 3 ]
 * ```
 */
export function rayleighRitz(
  q: Float64Array,
  y: Float64Array,
  n: number,
  b: number,
  k: number,
): { values: Float64Array; vectors: Float64Array } {
  const h = new Float64Array(b * b);
  for (let i = 0; i < n; i++) {
    const o = i * b;
    for (let c = 0; c < b; c++) {
      const qc = q[o + c];
      if (qc === 0) continue;
      const hc = c * b;
      for (let d = 0; d < b; d++) h[hc + d] += qc * y[o + d];
    }
  }
  for (let c = 0; c < b; c++) {
    for (let d = c + 1; d < b; d++) {
      const v = 0.5 * (h[c * b + d] + h[d * b + c]);
      h[c * b + d] = v;
      h[d * b + c] = v;
    }
  }
  const { values, vectors: w } = sortedSymmetricEigen(h, b);
  const kk = Math.min(k, b);
  const out = new Float64Array(n * kk);
  for (let i = 0; i < n; i++) {
    const o = i * b, oo = i * kk;
    for (let d = 0; d < b; d++) {
      const qd = q[o + d];
      if (qd === 0) continue;
      const wd = d * b;
      for (let c = 0; c < kk; c++) out[oo + c] += qd * w[wd + c];
    }
  }
  return { values: values.slice(0, kk), vectors: out };
}

/**
 * Options of {@linkcode topEigen}.
 *
 * @example
 * ```ts
 * import type { TopEigenOptions } from "./eigen.ts";
 * const o: TopEigenOptions = { oversample: 5, iterations: 20, seed: 3 };
 * console.log(o.oversample); // 5
 * ```
 */
export interface TopEigenOptions {
  /** Extra block columns beyond `k` (default 10). */
  oversample?: number;
  /** Operator applications (power steps), at least 1 (default 8). */
  iterations?: number;
  /**
   * Starting block, row-major `n × c` with `c = init.length / n` columns (e.g. the `image` of a
   * previous call: then the first step continues that subspace iteration). Missing columns are
   * filled with seeded random values.
   */
  init?: Float64Array;
  /** Seed of the random start (default 1). */
  seed?: number;
}

/**
 * Result of {@linkcode topEigen}.
 *
 * @example
 * ```ts
 * import { topEigen, type TopEigenResult } from "./eigen.ts";
 * const op = { n: 2, apply: (q: Float64Array, b: number, out: Float64Array) => out.set(q.subarray(0, 2 * b)) };
 * const r: TopEigenResult = topEigen(op, 1, { oversample: 1 });
 * console.log(Math.round(r.values[0]), r.blockSize); // 1 2
 * ```
 */
export interface TopEigenResult {
  /** The `k` largest (algebraic) Ritz values, decreasing. */
  values: Float64Array;
  /** Their Ritz vectors, row-major `n × k` (orthonormal columns). */
  vectors: Float64Array;
  /** Block width `b`. */
  blockSize: number;
  /** `A · Q` for the final orthonormal block `Q` (row-major `n × b`): warm start of a next call. */
  image: Float64Array;
}

/**
 * The `k` algebraically largest eigenpairs of a symmetric operator, by subspace iteration on an
 * oversampled orthonormal block (each step: apply, re-orthonormalise) followed by
 * Rayleigh-Ritz. Converges to the eigenvalues largest in magnitude, so the block should be wide
 * enough to hold the negative eigenvalues that compete with the wanted positive ones.
 *
 * @throws {RangeError} when `k` is not in `[1, n]`, `oversample` is not a number >= 0,
 * `iterations` not a finite number >= 1, `init`'s length not a multiple of n, or the operator
 * returns a value that is not finite (e.g. from an overflow), naming the entry.
 *
 * @example
 * ```ts
 * import { topEigen } from "./eigen.ts";
 * const d = [5, 3, 1, 0.5];
 * const op = { n: 4, apply: (q: Float64Array, b: number, out: Float64Array) => {
 *   for (let i = 0; i < 4; i++) for (let c = 0; c < b; c++) out[i * b + c] = d[i] * q[i * b + c];
 * } };
 * const { values } = topEigen(op, 2, { oversample: 2, iterations: 30 });
 * console.log(Array.from(values, (v) => Math.round(v))); // [ 5, 3 ]
 * ```
 */
export function topEigen(
  op: SymOperator,
  k: number,
  options: TopEigenOptions = {},
): TopEigenResult {
  const n = op.n;
  if (!Number.isInteger(k) || k < 1 || k > n) {
    throw new RangeError(`topEigen: k must be an integer in [1, ${n}], got ${k}`);
  }
  const oversample = options.oversample ?? 10, steps = options.iterations ?? 8;
  if (!(oversample >= 0)) {
    throw new RangeError(`topEigen: oversample must be a number >= 0, got ${oversample}`);
  }
  if (!(steps >= 1 && steps < Infinity)) {
    throw new RangeError(`topEigen: iterations must be a finite number >= 1, got ${steps}`);
  }
  const b = Math.min(n, k + Math.floor(oversample));
  const iterations = Math.floor(steps);
  const seed = options.seed ?? 1;
  let q = new Float64Array(n * b);
  const init = options.init;
  // a malformed start is refused whatever its length (shorter than n it was dropped silently)
  if (init && init.length % n !== 0) {
    throw new RangeError(`topEigen: init has ${init.length} values, not a multiple of n = ${n}`);
  }
  const c0 = init ? Math.min(b, init.length / n) : 0;
  if (init && c0 > 0) {
    const w = init.length / n;
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < c0; c++) q[i * b + c] = init[i * w + c];
    }
  }
  if (c0 < b) {
    const rng = new Rng(seed);
    for (let i = 0; i < n; i++) {
      for (let c = c0; c < b; c++) q[i * b + c] = rng.next() - 0.5;
    }
  }
  orthonormalizeBlock(q, n, b, seed);
  let y = new Float64Array(n * b);
  for (let it = 0; it < iterations; it++) {
    op.apply(q, b, y);
    if (it === iterations - 1) break;
    const t = q;
    q = y;
    y = t;
    orthonormalizeBlock(q, n, b, seed + it + 1);
  }
  for (let e = 0; e < n * b; e++) {
    if (!Number.isFinite(y[e])) {
      throw new RangeError(
        `topEigen: the operator returned ${y[e]} at row ${Math.floor(e / b)} of a ` +
          `unit-norm block: its entries must be finite (an overflow?)`,
      );
    }
  }
  const { values, vectors } = rayleighRitz(q, y, n, b, k);
  return { values, vectors, blockSize: b, image: y };
}
