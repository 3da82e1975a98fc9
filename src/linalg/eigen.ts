/**
 * Top eigenpairs of a large symmetric operator by subspace iteration with Rayleigh-Ritz, on
 * column-major typed-array blocks. The operator is only touched through block products, so a
 * low-rank-plus-sparse matrix never has to be formed. ml-matrix handles the small dense
 * (block × block) eigenproblem.
 *
 * Block layout: an `n × b` block is a `Float64Array(n * b)` holding column `c` at
 * `[c * n, (c + 1) * n)`.
 *
 * @module
 */
import { EigenvalueDecomposition, Matrix } from "ml-matrix";

/**
 * A symmetric linear operator on `R^n`, applied to a column-major block.
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
  /** Writes `A · block` into `out`; both are column-major `n × cols`. */
  apply(block: Float64Array, cols: number, out: Float64Array): void;
}

/**
 * Dot product of two length-`n` slices.
 *
 * @example
 * ```ts
 * import { dotSlice } from "./eigen.ts";
 * console.log(dotSlice(Float64Array.of(1, 2, 3, 4), 0, Float64Array.of(0, 0, 1, 1), 2, 2)); // 7
 * ```
 */
export function dotSlice(
  a: Float64Array,
  aOff: number,
  b: Float64Array,
  bOff: number,
  n: number,
): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[aOff + i] * b[bOff + i];
  return s;
}

/**
 * Orthonormalises the columns of a column-major `n × b` block in place (modified Gram-Schmidt,
 * done twice). A column that becomes (numerically) dependent is replaced by a deterministic
 * pseudo-random direction and orthogonalised again.
 *
 * @example
 * ```ts
 * import { orthonormalize, dotSlice } from "./eigen.ts";
 * const q = Float64Array.of(1, 1, 0, 1, 0, 0); // columns (1,1,0) and (1,0,0)
 * orthonormalize(q, 3, 2);
 * console.log(Math.abs(dotSlice(q, 0, q, 3, 3)) < 1e-12); // true
 * ```
 */
export function orthonormalize(q: Float64Array, n: number, b: number, seed = 1): void {
  let state = (seed * 2654435761) >>> 0 || 1;
  const rand = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296 - 0.5;
  };
  for (let j = 0; j < b; j++) {
    const oj = j * n;
    for (let attempt = 0; attempt < 4; attempt++) {
      const before = Math.sqrt(dotSlice(q, oj, q, oj, n));
      for (let pass = 0; pass < 2; pass++) {
        for (let i = 0; i < j; i++) {
          const oi = i * n;
          const r = dotSlice(q, oi, q, oj, n);
          if (r !== 0) { for (let t = 0; t < n; t++) q[oj + t] -= r * q[oi + t]; }
        }
      }
      const norm = Math.sqrt(dotSlice(q, oj, q, oj, n));
      if (norm > 1e-10 * Math.max(before, 1e-300) && norm > 1e-300) {
        const inv = 1 / norm;
        for (let t = 0; t < n; t++) q[oj + t] *= inv;
        break;
      }
      for (let t = 0; t < n; t++) q[oj + t] = rand();
      if (attempt === 3) throw new RangeError(`orthonormalize: cannot complete column ${j}`);
    }
  }
}

/**
 * Eigen-decomposition of a small dense symmetric matrix (row-major `m × m`), eigenvalues in
 * decreasing order; vectors returned row-major `m × m` with eigenvector `c` in column `c`.
 *
 * @example
 * ```ts
 * import { symmetricEigen } from "./eigen.ts";
 * const { values } = symmetricEigen(Float64Array.of(2, 0, 0, 5), 2);
 * console.log(Array.from(values)); // [ 5, 2 ]
 * ```
 */
export function symmetricEigen(
  a: Float64Array,
  m: number,
): { values: Float64Array; vectors: Float64Array } {
  const rows: number[][] = [];
  for (let i = 0; i < m; i++) {
    const r = new Array<number>(m);
    for (let j = 0; j < m; j++) r[j] = 0.5 * (a[i * m + j] + a[j * m + i]);
    rows.push(r);
  }
  const evd = new EigenvalueDecomposition(new Matrix(rows), { assumeSymmetric: true });
  const ev = evd.realEigenvalues;
  const vec = evd.eigenvectorMatrix;
  const order = Array.from({ length: m }, (_, i) => i).sort((x, y) => ev[y] - ev[x] || x - y);
  const values = new Float64Array(m);
  const vectors = new Float64Array(m * m);
  for (let c = 0; c < m; c++) {
    const src = order[c];
    values[c] = ev[src];
    for (let i = 0; i < m; i++) vectors[i * m + c] = vec.get(i, src);
  }
  return { values, vectors };
}

/** Options of {@linkcode topEigen}. */
export interface TopEigenOptions {
  /** Extra block columns beyond `k` (default 10). */
  oversample?: number;
  /** Subspace iterations (default 8). */
  iterations?: number;
  /** Starting block (column-major `n × b`), e.g. the basis of a previous call. */
  init?: Float64Array;
  /** Seed of the random start (default 1). */
  seed?: number;
}

/** Result of {@linkcode topEigen}. */
export interface TopEigenResult {
  /** The `k` largest (algebraic) Ritz values, decreasing. */
  values: Float64Array;
  /** Their Ritz vectors, column-major `n × k`. */
  vectors: Float64Array;
  /** The final orthonormal block (`n × b`), to warm-start the next call. */
  basis: Float64Array;
  /** Block width `b`. */
  blockSize: number;
  /** `A · basis` (column-major `n × b`): orthonormalised, it is the next power step. */
  image: Float64Array;
}

/**
 * Rayleigh-Ritz on an orthonormal block `q` given `y = A q`: returns the top `k` Ritz pairs.
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
  for (let i = 0; i < b; i++) {
    for (let j = i; j < b; j++) {
      const v = 0.5 * (dotSlice(q, i * n, y, j * n, n) + dotSlice(q, j * n, y, i * n, n));
      h[i * b + j] = v;
      h[j * b + i] = v;
    }
  }
  const { values, vectors: w } = symmetricEigen(h, b);
  const kk = Math.min(k, b);
  const out = new Float64Array(n * kk);
  for (let c = 0; c < kk; c++) {
    const oc = c * n;
    for (let i = 0; i < b; i++) {
      const coef = w[i * b + c];
      if (coef === 0) continue;
      const oi = i * n;
      for (let t = 0; t < n; t++) out[oc + t] += coef * q[oi + t];
    }
  }
  return { values: values.slice(0, kk), vectors: out };
}

/**
 * The `k` algebraically largest eigenpairs of a symmetric operator, by subspace iteration
 * (power steps on an oversampled block) followed by Rayleigh-Ritz.
 *
 * @example
 * ```ts
 * import { topEigen } from "./eigen.ts";
 * const d = [5, 3, 1, 0.5];
 * const op = { n: 4, apply: (q: Float64Array, b: number, out: Float64Array) => {
 *   for (let c = 0; c < b; c++) for (let i = 0; i < 4; i++) out[c * 4 + i] = d[i] * q[c * 4 + i];
 * } };
 * const { values } = topEigen(op, 2, { oversample: 2, iterations: 30 });
 * console.log(values.map((v) => Math.round(v))); // Float64Array [ 5, 3 ]
 * ```
 */
export function topEigen(
  op: SymOperator,
  k: number,
  options: TopEigenOptions = {},
): TopEigenResult {
  const n = op.n;
  if (!(k >= 1) || k > n) throw new RangeError(`topEigen: k must be in [1, ${n}], got ${k}`);
  const b = Math.min(n, k + (options.oversample ?? 10));
  const iterations = Math.max(1, options.iterations ?? 8);
  const seed = options.seed ?? 1;
  let q = new Float64Array(n * b);
  if (options.init && options.init.length >= n) {
    q.set(options.init.subarray(0, Math.min(options.init.length, n * b)));
  }
  if (!options.init || options.init.length < n * b) {
    let s = (seed * 747796405 + 2891336453) >>> 0 || 7;
    const from = options.init && options.init.length >= n
      ? Math.floor(Math.min(options.init.length, n * b) / n) * n
      : 0;
    for (let i = from; i < n * b; i++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      q[i] = s / 4294967296 - 0.5;
    }
  }
  orthonormalize(q, n, b, seed);
  let y = new Float64Array(n * b);
  for (let it = 0; it < iterations; it++) {
    op.apply(q, b, y);
    if (it === iterations - 1) break;
    const t = q;
    q = y;
    y = t;
    orthonormalize(q, n, b, seed + it + 1);
  }
  const { values, vectors } = rayleighRitz(q, y, n, b, k);
  return { values, vectors, basis: q, blockSize: b, image: y };
}
