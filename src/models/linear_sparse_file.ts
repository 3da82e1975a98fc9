/**
 * The writer of `linear-sparse` model files (docs/model-format.md): feature-major sparse weights,
 * an optional f32 bias and its `biasOrder`, with the shared model-file options. Every model
 * whose file is `linear-sparse` (br, ova, popularity) writes it with
 * {@linkcode linearSparseFile}; POP writes its pruned weights with
 * {@linkcode linearSparseContentOf} (through `linearSparseContent` of ./label_weights.ts, which
 * transposes label-major weights first).
 *
 * @module
 */
import type { ModelFileContent, Tensor } from "../format/types.ts";
import { float32ToFloat16 } from "../format/quantize.ts";
import { encodeModelFile } from "../format/model_file.ts";
import type { ModelFileOptions } from "./estimator.ts";
import { applyModelFileOptions, checkModelFileOptions } from "./file_options.ts";

/**
 * Feature-major tensors of a `linear-sparse` model file.
 *
 * @example
 * ```ts
 * import type { FeatureMajor } from "./linear_sparse_file.ts";
 * const f: FeatureMajor = {
 *   featPtr: Int32Array.of(0, 1),
 *   labelIdx: Int32Array.of(0),
 *   weights: Float32Array.of(1),
 * };
 * console.log(f.featPtr.length); // 1 feature + 1
 * ```
 */
export interface FeatureMajor {
  /** Feature pointers, length `numFeatures + 1`. */
  readonly featPtr: Int32Array;
  /** Label indices, strictly increasing within a feature. */
  readonly labelIdx: Int32Array;
  /** Weights, same length as `labelIdx`. */
  readonly weights: Float32Array;
}

/**
 * Options of {@linkcode linearSparseContentOf}: the shared model-file options (label and feature
 * names or the feature space, metadata, preprocessing; `quantize` is the encoder's, see
 * {@linkcode linearSparseFile}) and what a `linear-sparse` file records besides the weights.
 *
 * @example
 * ```ts
 * import type { LinearSparseContentOptions } from "./linear_sparse_file.ts";
 * const o: LinearSparseContentOptions = { labelNames: ["a"], indexType: "u16" };
 * console.log(o.labelNames?.length); // 1
 * ```
 */
export interface LinearSparseContentOptions extends Omit<ModelFileOptions, "quantize"> {
  /** Entries of the file's `params` after `nnz` (e.g. the pruning parameters). */
  params?: Record<string, number | string | boolean | number[]>;
  /**
   * Storage of `weights`: "f32" (default) or "f16" (half precision, 2 bytes; pair it with
   * `roundWeights` of ./label_weights.ts to evaluate exactly what the file holds).
   */
  weightType?: "f32" | "f16";
  /**
   * Storage of `labelIdx`: "i32" (default) or "u16" (2 bytes; only when numLabels ≤ 65536).
   * Readers must accept a `u16` labelIdx (see the report on docs/model-format.md).
   */
  indexType?: "i32" | "u16";
  /**
   * Whether to store the labels' bias order (`biasOrder`, 4 bytes per label; default true), which
   * spares the SDK a sort of the biases on its first query (about 0.3 s at 10⁶ labels). A file
   * bounded in bytes may rather spend them on weights.
   */
  biasOrder?: boolean;
  /**
   * Whether the file's `params` begin with `nnz` (default true). The popularity file's params
   * are only its own (`trainer`, `threshold`: docs/model-format.md), and its bytes stay so.
   */
  nnzParam?: boolean;
  /**
   * Names the caller in errors about the label or feature names, the feature space and the
   * preprocessing (default "linearSparseContent"), e.g. "br.toModelFile".
   */
  where?: string;
}

/**
 * The labels by decreasing bias, ties by the smaller index (NaN ranks lowest, as -Infinity;
 * -0 equals 0): the `biasOrder` tensor of a `linear-sparse` file (docs/model-format.md).
 *
 * @example
 * ```ts
 * import { biasOrderOf } from "./linear_sparse_file.ts";
 * console.log([...biasOrderOf(Float32Array.of(-1, 2, NaN, 2, 0))]); // [1, 3, 4, 0, 2]
 * ```
 */
export function biasOrderOf(bias: Float32Array): Int32Array {
  const key = (l: number) => bias[l] === bias[l] ? bias[l] : -Infinity;
  const order = Int32Array.from({ length: bias.length }, (_, l) => l);
  return order.sort((a, b) => key(b) > key(a) ? 1 : key(b) < key(a) ? -1 : a - b);
}

/**
 * The `linear-sparse` model-file content of feature-major weights (encode it with
 * `encodeModelFile` from src/format/model_file.ts, or write the file at once with
 * {@linkcode linearSparseFile}). With a bias it also writes `biasOrder`
 * ({@linkcode biasOrderOf}). The arrays are used as they are, not copied.
 *
 * @throws {RangeError} when `featPtr` does not fit the sizes, a u16 `labelIdx` is asked for more
 * than 65536 labels, or the options do not fit the content (see `applyModelFileOptions`)
 *
 * @example
 * ```ts
 * import { linearSparseContentOf } from "./linear_sparse_file.ts";
 * const c = linearSparseContentOf(
 *   { featPtr: Int32Array.of(0, 0, 1), labelIdx: Int32Array.of(0), weights: Float32Array.of(0.5) },
 *   2, 1, Float32Array.of(-1),
 * );
 * console.log(c.kind, c.params.nnz, Object.keys(c.tensors)); // linear-sparse 1 [ "featPtr", "labelIdx", "weights", "bias", "biasOrder" ]
 * ```
 */
export function linearSparseContentOf(
  f: FeatureMajor,
  numFeatures: number,
  numLabels: number,
  bias: Float32Array | undefined,
  options: LinearSparseContentOptions = {},
): ModelFileContent {
  const nnz = f.weights.length;
  const u16 = options.indexType === "u16";
  if (u16 && numLabels > 65536) {
    throw new RangeError(
      `linearSparseContent: u16 labelIdx needs numLabels <= 65536, got ${numLabels}`,
    );
  }
  if (f.featPtr.length !== numFeatures + 1 || f.featPtr[numFeatures] !== nnz) {
    throw new RangeError(
      `linearSparseContent: featPtr of length ${f.featPtr.length} ending at ${
        f.featPtr[f.featPtr.length - 1]
      } for ${numFeatures} features and ${nnz} weights`,
    );
  }
  const f16 = options.weightType === "f16";
  const tensors: Record<string, Tensor> = {
    featPtr: { dtype: "i32", shape: [numFeatures + 1], data: f.featPtr },
    labelIdx: u16
      ? { dtype: "u16", shape: [nnz], data: Uint16Array.from(f.labelIdx) }
      : { dtype: "i32", shape: [nnz], data: f.labelIdx },
    weights: f16
      ? { dtype: "f16", shape: [nnz], data: float32ToFloat16(f.weights) }
      : { dtype: "f32", shape: [nnz], data: f.weights },
  };
  // the bias stays f32 (L values): scores keep the trainer's bias exactly; its order lets the
  // SDK find the best untouched labels of a query without scanning all L (no sort at load)
  if (bias) {
    tensors.bias = { dtype: "f32", shape: [numLabels], data: bias };
    if (options.biasOrder !== false) {
      tensors.biasOrder = { dtype: "i32", shape: [numLabels], data: biasOrderOf(bias) };
    }
  }
  const content: ModelFileContent = {
    kind: "linear-sparse",
    numFeatures,
    numLabels,
    params: options.nnzParam === false ? { ...options.params } : { nnz, ...options.params },
    tensors,
  };
  return applyModelFileOptions(content, options, options.where ?? "linearSparseContent");
}

/**
 * What a model adds to the options its `toModelFile` was given (see {@linkcode linearSparseFile}).
 *
 * @example
 * ```ts
 * import type { LinearSparseModel } from "./linear_sparse_file.ts";
 * const m: LinearSparseModel = { where: "br.toModelFile", meta: { trainer: "br" }, normalizes: true };
 * console.log(m.where); // br.toModelFile
 * ```
 */
export interface LinearSparseModel {
  /** Names the model in errors, e.g. "br.toModelFile". */
  where: string;
  /** The model's metadata; the caller's `meta` entries override it. */
  meta?: Record<string, unknown>;
  /** Entries of the file's `params` after `nnz`. */
  params?: Record<string, number | string | boolean | number[]>;
  /**
   * Whether the model scales rows to unit L2 norm: the file then records `l2Normalize` on top of
   * the pipeline's preprocessing (the caller's `preprocess`).
   */
  normalizes?: boolean;
  /** Whether the file records `biasOrder` (default true; see {@linkcode LinearSparseContentOptions}). */
  biasOrder?: boolean;
  /** Whether `params` begin with `nnz` (default true; see {@linkcode LinearSparseContentOptions}). */
  nnzParam?: boolean;
}

/**
 * A model's `linear-sparse` model file, in one call: checks the options the model's
 * `toModelFile` was given (as `checkModelFileOptions` does, naming `model.where`), merges the
 * model's metadata (the caller's entries win) and `l2Normalize` when the model normalizes rows,
 * writes the content ({@linkcode linearSparseContentOf}) and encodes it with `quantize`.
 *
 * @param options the caller's options, checked before any work (an unknown key, a bad
 * `quantize`, a `meta` that is not an object are errors naming `model.where`)
 * @throws {TypeError} or {RangeError} naming `model.where` and the option at fault
 *
 * @example
 * ```ts
 * import { linearSparseFile } from "./linear_sparse_file.ts";
 * import { decodeModelFile } from "../../sdk/internal.ts";
 * const bytes = linearSparseFile(
 *   { featPtr: Int32Array.of(0, 0, 1), labelIdx: Int32Array.of(0), weights: Float32Array.of(0.5) },
 *   2, 1, Float32Array.of(-1),
 *   { labelNames: ["spam"], quantize: "f16" },
 *   { where: "demo.toModelFile", meta: { trainer: "demo" }, normalizes: true },
 * );
 * const c = decodeModelFile(bytes);
 * console.log(c.kind, c.labelNames, c.preprocess, c.meta); // linear-sparse [ "spam" ] { l2Normalize: true } { trainer: "demo" }
 * ```
 */
export function linearSparseFile(
  f: FeatureMajor,
  numFeatures: number,
  numLabels: number,
  bias: Float32Array | undefined,
  options: ModelFileOptions,
  model: LinearSparseModel,
): Uint8Array {
  checkModelFileOptions(options, model.where);
  const content = linearSparseModelContent(f, numFeatures, numLabels, bias, options, model);
  return encodeModelFile(content, options.quantize ? { quantize: options.quantize } : undefined);
}

/**
 * The content {@linkcode linearSparseFile} encodes, for a model that also hands out its content
 * (popularity's `toModelContent`): the model's metadata merged under the caller's, `l2Normalize`
 * when the model normalizes rows, written by {@linkcode linearSparseContentOf}. The options are
 * not checked here (see `checkModelFileOptions`); `quantize` is the encoder's (ignored here).
 *
 * @throws {TypeError} or {RangeError} naming `model.where` when the options do not fit the
 * content (see `applyModelFileOptions`)
 *
 * @example
 * ```ts
 * import { linearSparseModelContent } from "./linear_sparse_file.ts";
 * const c = linearSparseModelContent(
 *   { featPtr: Int32Array.of(0, 0), labelIdx: new Int32Array(0), weights: new Float32Array(0) },
 *   1, 2, Float32Array.of(0.5, -0.5),
 *   { meta: { run: 1 } },
 *   { where: "demo.toModelFile", meta: { trainer: "demo" }, params: { threshold: 0.5 }, biasOrder: false, nnzParam: false },
 * );
 * console.log(c.params, c.meta, Object.keys(c.tensors)); // { threshold: 0.5 } { trainer: "demo", run: 1 } [ "featPtr", "labelIdx", "weights", "bias" ]
 * ```
 */
export function linearSparseModelContent(
  f: FeatureMajor,
  numFeatures: number,
  numLabels: number,
  bias: Float32Array | undefined,
  options: ModelFileOptions,
  model: LinearSparseModel,
): ModelFileContent {
  return linearSparseContentOf(f, numFeatures, numLabels, bias, {
    ...options,
    preprocess: model.normalizes
      ? { ...options.preprocess, l2Normalize: true }
      : options.preprocess,
    meta: model.meta || options.meta ? { ...model.meta, ...options.meta } : undefined,
    params: model.params,
    biasOrder: model.biasOrder,
    nnzParam: model.nnzParam,
    where: model.where,
  });
}
