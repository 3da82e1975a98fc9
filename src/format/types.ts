/**
 * The types of the model file the writer (./model_file.ts) takes. They are the contract's, so the
 * SDK defines them (sdk/model_file.ts) and this module re-exports them from the trainer's entry
 * into the SDK, sdk/internal.ts.
 *
 * @example
 * ```ts
 * import type { ModelFileContent } from "./types.ts";
 * const c: ModelFileContent = { kind: "linear-lowrank", numFeatures: 0, numLabels: 0, params: {}, tensors: {} };
 * console.log(c.kind); // linear-lowrank
 * ```
 *
 * @module
 */
export type {
  FeatureSpace,
  ModelFileContent,
  ModelKind,
  Preprocess,
  Tensor,
  TextSettings,
} from "../../sdk/internal.ts";
