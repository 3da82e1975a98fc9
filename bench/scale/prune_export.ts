/**
 * The scale benchmark's pruned export: the largest magnitude-pruned `linear-sparse` file of a
 * linear model that fits a byte budget (by default 25 MiB, the largest Workers KV value), and how
 * much held-out P@k / PSP@k it loses against the unpruned file, both scored through the SDK on
 * the same rows.
 *
 * Pruning is POP's thresholding (`thresholdWeights`: weights with |w| ≤ √λ are dropped, each
 * label keeps at least its δ largest). The file's size is affine in the number of kept weights
 * (f16 weights; u16 label indices when L ≤ 65536, else i32), so the search bisects the threshold
 * t = √λ over the float32 bit patterns of |w| (31 counting passes, no copies) for the smallest t
 * whose kept count fits (keeping 64 bytes for alignment padding), then encodes once and checks the
 * real size (and asks for a little less if it is still over).
 *
 * @module
 */
import type { SparseVector } from "../../src/data/types.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { type LabelWeights, linearSparseContent, nnzOf } from "../../src/models/label_weights.ts";
import { thresholdWeights } from "../../src/prune/pop.ts";
import { rowPreprocessOfContent } from "../../src/prune/model_weights.ts";
import { resolveStorage } from "../../src/prune/storage.ts";
import { PrecisionAtK } from "../../src/metrics/precision.ts";
import { PspAtK } from "../../src/metrics/psp.ts";
import { loadModel } from "../../sdk/mod.ts";

/** 25 MiB: the largest value Workers KV stores. */
export const KV_VALUE_LIMIT = 25 * 1024 * 1024;

/**
 * The outcome of {@linkcode pruneToBytes}.
 *
 * @example
 * ```ts
 * import type { PrunedFile } from "./prune_export.ts";
 * function kept(p: PrunedFile): number { return p.weights; }
 * console.log(typeof kept); // "function"
 * ```
 */
export interface PrunedFile {
  /** The encoded pruned model file. */
  file: Uint8Array;
  /** λ of `thresholdWeights` (weights with |w| ≤ √λ dropped); 0 when nothing had to go. */
  lambda: number;
  /** At least this many weights kept per label (fewer when a label has fewer). */
  delta: number;
  /** Weights kept, and before pruning. */
  weights: number;
  weightsBefore: number;
  weightType: "f16";
  indexType: "u16" | "i32";
  /** False when even δ weights per label do not fit the budget (`file` is then that model). */
  withinBudget: boolean;
}

/** Label-major weights with no weight at all (the file's size without weights). */
function emptyLike(w: LabelWeights): LabelWeights {
  return {
    numFeatures: w.numFeatures,
    numLabels: w.numLabels,
    labelPtr: new Int32Array(w.numLabels + 1),
    featIdx: new Int32Array(0),
    values: new Float32Array(0),
    bias: w.bias,
  };
}

/** Weights kept by `thresholdWeights` with √λ = t: per label max(#{|w| > t}, min(δ, size)). */
function keptCount(w: LabelWeights, t: number, delta: number): number {
  const { labelPtr, values } = w;
  let kept = 0;
  for (let l = 0; l < w.numLabels; l++) {
    const s = labelPtr[l], e = labelPtr[l + 1];
    let n = 0;
    for (let p = s; p < e; p++) if (Math.abs(values[p]) > t) n++;
    const floor = Math.min(delta, e - s);
    kept += n > floor ? n : floor;
  }
  return kept;
}

/**
 * The largest thresholded version of `w` whose `linear-sparse` file (f16 weights, the smallest
 * label index type, `base`'s label names, preprocessing, feature space and metadata) is at most
 * `maxBytes`.
 *
 * @param base the unpruned model file's content (only its header fields are used)
 * @throws {RangeError} when `maxBytes` or `delta` is not a non-negative number
 *
 * @example
 * ```ts
 * import { pruneToBytes } from "./prune_export.ts";
 * const w = {
 *   numFeatures: 2, numLabels: 2, labelPtr: Int32Array.of(0, 2, 4),
 *   featIdx: Int32Array.of(0, 1, 0, 1), values: Float32Array.of(1, 0.1, -2, 0.2),
 * };
 * const base = { kind: "linear-sparse" as const, numFeatures: 2, numLabels: 2, params: {}, tensors: {} };
 * const all = pruneToBytes(w, base, 1e6, 1);
 * const some = pruneToBytes(w, base, all.file.length - 1, 1);
 * // one byte less: weights go by increasing magnitude (and alignment padding may take two)
 * console.log(all.weights, all.lambda, some.weights < 4, some.file.length < all.file.length); // 4 0 true true
 * ```
 */
export function pruneToBytes(
  w: LabelWeights,
  base: ModelFileContent,
  maxBytes: number,
  delta: number,
): PrunedFile {
  if (!(maxBytes >= 0) || !(Number.isInteger(delta) && delta >= 0)) {
    throw new RangeError(`pruneToBytes: bad maxBytes ${maxBytes} or delta ${delta}`);
  }
  const storage = resolveStorage({ weightType: "f16" }, w.numLabels);
  const pre = rowPreprocessOfContent(base);
  const encode = (pw: LabelWeights, lambda: number): Uint8Array => {
    const c = linearSparseContent(pw, {
      labelNames: base.labelNames,
      preprocess: pre,
      meta: { ...base.meta, prunedToBytes: { maxBytes, lambda, delta } },
      weightType: "f16",
      indexType: storage.indexType,
      // the bias order costs 4 bytes a label (4 MB at 10^6): the SDK sorts the biases on its
      // first query instead, and those bytes hold weights
      biasOrder: false,
    });
    if (base.featureSpace) c.featureSpace = structuredClone(base.featureSpace);
    return encodeModelFile(c);
  };
  const before = nnzOf(w);
  const perWeight = 2 + (storage.indexType === "u16" ? 2 : 4);
  // the file without weights; a weight adds perWeight bytes (plus alignment padding, checked)
  const fixed = encode(emptyLike(w), 0).length;
  const bits = new Uint32Array(1), f32 = new Float32Array(bits.buffer);
  const thresholdOf = (b: number) => {
    bits[0] = b;
    return f32[0];
  };
  let maxAbs = 0;
  for (let p = 0; p < before; p++) maxAbs = Math.max(maxAbs, Math.abs(w.values[p]));
  f32[0] = maxAbs;
  const topBits = bits[0];
  // bytes kept free for the tensors' alignment padding, which the affine size does not count
  let slack = 64;
  for (let attempt = 0;; attempt++) {
    const target = Math.floor((maxBytes - slack - fixed) / perWeight);
    const fits = (t: number) => keptCount(w, t, delta) <= target;
    let t: number;
    if (fits(0)) t = 0;
    else {
      // smallest bit pattern b (threshold t = f32(b) ≥ 0) whose kept count fits; at maxAbs only
      // the δ floor is kept, so when that does not fit the budget cannot be met
      let lo = 0, hi = topBits;
      if (!fits(thresholdOf(hi))) lo = hi;
      while (hi - lo > 1) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (fits(thresholdOf(mid))) hi = mid;
        else lo = mid;
      }
      t = thresholdOf(hi);
    }
    // t is a float32, so t·t is exact in float64 and √(t·t) = t: the same cut as keptCount
    const lambda = t * t;
    const pw = lambda === 0 ? w : thresholdWeights(w, lambda, delta);
    const file = encode(pw, lambda);
    const kept = nnzOf(pw);
    const floorOnly = kept === keptCount(w, maxAbs, delta);
    if (file.length <= maxBytes || floorOnly || attempt >= 3) {
      return {
        file,
        lambda,
        delta,
        weights: kept,
        weightsBefore: before,
        weightType: "f16",
        indexType: storage.indexType,
        withinBudget: file.length <= maxBytes,
      };
    }
    slack += file.length - maxBytes + 8 * perWeight; // still over: ask for a bit less
  }
}

/** A held-out row: its features and its (sorted) positive labels. */
export interface HeldOutRow {
  x: SparseVector;
  labels: Int32Array;
}

const KS = [1, 3, 5];

function metricsOf(p: PrecisionAtK, psp: PspAtK): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries({ ...p.result(), ...psp.result() })) {
    out[k] = Math.round(v * 1000) / 1000;
  }
  return out;
}

/**
 * P@1/3/5 and PSP@1/3/5 of two model files through the SDK (`loadModel`, `predictTopK(x, 5)`) on
 * the same held-out rows: each row is scored by both before the next, until `maxRows` rows or
 * `budgetSeconds` seconds. Each file's first query is timed apart (`firstQueryMsA`/`B`, on the
 * first row, not counted in the metrics): a file without `biasOrder`, as the pruned one is,
 * sorts its biases then (0.59 s at 10⁶ labels), which the per-row times used to spread over the
 * rows (at 10⁶ labels over 200 rows, 6.6 ms a row for the pruned file against 1.5 for the
 * unpruned one; with the first query apart, 0.27 against 0.38).
 *
 * @example
 * ```ts
 * import { compareFiles, pruneToBytes } from "./prune_export.ts";
 * import { encodeModelFile } from "../../src/format/model_file.ts";
 * import { linearSparseContent } from "../../src/models/label_weights.ts";
 * const w = {
 *   numFeatures: 2, numLabels: 2, labelPtr: Int32Array.of(0, 1, 2),
 *   featIdx: Int32Array.of(0, 1), values: Float32Array.of(1, 1),
 * };
 * const file = encodeModelFile(linearSparseContent(w));
 * const rows = [{ x: { indices: Int32Array.of(1), values: Float32Array.of(1) }, labels: Int32Array.of(1) }];
 * const c = compareFiles(file, file, rows, Float64Array.of(1, 1), 10, 60);
 * console.log(c.rows, c.a["P@1"], c.b["P@1"], c.firstQueryMsA >= 0); // 1 100 100 true
 * ```
 */
export function compareFiles(
  fileA: Uint8Array,
  fileB: Uint8Array,
  rows: readonly HeldOutRow[],
  propensities: ArrayLike<number>,
  maxRows: number,
  budgetSeconds: number,
): {
  rows: number;
  a: Record<string, number>;
  b: Record<string, number>;
  msPerRowA: number;
  msPerRowB: number;
  firstQueryMsA: number;
  firstQueryMsB: number;
} {
  const a = loadModel(fileA), b = loadModel(fileB);
  const pa = new PrecisionAtK(KS), sa = new PspAtK(propensities, KS);
  const pb = new PrecisionAtK(KS), sb = new PspAtK(propensities, KS);
  // the first query apart: what a file prepares then (the bias sort) is not a per-row cost
  let firstA = 0, firstB = 0;
  if (rows.length > 0 && maxRows > 0) {
    const t1 = performance.now();
    a.predictTopK(rows[0].x, 5);
    const t2 = performance.now();
    b.predictTopK(rows[0].x, 5);
    firstB = performance.now() - t2;
    firstA = t2 - t1;
  }
  const t0 = performance.now();
  let n = 0, msA = 0, msB = 0;
  for (const row of rows) {
    if (n >= maxRows || (performance.now() - t0) / 1000 >= budgetSeconds) break;
    const t1 = performance.now();
    const ta = a.predictTopK(row.x, 5).labels;
    const t2 = performance.now();
    const tb = b.predictTopK(row.x, 5).labels;
    msB += performance.now() - t2;
    msA += t2 - t1;
    pa.add(ta, row.labels);
    sa.add(ta, row.labels);
    pb.add(tb, row.labels);
    sb.add(tb, row.labels);
    n++;
  }
  const perRow = (ms: number) => (n > 0 ? Math.round((ms / n) * 1e4) / 1e4 : 0);
  return {
    rows: n,
    a: metricsOf(pa, sa),
    b: metricsOf(pb, sb),
    msPerRowA: perRow(msA),
    msPerRowB: perRow(msB),
    firstQueryMsA: Math.round(firstA * 1e4) / 1e4,
    firstQueryMsB: Math.round(firstB * 1e4) / 1e4,
  };
}

/**
 * The benchmark's `pruned` record (see {@linkcode prunedExport}): what {@linkcode PrunedFile} says
 * of the pruning (all but the file itself), the sizes, and the held-out comparison.
 *
 * @example
 * ```ts
 * import type { PrunedExport } from "./prune_export.ts";
 * function saved(p: PrunedExport): number { return p.unprunedBytes - p.bytes; }
 * console.log(typeof saved); // "function"
 * ```
 */
export interface PrunedExport extends Omit<PrunedFile, "file"> {
  /** The byte budget, the pruned file's bytes and the unpruned (f32) file's. */
  maxBytes: number;
  bytes: number;
  unprunedBytes: number;
  /** Whether the unpruned file is over the budget. */
  needed: boolean;
  /** Seconds of the threshold search and the pruned file's encoding. */
  searchSeconds: number;
  /** Held-out rows both files were scored on, and the cap. */
  evalRows: number;
  evalRowsCap: number;
  evalPath: string;
  /** SDK milliseconds per row after each file's first query. */
  sdkMsPerRowUnpruned: number;
  sdkMsPerRowPruned: number;
  /**
   * SDK milliseconds of each file's first query, on the first row: the pruned file has no
   * `biasOrder` (its 4 bytes a label hold weights), so the SDK sorts the biases then.
   */
  sdkFirstQueryMsUnpruned: number;
  sdkFirstQueryMsPruned: number;
  /** P@1/3/5 and PSP@1/3/5 of the pruned file, and of the unpruned file on the same rows. */
  metrics: Record<string, number>;
  unprunedMetrics: Record<string, number>;
  /** 1 − PSP@5(pruned) / PSP@5(unpruned); null when the unpruned PSP@5 is 0. */
  relativePsp5Loss: number | null;
  /** relativePsp5Loss ≤ 0.01. */
  withinOnePercent: boolean;
}

/**
 * Options of {@linkcode prunedExport}.
 *
 * @example
 * ```ts
 * import { KV_VALUE_LIMIT, type PrunedExportOptions } from "./prune_export.ts";
 * const o: PrunedExportOptions = { maxBytes: KV_VALUE_LIMIT, delta: 1, evalRows: 2000, evalBudgetSeconds: 60 };
 * console.log(o.maxBytes); // 26214400
 * ```
 */
export interface PrunedExportOptions {
  /** Byte budget of the pruned file. */
  maxBytes: number;
  /** Weights kept per label at least. */
  delta: number;
  /** Held-out rows scored at most (by both files). */
  evalRows: number;
  /** Seconds of scoring after which the comparison stops. */
  evalBudgetSeconds: number;
}

/**
 * The benchmark's `pruned` record: prunes `weights` to the byte budget, then scores the unpruned
 * file `unprunedFile` and the pruned one through the SDK on the same held-out rows.
 * `relativePsp5Loss` = 1 − PSP@5(pruned) / PSP@5(unpruned) on those rows (null when the
 * unpruned PSP@5 is 0).
 *
 * @example
 * ```ts
 * import { prunedExport } from "./prune_export.ts";
 * import { encodeModelFile } from "../../src/format/model_file.ts";
 * import { linearSparseContent } from "../../src/models/label_weights.ts";
 * const w = {
 *   numFeatures: 2, numLabels: 2, labelPtr: Int32Array.of(0, 2, 4),
 *   featIdx: Int32Array.of(0, 1, 0, 1), values: Float32Array.of(1, 0.1, 0.2, 2),
 * };
 * const file = encodeModelFile(linearSparseContent(w));
 * const rows = [{ x: { indices: Int32Array.of(1), values: Float32Array.of(1) }, labels: Int32Array.of(1) }];
 * const r = prunedExport(w, file, rows, Float64Array.of(1, 1), {
 *   maxBytes: 1e6, delta: 1, evalRows: 10, evalBudgetSeconds: 60,
 * });
 * console.log(r.lambda, r.weights, r.evalRows, r.relativePsp5Loss); // 0 4 1 0
 * ```
 */
export function prunedExport(
  weights: LabelWeights,
  unprunedFile: Uint8Array,
  rows: readonly HeldOutRow[],
  propensities: ArrayLike<number>,
  o: PrunedExportOptions,
): PrunedExport {
  const base = decodeModelFile(unprunedFile);
  const t0 = performance.now();
  const p = pruneToBytes(weights, base, o.maxBytes, o.delta);
  const searchSeconds = (performance.now() - t0) / 1000;
  const c = compareFiles(
    unprunedFile,
    p.file,
    rows,
    propensities,
    o.evalRows,
    o.evalBudgetSeconds,
  );
  const u5 = c.a["PSP@5"], p5 = c.b["PSP@5"];
  const loss = u5 > 0 ? Math.round((1 - p5 / u5) * 1e5) / 1e5 : null;
  return {
    maxBytes: o.maxBytes,
    bytes: p.file.length,
    unprunedBytes: unprunedFile.length,
    needed: unprunedFile.length > o.maxBytes,
    withinBudget: p.withinBudget,
    lambda: p.lambda,
    delta: p.delta,
    weights: p.weights,
    weightsBefore: p.weightsBefore,
    weightType: p.weightType,
    indexType: p.indexType,
    searchSeconds: Math.round(searchSeconds * 1000) / 1000,
    evalRows: c.rows,
    evalRowsCap: o.evalRows,
    evalPath: "sdk loadModel + predictTopK(x, 5), both files on the same rows",
    sdkMsPerRowUnpruned: c.msPerRowA,
    sdkMsPerRowPruned: c.msPerRowB,
    sdkFirstQueryMsUnpruned: c.firstQueryMsA,
    sdkFirstQueryMsPruned: c.firstQueryMsB,
    metrics: c.b,
    unprunedMetrics: c.a,
    relativePsp5Loss: loss,
    withinOnePercent: loss !== null && loss <= 0.01,
  };
}
