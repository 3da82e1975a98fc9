/**
 * Sparse one-vs-all for extreme label spaces (kind "ova"): learning and prediction cost per
 * event independent of the number of labels (see {@linkcode OvaEstimator}).
 *
 * @module
 */
import type { EstimatorFactory } from "../estimator.ts";
import { OvaEstimator } from "./estimator.ts";
import { OVA_SETTINGS } from "./config.ts";

export { OvaEstimator, type OvaStats } from "./estimator.ts";
export {
  OVA_OPTION_NAMES,
  OVA_SETTINGS,
  type OvaConfig,
  type OvaOptions,
  resolveOvaConfig,
} from "./config.ts";
export { InvertedWeights } from "./inverted_weights.ts";

/**
 * Creates and restores "ova" estimators (options: {@linkcode OVA_SETTINGS}; strings are parsed,
 * an unknown key or a bad value is an error naming it).
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
  settings: OVA_SETTINGS,
  create(options) {
    OVA_SETTINGS.checkUsed(options);
    return new OvaEstimator(OVA_SETTINGS.parse(options));
  },
  restore(state) {
    return OvaEstimator.restore(state);
  },
};
