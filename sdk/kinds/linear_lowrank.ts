/**
 * SDK scorer of the `linear-lowrank` kind (LEML): score(x) = (xᵀW) Hᵀ + bias, with W [D, r] and
 * H [L, r] row-major. The same arithmetic as src/models/leml/lowrank.ts (float64 accumulation,
 * float32 scores), so scores equal the trainer's.
 *
 * @module
 */
import { topK } from "../topk.ts";
import { floats, intParam } from "./tensors.ts";
import type { KindFactory } from "./types.ts";

/**
 * Builds the `linear-lowrank` scorer.
 *
 * @example
 * ```ts
 * import { linearLowrank } from "./linear_lowrank.ts";
 * const s = linearLowrank({
 *   kind: "linear-lowrank", formatVersion: 1, numFeatures: 1, numLabels: 2, params: { rank: 1 },
 *   tensors: {
 *     W: { shape: [1, 1], data: Float32Array.of(1) },
 *     H: { shape: [2, 1], data: Float32Array.of(-1, 3) },
 *   },
 * });
 * console.log([...s.topK(Int32Array.of(0), Float64Array.of(2), 1).scores]); // [ 6 ]
 * ```
 */
export const linearLowrank: KindFactory = (m) => {
  const D = m.numFeatures, L = m.numLabels;
  const r = intParam(m, "rank", 1);
  const W = floats(m, "W", D * r), H = floats(m, "H", L * r);
  const bias = m.tensors.bias ? floats(m, "bias", L) : undefined;
  const u = new Float64Array(r), s = new Float32Array(L);
  return {
    topK(indices, values, k) {
      u.fill(0);
      for (let p = 0; p < indices.length; p++) {
        const v = values[p], base = indices[p] * r;
        for (let c = 0; c < r; c++) u[c] += v * W[base + c];
      }
      for (let l = 0; l < L; l++) {
        const base = l * r;
        let z = bias ? bias[l] : 0;
        for (let c = 0; c < r; c++) z += u[c] * H[base + c];
        s[l] = z;
      }
      return topK(s, L, k);
    },
  };
};
