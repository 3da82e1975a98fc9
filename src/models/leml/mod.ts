/**
 * LEML (Yu et al., ICML 2014): low-rank multi-label learning Z = W·Hᵀ with missing labels, as a
 * streaming estimator (`factory`, kind "leml") and a batch alternating-minimisation trainer.
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * const m = factory.create({ seed: 1, rank: 4 });
 * console.log(m.kind); // "leml"
 * ```
 *
 * @module
 */
import type { EstimatorFactory } from "../estimator.ts";
import { LemlStream } from "./stream.ts";
import { LemlBatch } from "./batch_estimator.ts";
import { LEML_BATCH_SETTINGS, LEML_SETTINGS } from "./settings.ts";
import { checkStateKind } from "../state_check.ts";

export { LemlStream } from "./stream.ts";
export {
  LEML_BATCH_SETTINGS,
  LEML_SETTINGS,
  type LemlBatchSettings,
  type LemlBatchSolverSettings,
  type LemlStreamConfig,
  type LemlStreamOptions,
  LOCAL_KEYS,
  resolveLemlStreamOptions,
} from "./settings.ts";
export type { LemlLoss } from "./loss.ts";

/**
 * Creates and restores streaming LEML estimators: `create` takes the options declared in
 * {@linkcode LEML_SETTINGS} (strings are parsed; an unknown key or a bad value is an error
 * naming it), `restore` validates the state's config the same way.
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * const a = factory.create({ seed: 3, numFeatures: 4, numLabels: 2 });
 * const b = factory.restore(a.toState());
 * console.log(b.numFeatures); // 4
 * ```
 */
export const factory: EstimatorFactory = {
  kind: "leml",
  settings: LEML_SETTINGS,
  create(options) {
    LEML_SETTINGS.checkUsed(options);
    return new LemlStream(options);
  },
  restore(state, options) {
    // (no state, or one of another kind, is refused before its config is read)
    checkStateKind(state, "leml", "leml.restore");
    return state.config?.trainer === "batch"
      ? LemlBatch.fromState(state)
      : LemlStream.fromState(state, options?.adopt ?? false);
  },
};

export { type LemlBatchOptions, type LemlFactors, trainLemlBatch } from "./batch.ts";
export { LemlBatch, type LemlBatchEstimatorOptions } from "./batch_estimator.ts";

/**
 * Creates and restores batch-trained LEML estimators: `learnMany` appends the rows and refits
 * by alternating minimisation, warm-started (see {@linkcode LemlBatch}).
 *
 * @example
 * ```ts
 * import { batchFactory } from "./mod.ts";
 * const m = batchFactory.create({ seed: 1, rank: 2, numFeatures: 3, numLabels: 2 });
 * console.log(m.kind, batchFactory.restore(m.toState()).numLabels); // "leml" 2
 * ```
 */
export const batchFactory: EstimatorFactory = {
  kind: "leml",
  settings: LEML_BATCH_SETTINGS,
  create: (options) => new LemlBatch(options),
  restore: (state) => LemlBatch.fromState(state),
};
export { revealEntries } from "./missing.ts";
