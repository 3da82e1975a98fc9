/**
 * How POP stores a pruned `linear-sparse` model: weight and label-index element types.
 *
 * @module
 */

/**
 * How a pruned model is stored.
 *
 * @example
 * ```ts
 * import type { StorageOptions } from "./storage.ts";
 * const s: StorageOptions = { weightType: "f16", indexType: "u16" };
 * console.log(s.weightType); // "f16"
 * ```
 */
export interface StorageOptions {
  /** Weights as float32 or float16 (default "f16": 2 bytes per weight). */
  weightType?: "f32" | "f16";
  /**
   * Label indices as int32 or uint16 (default "u16" when numLabels ≤ 65536, else "i32"). With
   * f16 weights and u16 indices a kept weight costs 4 bytes.
   */
  indexType?: "i32" | "u16";
}

/**
 * The keys of {@linkcode StorageOptions}.
 *
 * @example
 * ```ts
 * import { STORAGE_OPTION_KEYS } from "./storage.ts";
 * console.log(STORAGE_OPTION_KEYS); // [ "weightType", "indexType" ]
 * ```
 */
export const STORAGE_OPTION_KEYS: readonly (keyof StorageOptions)[] = ["weightType", "indexType"];

/**
 * Resolved storage for a model with `numLabels` labels (u16 indices only when they fit).
 *
 * @example
 * ```ts
 * import { resolveStorage } from "./storage.ts";
 * console.log(resolveStorage({}, 100_000)); // { weightType: "f16", indexType: "i32" }
 * ```
 */
export function resolveStorage(
  s: StorageOptions,
  numLabels: number,
): Required<StorageOptions> {
  const weightType = s.weightType ?? "f16";
  if (weightType !== "f16" && weightType !== "f32") {
    throw new TypeError(`POP storage: weightType must be f16 or f32, got '${weightType}'`);
  }
  const indexType = s.indexType ?? (numLabels <= 65536 ? "u16" : "i32");
  if (indexType !== "u16" && indexType !== "i32") {
    throw new TypeError(`POP storage: indexType must be u16 or i32, got '${indexType}'`);
  }
  if (indexType === "u16" && numLabels > 65536) {
    throw new RangeError(
      `POP storage: u16 label indices need numLabels <= 65536, got ${numLabels}`,
    );
  }
  return { weightType, indexType };
}
