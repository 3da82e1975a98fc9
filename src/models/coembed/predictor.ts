/**
 * The CoEmbed inductive predictor on float32 tensors: exactly what the `random-features` model
 * file holds and what the SDK scorer (sdk/kinds/random_features.ts, a deliberate copy of this
 * routine) computes.
 *
 * score(x) = f(x̃) + bias with f = φ(x̃) Q Pᵀ (NL) or x̃ Q Pᵀ (L), where x̃ is the row itself when
 * the input is "raw" and the row is complete; the row with its missing entries filled from the
 * fold-in u = argmin ‖x_O − u V_Oᵀ‖² + λ_X‖u‖² (x̃_d = u·V_d) when "raw" and `absent` is
 * "missing"; and x̃ = u Vᵀ everywhere when the input is "projected" (O = the observed entries:
 * all of them when `absent` is "zero", the present ones when "missing").
 *
 * @module
 */
import { cosSinInto } from "../../linalg/rff.ts";
import { topKDense } from "../../../sdk/internal.ts";

/**
 * Solves A x = b for a symmetric positive definite `n × n` matrix A (row-major) by Cholesky,
 * overwriting A with its factor and writing x into `b`. (Not `src/linalg/cholesky.ts`: this is
 * the exact arithmetic, operation by operation, of the SDK's copy in
 * sdk/kinds/random_features.ts, so that the trainer and the SDK fold rows in identically.)
 *
 * @example
 * ```ts
 * import { solveSpd } from "./predictor.ts";
 * const a = Float64Array.of(4, 2, 2, 3), b = Float64Array.of(2, 1);
 * solveSpd(a, b, 2);
 * console.log(b[0].toFixed(3), b[1].toFixed(3)); // 0.500 0.000
 * ```
 */
export function solveSpd(a: Float64Array, b: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) {
    let s = a[j * n + j];
    for (let k = 0; k < j; k++) s -= a[j * n + k] * a[j * n + k];
    if (!(s > 0)) throw new RangeError(`solveSpd: matrix is not positive definite at pivot ${j}`);
    const l = Math.sqrt(s);
    a[j * n + j] = l;
    for (let i = j + 1; i < n; i++) {
      let t = a[i * n + j];
      for (let k = 0; k < j; k++) t -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = t / l;
    }
  }
  for (let i = 0; i < n; i++) {
    let t = b[i];
    for (let k = 0; k < i; k++) t -= a[i * n + k] * b[k];
    b[i] = t / a[i * n + i];
  }
  for (let i = n - 1; i >= 0; i--) {
    let t = b[i];
    for (let k = i + 1; k < n; k++) t -= a[k * n + i] * b[k];
    b[i] = t / a[i * n + i];
  }
}

/**
 * Tensors and parameters of the inductive predictor (the content of a `random-features` file).
 *
 * @example
 * ```ts
 * import type { PredictorTensors } from "./predictor.ts";
 * const t: PredictorTensors = {
 *   variant: "L", numFeatures: 1, numLabels: 1, rankS: 1, rankX: 1, numRff: 0, lambdaX: 0.1,
 *   absent: "zero", input: "raw", Q: Float32Array.of(1), P: Float32Array.of(2), bias: Float32Array.of(0),
 *   V: Float32Array.of(1),
 * };
 * console.log(t.variant);
 * ```
 */
export interface PredictorTensors {
  variant: "L" | "NL";
  numFeatures: number;
  numLabels: number;
  rankS: number;
  rankX: number;
  /** K (0 for the L variant). */
  numRff: number;
  lambdaX: number;
  absent: "zero" | "missing";
  /** "projected": score x̃ = u Vᵀ (ridge fold-in of the observed entries); "raw": the row. */
  input: "projected" | "raw";
  /** RFF directions `[D, K]` (NL only). */
  W?: Float32Array;
  /** `[F, rankS]` with F = 2K (NL) or D (L). */
  Q: Float32Array;
  /** `[L, rankS]`. */
  P: Float32Array;
  /** `[L]`. */
  bias: Float32Array;
  /** `[D, rankX]` feature factors used to fold in rows with missing features. */
  V: Float32Array;
}

/**
 * Scores rows with the inductive predictor; preallocates its work buffers, never mutates the
 * tensors.
 *
 * @example
 * ```ts
 * import { RandomFeaturesPredictor } from "./predictor.ts";
 * const p = new RandomFeaturesPredictor({
 *   variant: "L", numFeatures: 2, numLabels: 2, rankS: 1, rankX: 1, numRff: 0, lambdaX: 0.1,
 *   absent: "zero", input: "raw", Q: Float32Array.of(1, 0), P: Float32Array.of(1, -1),
 *   bias: Float32Array.of(0, 0), V: Float32Array.of(1, 1),
 * });
 * console.log(Array.from(p.scores(Int32Array.of(0), Float32Array.of(2)))); // [2, -2]
 * ```
 */
export class RandomFeaturesPredictor {
  readonly t: PredictorTensors;
  private readonly xt: Float64Array;
  private readonly present: Uint8Array;
  private readonly a: Float64Array;
  private readonly h: Float64Array;
  private readonly tv: Float64Array;
  private readonly gram: Float64Array;
  private readonly u: Float64Array;

  constructor(t: PredictorTensors) {
    const D = t.numFeatures, K = t.numRff, F = t.variant === "NL" ? 2 * K : D;
    if (t.variant === "NL" && (!t.W || t.W.length !== D * K)) {
      throw new RangeError(`random-features predictor: W must have ${D} × ${K} entries`);
    }
    if (t.Q.length !== F * t.rankS) {
      throw new RangeError(`random-features predictor: Q must have ${F} × ${t.rankS} entries`);
    }
    if (t.P.length !== t.numLabels * t.rankS) {
      throw new RangeError(
        `random-features predictor: P must have ${t.numLabels} × ${t.rankS} entries`,
      );
    }
    if (t.bias.length !== t.numLabels) {
      throw new RangeError(`random-features predictor: bias must have ${t.numLabels} entries`);
    }
    if (t.V.length !== D * t.rankX) {
      throw new RangeError(`random-features predictor: V must have ${D} × ${t.rankX} entries`);
    }
    this.t = t;
    this.xt = new Float64Array(D);
    this.present = new Uint8Array(D);
    this.a = new Float64Array(K);
    this.h = new Float64Array(F);
    this.tv = new Float64Array(t.rankS);
    this.gram = new Float64Array(t.rankX * t.rankX);
    this.u = new Float64Array(t.rankX);
  }

  /** Fills `xt` with the completed row (see the module doc). */
  private complete(indices: ArrayLike<number>, values: ArrayLike<number>): void {
    const t = this.t, D = t.numFeatures, kX = t.rankX, V = t.V;
    const xt = this.xt, present = this.present;
    xt.fill(0);
    present.fill(0);
    let observed = 0;
    for (let n = 0; n < indices.length; n++) {
      const d = indices[n];
      if (d >= 0 && d < D && present[d] === 0) {
        xt[d] = values[n];
        present[d] = 1;
        observed++;
      }
    }
    const project = t.input === "projected";
    if (!project) {
      if (t.absent !== "missing" || observed === D) return;
    } else if (t.absent === "zero") {
      present.fill(1);
    }
    const A = this.gram, u = this.u;
    A.fill(0);
    u.fill(0);
    for (let k = 0; k < kX; k++) A[k * kX + k] = t.lambdaX > 0 ? t.lambdaX : 1e-8;
    for (let d = 0; d < D; d++) {
      if (present[d] === 0) continue;
      const base = d * kX, x = xt[d];
      for (let k = 0; k < kX; k++) {
        const vk = V[base + k];
        u[k] += vk * x;
        for (let l = 0; l <= k; l++) A[k * kX + l] += vk * V[base + l];
      }
    }
    for (let k = 0; k < kX; k++) for (let l = k + 1; l < kX; l++) A[k * kX + l] = A[l * kX + k];
    solveSpd(A, u, kX);
    for (let d = 0; d < D; d++) {
      if (present[d] === 1 && !project) continue;
      const base = d * kX;
      let s = 0;
      for (let k = 0; k < kX; k++) s += u[k] * V[base + k];
      xt[d] = s;
    }
  }

  /**
   * Scores of every label for a sparse row (indices ≥ numFeatures are ignored), written into
   * `out` when given (a `RangeError` when it is shorter than numLabels).
   */
  scores(
    indices: ArrayLike<number>,
    values: ArrayLike<number>,
    out: Float32Array = new Float32Array(this.t.numLabels),
  ): Float32Array {
    const t = this.t, L = t.numLabels, kS = t.rankS;
    if (out.length < L) {
      throw new RangeError(`CoEmbed predictScores: out has ${out.length} entries, need ${L}`);
    }
    const tv = this.query(indices, values), P = t.P;
    for (let j = 0; j < L; j++) {
      let z = t.bias[j];
      const base = j * kS;
      for (let s = 0; s < kS; s++) z += tv[s] * P[base + s];
      out[j] = z;
    }
    return out;
  }

  /**
   * The query of the label rows for a sparse row: t = f(x̃) Q (length rankS; a scratch vector
   * the next call overwrites), so that score_l = bias_l + t·P_l, summed serially from the bias
   * in float64 and rounded to float32 ({@linkcode RandomFeaturesPredictor.scores}).
   *
   * @example
   * ```ts
   * import { RandomFeaturesPredictor } from "./predictor.ts";
   * const p = new RandomFeaturesPredictor({
   *   variant: "L", numFeatures: 2, numLabels: 2, rankS: 1, rankX: 1, numRff: 0, lambdaX: 0.1,
   *   absent: "zero", input: "raw", Q: Float32Array.of(3, 0), P: Float32Array.of(1, -1),
   *   bias: Float32Array.of(0, 0), V: Float32Array.of(1, 1),
   * });
   * console.log(p.query(Int32Array.of(0), Float32Array.of(2))); // Float64Array(1) [ 6 ]
   * ```
   */
  query(indices: ArrayLike<number>, values: ArrayLike<number>): Float64Array {
    const t = this.t, D = t.numFeatures, kS = t.rankS;
    this.complete(indices, values);
    const xt = this.xt;
    let h: Float64Array;
    if (t.variant === "NL") {
      const K = t.numRff, W = t.W!, a = this.a;
      a.fill(0);
      for (let d = 0; d < D; d++) {
        const x = xt[d];
        if (x === 0) continue;
        const base = d * K;
        for (let k = 0; k < K; k++) a[k] += x * W[base + k];
      }
      h = this.h;
      cosSinInto(a, K, h, 1 / Math.sqrt(K));
    } else {
      h = xt;
    }
    const tv = this.tv, Q = t.Q;
    tv.fill(0);
    for (let f = 0; f < h.length; f++) {
      const hf = h[f];
      if (hf === 0) continue;
      const base = f * kS;
      for (let s = 0; s < kS; s++) tv[s] += hf * Q[base + s];
    }
    return tv;
  }
}

/**
 * The k best labels of a score vector: decreasing score, ties broken by the smaller index (the
 * project's `topKDense`; a negative or fractional k is floored at 0).
 *
 * @example
 * ```ts
 * import { topKOf } from "./predictor.ts";
 * console.log(Array.from(topKOf(Float32Array.of(1, 3, 3, 0), 2).labels)); // [1, 2]
 * ```
 */
export function topKOf(
  scores: Float32Array,
  k: number,
): { labels: Int32Array; scores: Float32Array } {
  return topKDense(scores, Math.max(0, Math.floor(k)));
}
