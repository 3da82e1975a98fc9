/**
 * Batch binary relevance: one L2-regularised squared-hinge (L2-loss) linear SVM per label,
 * trained by dual coordinate descent with shrinking (Hsieh et al. 2008, LIBLINEAR's solver
 * `-s 1`), the base model of the POP paper.
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../../data/types.ts";
import { Rng } from "../../random/mod.ts";
import type { LabelWeights } from "./label_weights.ts";

/**
 * Options of {@linkcode trainDcd}.
 *
 * @example
 * ```ts
 * import type { DcdOptions } from "./dcd.ts";
 * const o: DcdOptions = { C: 1, eps: 0.1 };
 * console.log(o.C); // 1
 * ```
 */
export interface DcdOptions {
  /** Cost of the squared hinge (LIBLINEAR `-c`, default 1). */
  C?: number;
  /** Stopping tolerance on the projected-gradient spread (LIBLINEAR `-e`, default 0.1). */
  eps?: number;
  /** Maximum passes per label (default 1000, as LIBLINEAR). */
  maxIter?: number;
  /**
   * Value of the constant bias feature appended to every row (LIBLINEAR `-B`, default 1;
   * 0 trains without bias). The bias weight is regularised, as in LIBLINEAR.
   */
  bias?: number;
  /** Seed of the coordinate order (default 0). */
  seed?: number;
  /** Called after each label with (labels done, total). */
  onLabel?: (done: number, total: number) => void;
}

/**
 * Trains one squared-hinge SVM per label by dual coordinate descent and returns the label-major
 * sparse weights (exact zeros dropped; weights rounded to float32) with the bias per label.
 * Deterministic for a given seed. Does not modify `x` or `y`.
 *
 * @param x training rows (D = `x.numCols`)
 * @param y their label sets (L = `y.numCols`)
 * @throws {RangeError} when `x` and `y` disagree on the number of rows or a parameter is invalid
 *
 * @example
 * ```ts
 * import { trainDcd } from "./dcd.ts";
 * const x = { numRows: 4, numCols: 2, indptr: Int32Array.of(0, 1, 2, 3, 4),
 *   indices: Int32Array.of(0, 1, 0, 1), values: Float32Array.of(1, 1, 1, 1) };
 * const y = { numRows: 4, numCols: 2, indptr: Int32Array.of(0, 1, 2, 3, 4),
 *   indices: Int32Array.of(0, 1, 0, 1) };
 * const w = trainDcd(x, y);
 * console.log(w.values[0] > 0, w.numLabels); // true 2
 * ```
 */
export function trainDcd(x: CsrMatrix, y: BinaryCsr, options: DcdOptions = {}): LabelWeights {
  const C = options.C ?? 1, eps = options.eps ?? 0.1, maxIter = options.maxIter ?? 1000;
  const B = options.bias ?? 1;
  if (!(C > 0) || !(eps > 0) || !(maxIter >= 1) || !(B >= 0)) {
    throw new RangeError(
      `trainDcd: need C > 0, eps > 0, maxIter >= 1, bias >= 0 (got ${C}, ${eps}, ${maxIter}, ${B})`,
    );
  }
  if (x.numRows !== y.numRows) {
    throw new RangeError(`trainDcd: x has ${x.numRows} rows but y has ${y.numRows}`);
  }
  const N = x.numRows, D = x.numCols, L = y.numCols;
  const { indptr, indices, values } = x;
  for (let p = 0; p < indptr[N]; p++) {
    if (!(indices[p] >= 0 && indices[p] < D)) {
      throw new RangeError(
        `trainDcd: feature index ${indices[p]} at entry ${p} is out of range [0, ${D})`,
      );
    }
  }
  // rows of each label (column view of y)
  const colPtr = new Int32Array(L + 1);
  for (let p = 0; p < y.indptr[N]; p++) {
    const l = y.indices[p];
    if (!(l >= 0 && l < L)) {
      throw new RangeError(`trainDcd: label index ${l} at entry ${p} is out of range [0, ${L})`);
    }
    colPtr[l + 1]++;
  }
  for (let l = 0; l < L; l++) colPtr[l + 1] += colPtr[l];
  const colRows = new Int32Array(colPtr[L]);
  const next = colPtr.slice(0, L);
  for (let i = 0; i < N; i++) {
    for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) colRows[next[y.indices[p]]++] = i;
  }
  const diag = 0.5 / C;
  const qd = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    let s = B * B + diag;
    for (let p = indptr[i]; p < indptr[i + 1]; p++) s += values[p] * values[p];
    qd[i] = s;
  }
  const w = new Float64Array(D);
  const alpha = new Float64Array(N);
  const sign = new Int8Array(N);
  const index = new Int32Array(N);
  const rng = new Rng(options.seed ?? 0);
  const labelPtr = new Int32Array(L + 1);
  const feats: Int32Array[] = [];
  const vals: Float32Array[] = [];
  const bias = new Float32Array(L);
  for (let l = 0; l < L; l++) {
    sign.fill(-1);
    for (let p = colPtr[l]; p < colPtr[l + 1]; p++) sign[colRows[p]] = 1;
    w.fill(0);
    alpha.fill(0);
    let wb = 0;
    for (let i = 0; i < N; i++) index[i] = i;
    let active = N;
    let pgMaxOld = Infinity; // no upper bound on α for the L2 loss: no PGmin shrinking
    for (let iter = 0; iter < maxIter; iter++) {
      let pgMaxNew = -Infinity, pgMinNew = Infinity;
      for (let i = 0; i < active; i++) {
        const j = i + Math.floor(rng.next() * (active - i));
        const t = index[i];
        index[i] = index[j];
        index[j] = t;
      }
      for (let s = 0; s < active; s++) {
        const i = index[s];
        const yi = sign[i];
        let dot = wb * B;
        for (let p = indptr[i]; p < indptr[i + 1]; p++) dot += w[indices[p]] * values[p];
        const a = alpha[i];
        const G = yi * dot - 1 + a * diag;
        let pg = 0;
        if (a === 0) {
          if (G > pgMaxOld) {
            active--;
            index[s] = index[active];
            index[active] = i;
            s--;
            continue;
          } else if (G < 0) pg = G;
        } else pg = G;
        if (pg > pgMaxNew) pgMaxNew = pg;
        if (pg < pgMinNew) pgMinNew = pg;
        if (Math.abs(pg) > 1e-12) {
          const na = Math.max(a - G / qd[i], 0);
          alpha[i] = na;
          const d = (na - a) * yi;
          for (let p = indptr[i]; p < indptr[i + 1]; p++) w[indices[p]] += d * values[p];
          wb += d * B;
        }
      }
      if (pgMaxNew - pgMinNew <= eps) {
        if (active === N) break;
        active = N;
        pgMaxOld = Infinity;
        continue;
      }
      pgMaxOld = pgMaxNew <= 0 ? Infinity : pgMaxNew;
    }
    let nz = 0;
    for (let j = 0; j < D; j++) if (Math.fround(w[j]) !== 0) nz++;
    const fi = new Int32Array(nz), fv = new Float32Array(nz);
    let q = 0;
    for (let j = 0; j < D; j++) {
      const v = Math.fround(w[j]);
      if (v !== 0) {
        fi[q] = j;
        fv[q++] = v;
      }
    }
    feats.push(fi);
    vals.push(fv);
    labelPtr[l + 1] = labelPtr[l] + nz;
    bias[l] = wb * B;
    options.onLabel?.(l + 1, L);
  }
  const featIdx = new Int32Array(labelPtr[L]);
  const out = new Float32Array(labelPtr[L]);
  for (let l = 0; l < L; l++) {
    featIdx.set(feats[l], labelPtr[l]);
    out.set(vals[l], labelPtr[l]);
  }
  return {
    numFeatures: D,
    numLabels: L,
    labelPtr,
    featIdx,
    values: out,
    bias: B > 0 ? bias : undefined,
  };
}
