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

export { PopularityEstimator, type PopularityOptions } from "./estimator.ts";

/**
 * Creates (options `threshold`, `numFeatures`, `numLabels`; the seed is unused) and restores
 * popularity estimators.
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
  create: (options) =>
    new PopularityEstimator({
      threshold: options.threshold === undefined ? undefined : Number(options.threshold),
      numFeatures: options.numFeatures,
      numLabels: options.numLabels,
    }),
  restore: (state) => PopularityEstimator.fromState(state),
};
