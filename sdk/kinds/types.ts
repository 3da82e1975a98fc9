/**
 * The contract between the SDK's model-file reader and the per-kind scorers.
 * Imports only SDK modules: the SDK depends only on Web APIs and `msgpackr/unpack`.
 *
 * @module
 */
import type { TextSettings } from "../tokenizer.ts";
import type { TopKScorer } from "../topk.ts";

/**
 * A tensor as the SDK hands it to a scorer: float tensors (f32, f64, f16, i8) are always given as
 * `Float32Array` (an aligned f32 tensor is a zero-copy view into the file; f16/i8 are dequantised
 * once at load), `i32` as `Int32Array`, `u16` as `Uint16Array`, `u8` as `Uint8Array`.
 *
 * @example
 * ```ts
 * import type { SdkTensor } from "./types.ts";
 * const t: SdkTensor = { shape: [2], data: Float32Array.of(1, 2) };
 * console.log(t.shape[0]);
 * ```
 */
export interface SdkTensor {
  /** Dimensions, row-major. */
  readonly shape: readonly number[];
  /** The elements (float tensors as Float32Array, integer tensors as Int32Array or Uint8Array). */
  readonly data: Float32Array | Int32Array | Uint16Array | Uint8Array;
}

/**
 * How raw input features map to model columns: by index, by a vocabulary of names, or by
 * MurmurHash3 (x86, 32-bit, `murmur3` of ../features.ts) of the name's UTF-8 bytes with `seed`,
 * modulo `dim` (and, when `signed` (format version 2), the value negated when bit 31 of the hash
 * is set). `dim` may exceed `numFeatures` (a model grown from the columns it has seen): hashed
 * columns at or beyond `numFeatures` carry no weight and are dropped. A vocabulary or hashing
 * space may carry `text` (format version 3): the tokenizer settings that turn a query's `text`
 * into named features. The one feature-space type of the project: the model file's types
 * (../model_file.ts), which the trainer writes, use it too.
 *
 * @example
 * ```ts
 * import type { FeatureSpace } from "./types.ts";
 * const f: FeatureSpace = { type: "vocabulary", names: ["red", "green"] };
 * console.log(f.type);
 * ```
 */
export type FeatureSpace =
  | { readonly type: "index" }
  | {
    readonly type: "vocabulary";
    readonly names: readonly string[];
    /** Tokenizer settings of text queries (format version 3). */
    readonly text?: TextSettings;
  }
  | {
    readonly type: "hashing";
    readonly dim: number;
    readonly seed: number;
    /** Bit 31 of the hash set negates the feature's value (default false). */
    readonly signed?: boolean;
    /** Tokenizer settings of text queries (format version 3). */
    readonly text?: TextSettings;
  };

/**
 * A decoded model file as scorers see it.
 *
 * @example
 * ```ts
 * import type { DecodedModel } from "./types.ts";
 * function size(m: DecodedModel): number { return m.numLabels; }
 * console.log(typeof size);
 * ```
 */
export interface DecodedModel {
  /** The model kind (which scorer reads the tensors). */
  readonly kind: string;
  /** Format version of the file. */
  readonly formatVersion: number;
  /** Number of model columns (D). */
  readonly numFeatures: number;
  /** Number of labels (L). */
  readonly numLabels: number;
  /** One name per label, when the file has them. */
  readonly labelNames?: readonly string[];
  /** How raw feature names map to columns (absent: columns are given by index). */
  readonly featureSpace?: FeatureSpace;
  /** Preprocessing applied to raw rows before scoring (absent: none). */
  readonly preprocess?: { readonly tfidf?: boolean; readonly l2Normalize?: boolean };
  /** Kind-specific scalar parameters. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Training metadata and metrics. */
  readonly meta?: Readonly<Record<string, unknown>>;
  /** The kind's tensors by name. */
  readonly tensors: Readonly<Record<string, SdkTensor>>;
}

/**
 * Scores a preprocessed sparse row: returns the score of every label (numLabels values, in the
 * precision the trainer ranks them in) in a scratch buffer that the next call overwrites; the
 * caller picks the top k (`topK` of ../topk.ts). Indices are model columns in [0, numFeatures),
 * strictly increasing (as the featurizer of ../features.ts gives them; `random-features` relies
 * on it). Must not allocate per call and must not mutate the model.
 *
 * @example
 * ```ts
 * import type { KindScorer } from "./types.ts";
 * const scores = new Float32Array(3);
 * const s: KindScorer = (indices, values) => {
 *   scores.fill(0);
 *   indices.forEach((j, p) => (scores[j % 3] += values[p]));
 *   return scores;
 * };
 * console.log(s(Int32Array.of(1, 4), Float64Array.of(1, 2))); // Float32Array(3) [ 0, 3, 0 ]
 * ```
 */
export type KindScorer = (
  indices: Int32Array,
  values: Float32Array | Float64Array,
) => Float32Array | Float64Array;

/**
 * Builds a scorer from a decoded model (called once per load), checking the tensors and
 * parameters it uses (a `RangeError` naming the field when one is missing or inconsistent): the
 * dense scores of every label, and the kind's own top k (`topK` of ../topk.ts's
 * `TopKScorer`, which `loadModel` answers with).
 *
 * @example
 * ```ts
 * import type { KindFactory } from "./types.ts";
 * import { topK } from "../topk.ts";
 * const f: KindFactory = (m) => {
 *   const scores = new Float64Array(m.numLabels);
 *   const score = () => scores;
 *   return Object.assign(score, { topK: () => topK(scores, m.numLabels, 1) });
 * };
 * console.log(typeof f);
 * ```
 */
export type KindFactory = (model: DecodedModel) => KindScorer & TopKScorer;
