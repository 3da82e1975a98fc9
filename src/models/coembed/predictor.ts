/**
 * The CoEmbed inductive predictor on float32 tensors: exactly what the `random-features` model
 * file holds and what the SDK scorer (sdk/kinds/random_features.ts, a deliberate copy of this
 * routine) computes.
 *
 * score(x) = f(x̃) + bias with f = φ(x̃) Q Pᵀ (NL) or x̃ Q Pᵀ (L), where x̃ is the row itself when
 * the input is "raw" and the row is complete; the row with its missing entries filled from the
 * fold-in u = argmin ‖x_O − u V_Oᵀ‖² + λ_X‖u‖² (x̃_d = u·V_d) when "raw" and `absent` is
 * "missing"; and x̃ = u Vᵀ everywhere when the input is "projected" (O = the observed entries:
 * all of them when `absent` is "zero", the present ones when "missing"). Every finite row gets
 * finite scores: a fold-in whose λ_X is lost to rounding is solved again with a larger ridge
 * ({@linkcode retryRidge}), and a query t = f(x̃) Q past {@linkcode QUERY_LIMIT} is scaled down
 * to it.
 *
 * @module
 */
import { cosSinInto } from "../../linalg/rff.ts";
import { topKDense } from "../../../sdk/internal.ts";
import { FLOAT32_MAX } from "../../optim/limits.ts";

/**
 * Solves A x = b for a symmetric positive definite `n × n` matrix A (row-major, only its lower
 * triangle read) by Cholesky, overwriting A with its factor and writing x into `b`. (Not
 * `src/linalg/cholesky.ts`: this is the exact arithmetic, operation by operation, of the SDK's
 * copy in sdk/kinds/random_features.ts, so that the trainer and the SDK fold rows in
 * identically.) False, with `b` untouched and A's lower triangle partly overwritten, when a
 * pivot times 1e12 is not above its diagonal entry A_jj: A is then numerically singular (a
 * factorisation's rounding errors are about n·2⁻⁵³ times the diagonal, so such a pivot is
 * noise, and so would x be), or not finite. A fold-in's A = λ_X I + V_OᵀV_O has pivots of at
 * least λ_X, far above that unless V_OᵀV_O is so large that λ_X is lost to rounding (V fitted
 * to features near 1e20, a row observing fewer features than A has columns):
 * {@linkcode solveRidge} then solves it again with a larger ridge.
 *
 * @example
 * ```ts
 * import { solveSpd } from "./predictor.ts";
 * const a = Float64Array.of(4, 2, 2, 3), b = Float64Array.of(2, 1);
 * console.log(solveSpd(a, b, 2), b[0].toFixed(3), b[1].toFixed(3)); // true 0.500 0.000
 * // λ = 0.1 lost beside 1e20: 0.1·I + [1e20, 1e20; 1e20, 1e20] is singular in float64
 * console.log(solveSpd(Float64Array.of(1e20 + 0.1, 0, 1e20, 1e20 + 0.1), b, 2)); // false
 * ```
 */
export function solveSpd(a: Float64Array, b: Float64Array, n: number): boolean {
  for (let j = 0; j < n; j++) {
    let s = a[j * n + j];
    for (let k = 0; k < j; k++) s -= a[j * n + k] * a[j * n + k];
    if (!(s * 1e12 > a[j * n + j])) return false;
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
  return true;
}

/**
 * The extra ridge e a numerically singular fold-in system λ_X I + V_OᵀV_O is solved with again:
 * 1e-8 times `trace`, the trace of V_OᵀV_O (at least its largest diagonal entry). Every pivot of
 * (λ_X + e) I + V_OᵀV_O is at least e, far above the rounding errors (about n·2⁻⁵³ times the
 * largest diagonal entry), and its solution is finite and, to about 1e-7, the minimum-norm
 * least-squares fit that λ_X (lost to rounding) would have given. 1 when the trace is not a
 * number (V holds NaN: the second solve fails as well, and the fold-in is refused).
 *
 * @example
 * ```ts
 * import { retryRidge } from "./predictor.ts";
 * console.log(retryRidge(2e20), retryRidge(NaN)); // 2000000000000 1
 * ```
 */
export function retryRidge(trace: number): number {
  return 1e-8 * trace || 1;
}

/**
 * Solves the ridge system A x = b of a fold-in (A = λ_X I + V_OᵀV_O, only its lower triangle
 * read) in place: {@linkcode solveSpd}'s answer whenever A factors (bit for bit); when A is
 * numerically singular, the answer of A + e·I with e = {@linkcode retryRidge} of A's trace.
 * Returns e (0 when A factored). The fold-in of the streaming learner and the batch fit (the
 * predictor and the SDK rebuild their system with λ_X + e on the diagonal instead, e from the
 * trace of V_OᵀV_O, which the SDK computes as it builds the system).
 *
 * @throws {RangeError} when A + e·I does not factor either (A holds a value that is not finite).
 *
 * @example
 * ```ts
 * import { solveRidge } from "./predictor.ts";
 * // λ = 0.1 lost beside 1e20: x is the minimum-norm solution of x₀ + x₁ = 1e-10
 * const b = Float64Array.of(1e10, 1e10);
 * const e = solveRidge(Float64Array.of(1e20 + 0.1, 1e20, 1e20, 1e20 + 0.1), b, 2);
 * console.log(e, b.map((v) => +v.toPrecision(3))); // 2000000000000 Float64Array(2) [ 5e-11, 5e-11 ]
 * ```
 */
export function solveRidge(a: Float64Array, b: Float64Array, n: number): number {
  const a0 = a.slice();
  if (solveSpd(a, b, n)) return 0;
  let trace = 0;
  for (let k = 0; k < n; k++) trace += a0[k * n + k];
  const e = retryRidge(trace);
  for (let k = 0; k < n; k++) a0[k * n + k] += e;
  a.set(a0);
  if (solveSpd(a, b, n)) return e;
  throw new RangeError(
    `solveRidge: the fold-in system does not factor with a ridge of ${e} either (not finite?)`,
  );
}

/**
 * The largest norm ‖t‖ of a query t = f(x̃) Q that {@linkcode RandomFeaturesPredictor.query}
 * leaves as it is (1e30; the SDK's scorer uses the same): the scores bias_l + t·P_l of a trained
 * model (‖P_l‖ far below 3e8) then stay inside float32's range (3.4e38), and ordinary queries
 * are many orders of magnitude below it.
 *
 * @example
 * ```ts
 * import { QUERY_LIMIT } from "./predictor.ts";
 * console.log(QUERY_LIMIT); // 1e+30
 * ```
 */
export const QUERY_LIMIT = 1e30;

/**
 * The largest magnitude any finite query can score, label by label, for the inductive predictor
 * with these P `[numLabels, rankS]`, Q `[F, rankS]` and biases (float64 factors are taken as
 * the float32 values the model file stores): |bias_l| + T·‖P_l‖, with T the largest norm of a
 * query t = f(x̃) Q, which is {@linkcode QUERY_LIMIT} (ColEmbed-L: t grows with the row until it
 * is scaled down to that) or, for ColEmbed-NL, min(QUERY_LIMIT, ‖Q‖_F) (the random features have
 * norm 1). By Cauchy–Schwarz no score exceeds it, so when it is at most float32's largest value
 * every finite row scores finitely (the float64 sums' rounding is far below the half ulp that
 * rounds to float32's largest value). Returns the label with the largest bound and the bound
 * (label -1 and 0 without labels). One pass over P, bias and (NL) Q.
 *
 * @example
 * ```ts
 * import { worstScore } from "./predictor.ts";
 * const w = worstScore("L", 2, 1, Float32Array.of(1e-30, 1e9), new Float32Array(0), Float32Array.of(5, 0));
 * console.log(w.label, w.bound.toPrecision(3)); // 1 1.00e+39
 * ```
 */
export function worstScore(
  variant: "L" | "NL",
  numLabels: number,
  rankS: number,
  P: ArrayLike<number>,
  Q: ArrayLike<number>,
  bias: ArrayLike<number>,
): { label: number; bound: number } {
  let limit = QUERY_LIMIT;
  if (variant === "NL") {
    let qq = 0;
    for (let i = 0; i < Q.length; i++) qq += Math.fround(Q[i]) ** 2;
    limit = Math.min(limit, Math.sqrt(qq));
  }
  let label = -1, bound = 0;
  for (let j = 0; j < numLabels; j++) {
    let pp = 0;
    for (let s = j * rankS; s < (j + 1) * rankS; s++) pp += Math.fround(P[s]) ** 2;
    // NaN (a NaN factor) counts as unbounded
    const b = Math.abs(Math.fround(bias[j])) + limit * Math.sqrt(pp);
    if (!(b <= bound)) label = j, bound = Number.isNaN(b) ? Infinity : b;
  }
  return { label, bound };
}

/**
 * Why these factors cannot serve every finite row finitely: "label 3 can score ±1.20e+45" when
 * {@linkcode worstScore}'s bound passes float32's largest value, else undefined. The one check
 * that learning, restore and replicas apply.
 *
 * @example
 * ```ts
 * import { scoreOverflow } from "./predictor.ts";
 * const P = Float32Array.of(1, 1e9), none = new Float32Array(0), b = new Float32Array(2);
 * console.log(scoreOverflow("L", 2, 1, P, none, b)); // label 1 can score ±1.00e+39
 * console.log(scoreOverflow("L", 1, 1, P, none, b)); // undefined
 * ```
 */
export function scoreOverflow(
  variant: "L" | "NL",
  numLabels: number,
  rankS: number,
  P: ArrayLike<number>,
  Q: ArrayLike<number>,
  bias: ArrayLike<number>,
): string | undefined {
  const w = worstScore(variant, numLabels, rankS, P, Q, bias);
  return w.bound <= FLOAT32_MAX
    ? undefined
    : `label ${w.label} can score ±${w.bound.toPrecision(3)}`;
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
    // u = the ridge fit of the observed entries with (λ_X + e) I + V_OᵀV_O: e = 0, then, when
    // that is numerically singular, e = retryRidge(trace(V_OᵀV_O)) (the SDK's steps exactly)
    const A = this.gram, u = this.u, lam = t.lambdaX > 0 ? t.lambdaX : 1e-8;
    for (let e = 0;;) {
      A.fill(0);
      u.fill(0);
      let trace = 0;
      for (let k = 0; k < kX; k++) A[k * kX + k] = lam + e;
      for (let d = 0; d < D; d++) {
        if (present[d] === 0) continue;
        const base = d * kX, x = xt[d];
        for (let k = 0; k < kX; k++) {
          const vk = V[base + k];
          u[k] += vk * x;
          trace += vk * vk;
          for (let l = 0; l <= k; l++) A[k * kX + l] += vk * V[base + l];
        }
      }
      if (solveSpd(A, u, kX)) break;
      if (e !== 0) {
        throw new RangeError(
          `CoEmbed predictor: the fold-in does not factor with a ridge of ${e} either: V is ` +
            "not finite",
        );
      }
      e = retryRidge(trace);
    }
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
   * the first numLabels entries of `out` when given (a `RangeError` when it is shorter); returns
   * those numLabels entries.
   */
  scores(
    indices: ArrayLike<number>,
    values: ArrayLike<number>,
    out: Float32Array = new Float32Array(this.t.numLabels),
  ): Float32Array {
    const t = this.t, L = t.numLabels, kS = t.rankS;
    if (out.length < L) {
      throw new RangeError(`coembed.predictScores: out has length ${out.length}, need ${L}`);
    }
    const tv = this.query(indices, values), P = t.P;
    for (let j = 0; j < L; j++) {
      let z = t.bias[j];
      const base = j * kS;
      for (let s = 0; s < kS; s++) z += tv[s] * P[base + s];
      out[j] = z;
    }
    return out.length === L ? out : out.subarray(0, L);
  }

  /**
   * The query of the label rows for a sparse row: t = f(x̃) Q (length rankS; a scratch vector
   * the next call overwrites), so that score_l = bias_l + t·P_l, summed serially from the bias
   * in float64 and rounded to float32 ({@linkcode RandomFeaturesPredictor.scores}). A t whose
   * norm ‖t‖ exceeds {@linkcode QUERY_LIMIT} (ColEmbed-L, features near 1e30 or more: t grows
   * with them, and its scores overflowed float32 to ±Infinity) is multiplied by
   * (1/‖t‖)·QUERY_LIMIT: the query of the same direction at that size, whose ranking is the
   * row's own but for the biases, which a query that large outweighs anyway.
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
    const t = this.t, D = t.numFeatures, kS = t.rankS, n = indices.length;
    // a "raw" row with absent entries 0 and increasing indices is x̃ itself: its entries in
    // [0, D), in increasing order, are the nonzero terms of the dense sums below in the same
    // order, so the sums skip the O(D) completion and scan (as the SDK's scorer does)
    let sparse = t.input === "raw" && t.absent === "zero";
    for (let p = 1; sparse && p < n; p++) sparse = indices[p] > indices[p - 1];
    if (!sparse) this.complete(indices, values);
    const xt = this.xt, tv = this.tv, Q = t.Q;
    let h: Float64Array = xt;
    if (t.variant === "NL") {
      const K = t.numRff, W = t.W!, a = this.a;
      a.fill(0);
      if (sparse) {
        for (let p = 0; p < n; p++) addRow(a, values[p], W, indices[p], K, D);
      } else {
        for (let d = 0; d < D; d++) {
          const x = xt[d];
          if (x === 0) continue;
          const base = d * K;
          for (let k = 0; k < K; k++) a[k] += x * W[base + k];
        }
      }
      h = this.h;
      cosSinInto(a, K, h, 1 / Math.sqrt(K));
    }
    tv.fill(0);
    if (sparse && h === xt) {
      for (let p = 0; p < n; p++) addRow(tv, values[p], Q, indices[p], kS, D);
    } else {
      for (let f = 0; f < h.length; f++) {
        const hf = h[f];
        if (hf === 0) continue;
        const base = f * kS;
        for (let s = 0; s < kS; s++) tv[s] += hf * Q[base + s];
      }
    }
    // a query whose norm exceeds QUERY_LIMIT (ColEmbed-L, features near 1e30 and more) is
    // scaled down to it, so that its scores stay finite in float32
    let ss = 0;
    for (let s = 0; s < kS; s++) ss += tv[s] * tv[s];
    const c = (ss > 0 ? 1 / Math.sqrt(ss) : 0) * QUERY_LIMIT;
    if (c < 1) { for (let s = 0; s < kS; s++) tv[s] *= c; }
    return tv;
  }
}

/** acc += x · row `r` of `M` [·, width]; nothing when x is 0 or r is not an integer in [0, rows). */
function addRow(
  acc: Float64Array,
  x: number,
  M: Float32Array,
  r: number,
  width: number,
  rows: number,
): void {
  if (x === 0 || r >>> 0 !== r || r >= rows) return;
  const base = r * width;
  for (let k = 0; k < width; k++) acc[k] += x * M[base + k];
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
