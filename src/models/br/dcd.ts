/**
 * Batch binary relevance: one L2-regularised squared-hinge (L2-loss) linear SVM per label,
 * trained by dual coordinate descent with shrinking (Hsieh et al. 2008, LIBLINEAR's solver
 * `-s 1`), the base model of the POP paper.
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../../data/types.ts";
import { Rng } from "../../random/mod.ts";
import type { LabelWeights } from "../label_weights.ts";
import { defineSettings, type ModelSettings, SEED_SPEC } from "../settings.ts";
import { checkTrainingSet } from "../training_check.ts";

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

/** The settings of {@linkcode DcdOptions} (every key but the `onLabel` callback). */
export type DcdSettings = Omit<DcdOptions, "onLabel">;

/**
 * The declared options of the batch BR trainer ({@linkcode trainDcd}, `trainBr`): every
 * {@linkcode DcdOptions} key but `onLabel`, with its default and range. An unknown key or a bad
 * value is an error naming it (strings are parsed by the declared kind).
 *
 * @example
 * ```ts
 * import { DCD_SETTINGS } from "./dcd.ts";
 * console.log(DCD_SETTINGS.resolve({ C: "2" })); // { C: 2, eps: 0.1, maxIter: 1000, bias: 1, seed: 0 }
 * try { DCD_SETTINGS.resolve({ maxIter: 1.5 }); } catch (e) { console.log((e as Error).message); }
 * // br batch: option maxIter must be an integer in [1, 1048576], got 1.5
 * ```
 */
export const DCD_SETTINGS: ModelSettings<DcdSettings> = defineSettings<DcdSettings>("br batch", {
  C: {
    kind: "number",
    default: 1,
    min: 0,
    minExclusive: true,
    doc: "Cost of the squared hinge (LIBLINEAR -c).",
  },
  eps: {
    kind: "number",
    default: 0.1,
    min: 0,
    minExclusive: true,
    doc: "Stopping tolerance on the projected-gradient spread (LIBLINEAR -e).",
  },
  maxIter: { kind: "int", default: 1000, min: 1, max: 1 << 20, doc: "Maximum passes per label." },
  bias: {
    kind: "number",
    default: 1,
    min: 0,
    doc: "Value of the constant bias feature (LIBLINEAR -B; 0: no bias).",
  },
  seed: { ...SEED_SPEC, doc: "Seed of the coordinate order." },
});

/** The settings among `options` (all keys but the `onLabel` callback). */
function settingsOf(options: DcdOptions): Record<string, unknown> {
  const { onLabel: _, ...settings } = options;
  return settings;
}

/**
 * Trains one squared-hinge SVM per label by dual coordinate descent and returns the label-major
 * sparse weights (exact zeros dropped; weights rounded to float32) with the bias per label.
 * Deterministic for a given seed. Does not modify `x` or `y`.
 *
 * @param x training rows (D = `x.numCols`)
 * @param y their label sets (L = `y.numCols`)
 * @throws {RangeError} when `x` and `y` disagree on the number of rows, a row is malformed
 * (naming it) or a parameter is out of range ({@linkcode DCD_SETTINGS})
 * @throws {TypeError} for an unknown option or a value of the wrong type
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
  const { C, eps, maxIter, bias: B, seed } = DCD_SETTINGS.resolve(
    settingsOf(options),
  ) as Required<DcdSettings>;
  if (options.onLabel !== undefined && typeof options.onLabel !== "function") {
    throw new TypeError(`br batch: option onLabel must be a function`);
  }
  checkTrainingSet(x, y, "trainDcd");
  const N = x.numRows, D = x.numCols, L = y.numCols;
  const { indptr, indices, values } = x;
  // rows of each label (column view of y)
  const colPtr = new Int32Array(L + 1);
  for (let p = 0; p < y.indptr[N]; p++) {
    colPtr[y.indices[p] + 1]++;
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
  const rng = new Rng(seed);
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
