/**
 * Fixtures of the BR and POP tests: random label-major sparse weights.
 *
 * @module
 */
import type { LabelWeights } from "../../../src/models/label_weights.ts";
import { Rng } from "../../../src/random/mod.ts";

/**
 * Options of {@linkcode randomLabelWeights}.
 *
 * @example
 * ```ts
 * import type { RandomWeightsOptions } from "./helpers.ts";
 * const o: RandomWeightsOptions = { density: 0.5, scale: 0.2, bias: false };
 * console.log(o.density); // 0.5
 * ```
 */
export interface RandomWeightsOptions {
  /** Probability that a (label, feature) weight is present. */
  density: number;
  /** Factor on the standard normal weights (default 1). */
  scale?: number;
  /** Also draw one standard normal bias per label, after the weights (default true). */
  bias?: boolean;
}

/**
 * Random BR weights over `d` features and `l` labels, seeded: label by label, each feature's
 * weight is present with probability `density` and drawn as `scale` × a standard normal.
 *
 * @example
 * ```ts
 * import { randomLabelWeights } from "./helpers.ts";
 * const w = randomLabelWeights(10, 3, 1, { density: 0.3 });
 * console.log(w.labelPtr.length, w.bias?.length); // 4 3
 * ```
 */
export function randomLabelWeights(
  d: number,
  l: number,
  seed: number,
  options: RandomWeightsOptions,
): LabelWeights {
  const { density, scale = 1, bias = true } = options;
  const rng = new Rng(seed);
  const ptr = [0], fi: number[] = [], fv: number[] = [];
  for (let lab = 0; lab < l; lab++) {
    for (let j = 0; j < d; j++) {
      if (rng.next() < density) {
        fi.push(j);
        fv.push(rng.normal() * scale);
      }
    }
    ptr.push(fi.length);
  }
  const w: LabelWeights = {
    numFeatures: d,
    numLabels: l,
    labelPtr: Int32Array.from(ptr),
    featIdx: Int32Array.from(fi),
    values: Float32Array.from(fv),
  };
  return bias ? { ...w, bias: Float32Array.from({ length: l }, () => rng.normal()) } : w;
}
