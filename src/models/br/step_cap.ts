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
 * the stiffest one's rate. With SGD the curvatures are computed for a batch with a row above
 * unit norm ({@linkcode UNIT_NORM_SQ}; raw rows, as `l2Normalize` scales every row to unit
 * norm), and for a batch of unit rows only when the rate could overshoot on them
 * ({@linkcode unitRowsNeedCap}): by Cauchy-Schwarz, (x_iᵀ∂w' + ∂b)² ≤ (‖x_i‖² + 1)‖d_l‖², so
 * on rows with ‖x_i‖ ≤ 1 β_l ≤ c·(1 + [bias]) + λ whatever the weights. At the default rate (0.5
 * with the squared hinge and a bias: lr·c·(1 + [bias]) = 2) that bound stays within the trigger,
 * and every unit batch is stepped exactly as without the cap, bit for bit and at its cost; at a
 * larger rate (or λ) unit batches are measured too, as SGD at lr 2 on unit rows ran its scores
 * to 1e17. With `l2Normalize` the curvature is that of the scaled rows, as learned. Adam is not
 * capped (its step is about lr whatever the gradient's scale).
 *
 * @module
 */
import { STEP_CAP_TRIGGER, UNIT_NORM_SQ } from "../../optim/step_cap.ts";

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
 * Whether SGD at rate `lr` could overshoot on a batch of unit rows (‖x_i‖² ≤
 * {@linkcode UNIT_NORM_SQ}), which must then be measured too: when lr times the bound
 * c·(1 + [bias]) + λ of every label's curvature on such rows passes the trigger (2) by more than
 * the 2⁻⁹ that the unit-norm test itself lets through (rows of squared norm
 * {@linkcode UNIT_NORM_SQ} at lr·c·(1 + [bias]) = 2). False at the default rate 0.5 (λ up to
 * about 0.004), true from lr 0.51 with the squared hinge and a bias, from lr 4.01 with the
 * logistic loss.
 *
 * @example
 * ```ts
 * import { unitRowsNeedCap } from "./step_cap.ts";
 * console.log(unitRowsNeedCap(0.5, "squared-hinge", true, 1e-4), unitRowsNeedCap(2, "squared-hinge", true, 1e-4)); // false true
 * console.log(unitRowsNeedCap(2, "logistic", true, 1e-4), unitRowsNeedCap(0.5, "squared-hinge", true, 10)); // false true
 * ```
 */
export function unitRowsNeedCap(
  lr: number,
  loss: "squared-hinge" | "logistic",
  bias: boolean,
  lambda: number,
): boolean {
  const bound = curvatureBound(loss) * (bias ? 2 : 1) + lambda;
  return lr * bound > STEP_CAP_TRIGGER * UNIT_NORM_SQ;
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
