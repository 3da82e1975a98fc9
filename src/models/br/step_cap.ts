/**
 * The step-size safeguard of binary relevance's SGD on raw (not L2-normalised) rows (see
 * docs/deviations.md). The same rule as streaming LEML's (../leml/step_cap.ts), for BR's
 * independent per-label models.
 *
 * Each label l is its own linear model [w_l; b_l] with its own loss, so the batch's objective is
 * a sum of per-label objectives and its Hessian is block-diagonal by label. On a quadratic of
 * curvature β along a gradient step g (β = gᵀ∇²g/‖g‖²) the step lr·g lowers it only while
 * lr·β < 2, and lands on the minimum along g at lr·β = 1. A label's curvature along its own SGD
 * step d_l = [∂w_l + λw_l; ∂b_l] (the touched rows of w_l, lazily regularised; the bias when it
 * is learned) is, over the batch's n rows and its entries' weights ω_il (1, or 0 for an
 * unobserved entry of a partially observed row):
 *
 *   β_l = ((c/n) Σ_i ω_il (x_iᵀ ∂w_l' + ∂b_l)² + λ‖∂w_l'‖²) / ‖d_l‖²,  ∂w_l' = ∂w_l + λw_l
 *
 * with c ≥ ℓ'' the loss's curvature bound ({@linkcode curvatureBound}: 2 squared hinge, ¼
 * logistic). Since ℓ'' ≤ c everywhere, β_l bounds the curvature of label l's batch loss along
 * the whole step, so a step at lr·β_l ≤ 2 never raises it. Computing every x_iᵀ d_l is one more
 * pass of the gradient's own O(nnz·L) loop.
 *
 * A label whose lr·β_l exceeds {@linkcode STEP_CAP_TRIGGER} (2) is stepped at lr·β_l =
 * {@linkcode STEP_CAP_TARGET} (1, the minimum along its step on that quadratic),
 * {@linkcode stepScale}; below the trigger its step is not touched. The cap is per label, not
 * per batch: one β for the joint step of all labels would be the ‖d_l‖²-weighted mean of the
 * β_l, under which a stiff label still overshoots, and the largest β_l would slow every label to
 * the stiffest one's rate. The curvatures are computed only for a batch with a row above unit
 * norm ({@linkcode UNIT_NORM_SQ}), with SGD and without `l2Normalize`: every other batch is
 * stepped exactly as without the cap, bit for bit. Adam is not capped (its step is about lr
 * whatever the gradient's scale).
 *
 * @module
 */

/**
 * The loss's global curvature bound c ≥ ∂²ℓ/∂z²: 2 (squared hinge), ¼ (logistic).
 *
 * @example
 * ```ts
 * import { curvatureBound } from "./step_cap.ts";
 * console.log(curvatureBound("squared-hinge"), curvatureBound("logistic")); // 2 0.25
 * ```
 */
export function curvatureBound(loss: "squared-hinge" | "logistic"): number {
  return loss === "logistic" ? 0.25 : 2;
}

/**
 * Per-label scratch of the cap (not model state): allocated on the first capped batch and grown
 * by doubling, so unit-row training never allocates it.
 *
 * @example
 * ```ts
 * import { LabelStepScratch } from "./step_cap.ts";
 * const s = new LabelStepScratch();
 * s.ensure(3);
 * const n = s.along.length;
 * s.ensure(5);
 * console.log(n >= 3, s.along.length >= 5, s.rate.length === s.along.length); // true true true
 * ```
 */
export class LabelStepScratch {
  /** x_iᵀ d_l of the current row, per label. */
  along: Float64Array = new Float64Array(0);
  /** Σ_i ω_il (x_iᵀ d_l)², per label. */
  curv: Float64Array = new Float64Array(0);
  /** ‖∂w_l'‖² (the weight part of the step), per label. */
  norm: Float64Array = new Float64Array(0);
  /** The rate of each label's step: lr·{@linkcode stepScale}. */
  rate: Float64Array = new Float64Array(0);

  /** Makes every buffer hold at least `n` labels (doubling). */
  ensure(n: number): void {
    if (this.along.length >= n) return;
    let cap = Math.max(16, this.along.length);
    while (cap < n) cap *= 2;
    this.along = new Float64Array(cap);
    this.curv = new Float64Array(cap);
    this.norm = new Float64Array(cap);
    this.rate = new Float64Array(cap);
  }
}
