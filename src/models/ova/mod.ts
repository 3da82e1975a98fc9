/**
 * Sparse one-vs-all for extreme label spaces (kind "ova"): learning and prediction cost per
 * event independent of the number of labels (see {@linkcode OvaEstimator}).
 *
 * @module
 */
import type { EstimatorFactory, ModelState } from "../estimator.ts";
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
export const factory: EstimatorFactory & {
  /**
   * {@linkcode OvaEstimator.restoreSteps}: a restore in steps (the serving thread's replica).
   * Its `restores` is the `restore` it steps through: a factory that replaces `restore` (a
   * wrapper spreading this one) is restored in one step by its own.
   */
  restoreSteps: RestoreSteps;
} = {
  kind: "ova",
  settings: OVA_SETTINGS,
  create(options) {
    OVA_SETTINGS.checkUsed(options);
    return new OvaEstimator(OVA_SETTINGS.parse(options));
  },
  restore,
  restoreSteps: Object.assign(
    (state: ModelState, step?: number) => OvaEstimator.restoreSteps(state, step),
    { restores: restore },
  ),
};

/** A restore in steps, and the one-step restore it mirrors. */
type RestoreSteps = ((state: ModelState, step?: number) => Generator<void, OvaEstimator, void>) & {
  restores: EstimatorFactory["restore"];
};

function restore(state: ModelState): OvaEstimator {
  return OvaEstimator.restore(state);
}
