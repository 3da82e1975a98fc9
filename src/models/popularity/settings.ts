/**
 * Settings of the popularity baseline (kind "popularity"), declared with defaults and ranges
 * ({@linkcode POPULARITY_SETTINGS}).
 *
 * @module
 */
import { defineSettings, type ModelSettings, SEED_SPEC, SIZE_SPECS } from "../settings.ts";
import { LIMIT_SPECS, type SpaceLimitSettings } from "../space_limits.ts";

/**
 * Options of the popularity factory (all optional).
 *
 * @example
 * ```ts
 * import type { PopularitySettings } from "./settings.ts";
 * const o: PopularitySettings = { threshold: 0.1 };
 * console.log(o.threshold); // 0.1
 * ```
 */
export interface PopularitySettings extends SpaceLimitSettings {
  /** Unused: popularity draws no random numbers (accepted so that every model takes a seed). */
  seed?: number;
  /** Frequency in [0, 1] above which a label counts as predicted (default 0.5). */
  threshold?: number;
  /** Initial feature-space size (default 0). */
  numFeatures?: number;
  /** Initial label-space size (default 0). */
  numLabels?: number;
}

/**
 * The declared options of the popularity baseline.
 *
 * @example
 * ```ts
 * import { POPULARITY_SETTINGS } from "./settings.ts";
 * console.log(POPULARITY_SETTINGS.resolve({}).threshold); // 0.5
 * ```
 */
export const POPULARITY_SETTINGS: ModelSettings<PopularitySettings> = defineSettings<
  PopularitySettings
>("popularity", {
  seed: { ...SEED_SPEC, doc: "Unused (popularity draws no random numbers)." },
  threshold: {
    kind: "number",
    default: 0.5,
    // a frequency: past [0, 1] the float32 scores lost the frequencies (1e9: all ties; 1e39: all
    // -Infinity, in the model file too)
    min: 0,
    max: 1,
    doc: "Frequency above which a label counts as predicted (score > 0).",
  },
  ...SIZE_SPECS,
  ...LIMIT_SPECS,
});
