/**
 * Per-label sparse weight vectors (label-major CSR) of a linear multi-label model: the form the
 * batch BR trainer produces, `ova` hands to POP (`toLabelWeights`) and POP prunes, with
 * conversions to and from the feature-major `linear-sparse` model-file tensors
 * (docs/model-format.md; the file's writer is ./linear_sparse_file.ts). Shared by the models
 * (br, ova) and src/prune: no model imports another for it.
 *
 * @module
 */
import type { SparseVector } from "../data/types.ts";
import type { ModelFileContent } from "../format/types.ts";
import { float16ToFloat32, float32ToFloat16 } from "../format/quantize.ts";
import {
  type FeatureMajor,
  linearSparseContentOf,
  type LinearSparseContentOptions,
} from "./linear_sparse_file.ts";

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
 * The `linear-sparse` model-file content of label-major weights: {@linkcode toFeatureMajor},
 * then `linearSparseContentOf` of ./linear_sparse_file.ts (encode it with `encodeModelFile`
 * from src/format/model_file.ts). With a bias it also writes `biasOrder` (`biasOrderOf`).
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
