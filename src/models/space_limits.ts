/**
 * How far a streaming model may grow: every model declares `maxFeatures` and `maxLabels`
 * ({@linkcode LIMIT_SPECS}), and its `learnMany` refuses, before it changes anything, a batch
 * with a feature or label index at or past them (`checkBatch` with the limits), so that one
 * stray index such as label 10⁹ is a RangeError naming the row and the setting, not gigabytes
 * allocated or a process killed for want of memory.
 *
 * The defaults (2²⁴ features, 2²¹ labels) hold a hashed feature space of 24 bits and a
 * million labels with room to spare; a user with more raises them. The learning service and
 * `tagstream train` create their models without a limit ({@linkcode UNLIMITED}): their growth
 * guard (`--max-features`, `--max-labels`) decides there, and can be raised on a restart. A
 * checkpoint written before the limits existed restores without a limit too
 * ({@linkcode withStoredLimits}), as it grew before.
 *
 * @module
 */
import type { SpaceLimits } from "../data/batch_check.ts";
import { parseSetting, type SettingSpec } from "./settings.ts";

/** The largest limit: every non-negative Int32 index but the last is below it. */
const MAX_LIMIT = 2 ** 31 - 1;

/**
 * The default limits: 2²⁴ features, 2²¹ labels.
 *
 * @example
 * ```ts
 * import { DEFAULT_LIMITS } from "./space_limits.ts";
 * console.log(DEFAULT_LIMITS.maxFeatures); // 16777216
 * ```
 */
export const DEFAULT_LIMITS: SpaceLimits = Object.freeze({
  maxFeatures: 2 ** 24,
  maxLabels: 2 ** 21,
});

/**
 * Limits that refuse nothing a `Batch` can hold, for callers with their own guard.
 *
 * @example
 * ```ts
 * import { UNLIMITED } from "./space_limits.ts";
 * console.log(UNLIMITED.maxLabels); // 2147483647
 * ```
 */
export const UNLIMITED: SpaceLimits = Object.freeze({
  maxFeatures: MAX_LIMIT,
  maxLabels: MAX_LIMIT,
});

/**
 * The growth-limit options every model takes (see {@linkcode LIMIT_SPECS} for their defaults).
 *
 * @example
 * ```ts
 * import type { SpaceLimitSettings } from "./space_limits.ts";
 * const o: SpaceLimitSettings = { maxLabels: 4_000_000 };
 * console.log(o.maxLabels); // 4000000
 * ```
 */
export interface SpaceLimitSettings {
  /** Largest feature space the model grows to (default 2^24): a row past it is refused. */
  maxFeatures?: number;
  /** Largest label space the model grows to (default 2^21): a row past it is refused. */
  maxLabels?: number;
}

/**
 * The declarations of the growth limits every model takes, to spread into its specs beside
 * `SIZE_SPECS`.
 *
 * @example
 * ```ts
 * import { defineSettings } from "./settings.ts";
 * import { LIMIT_SPECS } from "./space_limits.ts";
 * const S = defineSettings<{ maxFeatures: number; maxLabels: number }>("toy", { ...LIMIT_SPECS });
 * console.log(S.resolve({ maxLabels: "1000" })); // { maxFeatures: 16777216, maxLabels: 1000 }
 * ```
 */
export const LIMIT_SPECS: {
  readonly maxFeatures: SettingSpec;
  readonly maxLabels: SettingSpec;
} = Object.freeze({
  maxFeatures: {
    kind: "int",
    default: DEFAULT_LIMITS.maxFeatures,
    min: 1,
    max: MAX_LIMIT,
    doc: "Largest feature space the model grows to: a row with a feature index at or past it " +
      "is refused.",
  },
  maxLabels: {
    kind: "int",
    default: DEFAULT_LIMITS.maxLabels,
    min: 1,
    max: MAX_LIMIT,
    doc: "Largest label space the model grows to: a row with a label index at or past it is " +
      "refused.",
  },
});

/**
 * The limits of resolved settings, after checking that the initial sizes are within them: a
 * RangeError names the model, the size and the limit to raise.
 *
 * @example
 * ```ts
 * import { spaceLimits } from "./space_limits.ts";
 * console.log(spaceLimits("toy", { numLabels: 5, maxFeatures: 10, maxLabels: 8 }));
 * // { maxFeatures: 10, maxLabels: 8 }
 * try {
 *   spaceLimits("toy", { numLabels: 9, maxFeatures: 10, maxLabels: 8 });
 * } catch (e) {
 *   console.log((e as Error).message); // toy: numLabels 9 is above maxLabels 8 (raise maxLabels)
 * }
 * ```
 */
export function spaceLimits(
  model: string,
  s: {
    readonly numFeatures?: number;
    readonly numLabels?: number;
    readonly maxFeatures: number;
    readonly maxLabels: number;
  },
): SpaceLimits {
  for (
    const [size, value, limit, name] of [
      ["numFeatures", s.numFeatures ?? 0, s.maxFeatures, "maxFeatures"],
      ["numLabels", s.numLabels ?? 0, s.maxLabels, "maxLabels"],
    ] as const
  ) {
    if (value > limit) {
      throw new RangeError(`${model}: ${size} ${value} is above ${name} ${limit} (raise ${name})`);
    }
  }
  return { maxFeatures: s.maxFeatures, maxLabels: s.maxLabels };
}

/**
 * A checkpoint's config with the limits it was written with, or none ({@linkcode UNLIMITED})
 * when it predates them: restore it through this before the model's settings fill in defaults.
 *
 * @example
 * ```ts
 * import { withStoredLimits } from "./space_limits.ts";
 * console.log(withStoredLimits({ rank: 8 }).maxLabels); // 2147483647
 * console.log(withStoredLimits({ rank: 8, maxLabels: 100 }).maxLabels); // 100
 * ```
 */
export function withStoredLimits(
  config: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return { ...UNLIMITED, ...config };
}

/**
 * A configuration without its growth limits: what a model file records of its trainer (the
 * limits only govern learning).
 *
 * @example
 * ```ts
 * import { withoutLimits } from "./space_limits.ts";
 * console.log(withoutLimits({ rank: 8, maxFeatures: 10, maxLabels: 8 })); // { rank: 8 }
 * ```
 */
export function withoutLimits<T extends SpaceLimitSettings>(
  config: T,
): Omit<T, "maxFeatures" | "maxLabels"> {
  const { maxFeatures: _f, maxLabels: _l, ...rest } = config;
  return rest;
}

/**
 * The limits a checkpoint's config holds (none when it predates them: {@linkcode UNLIMITED}),
 * checked like settings and against the checkpoint's sizes, for models whose settings do not
 * pass through their declared settings on restore.
 *
 * @example
 * ```ts
 * import { storedLimits } from "./space_limits.ts";
 * console.log(storedLimits("toy", { maxLabels: 8 }, 3, 5)); // { maxFeatures: 2147483647, maxLabels: 8 }
 * ```
 */
export function storedLimits(
  model: string,
  config: Readonly<Record<string, unknown>>,
  numFeatures: number,
  numLabels: number,
): SpaceLimits {
  const c = withStoredLimits(config);
  const limit = (name: "maxFeatures" | "maxLabels") =>
    parseSetting(model, name, LIMIT_SPECS[name], c[name]) as number;
  return spaceLimits(model, {
    numFeatures,
    numLabels,
    maxFeatures: limit("maxFeatures"),
    maxLabels: limit("maxLabels"),
  });
}
