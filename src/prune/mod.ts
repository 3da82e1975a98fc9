/**
 * POP pruning (Wei and Li, AAAI 2019): the algorithms ({@linkcode pop}, Algorithms 1-2), POP on
 * model files ({@linkcode pruneModel}: binary relevance, and LEML through its product W·Hᵀ), the
 * BR training protocol with a held-out split ({@linkcode popBr}), and the size-vs-PSP@k curve
 * over ε and λ ({@linkcode popCurve}, {@linkcode curveSvg}).
 *
 * @example
 * ```ts
 * import { pop } from "./mod.ts";
 * const w = { numFeatures: 2, numLabels: 1, labelPtr: Int32Array.of(0, 2),
 *   featIdx: Int32Array.of(0, 1), values: Float32Array.of(1, 0.01) };
 * const rows = {
 *   x: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) },
 * };
 * console.log(pop(w, rows, [1], [0.5], { delta: 1 }).nnzAfter); // 1
 * ```
 *
 * @module
 */
export {
  applyPop,
  type CutCache,
  impactOrder,
  keepTopDelta,
  labelImpact,
  type LabelOptimization,
  labelOptimization,
  pop,
  type PopObserver,
  type PopOptions,
  type PopResult,
  type SearchRun,
  thresholdWeights,
} from "./pop.ts";
export {
  type BiasOrderMemo,
  biasOrderMemo,
  validationPsp,
  type ValidationRows,
} from "./validation.ts";
export { labelWeightsOfContent, lowRankProduct, rowPreprocessOfContent } from "./model_weights.ts";
export { resolveStorage, type StorageOptions } from "./storage.ts";
export { type PrunedModel, pruneModel, type PruneModelOptions } from "./prune_model.ts";
export { popBr, type PopBrOptions, type PopBrResult } from "./pop_br.ts";
export {
  type CurveOptions,
  type CurvePoint,
  curveSvg,
  type CurveSvgOptions,
  popCurve,
} from "./curve.ts";
