/**
 * The cosine k-nearest-neighbour baseline (kind "knn"): {@linkcode KnnEstimator} and its
 * {@linkcode factory}. Not exportable as a model file.
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * const m = factory.create({ k: 5 });
 * console.log(m.kind); // "knn"
 * ```
 *
 * @module
 */
import type { EstimatorFactory } from "../estimator.ts";
import { KnnEstimator } from "./estimator.ts";
import { KNN_SETTINGS } from "./settings.ts";

export { KnnEstimator, type KnnOptions } from "./estimator.ts";
export { CosineIndex, type Neighbours } from "./index.ts";
export { KNN_SETTINGS, type KnnSettings } from "./settings.ts";

/**
 * Creates (options {@linkcode KNN_SETTINGS}: `k`, `threshold`, `numFeatures`, `numLabels`; the
 * seed is unused: kNN is deterministic; strings are parsed, an unknown key or a bad value is an
 * error naming it) and restores kNN estimators.
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * const a = factory.create({ seed: 1, numLabels: 3 });
 * console.log(factory.restore(a.toState()).numLabels); // 3
 * ```
 */
export const factory: EstimatorFactory = {
  kind: "knn",
  settings: KNN_SETTINGS,
  create: (options) => new KnnEstimator(options),
  restore: (state) => KnnEstimator.fromState(state),
};
