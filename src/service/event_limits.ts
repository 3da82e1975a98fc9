/**
 * The bounds of the service's event parser: {@linkcode EventLimits} (key mode, sizes, line
 * length; saved in the checkpoint) and {@linkcode GrowthLimits} (how fast and how far a running
 * stream may grow the model; set by the service's flags).
 *
 * @module
 */
import type { FeatureKeys } from "../data/ndjson.ts";
import type { HashingOptions } from "../data/hashing.ts";
import type { TextSettings } from "../../sdk/mod.ts";

/**
 * Limits and key mode of `EventParser` (all optional).
 *
 * @example
 * ```ts
 * import type { EventLimits } from "./event_limits.ts";
 * const l: EventLimits = { featureKeys: "index", maxFeatures: 1 << 16, maxLineBytes: 1 << 16 };
 * console.log(l.maxFeatures); // 65536
 * ```
 */
export interface EventLimits {
  /**
   * `"index"` (default): keys are non-negative integer column indices; `"name"`: names (grown
   * into a vocabulary, or hashed with `hashing`).
   */
  featureKeys?: FeatureKeys;
  /**
   * Hash feature names into `dim` columns instead of growing a vocabulary (fixed memory for
   * open-ended names; implies and requires `featureKeys: "name"`). The model file then carries
   * the hashing parameters, so the SDK answers named queries the same way.
   */
  hashing?: HashingOptions;
  /** Largest feature-space size accepted (index bound, or vocabulary size). Default 2^20. */
  maxFeatures?: number;
  /** Largest label-space size accepted. Default 2^16. */
  maxLabels?: number;
  /** Longest accepted line in bytes. Default 65536. */
  maxLineBytes?: number;
  /** Longest feature or label name, in characters. Default 256. */
  maxNameLength?: number;
  /**
   * Read the events' `text` with this tokenizer (`sdk/tokenizer.ts`; needs name keys): its
   * words and n-grams become named features (beside `features`). The model file's feature
   * space carries the settings, so the SDK answers `{text}` queries the same way.
   */
  text?: TextSettings;
  /** Reject events with fields the parser does not know (default false: they are ignored). */
  strictFields?: boolean;
}

/**
 * Bounds on how fast and how far a stream may grow the model (the service's `--max-features`,
 * `--max-labels`, `--max-feature-growth`, `--max-new-labels`): an event over a bound is
 * rejected with a reason naming the flag, and nothing grows. Unlike {@linkcode EventLimits}
 * (saved in the checkpoint), they are set by the running service, so lowering a flag takes
 * effect after a restart. They apply to new events, not to the replay of events already
 * acknowledged.
 *
 * @example
 * ```ts
 * import type { GrowthLimits } from "./event_limits.ts";
 * const g: GrowthLimits = { maxFeatures: 1 << 18, maxFeatureGrowth: 1 << 17, maxNewLabels: 256 };
 * console.log(g.maxNewLabels); // 256
 * ```
 */
export interface GrowthLimits {
  /** Largest feature-space size: index bound, or feature vocabulary size (name keys). */
  maxFeatures?: number;
  /** Largest label vocabulary. */
  maxLabels?: number;
  /**
   * Index keys: the most columns one event may add beyond the feature space so far (the
   * largest index accepted + 1, or the model's width).
   */
  maxFeatureGrowth?: number;
  /** The most new label names one event may add. */
  maxNewLabels?: number;
}

/**
 * Why a line over `maxLineBytes` is rejected: the limit, and the flag of `tagstream train` and
 * `tagstream serve` that raises it (a long line is most often a long text, not a bad event).
 *
 * @example
 * ```ts
 * import { lineTooLong } from "./event_limits.ts";
 * console.log(lineTooLong(10)); // line is longer than 10 bytes (maxLineBytes; --max-line-bytes raises it)
 * ```
 */
export function lineTooLong(maxLineBytes: number): string {
  return `line is longer than ${maxLineBytes} bytes (maxLineBytes; --max-line-bytes raises it)`;
}
