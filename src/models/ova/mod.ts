/**
 * Sparse one-vs-all for extreme label spaces (kind "ova"): learning and prediction cost per
 * event independent of the number of labels (see {@linkcode OvaEstimator}).
 *
 * @module
 */
import type { EstimatorFactory } from "../estimator.ts";
import { OvaEstimator } from "./estimator.ts";

export { OvaEstimator, type OvaStats } from "./estimator.ts";
export { OVA_OPTION_NAMES, type OvaConfig, type OvaOptions, resolveOvaConfig } from "./config.ts";
export { InvertedWeights } from "./inverted_weights.ts";

/**
 * Creates and restores "ova" estimators (options: {@linkcode OvaOptions}).
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * const m = factory.create({ seed: 1, numFeatures: 3, numLabels: 2, hardNegatives: 4 });
 * console.log(m.kind, m.numLabels); // ova 2
 * ```
 */
export const factory: EstimatorFactory = {
  kind: "ova",
  create(options) {
    return new OvaEstimator(options);
  },
  restore(state) {
    return OvaEstimator.restore(state);
  },
};
