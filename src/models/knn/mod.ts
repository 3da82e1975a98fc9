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

export { KnnEstimator, type KnnOptions } from "./estimator.ts";
export { CosineIndex, type Neighbours } from "./index.ts";

/**
 * Creates (options `k`, `threshold`, `numFeatures`, `numLabels`; the seed is unused: kNN is
 * deterministic) and restores kNN estimators.
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
  create: (options) =>
    new KnnEstimator({
      k: options.k === undefined ? undefined : Number(options.k),
      threshold: options.threshold === undefined ? undefined : Number(options.threshold),
      numFeatures: options.numFeatures,
      numLabels: options.numLabels,
    }),
  restore: (state) => KnnEstimator.fromState(state),
};
