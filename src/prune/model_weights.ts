/**
 * The per-label weights POP prunes, read from a decoded model file: a `linear-sparse` file
 * (binary relevance) as is, a `linear-lowrank` file (LEML, W [D, r] and H [L, r]) as the product
 * M = W·Hᵀ, one dense column M[:, l] = W·H[l] per label. Also the row preprocessing the file
 * records, which validation rows must go through before they are scored.
 *
 * @module
 */
import type { ModelFileContent, Tensor } from "../format/types.ts";
import { dequantize } from "../format/quantize.ts";
import { fromFeatureMajor, type LabelWeights } from "../models/label_weights.ts";
import type { RowPreprocess } from "../data/preprocess.ts";

function tensor(content: ModelFileContent, name: string, what: string): Tensor {
  const t = content.tensors[name];
  if (!t) throw new RangeError(`${what}: the ${content.kind} model has no tensor '${name}'`);
  return t;
}

function checkLength(t: Tensor, n: number, name: string, what: string): void {
  if (t.data.length !== n) {
    throw new RangeError(`${what}: tensor '${name}' has ${t.data.length} values, expected ${n}`);
  }
}

function intValues(t: Tensor, name: string, what: string): Int32Array {
  if (t.dtype === "i32") return t.data as Int32Array;
  if (t.dtype === "u16") return Int32Array.from(t.data as Uint16Array);
  throw new RangeError(`${what}: tensor '${name}' has dtype ${t.dtype}, expected i32 or u16`);
}

function floatValues(t: Tensor, name: string, what: string): Float32Array {
  if (t.dtype === "i32" || t.dtype === "u16" || t.dtype === "u8") {
    throw new RangeError(`${what}: tensor '${name}' has dtype ${t.dtype}, expected a float type`);
  }
  return dequantize(t);
}

function biasOf(content: ModelFileContent, what: string): Float32Array | undefined {
  const t = content.tensors.bias;
  if (!t) return undefined;
  checkLength(t, content.numLabels, "bias", what);
  return floatValues(t, "bias", what).slice();
}

/**
 * The product W·Hᵀ of a low-rank model as label-major weights (exact zeros dropped), with the
 * bias when given: label l gets the column M[:, l] = W·H[l], so that
 * `score_l(x) = bias_l + Σ_j x_j M[j, l]` equals the low-rank score `(xᵀW)·H[l] + bias_l`.
 *
 * @param w feature factors, row-major [numFeatures, rank]
 * @param h label factors, row-major [numLabels, rank]
 * @throws {RangeError} when the factor sizes disagree
 *
 * @example
 * ```ts
 * import { lowRankProduct } from "./model_weights.ts";
 * // W = [[1, 0], [0, 2]], H = [[3, 1], [0, 0]]: label 0 gets column [3, 2], label 1 nothing
 * const m = lowRankProduct(Float32Array.of(1, 0, 0, 2), Float32Array.of(3, 1, 0, 0), 2, 2, 2);
 * console.log([...m.labelPtr], [...m.values]); // [0, 2, 2] [3, 2]
 * ```
 */
export function lowRankProduct(
  w: Float32Array,
  h: Float32Array,
  numFeatures: number,
  numLabels: number,
  rank: number,
  bias?: Float32Array,
): LabelWeights {
  if (w.length !== numFeatures * rank || h.length !== numLabels * rank) {
    throw new RangeError(
      `lowRankProduct: W has ${w.length} values and H ${h.length}, expected ${numFeatures}×${rank} and ${numLabels}×${rank}`,
    );
  }
  if (bias && bias.length !== numLabels) {
    throw new RangeError(`lowRankProduct: bias has ${bias.length} values for ${numLabels} labels`);
  }
  const col = new Float32Array(numFeatures);
  const labelPtr = new Int32Array(numLabels + 1);
  let featIdx = new Int32Array(Math.max(16, numFeatures));
  let values = new Float32Array(featIdx.length);
  let n = 0;
  for (let l = 0; l < numLabels; l++) {
    const hb = l * rank;
    let nz = 0;
    for (let j = 0; j < numFeatures; j++) {
      const wb = j * rank;
      let s = 0;
      for (let c = 0; c < rank; c++) s += w[wb + c] * h[hb + c];
      const v = Math.fround(s);
      col[j] = v;
      if (v !== 0) nz++;
    }
    if (n + nz > featIdx.length) {
      const cap = Math.max(n + nz, featIdx.length * 2);
      const fi = new Int32Array(cap), fv = new Float32Array(cap);
      fi.set(featIdx.subarray(0, n));
      fv.set(values.subarray(0, n));
      featIdx = fi;
      values = fv;
    }
    for (let j = 0; j < numFeatures; j++) {
      if (col[j] !== 0) {
        featIdx[n] = j;
        values[n++] = col[j];
      }
    }
    labelPtr[l + 1] = n;
  }
  return {
    numFeatures,
    numLabels,
    labelPtr,
    featIdx: featIdx.slice(0, n),
    values: values.slice(0, n),
    bias: bias?.slice(),
  };
}

/**
 * The label-major weights of a decoded `linear-sparse` or `linear-lowrank` model (quantised
 * weights are dequantised; a `u16` label index is widened), with its bias.
 *
 * @throws {TypeError} for a model kind POP cannot prune (`knn-embedding`, `random-features`:
 * their scores are not linear in the input row, so there is no per-label weight vector)
 * @throws {RangeError} when a tensor is missing or has the wrong size or type
 *
 * @example
 * ```ts
 * import { labelWeightsOfContent } from "./model_weights.ts";
 * const w = labelWeightsOfContent({
 *   kind: "linear-lowrank", numFeatures: 2, numLabels: 1, params: { rank: 1 },
 *   tensors: {
 *     W: { dtype: "f32", shape: [2, 1], data: Float32Array.of(1, -2) },
 *     H: { dtype: "f32", shape: [1, 1], data: Float32Array.of(0.5) },
 *   },
 * });
 * console.log([...w.values]); // [0.5, -1]
 * ```
 */
export function labelWeightsOfContent(content: ModelFileContent): LabelWeights {
  const what = `POP on a ${content.kind} model`;
  const D = content.numFeatures, L = content.numLabels;
  if (content.kind === "linear-sparse") {
    const fp = tensor(content, "featPtr", what);
    checkLength(fp, D + 1, "featPtr", what);
    const li = tensor(content, "labelIdx", what);
    const wt = tensor(content, "weights", what);
    checkLength(wt, li.data.length, "weights", what);
    const w = fromFeatureMajor(
      {
        featPtr: intValues(fp, "featPtr", what),
        labelIdx: intValues(li, "labelIdx", what),
        weights: floatValues(wt, "weights", what),
      },
      L,
      biasOf(content, what),
    );
    return w;
  }
  if (content.kind === "linear-lowrank") {
    const W = tensor(content, "W", what), H = tensor(content, "H", what);
    const r = W.shape.length === 2 ? W.shape[1] : Number(content.params.rank);
    if (!(Number.isInteger(r) && r >= 1)) {
      throw new RangeError(`${what}: cannot tell the rank (W has shape [${W.shape}])`);
    }
    checkLength(W, D * r, "W", what);
    checkLength(H, L * r, "H", what);
    return lowRankProduct(
      floatValues(W, "W", what),
      floatValues(H, "H", what),
      D,
      L,
      r,
      biasOf(content, what),
    );
  }
  throw new TypeError(
    `POP prunes linear models (linear-sparse, linear-lowrank), not a ${content.kind} model: ` +
      `its scores are not a per-label weight vector over the input features`,
  );
}

/**
 * The row preprocessing a decoded model file records (with its `idf` tensor), or undefined.
 *
 * @throws {RangeError} when `preprocess.tfidf` is set but the `idf` tensor is missing
 *
 * @example
 * ```ts
 * import { rowPreprocessOfContent } from "./model_weights.ts";
 * const p = rowPreprocessOfContent({
 *   kind: "linear-sparse", numFeatures: 0, numLabels: 0, params: {}, tensors: {},
 *   preprocess: { l2Normalize: true },
 * });
 * console.log(p?.l2Normalize); // true
 * ```
 */
export function rowPreprocessOfContent(content: ModelFileContent): RowPreprocess | undefined {
  const pre = content.preprocess;
  if (!pre || (!pre.tfidf && !pre.l2Normalize)) return undefined;
  const out: RowPreprocess = {};
  if (pre.tfidf) {
    const what = `POP on a ${content.kind} model`;
    const t = tensor(content, "idf", what);
    checkLength(t, content.numFeatures, "idf", what);
    out.tfidf = true;
    out.idf = floatValues(t, "idf", what);
  }
  if (pre.l2Normalize) out.l2Normalize = true;
  return out;
}
