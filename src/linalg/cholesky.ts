/**
 * Cholesky factorisation and solves for small dense symmetric positive definite systems
 * (row-major Float64Array), used for LEML's k×k label-factor systems.
 *
 * @module
 */

/**
 * Factors the SPD matrix `a` (n×n, row-major; only the lower triangle is read) as L·Lᵀ,
 * writing L into `out` (lower triangle; the strict upper triangle is zeroed). `out` may be `a`.
 * Throws a RangeError when `a` is not (numerically) positive definite (a pivot that is not a
 * finite positive number, e.g. from an infinite or NaN entry), `n` is not a size or `out` holds
 * fewer than n×n values; for a singular positive semi-definite matrix,
 * {@linkcode choleskyFactorShifted} factors it anyway.
 *
 * @example
 * ```ts
 * import { choleskyFactor } from "./cholesky.ts";
 * const l = choleskyFactor(Float64Array.of(4, 2, 2, 5), 2);
 * console.log(Array.from(l).join()); // "2,0,1,2"
 * ```
 */
export function choleskyFactor(a: Float64Array, n: number, out?: Float64Array): Float64Array {
  checkSize(a, n, "choleskyFactor");
  if (out !== undefined && out.length < n * n) {
    throw new RangeError(`choleskyFactor: out has ${out.length} < ${n * n} entries`);
  }
  const l = out ?? new Float64Array(n * n);
  const bad = factorShifted(a, n, l, 0);
  if (bad !== undefined) {
    throw new RangeError(
      `choleskyFactor: matrix is not positive definite (pivot ${bad.row} = ${bad.pivot})`,
    );
  }
  return l;
}

/**
 * Factors the symmetric positive semi-definite matrix `a` (n×n, row-major; only the lower
 * triangle is read) like {@linkcode choleskyFactor}, but when `a` is singular (or, by rounding,
 * slightly indefinite, or factors with a pivot within rounding of 0: at most 10·n·ε times the
 * largest diagonal entry), as the Gram matrix of rank-deficient rows with no ridge is, factors
 * `a + δI` instead, with the smallest δ of `δ₀, 100·δ₀, …` (δ₀ = 1e-8, about √ε, times the
 * largest diagonal entry, or 1e-8 when the diagonal is zero; at least the smallest positive
 * double) that factors, up to 1e-2 times the largest diagonal entry: solving with it gives
 * the ridge-limit (minimum-norm) solution for a right-hand side in the range of `a`, to about
 * 1e-8 relative. Returns δ (0 when `a` itself factors with no pivot within rounding of 0, and
 * then the factor is exactly {@linkcode choleskyFactor}'s). `a` is not modified; `out` must not
 * be `a`.
 *
 * @throws {RangeError} when `a` has a non-finite entry on or below the diagonal, or is not
 * positive semi-definite (no δ up to 1e-2 times the largest diagonal entry factors it).
 *
 * @example
 * ```ts
 * import { choleskyFactorShifted, choleskySolve } from "./cholesky.ts";
 * const a = Float64Array.of(1, 1, 1, 1); // singular: [1 1; 1 1]
 * const l = new Float64Array(4);
 * const delta = choleskyFactorShifted(a, 2, l);
 * const x = choleskySolve(l, 2, Float64Array.of(2, 2)); // minimum-norm solution of x₀ + x₁ = 2
 * console.log(delta > 0 && delta < 1e-7, x[0].toFixed(6), x[1].toFixed(6)); // true "1.000000" "1.000000"
 * ```
 */
export function choleskyFactorShifted(a: Float64Array, n: number, out: Float64Array): number {
  checkSize(a, n, "choleskyFactorShifted");
  if (out === a) throw new TypeError("choleskyFactorShifted: out must not be the input matrix");
  if (out.length < n * n) {
    throw new RangeError(`choleskyFactorShifted: out has ${out.length} < ${n * n} entries`);
  }
  if (factorShifted(a, n, out, 0) === undefined && !withinRounding(a, n, out)) return 0;
  let scale = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const v = a[i * n + j];
      if (!Number.isFinite(v)) {
        throw new RangeError(`choleskyFactorShifted: entry (${i}, ${j}) of the matrix is ${v}`);
      }
    }
    scale = Math.max(scale, Math.abs(a[i * n + i]));
  }
  if (scale === 0) scale = 1;
  // four shifts, 1e-8 to 1e-2 times scale: counted (comparing δ with 1e-2·scale skipped the last
  // one where rounding left δ just above it, e.g. scale 3), and at least the smallest double (a
  // subnormal scale made δ underflow to 0, and 0·100 looped forever)
  let delta = Math.max(1e-8 * scale, Number.MIN_VALUE), bad: FailedPivot | undefined;
  for (let tries = 0; tries < 4; tries++, delta *= 100) {
    bad = factorShifted(a, n, out, delta);
    if (bad === undefined) return delta;
  }
  throw new RangeError(
    `choleskyFactorShifted: matrix is not positive semi-definite (pivot ${bad?.pivot} with a ` +
      `shift of ${delta / 100}, 1e-2 times its largest diagonal entry ${scale})`,
  );
}

/**
 * Whether a pivot of the factor `l` of `a` is within rounding of 0 (at most 10·n·ε times the
 * largest diagonal entry, ten times LAPACK's rank test): a singular `a` whose zero pivots
 * rounding left slightly positive instead of slightly negative. Factored as it is, such an `a`
 * solved far from the minimum-norm solution (on random rank-deficient Gram matrices, 5% factored
 * at δ = 0, with errors up to 5e3 times the solution; n·ε left 1.3% of them, 10·n·ε 0.5%). An
 * SPD matrix is caught only beyond a condition number of 1/(10·n·ε): 1e13 for n = 40.
 */
function withinRounding(a: Float64Array, n: number, l: Float64Array): boolean {
  let scale = 0;
  for (let i = 0; i < n; i++) scale = Math.max(scale, a[i * n + i]);
  const noise = 10 * n * Number.EPSILON * scale;
  for (let i = 0; i < n; i++) if (l[i * n + i] * l[i * n + i] <= noise) return true;
  return false;
}

/** Where a factorisation failed: the row and its pivot, not a finite positive number. */
interface FailedPivot {
  row: number;
  pivot: number;
}

/** Throws a RangeError unless `n` is a size and `a` holds an n×n matrix. */
function checkSize(a: Float64Array, n: number, where: string): void {
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError(`${where}: size must be an integer >= 0, got ${n}`);
  }
  if (a.length < n * n) {
    throw new RangeError(`${where}: matrix has ${a.length} < ${n * n} entries`);
  }
}

/**
 * L·Lᵀ = a + shift·I into `l`; returns undefined, or the row whose pivot is not a finite
 * positive number, with that pivot.
 */
function factorShifted(
  a: Float64Array,
  n: number,
  l: Float64Array,
  shift: number,
): FailedPivot | undefined {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * n + j];
      for (let p = 0; p < j; p++) s -= l[i * n + p] * l[j * n + p];
      if (i === j) {
        if (shift !== 0) s += shift;
        if (!(s > 0 && s < Infinity)) return { row: i, pivot: s };
        l[i * n + i] = Math.sqrt(s);
      } else {
        l[i * n + j] = s / l[j * n + j];
      }
    }
    for (let j = i + 1; j < n; j++) l[i * n + j] = 0;
  }
  return undefined;
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
