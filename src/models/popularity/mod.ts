/**
 * The popularity baseline (kind "popularity"): {@linkcode PopularityEstimator} and its
 * {@linkcode factory}.
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * console.log(factory.create({}).kind); // "popularity"
 * ```
 *
 * @module
 */
import type { EstimatorFactory } from "../estimator.ts";
import { PopularityEstimator } from "./estimator.ts";
import { POPULARITY_SETTINGS } from "./settings.ts";

export { PopularityEstimator, type PopularityOptions } from "./estimator.ts";
export { POPULARITY_SETTINGS, type PopularitySettings } from "./settings.ts";

/**
 * Creates (options {@linkcode POPULARITY_SETTINGS}: `threshold`, `numFeatures`, `numLabels`;
 * the seed is unused; strings are parsed, an unknown key or a bad value is an error naming it)
 * and restores popularity estimators.
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * const a = factory.create({ numLabels: 2 });
 * console.log(factory.restore(a.toState()).numLabels); // 2
 * ```
 */
export const factory: EstimatorFactory = {
  kind: "popularity",
  settings: POPULARITY_SETTINGS,
  create: (options) => new PopularityEstimator(options),
  restore: (state) => PopularityEstimator.fromState(state),
};
