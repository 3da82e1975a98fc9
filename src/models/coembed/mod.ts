/**
 * CoEmbed (Han et al., KDD 2018): multi-label learning from incomplete features and
 * positive-unlabeled labels by collaborative embedding, as ColEmbed-L and ColEmbed-NL.
 *
 * - `factory` / {@linkcode CoEmbedEstimator}: the streaming estimator (inductive predictor).
 * - {@linkcode fitCoEmbed} / {@linkcode CoEmbedFit}: the batch, transductive API (recovered label
 *   scores and reconstructed features of the training rows, explicit feature masks).
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * const m = factory.create({ seed: 1, numFeatures: 3, numLabels: 2, variant: "L" });
 * console.log(m.kind); // coembed
 * ```
 *
 * @module
 */
import type { EstimatorFactory } from "../estimator.ts";
import { coembedFactory } from "./estimator.ts";

export { type CoEmbedConfig, DEFAULT_CONFIG, resolveConfig } from "./config.ts";
export { CoEmbedEstimator } from "./estimator.ts";
export { COEMBED_FILE_KIND, CoEmbedLearner, predictorFileContent } from "./learner.ts";
export {
  type CoEmbedData,
  CoEmbedFit,
  FIT_SETTINGS,
  fitCoEmbed,
  type FitOptions,
  type RowUpdate,
} from "./fit.ts";
export { type PredictorTensors, RandomFeaturesPredictor } from "./predictor.ts";
export { CoEmbedReplica } from "./replica.ts";
export { COEMBED_SETTINGS, type CoEmbedOptions } from "./settings.ts";

/**
 * The CoEmbed estimator factory (kind "coembed").
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * console.log(factory.kind); // coembed
 * ```
 */
export const factory: EstimatorFactory = coembedFactory;
