/**
 * How POP stores a pruned `linear-sparse` model: weight and label-index element types.
 *
 * @module
 */

import { type LabelWeights, roundWeights } from "../models/label_weights.ts";

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
      `POP storage: u16 label indices need numLabels <= 65536, got ${numLabels}: store i32 ` +
        `indices (indexType "i32", --index i32)`,
    );
  }
  return { weightType, indexType };
}

/**
 * A copy of `w` with its weights rounded as `weightType` stores them (`roundWeights`), refusing
 * a finite weight that float16 cannot hold: past ±65504 it was stored as ±Infinity, silently.
 *
 * @throws {RangeError} naming the weight, its label and feature, and the limit
 *
 * @example
 * ```ts
 * import { storedWeights } from "./storage.ts";
 * const w = { numFeatures: 1, numLabels: 1, labelPtr: Int32Array.of(0, 1),
 *   featIdx: Int32Array.of(0), values: Float32Array.of(0.1) };
 * console.log(storedWeights(w, "f16").values[0]); // 0.0999755859375
 * try {
 *   storedWeights({ ...w, values: Float32Array.of(70000) }, "f16");
 * } catch (e) {
 *   console.log((e as Error).message.startsWith("POP storage: weight 70000 of label 0")); // true
 * }
 * ```
 */
export function storedWeights(w: LabelWeights, weightType: "f32" | "f16"): LabelWeights {
  const r = roundWeights(w, weightType);
  for (let p = 0; weightType === "f16" && p < r.values.length; p++) {
    if (!Number.isFinite(r.values[p]) && Number.isFinite(w.values[p])) {
      let l = 0;
      while (w.labelPtr[l + 1] <= p) l++;
      throw new RangeError(
        `POP storage: weight ${w.values[p]} of label ${l} (feature ${w.featIdx[p]}) is beyond ` +
          `the float16 range ±65504 and would be stored as ±Infinity: store float32 weights ` +
          `(weightType "f32", --weights f32)`,
      );
    }
  }
  return r;
}
