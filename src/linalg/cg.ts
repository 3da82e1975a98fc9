/**
 * The conjugate gradient method for symmetric positive definite systems given only a
 * matrix-vector product, as used by LEML's W step (Hessian-vector products of the paper's
 * Algorithms 1 and 2).
 *
 * @module
 */

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
 * final relative residual. Allocates three work vectors per call.
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
