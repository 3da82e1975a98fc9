/**
 * The step-size safeguard of streaming LEML's SGD on raw (not L2-normalised) rows (see
 * docs/deviations.md, LEML streaming).
 *
 * For a row x with latent row u = xᵀW, the W block's curvature scales with ‖x‖² and the H
 * block's with ‖u‖² (itself ∝ ‖x‖²): with raw count features a fixed `lr` overshoots, and the
 * scores blow up (to ±Infinity from about 1e6, silently). On a quadratic of curvature β along a
 * gradient step g (β = gᵀ∇²g/‖g‖²), the step lr·g lowers it only while lr·β < 2, and lands on the
 * minimum along g at lr·β = 1. The cap measures β of each block along the step the batch is
 * about to take (its Gauss-Newton curvature, with c the loss's curvature bound: 1 squared, ¼
 * logistic, 2 squared hinge, {@linkcode curvatureBound}; n rows, entry weights w):
 *
 * - W: β_W = (1/n) Σ_i t_iᵀ A_i t_i / ‖g_W‖² + λ with t_i = x_iᵀ g_W (the change of u_i per unit
 *   step) and A_i the curvature in u_i: HᵀH for the squared loss's Gram rows (the cached Gram in
 *   the local mode, which also bounds a masked row's subset of labels), c Σ_{entries l} w h_l h_lᵀ
 *   for explicit entries (t_iᵀ A_i t_i = Σ c w (h_l·t_i)², k per entry; with the squared loss
 *   also an entry at zero residual, whose gradient is 0 but whose curvature is not).
 *   O(nnz·k + n·k² + entries·k): about one more pass of the gradient, never L.
 * - [h_l; b_l]: β_H = Σ_l g_lᵀ B_l g_l / Σ_l ‖g_l‖² + λ over the touched labels' steps
 *   g_l = [∂h_l; ∂b_l], with B_l = (1/n) Σ [u_i; 1][u_i; 1]ᵀ of the Gram rows ({@linkcode
 *   latentMoment}, {@linkcode momentForm}; times the catch-up weight bound in the local mode,
 *   plus the masked rows' moment) and c w [u_i; 1][u_i; 1]ᵀ per explicit entry. A sampled
 *   negative (weight (L − positives)/draws) counts by its expectation instead: each label is a
 *   negative of about every sampled row with weight 1 on average, so all labels share
 *   c·λ_max((1/n) Σ_i [u_i; 1][u_i; 1]ᵀ) ({@linkcode symmetricTop}; of u_i alone without a
 *   bias, whose direction then does not move). Its own sampled term, up to
 *   L/draws times that, would cap nearly every step of the margin losses on real data while
 *   their one-sided losses do not oscillate on it (the overshoot of one sampled negative leaves
 *   it deeper on its target's side).
 *
 * A block whose lr·β exceeds {@linkcode STEP_CAP_TRIGGER} (2: the step would raise the batch's
 * loss along it) is scaled to lr·β = {@linkcode STEP_CAP_TARGET} (1: the minimum along the
 * step), {@linkcode stepScale}; below the trigger the step is not touched. Both blocks at
 * lr·β ≤ 1 keep the joint step a descent step (its Gauss-Newton curvature, rates included, is
 * at most lr_W·β_W + lr_H·β_H ≤ 2). The curvatures are exact along the step (no power
 * iteration, nothing to underestimate) except the sampled negatives' expectation; with SGD they
 * are computed for a batch with a row above unit norm ({@linkcode UNIT_NORM_SQ}; raw rows, as
 * `l2Normalize` scales every row to unit norm), and for a batch of unit rows only when the
 * settings are above the defaults ({@linkcode unitRowsNeedCap}). Unlike binary relevance's,
 * LEML's curvature has no bound on unit rows that does not depend on the model (β_W grows with
 * HᵀH, β_H with ‖u_i‖² = ‖x_iᵀW‖²), and a bound by the model (‖H‖_F², Σ‖u_i‖²) is past the
 * trigger at the defaults already (bibtex: lr·‖H‖_F² ≈ 2.6 at the start), so measuring by it
 * would make every default step cost one more gradient pass. The rule is by the settings
 * instead: at the default SGD rates (lr = lrH = 0.05), λ and initial scale, whose unit-row
 * training is this project's measured baseline, every unit batch is stepped exactly as without
 * the cap, bit for bit and at its cost; above them unit batches are measured too (at lr 2 on
 * unit rows the squared loss's scores ran to 1e24, at lr 10 to NaN).
 * With `l2Normalize` the curvature is that of the scaled rows, as learned. Adam is not capped
 * (its step is about lr whatever the gradient's scale).
 *
 * @module
 */
import type { LemlLoss } from "./loss.ts";
import type { LemlStreamConfig } from "./settings.ts";
import { STEP_CAP_TRIGGER, stepScale, UNIT_NORM_SQ } from "../../optim/step_cap.ts";

/** The SGD rate up to which unit batches are not measured: 0.05, the default (./settings.ts). */
const UNIT_RATE = 0.05;

/**
 * Whether SGD must also measure batches of unit rows (‖x_i‖² ≤ {@linkcode UNIT_NORM_SQ}): when
 * the rate of W (`lr`) or of H and the bias (`lrH`) is above the default 0.05, when the initial
 * H is larger than the default (`initScale` above 1/√rank: β_W grows with HᵀH, and at 10 with
 * rank 4 the squared loss's unit rows ran to 1e18), or when λ alone (a part of both blocks' β)
 * adds more than 2⁻⁹ to lr·β, the margin that the unit-norm test itself lets through (false at
 * the defaults for λ up to 0.039).
 *
 * @example
 * ```ts
 * import { unitRowsNeedCap } from "./step_cap.ts";
 * const c = { lr: 0.05, lrH: 0.05, lambda: 1e-4, initScale: 0.5, rank: 4 };
 * console.log(unitRowsNeedCap(c), unitRowsNeedCap({ ...c, lr: 2 }), unitRowsNeedCap({ ...c, lrH: 0.1 })); // false true true
 * console.log(unitRowsNeedCap({ ...c, lambda: 1 }), unitRowsNeedCap({ ...c, initScale: 10 })); // true true
 * ```
 */
export function unitRowsNeedCap(
  c: Pick<LemlStreamConfig, "lr" | "lrH" | "lambda" | "initScale" | "rank">,
): boolean {
  const r = Math.max(c.lr, c.lrH);
  return r > UNIT_RATE || r * c.lambda > STEP_CAP_TRIGGER * (UNIT_NORM_SQ - 1) ||
    c.initScale > 1 / Math.sqrt(c.rank);
}

/** Power iterations of a top-eigenvalue estimate ({@linkcode symmetricTop}). */
export const POWER_ITERATIONS = 8;

/**
 * The loss's global curvature bound c ≥ ∂²ℓ/∂z²: 1 (squared), ¼ (logistic), 2 (squared hinge).
 *
 * @example
 * ```ts
 * import { curvatureBound } from "./step_cap.ts";
 * console.log(curvatureBound("squared"), curvatureBound("logistic"), curvatureBound("sqhinge")); // 1 0.25 2
 * ```
 */
export function curvatureBound(loss: LemlLoss): number {
  return loss === "squared" ? 1 : loss === "logistic" ? 0.25 : 2;
}

/** The deterministic start of the power iterations: entry a of a vector (in [1, 2)). */
function start(a: number): number {
  return 1 + ((a * 0.6180339887498949) % 1);
}

/**
 * The top eigenvalue of the symmetric positive semidefinite d×d matrix `A` (row-major, both
 * triangles), by {@linkcode POWER_ITERATIONS} power iterations from a fixed start; never below
 * its largest diagonal entry. `v` and `w` are scratch of at least d.
 *
 * @example
 * ```ts
 * import { symmetricTop } from "./step_cap.ts";
 * const s = new Float64Array(2), t = new Float64Array(2);
 * console.log(symmetricTop(Float64Array.of(2, 1, 1, 2), 2, s, t).toFixed(6)); // 3.000000
 * ```
 */
export function symmetricTop(A: Float64Array, d: number, v: Float64Array, w: Float64Array): number {
  let est = 0;
  for (let a = 0; a < d; a++) {
    v[a] = start(a);
    if (A[a * d + a] > est) est = A[a * d + a];
  }
  for (let it = 0; it < POWER_ITERATIONS; it++) {
    let vv = 0, ww = 0;
    for (let a = 0; a < d; a++) {
      let t = 0;
      for (let b = 0; b < d; b++) t += A[a * d + b] * v[b];
      w[a] = t;
      vv += v[a] * v[a];
      ww += t * t;
    }
    if (!(ww > 0) || !(vv > 0)) break;
    const r = Math.sqrt(ww / vv);
    if (r > est) est = r;
    const f = 1 / Math.sqrt(ww);
    for (let a = 0; a < d; a++) v[a] = w[a] * f;
  }
  return est;
}

/**
 * Adds Σ_q [u_i; 1][u_i; 1]ᵀ over the rows i = rows[q], from ≤ q < to (u_i: row i of the
 * row-major `U` of rank k), into `M` ((k + 1)×(k + 1), row-major, both triangles) after zeroing
 * it; O((to − from)·k²).
 *
 * @example
 * ```ts
 * import { latentMoment } from "./step_cap.ts";
 * const M = new Float64Array(4);
 * latentMoment(Float64Array.of(2, 3), 1, Int32Array.of(0, 1), 0, 2, M);
 * console.log([...M]); // [ 13, 5, 5, 2 ]
 * ```
 */
export function latentMoment(
  U: Float64Array,
  k: number,
  rows: Int32Array,
  from: number,
  to: number,
  M: Float64Array,
  weight?: Float64Array,
): void {
  const d = k + 1;
  M.fill(0, 0, d * d);
  for (let q = from; q < to; q++) {
    const ub = rows[q] * k, r = weight === undefined ? 1 : weight[rows[q]];
    if (r === 0) continue;
    for (let a = 0; a < k; a++) {
      const ua = U[ub + a] * r;
      if (ua === 0) continue;
      for (let b = a; b < k; b++) M[a * d + b] += ua * U[ub + b];
      M[a * d + k] += ua;
    }
    M[k * d + k] += r;
  }
  for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) M[a * d + b] = M[b * d + a];
}

/**
 * gᵀ M g for g = [h; b] with h = `g[off .. off + k)` and b = `gb`, M as from
 * {@linkcode latentMoment}; O(k²).
 *
 * @example
 * ```ts
 * import { momentForm } from "./step_cap.ts";
 * console.log(momentForm(Float64Array.of(13, 5, 5, 2), 1, Float64Array.of(1), 0, 1)); // 25
 * ```
 */
export function momentForm(
  M: Float64Array,
  k: number,
  g: Float64Array,
  off: number,
  gb: number,
): number {
  const d = k + 1;
  let r = gb * gb * M[k * d + k];
  for (let a = 0; a < k; a++) {
    const ga = g[off + a];
    if (ga === 0) continue;
    let s = 2 * gb * M[a * d + k];
    for (let b = 0; b < k; b++) s += M[a * d + b] * g[off + b];
    r += ga * s;
  }
  return r;
}

/**
 * The curvatures along one step of its blocks (see the module doc); `active` is false with Adam,
 * and with SGD when no row of the batch exceeds {@linkcode UNIT_NORM_SQ} and the rates need no
 * measuring on unit rows ({@linkcode unitRowsNeedCap}): the step is then not capped and the
 * curvatures are not computed.
 *
 * @example
 * ```ts
 * import { StepCurvature } from "./step_cap.ts";
 * const c = new StepCurvature();
 * console.log(c.active, c.scaleW(0.05), c.scaleH(0.05)); // false 1 1
 * ```
 */
export class StepCurvature {
  /** Whether the step may be capped (SGD; a row above unit norm, or rates above the default). */
  active = false;
  /** β of the W block: its Gauss-Newton curvature along the W step. */
  betaW = 0;
  /** β of the [h_l; b_l] blocks: their curvature along the H and bias step. */
  betaH = 0;

  /**
   * The factor of the W step at rate `lr` (1 when inactive).
   *
   * @example
   * ```ts
   * import { StepCurvature } from "./step_cap.ts";
   * const c = new StepCurvature();
   * c.active = true;
   * c.betaW = 1e4;
   * console.log(c.scaleW(0.05)); // 0.002
   * ```
   */
  scaleW(lr: number): number {
    return this.active ? stepScale(lr, this.betaW) : 1;
  }

  /**
   * The factor of the H and bias step at rate `lr` (1 when inactive).
   *
   * @example
   * ```ts
   * import { StepCurvature } from "./step_cap.ts";
   * const c = new StepCurvature();
   * c.active = true;
   * c.betaH = 80;
   * console.log(c.scaleH(0.05)); // 0.25
   * ```
   */
  scaleH(lr: number): number {
    return this.active ? stepScale(lr, this.betaH) : 1;
  }
}
