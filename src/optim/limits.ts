/**
 * The bound that keeps an optimiser's float32 state finite on any finite input: every gradient
 * element is clipped to ±{@linkcode GRADIENT_LIMIT} before it enters a moment, a sum of squares
 * or a step. Ordinary gradients are many orders of magnitude below it, so clipping never
 * changes ordinary training (bit for bit); a row with raw feature values near 1e30 produces
 * gradients near 1e30 and more, whose squares (1e60) do not fit a float32 (3.4e38): stored
 * unclipped, an Adam second moment or an AdaGrad sum became Infinity, then the step
 * Infinity/Infinity = NaN, and the whole model NaN.
 *
 * Where a learner cannot learn such rows correctly even with finite state (the squared loss and
 * SGD on raw, unnormalised values), it refuses a row with a value past a limit before anything
 * changes: ../models/raw_value_limit.ts.
 *
 * @module
 */

/**
 * The largest gradient element an optimiser uses (1e18): its square (1e36) and an AdaGrad sum
 * of a hundred of them fit a float32 (largest finite 3.4e38).
 *
 * @example
 * ```ts
 * import { GRADIENT_LIMIT } from "./limits.ts";
 * console.log(GRADIENT_LIMIT * GRADIENT_LIMIT < 3.4e38); // true
 * ```
 */
export const GRADIENT_LIMIT = 1e18;

/**
 * The largest finite float32 (3.4028234663852886e38): where a float32 sum of squares saturates.
 *
 * @example
 * ```ts
 * import { FLOAT32_MAX } from "./limits.ts";
 * console.log(Math.fround(FLOAT32_MAX) === FLOAT32_MAX, Math.fround(FLOAT32_MAX * 2)); // true Infinity
 * ```
 */
export const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * `g` clipped to [−{@linkcode GRADIENT_LIMIT}, {@linkcode GRADIENT_LIMIT}] (NaN stays NaN).
 * The per-element loops of Adam, SGD and ova write the same clip inline, as
 * `Math.min(Math.max(g, -lim), lim)`: a call to this function there made Adam's row update 1.5 to
 * 2.5 times slower (measured); off the hot paths (BR's rare clipping pass) it is called.
 *
 * @example
 * ```ts
 * import { clipGradient } from "./limits.ts";
 * console.log(clipGradient(0.5), clipGradient(-1e30) === -1e18, clipGradient(1e300) === 1e18); // 0.5 true true
 * ```
 */
export function clipGradient(g: number): number {
  return g > GRADIENT_LIMIT ? GRADIENT_LIMIT : g < -GRADIENT_LIMIT ? -GRADIENT_LIMIT : g;
}
