/**
 * A vectorised Adam step over a slice of a flat parameter array (Kingma & Ba 2015).
 *
 * @module
 */

/** Adam's constants. */
export const ADAM_BETA1 = 0.9;
/** Second-moment decay. */
export const ADAM_BETA2 = 0.999;
/** Denominator guard. */
export const ADAM_EPS = 1e-8;

/**
 * One Adam update of `param[from..to)` with gradient `grad[from..to)` (same offsets), moments
 * `m`, `v` (updated in place) and 1-based step number `t` (bias correction).
 *
 * @example
 * ```ts
 * import { adamStep } from "./adam.ts";
 * const p = Float64Array.of(1), g = Float64Array.of(2), m = new Float64Array(1), v = new Float64Array(1);
 * adamStep(p, g, m, v, 1, 0.1);
 * console.log(Math.abs(p[0] - 0.9) < 1e-6); // true: the first step moves by lr
 * ```
 */
export function adamStep(
  param: Float64Array,
  grad: Float64Array,
  m: Float64Array,
  v: Float64Array,
  t: number,
  lr: number,
  from = 0,
  to = param.length,
  gradOffset = from,
): void {
  const b1 = ADAM_BETA1, b2 = ADAM_BETA2;
  const c1 = 1 - Math.pow(b1, t), c2 = 1 - Math.pow(b2, t);
  const step = lr * Math.sqrt(c2) / c1;
  const epsHat = ADAM_EPS * Math.sqrt(c2);
  for (let i = from, g0 = gradOffset; i < to; i++, g0++) {
    const g = grad[g0];
    const mi = b1 * m[i] + (1 - b1) * g;
    const vi = b2 * v[i] + (1 - b2) * g * g;
    m[i] = mi;
    v[i] = vi;
    param[i] -= step * mi / (Math.sqrt(vi) + epsHat);
  }
}
