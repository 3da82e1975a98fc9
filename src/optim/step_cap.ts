/**
 * The step-size cap that SGD shares across models (streaming LEML:
 * ../models/leml/step_cap.ts; binary relevance: ../models/br/step_cap.ts). Each model measures
 * the curvature β of its own blocks along the step it is about to take; this file holds the rule
 * that turns β into a step.
 *
 * On a quadratic of curvature β along a gradient step g (β = gᵀ∇²g/‖g‖²), the step lr·g lowers it
 * only while lr·β < 2, and lands on the minimum along g at lr·β = 1. A step whose lr·β exceeds
 * {@linkcode STEP_CAP_TRIGGER} is therefore scaled to lr·β = {@linkcode STEP_CAP_TARGET}
 * ({@linkcode stepScale}); below the trigger it is not touched. A batch whose rows all have a
 * squared norm of at most {@linkcode UNIT_NORM_SQ} (every batch with `l2Normalize`) is measured
 * only when the model's settings could overshoot on unit rows (each model's `unitRowsNeedCap`):
 * at the default settings its models do not even measure β, so such a batch is stepped bit for
 * bit as without the cap.
 *
 * @module
 */

/**
 * The squared row norm up to which a row counts as a unit row, whose batch is measured only when
 * the settings could overshoot on unit rows: 1 + 2⁻¹⁰ (unit-norm rows stored as float32 round
 * to a squared norm within about 1e-7 of 1).
 *
 * @example
 * ```ts
 * import { UNIT_NORM_SQ } from "./step_cap.ts";
 * console.log(UNIT_NORM_SQ > 1, UNIT_NORM_SQ < 1.001); // true true
 * ```
 */
export const UNIT_NORM_SQ = 1 + 1 / 1024;

/**
 * The lr·β above which a step is capped: 2, where a gradient step on a quadratic of curvature β
 * along the step stops lowering it.
 *
 * @example
 * ```ts
 * import { STEP_CAP_TRIGGER } from "./step_cap.ts";
 * console.log(STEP_CAP_TRIGGER); // 2
 * ```
 */
export const STEP_CAP_TRIGGER = 2;

/**
 * The lr·β a capped step is set to: 1, the exact minimum along the step on that quadratic.
 *
 * @example
 * ```ts
 * import { STEP_CAP_TARGET } from "./step_cap.ts";
 * console.log(STEP_CAP_TARGET); // 1
 * ```
 */
export const STEP_CAP_TARGET = 1;

/**
 * The factor of an SGD step of rate `lr` whose curvature along the step is `beta`: 1 while
 * lr·beta ≤ {@linkcode STEP_CAP_TRIGGER} (or `beta` is NaN: a zero step), else
 * {@linkcode STEP_CAP_TARGET}/(lr·beta) (the step to the minimum along it); never 0 for a finite
 * `beta`.
 *
 * @example
 * ```ts
 * import { stepScale } from "./step_cap.ts";
 * console.log(stepScale(0.05, 4), stepScale(0.05, 40), stepScale(0.5, 5), stepScale(0.05, 1e6)); // 1 1 0.4 0.00002
 * ```
 */
export function stepScale(lr: number, beta: number): number {
  const lb = lr * beta;
  if (!(lb > STEP_CAP_TRIGGER)) return 1;
  // divided in turn where lr·β overflows (lr 10, β 1e308 gave 1/Infinity = 0: no step at all)
  return lb < Infinity ? STEP_CAP_TARGET / lb : STEP_CAP_TARGET / lr / beta;
}
