/**
 * PSP@k of label-major sparse weights on a validation set: the performance function POP's
 * binary search evaluates (PSP as reported by src/metrics: percent of the best achievable).
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../data/types.ts";
import {
  type LabelWeights,
  scoreFeatureMajor,
  toFeatureMajor,
} from "../models/br/label_weights.ts";
import { PspAtK } from "../metrics/psp.ts";
import { topKDense } from "../../sdk/internal.ts";

/**
 * Labelled validation rows (a `Dataset` fits).
 *
 * @example
 * ```ts
 * import type { ValidationRows } from "./validation.ts";
 * const v: ValidationRows = {
 *   x: { numRows: 0, numCols: 1, indptr: Int32Array.of(0), indices: new Int32Array(0), values: new Float32Array(0) },
 *   y: { numRows: 0, numCols: 1, indptr: Int32Array.of(0), indices: new Int32Array(0) },
 * };
 * console.log(v.x.numRows); // 0
 * ```
 */
export interface ValidationRows {
  readonly x: CsrMatrix;
  readonly y: BinaryCsr;
}

/**
 * PSP@k (percent, one per entry of `ks`) of `w` on the validation rows.
 *
 * @param propensities one propensity per label of `w`
 * @param ks increasing cut-offs (default [1, 3, 5])
 * @throws {RangeError} when the rows and labels disagree
 *
 * @example
 * ```ts
 * import { validationPsp } from "./validation.ts";
 * const w = { numFeatures: 2, numLabels: 2, labelPtr: Int32Array.of(0, 1, 2),
 *   featIdx: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const v = {
 *   x: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 * };
 * console.log(validationPsp(w, v, Float64Array.of(0.5, 0.5), [1])[0]); // 100
 * ```
 */
export function validationPsp(
  w: LabelWeights,
  rows: ValidationRows,
  propensities: ArrayLike<number>,
  ks: readonly number[] = [1, 3, 5],
): number[] {
  const { x, y } = rows;
  if (x.numRows !== y.numRows) {
    throw new RangeError(`validationPsp: ${x.numRows} feature rows but ${y.numRows} label rows`);
  }
  if (propensities.length < w.numLabels) {
    throw new RangeError(
      `validationPsp: ${propensities.length} propensities for ${w.numLabels} labels`,
    );
  }
  const f = toFeatureMajor(w);
  const scores = new Float64Array(w.numLabels);
  const psp = new PspAtK(propensities, ks);
  const maxK = Math.max(...ks);
  for (let i = 0; i < x.numRows; i++) {
    const s = x.indptr[i], e = x.indptr[i + 1];
    scoreFeatureMajor(
      f,
      w.bias,
      { indices: x.indices.subarray(s, e), values: x.values.subarray(s, e) },
      scores,
    );
    const top = topKDense(scores, maxK);
    psp.add(top.labels, y.indices.subarray(y.indptr[i], y.indptr[i + 1]));
  }
  const r = psp.result();
  return ks.map((k) => r[`PSP@${k}`]);
}

/**
 * `x` without its entries outside the model's columns [0, numFeatures) (`x` itself when it has
 * none), as the SDK drops them before TF-IDF and L2 normalisation: kept, they entered the norm,
 * so the rows POP validated on were scaled unlike the model's queries.
 *
 * @example
 * ```ts
 * import { modelColumns } from "./validation.ts";
 * const x = { numRows: 1, numCols: 6, indptr: Int32Array.of(0, 2), indices: Int32Array.of(0, 5), values: Float32Array.of(1, 10) };
 * const m = modelColumns(x, 2);
 * console.log(m.numCols, [...m.indices], [...m.values]); // 2 [ 0 ] [ 1 ]
 * ```
 */
export function modelColumns(x: CsrMatrix, numFeatures: number): CsrMatrix {
  const { indptr, indices, values } = x;
  const known = (j: number) => j >= 0 && j < numFeatures;
  let n = 0;
  for (let p = indptr[0]; p < indptr[x.numRows]; p++) n += known(indices[p]) ? 1 : 0;
  if (n === indptr[x.numRows] - indptr[0]) return x;
  const ptr = new Int32Array(x.numRows + 1), idx = new Int32Array(n), val = new Float32Array(n);
  let q = 0;
  for (let i = 0; i < x.numRows; i++) {
    for (let p = indptr[i]; p < indptr[i + 1]; p++) {
      if (known(indices[p])) {
        idx[q] = indices[p];
        val[q++] = values[p];
      }
    }
    ptr[i + 1] = q;
  }
  return {
    numRows: x.numRows,
    numCols: Math.min(x.numCols, numFeatures),
    indptr: ptr,
    indices: idx,
    values: val,
  };
}
