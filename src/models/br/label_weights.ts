/**
 * Per-label sparse weight vectors (label-major CSR) of a linear multi-label model: the form the
 * batch BR trainer produces and POP prunes, with conversions to and from the feature-major
 * `linear-sparse` model-file tensors (docs/model-format.md).
 *
 * @module
 */
import type { SparseVector } from "../../data/types.ts";
import type { ModelFileContent, Tensor } from "../../format/types.ts";
import { float16ToFloat32, float32ToFloat16 } from "../../format/quantize.ts";
import { applyModelFileOptions } from "../file_options.ts";

/**
 * Label-major sparse weights: for label `l`, features `featIdx[labelPtr[l]..labelPtr[l+1])`
 * (strictly increasing) with weights `values[...]`; `score_l(x) = bias_l + Σ_j x_j w_{j,l}`.
 *
 * @example
 * ```ts
 * import type { LabelWeights } from "./label_weights.ts";
 * const w: LabelWeights = {
 *   numFeatures: 3,
 *   numLabels: 2,
 *   labelPtr: Int32Array.of(0, 1, 3),
 *   featIdx: Int32Array.of(0, 1, 2),
 *   values: Float32Array.of(0.5, -1, 2),
 * };
 * console.log(w.labelPtr[w.numLabels]); // 3
 * ```
 */
export interface LabelWeights {
  readonly numFeatures: number;
  readonly numLabels: number;
  /** Label pointers, length `numLabels + 1`. */
  readonly labelPtr: Int32Array;
  /** Feature indices, strictly increasing within a label. */
  readonly featIdx: Int32Array;
  /** Weights, same length as `featIdx`. */
  readonly values: Float32Array;
  /** Optional per-label bias, length `numLabels`. */
  readonly bias?: Float32Array;
}

/**
 * Feature-major tensors of a `linear-sparse` model file.
 *
 * @example
 * ```ts
 * import type { FeatureMajor } from "./label_weights.ts";
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
 * Checks the structure of label weights (sizes, pointers, index ranges and order).
 *
 * @throws {RangeError} naming the first inconsistency
 *
 * @example
 * ```ts
 * import { validateLabelWeights } from "./label_weights.ts";
 * validateLabelWeights({
 *   numFeatures: 2, numLabels: 1, labelPtr: Int32Array.of(0, 1),
 *   featIdx: Int32Array.of(1), values: Float32Array.of(1),
 * });
 * console.log("ok");
 * ```
 */
export function validateLabelWeights(w: LabelWeights): void {
  const { numFeatures: d, numLabels: l } = w;
  if (!Number.isInteger(d) || d < 0 || !Number.isInteger(l) || l < 0) {
    throw new RangeError(`LabelWeights: invalid sizes numFeatures=${d}, numLabels=${l}`);
  }
  if (w.labelPtr.length !== l + 1) {
    throw new RangeError(
      `LabelWeights: labelPtr has length ${w.labelPtr.length}, expected ${l + 1}`,
    );
  }
  const nnz = w.labelPtr[l];
  if (w.labelPtr[0] !== 0 || nnz !== w.featIdx.length || nnz !== w.values.length) {
    throw new RangeError(
      `LabelWeights: labelPtr ends at ${nnz} but featIdx/values have ${w.featIdx.length}/${w.values.length} entries`,
    );
  }
  if (w.bias !== undefined && w.bias.length !== l) {
    throw new RangeError(`LabelWeights: bias has length ${w.bias.length}, expected ${l}`);
  }
  for (let lab = 0; lab < l; lab++) {
    const s = w.labelPtr[lab], e = w.labelPtr[lab + 1];
    if (e < s) throw new RangeError(`LabelWeights: labelPtr decreases at label ${lab}`);
    let prev = -1;
    for (let p = s; p < e; p++) {
      const j = w.featIdx[p];
      if (!(j > prev && j < d)) {
        throw new RangeError(
          `LabelWeights: label ${lab} entry ${
            p - s
          }: feature ${j} is out of order or out of range [0, ${d})`,
        );
      }
      prev = j;
    }
  }
}

/**
 * Converts label-major weights to the feature-major layout of a `linear-sparse` file
 * (a CSR transpose; labels stay increasing within each feature).
 *
 * @example
 * ```ts
 * import { toFeatureMajor } from "./label_weights.ts";
 * const f = toFeatureMajor({
 *   numFeatures: 2, numLabels: 2, labelPtr: Int32Array.of(0, 1, 3),
 *   featIdx: Int32Array.of(1, 0, 1), values: Float32Array.of(5, 6, 7),
 * });
 * console.log([...f.featPtr], [...f.labelIdx], [...f.weights]); // [0,1,3] [1,0,1] [6,5,7]
 * ```
 */
export function toFeatureMajor(w: LabelWeights): FeatureMajor {
  const d = w.numFeatures, nnz = w.labelPtr[w.numLabels];
  const featPtr = new Int32Array(d + 1);
  for (let p = 0; p < nnz; p++) featPtr[w.featIdx[p] + 1]++;
  for (let j = 0; j < d; j++) featPtr[j + 1] += featPtr[j];
  const next = featPtr.slice(0, d);
  const labelIdx = new Int32Array(nnz);
  const weights = new Float32Array(nnz);
  for (let l = 0; l < w.numLabels; l++) {
    for (let p = w.labelPtr[l]; p < w.labelPtr[l + 1]; p++) {
      const q = next[w.featIdx[p]]++;
      labelIdx[q] = l;
      weights[q] = w.values[p];
    }
  }
  return { featPtr, labelIdx, weights };
}

/**
 * Converts feature-major `linear-sparse` tensors back to label-major weights.
 *
 * @throws {RangeError} when a label index is out of range or pointers are inconsistent
 *
 * @example
 * ```ts
 * import { fromFeatureMajor } from "./label_weights.ts";
 * const w = fromFeatureMajor(
 *   { featPtr: Int32Array.of(0, 1, 3), labelIdx: Int32Array.of(1, 0, 1), weights: Float32Array.of(6, 5, 7) },
 *   2,
 * );
 * console.log([...w.labelPtr], [...w.featIdx]); // [0,1,3] [1,0,1]
 * ```
 */
export function fromFeatureMajor(
  f: FeatureMajor,
  numLabels: number,
  bias?: Float32Array,
): LabelWeights {
  const d = f.featPtr.length - 1, nnz = f.featPtr[d];
  if (d < 0 || nnz !== f.labelIdx.length || nnz !== f.weights.length) {
    throw new RangeError(
      `linear-sparse tensors: featPtr ends at ${nnz} but labelIdx/weights have ${f.labelIdx.length}/${f.weights.length} entries`,
    );
  }
  const labelPtr = new Int32Array(numLabels + 1);
  for (let p = 0; p < nnz; p++) {
    const l = f.labelIdx[p];
    if (!(l >= 0 && l < numLabels)) {
      throw new RangeError(
        `linear-sparse tensors: labelIdx[${p}] = ${l} is out of range [0, ${numLabels})`,
      );
    }
    labelPtr[l + 1]++;
  }
  for (let l = 0; l < numLabels; l++) labelPtr[l + 1] += labelPtr[l];
  const next = labelPtr.slice(0, numLabels);
  const featIdx = new Int32Array(nnz);
  const values = new Float32Array(nnz);
  for (let j = 0; j < d; j++) {
    const s = f.featPtr[j], e = f.featPtr[j + 1];
    if (e < s) throw new RangeError(`linear-sparse tensors: featPtr decreases at feature ${j}`);
    for (let p = s; p < e; p++) {
      const q = next[f.labelIdx[p]]++;
      featIdx[q] = j;
      values[q] = f.weights[p];
    }
  }
  const out: LabelWeights = { numFeatures: d, numLabels, labelPtr, featIdx, values, bias };
  return out;
}

/**
 * Scores of every label for a sparse row under feature-major weights (features beyond the
 * model are ignored), accumulated in float64 into `out`.
 *
 * @example
 * ```ts
 * import { scoreFeatureMajor, toFeatureMajor } from "./label_weights.ts";
 * const f = toFeatureMajor({
 *   numFeatures: 2, numLabels: 2, labelPtr: Int32Array.of(0, 1, 2),
 *   featIdx: Int32Array.of(0, 1), values: Float32Array.of(2, 3),
 * });
 * const out = new Float64Array(2);
 * scoreFeatureMajor(f, undefined, { indices: Int32Array.of(0, 1, 9), values: Float32Array.of(1, 2, 5) }, out);
 * console.log([...out]); // [2, 6]
 * ```
 */
export function scoreFeatureMajor(
  f: FeatureMajor,
  bias: Float32Array | undefined,
  x: SparseVector,
  out: Float64Array,
): Float64Array {
  const d = f.featPtr.length - 1;
  if (bias) { for (let l = 0; l < out.length; l++) out[l] = bias[l]; }
  else out.fill(0);
  const { featPtr, labelIdx, weights } = f;
  for (let p = 0; p < x.indices.length; p++) {
    const j = x.indices[p];
    if (j < 0 || j >= d) continue;
    const v = x.values[p];
    for (let q = featPtr[j]; q < featPtr[j + 1]; q++) out[labelIdx[q]] += v * weights[q];
  }
  return out;
}

/**
 * Number of stored weights.
 *
 * @example
 * ```ts
 * import { nnzOf } from "./label_weights.ts";
 * console.log(nnzOf({ numFeatures: 1, numLabels: 1, labelPtr: Int32Array.of(0, 1), featIdx: Int32Array.of(0), values: Float32Array.of(1) })); // 1
 * ```
 */
export function nnzOf(w: LabelWeights): number {
  return w.labelPtr[w.numLabels];
}

/**
 * Options of {@linkcode linearSparseContent}: what the file records besides the weights.
 *
 * @example
 * ```ts
 * import type { LinearSparseContentOptions } from "./label_weights.ts";
 * const o: LinearSparseContentOptions = { labelNames: ["a"] };
 * console.log(o.labelNames?.length); // 1
 * ```
 */
export interface LinearSparseContentOptions {
  labelNames?: readonly string[];
  featureNames?: readonly string[];
  meta?: Record<string, unknown>;
  preprocess?: { tfidf?: boolean; l2Normalize?: boolean; idf?: Float32Array };
  params?: Record<string, number | string | boolean | number[]>;
  /**
   * Storage of `weights`: "f32" (default) or "f16" (half precision, 2 bytes; pair it with
   * {@linkcode roundWeights} to evaluate exactly what the file holds).
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
   * Names the caller in errors about the label or feature names, the feature space and the
   * preprocessing (default "linearSparseContent"), e.g. "br.toModelFile".
   */
  where?: string;
}

/**
 * A copy of `w` whose weights are rounded as the file stores them (the bias stays f32): identity for
 * "f32", nearest float16 for "f16".
 *
 * @example
 * ```ts
 * import { roundWeights } from "./label_weights.ts";
 * const w = { numFeatures: 1, numLabels: 1, labelPtr: Int32Array.of(0, 1),
 *   featIdx: Int32Array.of(0), values: Float32Array.of(0.1) };
 * console.log(roundWeights(w, "f16").values[0]); // 0.0999755859375
 * ```
 */
export function roundWeights(w: LabelWeights, type: "f32" | "f16"): LabelWeights {
  if (type === "f32") return { ...w, values: w.values.slice(), bias: w.bias?.slice() };
  return {
    ...w,
    values: float16ToFloat32(float32ToFloat16(w.values)),
    bias: w.bias?.slice(),
  };
}

/**
 * The labels by decreasing bias, ties by the smaller index (NaN ranks lowest, as -Infinity;
 * -0 equals 0): the `biasOrder` tensor of a `linear-sparse` file (docs/model-format.md).
 *
 * @example
 * ```ts
 * import { biasOrderOf } from "./label_weights.ts";
 * console.log([...biasOrderOf(Float32Array.of(-1, 2, NaN, 2, 0))]); // [1, 3, 4, 0, 2]
 * ```
 */
export function biasOrderOf(bias: Float32Array): Int32Array {
  const key = (l: number) => bias[l] === bias[l] ? bias[l] : -Infinity;
  const order = Int32Array.from({ length: bias.length }, (_, l) => l);
  return order.sort((a, b) => key(b) > key(a) ? 1 : key(b) < key(a) ? -1 : a - b);
}

/**
 * The `linear-sparse` model-file content of label-major weights (encode it with
 * `encodeModelFile` from src/format/model_file.ts). With a bias it also writes `biasOrder`
 * ({@linkcode biasOrderOf}).
 *
 * @example
 * ```ts
 * import { linearSparseContent } from "./label_weights.ts";
 * const c = linearSparseContent({
 *   numFeatures: 2, numLabels: 1, labelPtr: Int32Array.of(0, 1),
 *   featIdx: Int32Array.of(1), values: Float32Array.of(0.5), bias: Float32Array.of(-1),
 * });
 * console.log(c.kind, c.tensors.featPtr.shape); // linear-sparse [3]
 * ```
 */
export function linearSparseContent(
  w: LabelWeights,
  options: LinearSparseContentOptions = {},
): ModelFileContent {
  return linearSparseContentOf(toFeatureMajor(w), w.numFeatures, w.numLabels, w.bias, options);
}

/**
 * The `linear-sparse` model-file content of feature-major weights (what
 * {@linkcode linearSparseContent} builds after its transpose; for models that keep their
 * weights feature-major). The arrays are used as they are, not copied.
 *
 * @example
 * ```ts
 * import { linearSparseContentOf } from "./label_weights.ts";
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
    params: { nnz, ...options.params },
    tensors,
  };
  return applyModelFileOptions(content, options, options.where ?? "linearSparseContent");
}
