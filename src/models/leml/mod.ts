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

export { LemlStream, type LemlStreamOptions } from "./stream.ts";
export type { LemlLoss } from "./loss.ts";

/**
 * Creates and restores streaming LEML estimators (see {@linkcode LemlStreamOptions}).
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
  create: (options) => new LemlStream(options),
  restore: (state) => LemlStream.fromState(state),
};
