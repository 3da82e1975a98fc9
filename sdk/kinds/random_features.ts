/**
 * SDK scorer of the `random-features` kind (the CoEmbed inductive predictor, see
 * docs/model-format.md). A deliberate copy of src/models/coembed/predictor.ts (the SDK imports
 * nothing from src/): same arithmetic in the same order, so scores equal the trainer's.
 *
 * score(x) = bias + (f(x̃) Q) Pᵀ with f = φ (NL: φ(x) = (1/√K)[cos(xW), sin(xW)]) or the identity
 * (L); x̃ is the row, or its fold-in u Vᵀ (u = ridge fit of the observed entries, λ_X) when the
 * input is "projected", or the row with its missing entries filled from the fold-in when the
 * input is "raw" and absent features are "missing".
 *
 * @module
 */
import { topK } from "../topk.ts";
import { bad, floats as f32, intParam } from "./tensors.ts";
import type { DecodedModel, KindFactory, KindScorer } from "./types.ts";

function solveSpd(a: Float64Array, b: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) {
    let s = a[j * n + j];
    for (let k = 0; k < j; k++) s -= a[j * n + k] * a[j * n + k];
    if (!(s > 0)) throw new RangeError("random-features: fold-in failed");
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
 * Builds the `random-features` scorer from a decoded model.
 *
 * @example
 * ```ts
 * import { randomFeatures } from "./random_features.ts";
 * const scorer = randomFeatures({
 *   kind: "random-features", formatVersion: 1, numFeatures: 2, numLabels: 2,
 *   params: { variant: "L", numRff: 0, rankS: 1, rankX: 1, lambdaX: 0.1, absent: "zero", input: "raw" },
 *   tensors: {
 *     Q: { shape: [2, 1], data: Float32Array.of(1, 0) },
 *     P: { shape: [2, 1], data: Float32Array.of(1, -1) },
 *     bias: { shape: [2], data: Float32Array.of(0, 0) },
 *     V: { shape: [2, 1], data: Float32Array.of(1, 1) },
 *   },
 * });
 * console.log(Array.from(scorer.topK(Int32Array.of(0), Float32Array.of(2), 1).labels)); // [0]
 * ```
 */
export const randomFeatures: KindFactory = (model: DecodedModel): KindScorer => {
  const variant = model.params.variant;
  if (variant !== "L" && variant !== "NL") bad(model, `param "variant"`);
  const absent = model.params.absent === "missing" ? "missing" : "zero";
  const project = model.params.input === "projected";
  const D = model.numFeatures, L = model.numLabels;
  const kS = intParam(model, "rankS", 1), kX = intParam(model, "rankX", 1);
  const K = variant === "NL" ? intParam(model, "numRff", 1) : 0;
  const lambdaX = Number(model.params.lambdaX ?? 0);
  const F = variant === "NL" ? 2 * K : D;
  const W = variant === "NL" ? f32(model, "W", D * K) : undefined;
  const Q = f32(model, "Q", F * kS), P = f32(model, "P", L * kS);
  const bias = f32(model, "bias", L), V = f32(model, "V", D * kX);
  const xt = new Float64Array(D), present = new Uint8Array(D);
  const a = new Float64Array(K), hBuf = new Float64Array(F), tv = new Float64Array(kS);
  const gram = new Float64Array(kX * kX), u = new Float64Array(kX);
  const scores = new Float32Array(L);

  const complete = (indices: Int32Array, values: Float32Array | Float64Array) => {
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
    if (!project) {
      if (absent !== "missing" || observed === D) return;
    } else if (absent === "zero") {
      present.fill(1);
    }
    gram.fill(0);
    u.fill(0);
    for (let k = 0; k < kX; k++) gram[k * kX + k] = lambdaX > 0 ? lambdaX : 1e-8;
    for (let d = 0; d < D; d++) {
      if (present[d] === 0) continue;
      const base = d * kX, x = xt[d];
      for (let k = 0; k < kX; k++) {
        const vk = V[base + k];
        u[k] += vk * x;
        for (let l = 0; l <= k; l++) gram[k * kX + l] += vk * V[base + l];
      }
    }
    for (let k = 0; k < kX; k++) {
      for (let l = k + 1; l < kX; l++) gram[k * kX + l] = gram[l * kX + k];
    }
    solveSpd(gram, u, kX);
    for (let d = 0; d < D; d++) {
      if (present[d] === 1 && !project) continue;
      const base = d * kX;
      let s = 0;
      for (let k = 0; k < kX; k++) s += u[k] * V[base + k];
      xt[d] = s;
    }
  };

  const score = (indices: Int32Array, values: Float32Array | Float64Array) => {
    complete(indices, values);
    let h: Float64Array;
    if (W) {
      a.fill(0);
      for (let d = 0; d < D; d++) {
        const x = xt[d];
        if (x === 0) continue;
        const base = d * K;
        for (let k = 0; k < K; k++) a[k] += x * W[base + k];
      }
      h = hBuf;
      const c = 1 / Math.sqrt(K);
      for (let k = 0; k < K; k++) {
        h[k] = c * Math.cos(a[k]);
        h[K + k] = c * Math.sin(a[k]);
      }
    } else {
      h = xt;
    }
    tv.fill(0);
    for (let f = 0; f < h.length; f++) {
      const hf = h[f];
      if (hf === 0) continue;
      const base = f * kS;
      for (let s = 0; s < kS; s++) tv[s] += hf * Q[base + s];
    }
    for (let j = 0; j < L; j++) {
      let z = bias[j];
      const base = j * kS;
      for (let s = 0; s < kS; s++) z += tv[s] * P[base + s];
      scores[j] = z;
    }
  };

  return {
    topK(indices, values, k) {
      score(indices, values);
      return topK(scores, L, k);
    },
  };
};
