/**
 * Cholesky factorisation and solves for small dense symmetric positive definite systems
 * (row-major Float64Array), used for LEML's k×k label-factor systems.
 *
 * @module
 */

/**
 * Factors the SPD matrix `a` (n×n, row-major; only the lower triangle is read) as L·Lᵀ,
 * writing L into `out` (lower triangle; the strict upper triangle is zeroed). `out` may be `a`.
 * Throws a RangeError when `a` is not (numerically) positive definite.
 *
 * @example
 * ```ts
 * import { choleskyFactor } from "./cholesky.ts";
 * const l = choleskyFactor(Float64Array.of(4, 2, 2, 5), 2);
 * console.log(Array.from(l).join()); // "2,0,1,2"
 * ```
 */
export function choleskyFactor(a: Float64Array, n: number, out?: Float64Array): Float64Array {
  if (a.length < n * n) {
    throw new RangeError(`choleskyFactor: matrix has ${a.length} < ${n * n} entries`);
  }
  const l = out ?? new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * n + j];
      for (let p = 0; p < j; p++) s -= l[i * n + p] * l[j * n + p];
      if (i === j) {
        if (!(s > 0)) {
          throw new RangeError(
            `choleskyFactor: matrix is not positive definite (pivot ${i} = ${s})`,
          );
        }
        l[i * n + i] = Math.sqrt(s);
      } else {
        l[i * n + j] = s / l[j * n + j];
      }
    }
    for (let j = i + 1; j < n; j++) l[i * n + j] = 0;
  }
  return l;
}

/**
 * Solves (L·Lᵀ) x = b given the factor from {@linkcode choleskyFactor}; `b` and `out` may be the
 * same array. `bOffset`/`outOffset` let b and x live inside larger arrays (rows of a matrix).
 *
 * @example
 * ```ts
 * import { choleskyFactor, choleskySolve } from "./cholesky.ts";
 * const l = choleskyFactor(Float64Array.of(4, 2, 2, 5), 2);
 * const x = choleskySolve(l, 2, Float64Array.of(6, 7));
 * console.log(Array.from(x).join()); // "1,1"
 * ```
 */
export function choleskySolve(
  l: Float64Array,
  n: number,
  b: ArrayLike<number>,
  out?: Float64Array,
  bOffset = 0,
  outOffset = 0,
): Float64Array {
  const x = out ?? new Float64Array(n);
  // forward: L z = b
  for (let i = 0; i < n; i++) {
    let s = b[bOffset + i];
    for (let p = 0; p < i; p++) s -= l[i * n + p] * x[outOffset + p];
    x[outOffset + i] = s / l[i * n + i];
  }
  // backward: Lᵀ x = z
  for (let i = n - 1; i >= 0; i--) {
    let s = x[outOffset + i];
    for (let p = i + 1; p < n; p++) s -= l[p * n + i] * x[outOffset + p];
    x[outOffset + i] = s / l[i * n + i];
  }
  return x;
}
