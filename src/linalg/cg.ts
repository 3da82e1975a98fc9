/**
 * The conjugate gradient method for symmetric positive definite systems given only a
 * matrix-vector product, as used by LEML's W step (Hessian-vector products of the paper's
 * Algorithms 1 and 2).
 *
 * @module
 */
import { columnOverflowScales, overflowScale, solveScaledColumns } from "./overflow_scale.ts";

/**
 * Options of {@linkcode conjugateGradient}.
 *
 * @example
 * ```ts
 * import type { CgOptions } from "./cg.ts";
 * const o: CgOptions = { maxIterations: 50, tolerance: 1e-6 };
 * console.log(o.maxIterations); // 50
 * ```
 */
export interface CgOptions {
  /** Iteration cap (default: the dimension). */
  maxIterations?: number;
  /** Stop when ‖r‖ ≤ tolerance·‖b‖ (default 1e-6). */
  tolerance?: number;
}

/**
 * Solves A x = b by conjugate gradient, A given by `apply(v, out)` (out = A v). `x` holds the
 * starting point (warm start) and receives the solution. Returns the iterations used and the
 * final relative residual. Allocates three work vectors per call. A `b` whose entries reach
 * beyond 1e±150 (so that ‖b‖² would overflow or underflow) is solved as the scaled system
 * A (x/s) = b/s; a starting point so far off that its residual's square (or, for such a b,
 * x/s) overflows is replaced by 0. CG stops early where A is not positive definite along its
 * search direction (a singular or indefinite A): `x` then holds the last iterate, and the
 * relative residual says how far it is from a solution.
 *
 * @throws {RangeError} when `x` and `b` differ in length, a value of `b` or `x` is not finite,
 * `maxIterations` is not an integer >= 0 or `tolerance` not a number >= 0.
 *
 * @example
 * ```ts
 * import { conjugateGradient } from "./cg.ts";
 * const a = [[4, 1], [1, 3]];
 * const x = new Float64Array(2);
 * conjugateGradient((v, out) => {
 *   out[0] = a[0][0] * v[0] + a[0][1] * v[1];
 *   out[1] = a[1][0] * v[0] + a[1][1] * v[1];
 * }, Float64Array.of(1, 2), x, { tolerance: 1e-12 });
 * console.log(x[0].toFixed(4), x[1].toFixed(4)); // "0.0909" "0.6364"
 * ```
 */
export function conjugateGradient(
  apply: (v: Float64Array, out: Float64Array) => void,
  b: Float64Array,
  x: Float64Array,
  options: CgOptions = {},
): { iterations: number; relativeResidual: number } {
  const n = b.length;
  if (x.length !== n) throw new RangeError(`conjugateGradient: x has length ${x.length}, b ${n}`);
  const maxIt = options.maxIterations ?? n;
  const tol = options.tolerance ?? 1e-6;
  checkCgOptions(maxIt, tol, "conjugateGradient");
  const s = scaleOf(b, x, "conjugateGradient");
  if (s !== 1) return scaledSolve(s, b, x, (bs) => conjugateGradient(apply, bs, x, options));
  const r = new Float64Array(n), p = new Float64Array(n), ap = new Float64Array(n);
  apply(x, ap);
  let bn = 0, rr = 0;
  for (let i = 0; i < n; i++) {
    r[i] = b[i] - ap[i];
    p[i] = r[i];
    rr += r[i] * r[i];
    bn += b[i] * b[i];
  }
  bn = Math.sqrt(bn);
  if (bn === 0) {
    x.fill(0);
    return { iterations: 0, relativeResidual: 0 };
  }
  if (rr === Infinity) {
    // a start so far off that ‖b − A x‖² overflows (e.g. an ordinary x with a b scaled up from
    // 1e-200) made every step NaN: start from 0, whose residual is b
    x.fill(0);
    r.set(b);
    p.set(b);
    rr = bn * bn;
  }
  let it = 0;
  while (it < maxIt && Math.sqrt(rr) > tol * bn) {
    apply(p, ap);
    let pap = 0;
    for (let i = 0; i < n; i++) pap += p[i] * ap[i];
    if (!(pap > 0)) break; // not positive definite along p (or exact solution)
    const alpha = rr / pap;
    let rr2 = 0;
    for (let i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
      rr2 += r[i] * r[i];
    }
    const beta = rr2 / rr;
    rr = rr2;
    for (let i = 0; i < n; i++) p[i] = r[i] + beta * p[i];
    it++;
  }
  return { iterations: it, relativeResidual: Math.sqrt(rr) / bn };
}

/**
 * Options of {@linkcode conjugateGradientColumns}.
 *
 * @example
 * ```ts
 * import type { ColumnCgOptions } from "./cg.ts";
 * const o: ColumnCgOptions = { maxIterations: 20, diagonal: Float64Array.of(2, 5) };
 * console.log(o.diagonal?.length); // 2
 * ```
 */
export interface ColumnCgOptions extends CgOptions {
  /**
   * The diagonals of the column operators as a `rows × cols` matrix (entry (i, c) = A_c[i, i],
   * all > 0): Jacobi preconditioning, which pays off when the rows are scaled very differently
   * (e.g. word features of very different frequencies).
   */
  diagonal?: Float64Array;
}

/**
 * (Preconditioned) conjugate gradient on `cols` independent SPD systems at once: `b` and `x` are
 * row-major `rows × cols` matrices and `apply(v, out)` must act on each column separately
 * (out[:, c] = A_c v[:, c], e.g. LEML's rotated W step where A_c = λ_c XᵀX + λI). Every column
 * has its own step sizes, so each converges at its own rate (a single CG over the stacked
 * vector shares one step size and is as slow as the worst column); a column stops once
 * ‖r_c‖ ≤ tolerance·‖b_c‖, and a stopped column is not updated any more. One `apply` per
 * iteration serves all columns. `x` holds the warm start and receives the solution. Returns the
 * iterations used and the largest final relative residual. A column of `b` beyond 1e±150 is
 * solved scaled (each column at its own scale), and a column stops early where its operator is
 * not positive definite, as in {@linkcode conjugateGradient}.
 *
 * @throws {RangeError} on `rows` or `cols` not an integer >= 0, mis-sized `b`, `x` or
 * `diagonal`, a value of `b` or `x` that is not finite, a diagonal entry that is not a finite
 * number > 0, or an option out of range.
 *
 * @example
 * ```ts
 * import { conjugateGradientColumns } from "./cg.ts";
 * // column 0: 2·x = 4; column 1: 5·x = 10 (a 1×2 "matrix" of two scalar systems)
 * const x = new Float64Array(2);
 * conjugateGradientColumns((v, out) => {
 *   out[0] = 2 * v[0];
 *   out[1] = 5 * v[1];
 * }, Float64Array.of(4, 10), x, 1, 2);
 * console.log(x[0], x[1]); // 2 2
 * ```
 */
export function conjugateGradientColumns(
  apply: (v: Float64Array, out: Float64Array) => void,
  b: Float64Array,
  x: Float64Array,
  rows: number,
  cols: number,
  options: ColumnCgOptions = {},
): { iterations: number; relativeResidual: number } {
  if (!Number.isSafeInteger(rows) || !Number.isSafeInteger(cols) || rows < 0 || cols < 0) {
    throw new RangeError(
      `conjugateGradientColumns: rows and cols must be integers >= 0, got ${rows} and ${cols}`,
    );
  }
  const n = rows * cols;
  if (b.length !== n || x.length !== n) {
    throw new RangeError(
      `conjugateGradientColumns: b and x must have ${rows}×${cols} entries, got ${b.length} and ${x.length}`,
    );
  }
  const diag = options.diagonal;
  if (diag && diag.length !== n) {
    throw new RangeError(
      `conjugateGradientColumns: diagonal must have ${rows}×${cols} entries, got ${diag.length}`,
    );
  }
  if (diag) {
    for (let e = 0; e < n; e++) {
      const d = diag[e];
      if (!(d > 0 && d < Infinity)) {
        throw new RangeError(
          `conjugateGradientColumns: diagonal entry (${Math.floor(e / cols)}, ${e % cols}) is ` +
            `${d}: every entry must be a finite number > 0`,
        );
      }
    }
  }
  const maxIt = options.maxIterations ?? rows;
  const tol = options.tolerance ?? 1e-6;
  checkCgOptions(maxIt, tol, "conjugateGradientColumns");
  // each column at its own scale: one scale for all (the largest |b|) left a column of 1 next
  // to one of 1e200 at 1e-200, whose ‖b_c‖² underflowed to 0, and the column was solved as 0
  const s = columnScales(b, x, cols, "conjugateGradientColumns");
  if (s !== undefined) {
    // (a column whose start overflows at its scale starts from 0, as in conjugateGradient)
    return solveScaledColumns(
      s,
      b,
      x,
      cols,
      (bs) => conjugateGradientColumns(apply, bs, x, rows, cols, options),
    );
  }
  const r = new Float64Array(n), z = diag ? new Float64Array(n) : r;
  const p = new Float64Array(n), ap = new Float64Array(n);
  const rz = new Float64Array(cols), rr = new Float64Array(cols), bn = new Float64Array(cols);
  const pap = new Float64Array(cols), alpha = new Float64Array(cols), beta = new Float64Array(cols);
  const rz2 = new Float64Array(cols);
  const active = new Uint8Array(cols);
  /** z = M⁻¹ r on the active columns; rz[c] = r_c·z_c, rr[c] = ‖r_c‖². */
  const precondition = (rzOut: Float64Array): void => {
    rzOut.fill(0);
    rr.fill(0);
    for (let i = 0; i < rows; i++) {
      const o = i * cols;
      for (let c = 0; c < cols; c++) {
        const ri = r[o + c];
        rr[c] += ri * ri;
        if (diag) z[o + c] = ri / diag[o + c];
        rzOut[c] += ri * z[o + c];
      }
    }
  };
  apply(x, ap);
  for (let a = 0; a < n; a++) r[a] = b[a] - ap[a];
  for (let i = 0; i < rows; i++) {
    for (let c = 0; c < cols; c++) bn[c] += b[i * cols + c] * b[i * cols + c];
  }
  precondition(rz);
  if (rr.includes(Infinity)) {
    // a column whose start is so far off that ‖b_c − A_c x_c‖² overflows starts from 0 instead
    // (its residual b_c), as in conjugateGradient
    for (let i = 0; i < rows; i++) {
      for (let c = 0; c < cols; c++) {
        if (rr[c] === Infinity) {
          x[i * cols + c] = 0;
          r[i * cols + c] = b[i * cols + c];
        }
      }
    }
    precondition(rz);
  }
  let live = 0;
  for (let c = 0; c < cols; c++) {
    bn[c] = Math.sqrt(bn[c]);
    if (bn[c] === 0) {
      for (let i = 0; i < rows; i++) x[i * cols + c] = 0;
      rr[c] = 0;
    } else if (Math.sqrt(rr[c]) > tol * bn[c]) {
      active[c] = 1;
      live++;
    }
  }
  // stopped columns keep p = 0: apply() maps them to 0 and they are not updated
  for (let i = 0; i < rows; i++) {
    const o = i * cols;
    for (let c = 0; c < cols; c++) p[o + c] = active[c] ? z[o + c] : 0;
  }
  let it = 0;
  while (it < maxIt && live > 0) {
    apply(p, ap);
    pap.fill(0);
    for (let i = 0; i < rows; i++) {
      const o = i * cols;
      for (let c = 0; c < cols; c++) pap[c] += p[o + c] * ap[o + c];
    }
    for (let c = 0; c < cols; c++) {
      if (active[c] && !(pap[c] > 0)) { // not positive definite along p (or exact solution)
        active[c] = 0;
        live--;
      }
      alpha[c] = active[c] ? rz[c] / pap[c] : 0;
    }
    for (let i = 0; i < rows; i++) {
      const o = i * cols;
      for (let c = 0; c < cols; c++) {
        const a = alpha[c];
        if (a === 0) continue;
        x[o + c] += a * p[o + c];
        r[o + c] -= a * ap[o + c];
      }
    }
    precondition(rz2);
    for (let c = 0; c < cols; c++) {
      if (!active[c]) {
        beta[c] = 0;
        continue;
      }
      beta[c] = rz2[c] / rz[c];
      rz[c] = rz2[c];
      if (Math.sqrt(rr[c]) <= tol * bn[c]) {
        active[c] = 0;
        live--;
      }
    }
    for (let i = 0; i < rows; i++) {
      const o = i * cols;
      for (let c = 0; c < cols; c++) {
        p[o + c] = active[c] ? z[o + c] + beta[c] * p[o + c] : 0;
      }
    }
    it++;
  }
  let worst = 0;
  for (let c = 0; c < cols; c++) if (bn[c] > 0) worst = Math.max(worst, Math.sqrt(rr[c]) / bn[c]);
  return { iterations: it, relativeResidual: worst };
}

/** Throws a RangeError naming `where` unless the iteration cap and tolerance are usable. */
function checkCgOptions(maxIt: number, tol: number, where: string): void {
  if (!Number.isSafeInteger(maxIt) || maxIt < 0) {
    throw new RangeError(`${where}: maxIterations must be an integer >= 0, got ${maxIt}`);
  }
  if (!(tol >= 0)) throw new RangeError(`${where}: tolerance must be a number >= 0, got ${tol}`);
}

/**
 * 1 when the largest |b_i| is within [1e-150, 1e150] (or b is 0), else that largest |b_i|
 * (the scale to solve with); throws a RangeError naming `where` on a value of `b` or `x` that
 * is not finite.
 */
function scaleOf(b: Float64Array, x: Float64Array, where: string): number {
  let big = 0;
  for (let i = 0; i < b.length; i++) {
    const v = Math.abs(b[i]);
    if (!(v < Infinity)) throw new RangeError(`${where}: b[${i}] is ${b[i]}, not a finite number`);
    if (!Number.isFinite(x[i])) {
      throw new RangeError(`${where}: the starting point x[${i}] is ${x[i]}, not a finite number`);
    }
    if (v > big) big = v;
  }
  return overflowScale(big);
}

/**
 * The scale of each column of the row-major `b` (`cols` columns), as {@linkcode scaleOf} gives
 * for a vector, or undefined when every column is within range; throws a RangeError naming
 * `where` on a value of `b` or `x` that is not finite.
 */
function columnScales(
  b: Float64Array,
  x: Float64Array,
  cols: number,
  where: string,
): Float64Array | undefined {
  for (let e = 0; e < b.length; e++) {
    if (!Number.isFinite(b[e])) {
      throw new RangeError(`${where}: b[${e}] is ${b[e]}, not a finite number`);
    }
    if (!Number.isFinite(x[e])) {
      throw new RangeError(`${where}: the starting point x[${e}] is ${x[e]}, not a finite number`);
    }
  }
  return columnOverflowScales(b, cols);
}

/** Solves A (x/s) = b/s with `solve` (which works on `x` in place), then scales x back. */
function scaledSolve<T>(
  s: number,
  b: Float64Array,
  x: Float64Array,
  solve: (bs: Float64Array) => T,
): T {
  const bs = new Float64Array(b.length);
  for (let i = 0; i < b.length; i++) bs[i] = b[i] / s;
  let off = false;
  for (let i = 0; i < x.length; i++) {
    x[i] /= s;
    if (!Number.isFinite(x[i])) off = true;
  }
  // a start that overflows at the scale of a tiny b (1e200 for a b of 1e-160) is far off: it
  // starts from 0, as one whose residual's square overflows (it was refused as "Infinity")
  if (off) x.fill(0);
  const result = solve(bs);
  for (let i = 0; i < x.length; i++) x[i] *= s;
  return result;
}
