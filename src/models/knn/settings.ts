/**
 * Settings of the cosine k-nearest-neighbour baseline (kind "knn"), declared with defaults and
 * ranges ({@linkcode KNN_SETTINGS}).
 *
 * @module
 */
import { defineSettings, type ModelSettings, SEED_SPEC, SIZE_SPECS } from "../settings.ts";
import { LIMIT_SPECS, type SpaceLimitSettings } from "../space_limits.ts";

/**
 * Options of the kNN factory (all optional).
 *
 * @example
 * ```ts
 * import type { KnnSettings } from "./settings.ts";
 * const o: KnnSettings = { k: 5, threshold: 0.3 };
 * console.log(o.k); // 5
 * ```
 */
export interface KnnSettings extends SpaceLimitSettings {
  /** Unused: kNN is deterministic (accepted so that every model takes a seed). */
  seed?: number;
  /** Number of neighbours (default 10; while fewer rows are learnt, a query votes over all). */
  k?: number;
  /** Vote share above which a label counts as predicted (default 0.5). */
  threshold?: number;
  /** Initial feature-space size (default 0). */
  numFeatures?: number;
  /** Initial label-space size (default 0). */
  numLabels?: number;
}

/**
 * The declared options of the kNN baseline.
 *
 * @example
 * ```ts
 * import { KNN_SETTINGS } from "./settings.ts";
 * console.log(KNN_SETTINGS.resolve({ k: "3" }).k); // 3
 * ```
 */
export const KNN_SETTINGS: ModelSettings<KnnSettings> = defineSettings<KnnSettings>("knn", {
  seed: { ...SEED_SPEC, doc: "Unused (kNN is deterministic)." },
  k: {
    kind: "int",
    default: 10,
    min: 1,
    max: 1 << 20,
    doc: "Number of neighbours. While fewer rows are learnt, a query votes over all of them.",
  },
  threshold: {
    kind: "number",
    default: 0.5,
    // a vote share is in [0, 1]: past it nothing (or, below 0, every label, unvoted too) counts
    min: 0,
    max: 1,
    doc: "Vote share above which a label counts as predicted (score > 0).",
  },
  ...SIZE_SPECS,
  ...LIMIT_SPECS,
});
