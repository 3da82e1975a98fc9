/**
 * Binary relevance (one-vs-all linear models): the streaming estimator (`factory`, kind "br"),
 * the batch dual-coordinate-descent trainer ({@linkcode trainBr}), and the label-major sparse
 * weights POP prunes.
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../../data/types.ts";
import type { EstimatorFactory } from "../estimator.ts";
import { type BrConfig, BrEstimator } from "./estimator.ts";
import { type DcdOptions, trainDcd } from "./dcd.ts";
import { BR_SETTINGS } from "./settings.ts";
import { preprocessRows } from "../../data/preprocess.ts";
import { checkTrainingSet } from "../training_check.ts";

export { type BrConfig, BrEstimator } from "./estimator.ts";
export { BR_SETTINGS, type BrSettings } from "./settings.ts";
export { DCD_SETTINGS, type DcdOptions, type DcdSettings, trainDcd } from "./dcd.ts";
export { preprocessRows, type RowPreprocess } from "../../data/preprocess.ts";
// the label-major weights and the linear-sparse writer are shared by br, ova and POP (../);
// exported here as before, for the API's stability
export {
  fromFeatureMajor,
  type LabelWeights,
  linearSparseContent,
  nnzOf,
  roundWeights,
  scoreFeatureMajor,
  toFeatureMajor,
  validateLabelWeights,
} from "../label_weights.ts";
export {
  type FeatureMajor,
  linearSparseContentOf,
  type LinearSparseContentOptions,
} from "../linear_sparse_file.ts";

/**
 * Creates and restores streaming BR estimators (options: {@linkcode BR_SETTINGS}; strings are
 * parsed, an unknown key or a bad value is an error naming it).
 *
 * @example
 * ```ts
 * import { factory } from "./mod.ts";
 * const m = factory.create({ seed: 1, numFeatures: 3, numLabels: 2, loss: "logistic" });
 * console.log(m.kind, m.numLabels); // br 2
 * ```
 */
export const factory: EstimatorFactory = {
  kind: "br",
  settings: BR_SETTINGS,
  create(options) {
    BR_SETTINGS.checkUsed(options);
    return new BrEstimator(BR_SETTINGS.parse(options));
  },
  restore(state) {
    return BrEstimator.restore(state);
  },
};

/**
 * The paper's base model: trains one L2-regularised squared-hinge SVM per label by dual
 * coordinate descent ({@linkcode trainDcd}) and returns it as a {@linkcode BrEstimator}
 * (which can keep learning in streaming mode with `config`). With `config.l2Normalize` the rows
 * are scaled to unit L2 norm for training, and the model does the same when predicting.
 * The training set is checked first (a malformed row or an index beyond `numCols` is a
 * RangeError naming the row), then the options ({@linkcode DCD_SETTINGS}, the config
 * against `BR_SETTINGS`).
 *
 * @example
 * ```ts
 * import { trainBr } from "./mod.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2),
 *   indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const y = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) };
 * const m = trainBr(x, y);
 * console.log(m.predictTopK({ indices: Int32Array.of(1), values: Float32Array.of(1) }, 1).labels[0]); // 1
 * ```
 */
export function trainBr(
  x: CsrMatrix,
  y: BinaryCsr,
  options: DcdOptions = {},
  config: BrConfig = {},
): BrEstimator {
  checkTrainingSet(x, y, "trainBr");
  const rows = preprocessRows(x, { l2Normalize: config.l2Normalize });
  return BrEstimator.fromLabelWeights(trainDcd(rows, y, options), {
    seed: options.seed,
    ...config,
  });
}
