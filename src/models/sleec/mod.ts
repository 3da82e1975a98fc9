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
import { DEFAULT_CONFIG } from "./config.ts";
import { SleecStream, type SleecStreamOptions } from "./stream.ts";
import { isSleecReplicaState, SleecReplica } from "./replica.ts";

export { DEFAULT_CONFIG, resolveConfig, type SleecConfig } from "./config.ts";
export { labelLists, SleecModel, type SleecProgress, trainSleec } from "./batch.ts";
export { SleecStream, type SleecStreamOptions } from "./stream.ts";
export { SleecReplica } from "./replica.ts";
export { type KnnCluster, type KnnModel, KnnPredictor } from "./predictor.ts";
export { encodeKnnModel, knnModelContent, knnModelFromContent } from "./model_file.ts";

/**
 * Turns command-line style option values (strings such as "32" or "false") into the types of
 * {@linkcode SleecConfig}; other values pass through unchanged (and are validated later).
 *
 * @example
 * ```ts
 * import { coerceOptions } from "./mod.ts";
 * console.log(coerceOptions({ rank: "32", weighted: "false", other: "x" })); // { rank: 32, weighted: false, other: "x" }
 * ```
 */
export function coerceOptions(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...options };
  const defaults = DEFAULT_CONFIG as unknown as Record<string, unknown>;
  for (const [key, v] of Object.entries(options)) {
    if (typeof v !== "string") continue;
    const want = key === "numFeatures" || key === "numLabels" ? "number" : typeof defaults[key];
    if (want === "number" && v.trim() !== "" && Number.isFinite(Number(v))) out[key] = Number(v);
    if (want === "boolean" && (v === "true" || v === "false")) out[key] = v === "true";
  }
  return out;
}

/**
 * Creates streaming SLEEC estimators (any {@linkcode SleecConfig} option, plus `seed`,
 * `numFeatures`, `numLabels`; string values are coerced) and restores them from their state.
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
  create: (options) => new SleecStream(coerceOptions(options) as SleecStreamOptions),
  restore: (state, options) =>
    isSleecReplicaState(state)
      ? SleecReplica.fromState(state, options?.adopt ?? false)
      : SleecStream.fromState(state),
};
