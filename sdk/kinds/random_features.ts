/**
 * SDK scorer of the `random-features` kind (the CoEmbed inductive predictor, see
 * docs/model-format.md). A deliberate copy of src/models/coembed/predictor.ts (the SDK imports
 * nothing from src/): same arithmetic in the same order, so scores equal the trainer's.
 *
 * score(x) = bias + (f(x̃) Q) Pᵀ with f = φ (NL: φ(x) = (1/√K)[cos(xW), sin(xW)]) or the identity
 * (L); x̃ is the row, or its fold-in u Vᵀ (u = ridge fit of the observed entries, λ_X) when the
 * input is "projected", or the row with its missing entries filled from the fold-in when the
 * input is "raw" and absent features are "missing". A fold-in whose λ_X is lost to rounding is
 * solved again with λ_X + 1e-8·trace(V_OᵀV_O), and a query t past norm 1e30 is scaled down to
 * it, as the trainer does (`retryRidge`, `QUERY_LIMIT`): every finite row gets finite scores.
 *
 * With the file's optional label index (`mipsCentroids`, `mipsOrder`, `mipsPtr`, optionally
 * spreads and groups, over the rows of P and bias), the scorer's `topK` scores only the labels of
 * the best `probes` leaves for t = f(x̃) Q (./mips_index.ts): exact scores, approximate top k.
 *
 * @module
 */
import { bad, floats, intParam } from "./tensors.ts";
import type { DecodedModel, KindFactory } from "./types.ts";
import { invNorm, matVec, max, sqrt, vecMat, zeros } from "../vector.ts";
import { indexedScorer } from "./mips_index.ts";

/**
 * Solves A x = b (A symmetric positive definite, n × n, row-major; only its lower triangle is
 * read) in place, `a` holding A's n rows then b (x replaces b): row-wise Cholesky A = LLᵀ, whose
 * row n (b) is the forward solve, then the back solve. The same arithmetic, entry by entry, as
 * the trainer's `solveSpd` (src/models/coembed/predictor.ts). False when a pivot times 1e12 is
 * not above its diagonal entry: A is numerically singular (or not finite).
 */
const solveSpd = (a: Float64Array, n: number): boolean => {
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= i && j < n; j++) {
      let s = a[i * n + j];
      for (let k = 0; k < j; k++) s -= a[i * n + k] * a[j * n + k];
      if (j < i) a[i * n + j] = s / a[j * n + j];
      else if (s * 1e12 > a[i * n + i]) a[i * n + i] = sqrt(s);
      else return false;
    }
  }
  for (let i = n; i--;) {
    let t = a[n * n + i];
    for (let k = i + 1; k < n; k++) t -= a[k * n + i] * a[n * n + k];
    a[n * n + i] = t / a[i * n + i];
  }
  return true;
};

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
 * console.log(scorer(Int32Array.of(0), Float32Array.of(2))); // Float32Array(2) [ 2, -2 ]
 * ```
 */
export const randomFeatures: KindFactory = (m: DecodedModel) => {
  const params = m.params;
  // whether the string param `name` is `b`; one of `a` and `b` (docs/model-format.md), else the
  // file is refused (an absent or unknown `absent` was served as "zero", `input` as "raw")
  const is = (name: string, a: string, b: string) =>
    params[name] === b || params[name] !== a && bad(m, `param "${name}" must be ${a} or ${b}`);
  const nl = is("variant", "L", "NL"), missing = is("absent", "zero", "missing");
  const project = is("input", "raw", "projected");
  const D = m.numFeatures, L = m.numLabels;
  const kS = intParam(m, "rankS"), kX = intParam(m, "rankX");
  const K = nl ? intParam(m, "numRff") : 0, F = nl ? 2 * K : D;
  const lambdaX = max(+params.lambdaX!, 0) || 1e-8;
  const W = nl && floats(m, "W", D * K);
  const Q = floats(m, "Q", F * kS), P = floats(m, "P", L * kS);
  const bias = floats(m, "bias", L), V = floats(m, "V", D * kX);
  const xt = zeros(D);
  const hBuf = zeros(F), tv = zeros(kS), rffScale = 1 / sqrt(K);
  const gram = zeros(kX * kX + kX), u = gram.subarray(kX * kX); // the ridge system [A; b]

  // t = f(x̃) Q: the query of the label vectors (rows of P)
  const embed = (indices: Int32Array, values: Float32Array | Float64Array, e = 0): Float64Array => {
    if (!nl && !project && !missing) {
      // x̃ = x and h = x̃ (L, raw, absent = zero): t = Σ x_j Q_j over the row's columns in
      // increasing order (the featurizer refuses any other order), the sums of the dense product
      // below without its O(D) passes
      vecMat(tv, values, Q, kS, indices);
    } else {
      // x̃: the row, its absent entries 0, or NaN while "missing"; completed or replaced by its
      // fold-in
      const observe = () => {
        for (let n = indices.length; n--;) xt[indices[n]] = values[n];
      };
      xt.fill(missing ? NaN : 0);
      observe();
      let h = xt, tr = 0; // tr: the trace of V_OᵀV_O
      if (project || xt.includes(NaN)) {
        // u = ridge fit of the observed entries (all entries, absent = 0, when not "missing"),
        // of (λ_X + e) I + V_OᵀV_O
        gram.fill(0);
        for (let k = kX; k--;) gram[k * kX + k] = lambdaX + e;
        for (let d = 0; d < D; d++) {
          const base = d * kX, x = xt[d];
          if (x !== x) continue;
          for (let k = 0; k < kX; k++) {
            const vk = V[base + k];
            u[k] += vk * x;
            tr += vk * vk;
            for (let l = 0; l <= k; l++) gram[k * kX + l] += vk * V[base + l];
          }
        }
        // numerically singular (λ_X lost to rounding beside V_OᵀV_O): again with e = 1e-8·tr, as
        // the trainer's predictor; still (A not finite): refused, as there
        if (!solveSpd(gram, kX)) {
          e ? bad(m, "fold-in failed") : embed(indices, values, 1e-8 * tr || 1);
        }
        // x̃ = u Vᵀ, keeping the observed entries of a "raw" row
        matVec(xt, V, u, kX);
        if (!project) observe();
      }
      if (W) {
        // h = φ(x̃): the angles x̃W in its first half, then (1/√K)[cos, sin] of them
        vecMat(h = hBuf, xt, W, K);
        for (let k = 0; k < K; k++) {
          h[K + k] = rffScale * Math.sin(h[k]);
          h[k] = rffScale * Math.cos(h[k]);
        }
      }
      vecMat(tv, h, Q, kS);
    }
    // t scaled down to a norm of 1e30 beyond it (the trainer's QUERY_LIMIT)
    const c = invNorm(tv, kS) * 1e30;
    return c < 1 ? tv.map((x) => x * c) : tv;
  };
  return indexedScorer(m, P, bias, kS, embed);
};
