/**
 * Evaluation metrics for extreme multi-label learning (Extreme Classification Repository
 * conventions): P@k, nDCG@k, PSP@k, PSnDCG@k, Hamming loss, per-instance and macro AUC, label
 * coverage, propensities, and the one-pass {@linkcode evaluateModel}.
 *
 * @example
 * ```ts
 * import { PrecisionAtK, propensities } from "./mod.ts";
 * const p = new PrecisionAtK([1]);
 * p.add(Int32Array.of(3), Int32Array.of(3));
 * console.log(p.result()["P@1"], propensities([5], 10).length); // 100 1
 * ```
 *
 * @module
 */
export { propensities } from "./propensity.ts";
export { PspAtK } from "./psp.ts";
export { PrecisionAtK } from "./precision.ts";
export { inversePropensities, normaliseKs } from "./relevance.ts";
export { NdcgAtK } from "./ndcg.ts";
export { PsNdcgAtK } from "./psndcg.ts";
export { HammingLoss } from "./hamming.ts";
export { InstanceAuc } from "./instance_auc.ts";
export { MacroAuc } from "./macro_auc.ts";
export { LabelCoverage } from "./coverage.ts";
export { pairAuc } from "./auc.ts";
export { topKDense, topKSparse } from "../../sdk/internal.ts";
export {
  prequential,
  type PrequentialOptions,
  PrequentialP1,
  type PrequentialPoint,
} from "./prequential.ts";
export {
  evaluateModel,
  type EvaluateModelOptions,
  Evaluator,
  type EvaluatorOptions,
  type LabelledRows,
  reportedKs,
  type ScoringModel,
} from "./evaluate.ts";
