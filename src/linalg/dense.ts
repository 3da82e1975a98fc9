/**
 * Small dense helpers on row-major Float64Array matrices (k×k Gram matrices and their
 * eigen-decomposition). ml-matrix is used only for the small symmetric eigenproblem.
 *
 * @module
 */
import { EigenvalueDecomposition, Matrix } from "ml-matrix";
import { overflowScale } from "./overflow_scale.ts";

/**
 * Gram matrix AᵀA of the row-major `a` (rows × cols), written into `out` (cols × cols).
 *
 * @example
 * ```ts
 * import { gram } from "./dense.ts";
 * console.log(Array.from(gram(Float64Array.of(1, 2, 3, 4), 2, 2)).join()); // "10,14,14,20"
 * ```
 */
export function gram(
  a: ArrayLike<number>,
  rows: number,
  cols: number,
  out?: Float64Array,
): Float64Array {
  const g = out ?? new Float64Array(cols * cols);
  g.fill(0, 0, cols * cols);
  for (let i = 0; i < rows; i++) {
    const base = i * cols;
    for (let a1 = 0; a1 < cols; a1++) {
      const v = a[base + a1];
      if (v === 0) continue;
      for (let c = a1; c < cols; c++) g[a1 * cols + c] += v * a[base + c];
    }
  }
  for (let r = 0; r < cols; r++) for (let c = 0; c < r; c++) g[r * cols + c] = g[c * cols + r];
  return g;
}

/**
 * Product C = A·B of row-major matrices (m×p times p×q), into `out` (m×q).
 *
 * @example
 * ```ts
 * import { matMul } from "./dense.ts";
 * console.log(Array.from(matMul(Float64Array.of(1, 2), Float64Array.of(3, 4), 1, 2, 1)).join()); // "11"
 * ```
 */
export function matMul(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  m: number,
  p: number,
  q: number,
  out?: Float64Array,
): Float64Array {
  const c = out ?? new Float64Array(m * q);
  c.fill(0, 0, m * q);
  for (let i = 0; i < m; i++) {
    for (let t = 0; t < p; t++) {
      const v = a[i * p + t];
      if (v === 0) continue;
      const bb = t * q, cb = i * q;
      for (let j = 0; j < q; j++) c[cb + j] += v * b[bb + j];
    }
  }
  return c;
}

/**
 * Eigen-decomposition of a small symmetric matrix: A = V diag(values) Vᵀ, with `vectors` the
 * row-major n×n matrix V (column c is the eigenvector of `values[c]`).
 *
 * @example
 * ```ts
 * import { symmetricEigen } from "./dense.ts";
 * const { values } = symmetricEigen(Float64Array.of(2, 0, 0, 3), 2);
 * console.log(Array.from(values).sort().join()); // "2,3"
 * ```
 *
 * A matrix with entries beyond 1e±100 is decomposed scaled (ml-matrix would overflow inside).
 *
 * @throws {RangeError} when `n` is not a size, `a` holds fewer than n×n values, or an entry is
 * not finite (ml-matrix would fail deep inside on NaN or an infinity).
 */
export function symmetricEigen(
  a: ArrayLike<number>,
  n: number,
): { values: Float64Array; vectors: Float64Array } {
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError(`symmetricEigen: size must be an integer >= 0, got ${n}`);
  }
  if (a.length < n * n) {
    throw new RangeError(`symmetricEigen: matrix has ${a.length} < ${n} x ${n} entries`);
  }
  if (n === 0) return { values: new Float64Array(0), vectors: new Float64Array(0) };
  const rows: number[][] = [];
  let big = 0;
  for (let i = 0; i < n; i++) {
    const r: number[] = new Array(n);
    for (let j = 0; j < n; j++) {
      // halved before the sum: two entries near 1.8e308 overflowed their sum
      const v = 0.5 * a[i * n + j] + 0.5 * a[j * n + i];
      if (!Number.isFinite(v)) {
        throw new RangeError(
          `symmetricEigen: entries (${i}, ${j}) = ${a[i * n + j]} and (${j}, ${i}) = ` +
            `${a[j * n + i]} do not average to a finite number`,
        );
      }
      r[j] = v;
      if (Math.abs(v) > big) big = Math.abs(v);
    }
    rows.push(r);
  }
  // ml-matrix squares entries along the way (overflowing into NaN beyond about 1e150):
  // decompose A/s, whose eigenvalues are those of A divided by s and whose vectors are A's
  const scale = overflowScale(big, 1e100);
  if (scale !== 1) { for (const r of rows) for (let j = 0; j < n; j++) r[j] /= scale; }
  const evd = new EigenvalueDecomposition(new Matrix(rows), { assumeSymmetric: true });
  const values = Float64Array.from(evd.realEigenvalues);
  if (scale !== 1) { for (let c = 0; c < n; c++) values[c] *= scale; }
  const v = evd.eigenvectorMatrix;
  const vectors = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) vectors[i * n + j] = v.get(i, j);
  return { values, vectors };
}
