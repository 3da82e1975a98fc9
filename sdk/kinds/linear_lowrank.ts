/**
 * SDK scorer of the `linear-lowrank` kind (LEML): score(x) = (xᵀW) Hᵀ + bias, with W [D, r] and
 * H [L, r] row-major. The same arithmetic as src/models/leml/lowrank.ts (float64 accumulation,
 * float32 scores), so scores equal the trainer's.
 *
 * With the file's optional label index (`mipsCentroids`, `mipsOrder`, `mipsPtr`, optionally
 * spreads and groups), the scorer's `topK` scores only the labels of the best `probes` leaves for
 * u = xᵀW (./mips_index.ts): exact scores, approximate top k; `probes` ≥ the number of leaves
 * scans every label.
 *
 * @module
 */
import { floats, intParam } from "./tensors.ts";
import type { KindFactory } from "./types.ts";
import { vecMat, zeros } from "../vector.ts";
import { indexedScorer } from "./mips_index.ts";

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
 * console.log(s(Int32Array.of(0), Float64Array.of(2))); // Float32Array(2) [ -2, 6 ]
 * ```
 */
export const linearLowrank: KindFactory = (m) => {
  const D = m.numFeatures, L = m.numLabels;
  const r = intParam(m, "rank");
  const W = floats(m, "W", D * r), H = floats(m, "H", L * r);
  const bias = floats(m, "bias", L, true);
  const u = zeros(r);
  return indexedScorer(m, H, bias, r, (i, v) => vecMat(u, v, W, r, i, 1, 0, true));
};
