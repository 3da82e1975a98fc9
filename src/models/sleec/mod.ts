/**
 * SLEEC (Bhatia et al., NIPS 2015): sparse local embeddings for extreme multi-label
 * classification, kind "sleec". The batch trainer ({@linkcode trainSleec}, Algorithm 1 with an
 * ensemble over clustering seeds), the streaming estimator ({@linkcode SleecStream}: reservoirs,
 * Adam between periodic warm-started SVP refreshes) and the `knn-embedding` model file.
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * const m = factory.create({ seed: 1, rank: 8 });
 * console.log(m.kind); // "sleec"
 * ```
 *
 * @module
 */
import type { EstimatorFactory } from "../estimator.ts";
import { SLEEC_SETTINGS } from "./config.ts";
import { SleecStream } from "./stream.ts";
import { isSleecReplicaState, SleecReplica } from "./replica.ts";

export {
  DEFAULT_CONFIG,
  resolveConfig,
  SLEEC_SETTINGS,
  type SleecConfig,
  type SleecOptions,
} from "./config.ts";
export { labelLists, SleecModel, type SleecProgress, trainSleec } from "./batch.ts";
export { SleecStream, type SleecStreamOptions } from "./stream.ts";
export { SleecReplica } from "./replica.ts";
export { type KnnCluster, type KnnModel, KnnPredictor } from "./predictor.ts";
export { encodeKnnModel, knnModelContent, knnModelFromContent } from "./model_file.ts";

/**
 * Creates streaming SLEEC estimators (the options declared in {@linkcode SLEEC_SETTINGS}: any
 * {@linkcode SleecConfig} field plus `numFeatures`, `numLabels`; strings are parsed by the
 * declared kind, an unknown key or a bad value is an error naming it) and restores them from
 * their state.
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * const a = factory.create({ seed: 3, numLabels: 4, rank: "8" });
 * console.log(factory.restore(a.toState()).numLabels); // 4
 * ```
 */
export const factory: EstimatorFactory = {
  kind: "sleec",
  settings: SLEEC_SETTINGS,
  create(options) {
    SLEEC_SETTINGS.checkUsed(options);
    return new SleecStream(SLEEC_SETTINGS.parse(options));
  },
  restore: (state, options) =>
    isSleecReplicaState(state)
      ? SleecReplica.fromState(state, options?.adopt ?? false)
      : SleecStream.fromState(state),
};
