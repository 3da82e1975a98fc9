/**
 * Types of the Tagstream model file (see docs/model-format.md). The SDK has its own copy of
 * the reader side (it must not import trainer code); tests check that both agree.
 *
 * @module
 */
import type { TextSettings } from "../../sdk/tokenizer.ts";

export type { TextSettings } from "../../sdk/tokenizer.ts";

/**
 * Kinds of inference model a file can hold.
 *
 * @example
 * ```ts
 * import type { ModelKind } from "./types.ts";
 * const k: ModelKind = "linear-sparse";
 * console.log(k);
 * ```
 */
export type ModelKind = "linear-sparse" | "linear-lowrank" | "knn-embedding" | "random-features";

/**
 * A tensor as stored: element type, shape, and the typed array holding it.
 * `f16` data is carried as `Uint16Array`; `i8` as `Int8Array` with a per-tensor (or per-row)
 * `scale` so that value = int8 × scale.
 *
 * @example
 * ```ts
 * import type { Tensor } from "./types.ts";
 * const t: Tensor = { dtype: "f32", shape: [2, 2], data: new Float32Array(4) };
 * console.log(t.shape);
 * ```
 */
export interface Tensor {
  /** Element type as stored. */
  dtype: "f32" | "f64" | "i32" | "u8" | "i8" | "f16" | "u16";
  /** Dimensions, row-major. */
  shape: number[];
  /** The elements (f16 as raw bits in a Uint16Array). */
  data: Float32Array | Float64Array | Int32Array | Uint8Array | Int8Array | Uint16Array;
  /** For `i8`: one scale for the whole tensor, or one per row (a Float32Array). */
  scale?: number | Float32Array;
}

/**
 * How raw input features map to model columns: by index, by a vocabulary of names, or by
 * MurmurHash3 (x86, 32-bit, `src/data/feature_hash.ts`) of the name's UTF-8 bytes with `seed`,
 * modulo `dim`; with `signed` (format version 2), a name whose hash has bit 31 set contributes
 * its value negated (as `FeatureHasher` with `signed: true`). `dim` may exceed `numFeatures` (a
 * model grown from the columns it has seen): hashed columns at or beyond `numFeatures` carry no
 * weight and are dropped. A vocabulary or hashing space may carry `text` (format version 3): the
 * tokenizer settings (`sdk/tokenizer.ts`) that turn a query's `text` into named features.
 *
 * @example
 * ```ts
 * import type { FeatureSpace } from "./types.ts";
 * const f: FeatureSpace = { type: "hashing", dim: 1 << 18, seed: 0 };
 * console.log(f.type);
 * ```
 */
export type FeatureSpace =
  | { type: "index" }
  | { type: "vocabulary"; names: string[]; text?: TextSettings }
  | { type: "hashing"; dim: number; seed: number; signed?: boolean; text?: TextSettings };

/**
 * Preprocessing the model was trained with; the SDK applies it to raw input rows.
 *
 * @example
 * ```ts
 * import type { Preprocess } from "./types.ts";
 * const p: Preprocess = { l2Normalize: true };
 * console.log(p.l2Normalize);
 * ```
 */
export interface Preprocess {
  /** Multiply feature j by idf[j] (tensor `idf`) before normalisation. */
  tfidf?: boolean;
  /** Scale the row to unit L2 norm (after TF-IDF). */
  l2Normalize?: boolean;
}

/**
 * The content of a model file, as written by the trainer and read back.
 *
 * @example
 * ```ts
 * import type { ModelFileContent } from "./types.ts";
 * const c: ModelFileContent = {
 *   kind: "linear-lowrank",
 *   numFeatures: 3,
 *   numLabels: 2,
 *   params: { rank: 1 },
 *   tensors: {
 *     W: { dtype: "f32", shape: [3, 1], data: new Float32Array(3) },
 *     H: { dtype: "f32", shape: [2, 1], data: new Float32Array(2) },
 *   },
 * };
 * console.log(c.kind);
 * ```
 */
export interface ModelFileContent {
  /** Which scorer reads the tensors. */
  kind: ModelKind;
  /** Number of model columns (D). */
  numFeatures: number;
  /** Number of labels (L). */
  numLabels: number;
  /** One name per label, in label-index order. */
  labelNames?: string[];
  /** How raw features map to columns (default: indices). */
  featureSpace?: FeatureSpace;
  /** Preprocessing applied to a row before scoring. */
  preprocess?: Preprocess;
  /** Kind-specific scalar parameters (rank, k of kNN, number of learners, ...). */
  params: Record<string, number | string | boolean | number[]>;
  /** Training metadata and metrics (free-form, JSON-able). */
  meta?: Record<string, unknown>;
  /** The kind's tensors by name (see docs/model-format.md). */
  tensors: Record<string, Tensor>;
}
