/**
 * The size-versus-PSP@k trade-off of POP (the paper's Figures 3 and 4): an ε sweep at fixed λ
 * and a λ sweep at fixed ε, each point a pruned model's file size and its PSP@k on the
 * validation rows, and its rendering as an SVG line plot.
 *
 * @module
 */
import { encodeModelFile } from "../format/model_file.ts";
import { type LabelWeights, linearSparseContent } from "../models/label_weights.ts";
import { linePlot, type Series } from "../plot/line_plot.ts";
import {
  applyPop,
  impactOrder,
  labelImpact,
  labelOptimization,
  POP_OPTION_KEYS,
  popDefaults,
  type SearchRun,
} from "./pop.ts";
import {
  resolveStorage,
  STORAGE_OPTION_KEYS,
  type StorageOptions,
  storedWeights,
} from "./storage.ts";
import { checkOptionKeys } from "../data/option_check.ts";
import { biasOrderMemo, validationPsp, type ValidationRows } from "./validation.ts";

/**
 * One pruned model of a sweep.
 *
 * @example
 * ```ts
 * import type { CurvePoint } from "./curve.ts";
 * const p: CurvePoint = { sweep: "epsilon", epsilon: 0.01, lambda: 0.01, numPrunedLabels: 3,
 *   nnz: 120, bytes: 900, psp: [50, 45, 48] };
 * console.log(p.bytes); // 900
 * ```
 */
export interface CurvePoint {
  /** Which parameter this point's sweep varies. */
  sweep: "epsilon" | "lambda";
  epsilon: number;
  lambda: number;
  /** Labels cut to δ weights by the search at this ε. */
  numPrunedLabels: number;
  /** Weights kept. */
  nnz: number;
  /** Size of the stored model in bytes. */
  bytes: number;
  /** PSP@k (one per k) of the stored weights on the validation rows. */
  psp: number[];
}

/**
 * Options of {@linkcode popCurve}.
 *
 * @example
 * ```ts
 * import type { CurveOptions } from "./curve.ts";
 * const o: CurveOptions = { epsilons: [0, 0.01, 0.05], lambdas: [0.001, 0.01] };
 * console.log(o.epsilons?.length); // 3
 * ```
 */
export interface CurveOptions extends StorageOptions, SearchRun {
  /** ε values of the ε sweep (default [0, 0.005, 0.01, 0.02, 0.05, 0.1]). */
  epsilons?: number[];
  /** λ values of the λ sweep (default [0, 0.0001, 0.001, 0.01, 0.03, 0.1]). */
  lambdas?: number[];
  /** ε of the λ sweep (default 0.01). */
  epsilon?: number;
  /** λ of the ε sweep (default 0.01). */
  lambda?: number;
  /** Weights each label keeps at least (default 5). */
  delta?: number;
  /** PSP cut-offs (default [1, 3, 5]). */
  ks?: number[];
  /**
   * Size in bytes of the model a point stands for (default: the `linear-sparse` file of the
   * pruned weights with the storage options). Lets a search run on one model while sizes come
   * from another, e.g. BR retrained on all rows: then it also returns that model's weights kept,
   * `{bytes, nnz}`, the point's `nnz` (a number alone: the pruned weights' count).
   */
  sizeOf?: (
    numPrunedLabels: number,
    lambda: number,
    pruned: LabelWeights,
  ) => number | { bytes: number; nnz: number };
}

/**
 * The keys of {@linkcode CurveOptions}.
 *
 * @example
 * ```ts
 * import { CURVE_OPTION_KEYS } from "./curve.ts";
 * console.log(CURVE_OPTION_KEYS.includes("lambdas")); // true
 * ```
 */
export const CURVE_OPTION_KEYS: readonly (keyof CurveOptions)[] = [
  ...POP_OPTION_KEYS,
  ...STORAGE_OPTION_KEYS,
  "epsilons",
  "lambdas",
  "cache",
  "observer",
  "biasOrders",
  "sizeOf",
];

/**
 * Sweeps ε (at fixed λ) and λ (at fixed ε) over POP on `w`, measuring each pruned model's size
 * and validation PSP@k (of the weights rounded as stored). Points of a sweep come in the order
 * of its parameter values. `rows` must be preprocessed as the model expects. The `cache` of label
 * cuts may be shared with other searches on the same weights, rows and δ; the `observer` is told
 * of each point's label search and of the points measured ({@linkcode SearchRun}).
 *
 * @throws {TypeError} for an unknown option (e.g. `lambda` for `lambdas`)
 * @throws {RangeError} on an invalid ε, λ or δ
 *
 * @example
 * ```ts
 * import { popCurve } from "./curve.ts";
 * const w = { numFeatures: 3, numLabels: 2, labelPtr: Int32Array.of(0, 3, 6),
 *   featIdx: Int32Array.of(0, 1, 2, 0, 1, 2), values: Float32Array.of(1, -1, 0.05, -1, 1, 0.2) };
 * const rows = {
 *   x: { numRows: 2, numCols: 3, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 * };
 * const pts = popCurve(w, rows, [1, 1], Float64Array.of(0.5, 0.5),
 *   { epsilons: [0], lambdas: [0, 0.1], delta: 1, ks: [1] });
 * console.log(pts.map((p) => `${p.sweep} ${p.nnz} ${p.psp[0]}`)); // [ "epsilon 4 100", "lambda 4 100", "lambda 3 100" ]
 * ```
 */
export function popCurve(
  w: LabelWeights,
  rows: ValidationRows,
  labelCounts: ArrayLike<number>,
  propensities: ArrayLike<number>,
  options: CurveOptions = {},
): CurvePoint[] {
  checkOptionKeys("popCurve", options, CURVE_OPTION_KEYS);
  const epsilons = options.epsilons ?? [0, 0.005, 0.01, 0.02, 0.05, 0.1];
  const lambdas = options.lambdas ?? [0, 0.0001, 0.001, 0.01, 0.03, 0.1];
  const { epsilon: fixedEps, lambda: fixedLambda, delta, ks } = popDefaults(options);
  const storage = resolveStorage(options, w.numLabels);
  // every point's search and measure validates cuts of `w`: one cut memo and one bias order
  const run: SearchRun = {
    cache: options.cache ?? new Map(),
    observer: options.observer,
    biasOrders: options.biasOrders ?? biasOrderMemo(),
  };
  const order = impactOrder(labelImpact(labelCounts, propensities));
  const cutAt = (epsilon: number) =>
    labelOptimization(w, rows, propensities, order, { epsilon, delta, ks }, run).numPrunedLabels;
  const sizeOf = options.sizeOf ??
    ((_m: number, _l: number, pruned: LabelWeights) =>
      encodeModelFile(linearSparseContent(pruned, storage)).length);
  const measured = new Map<string, Omit<CurvePoint, "sweep" | "epsilon">>();
  const total = epsilons.length + lambdas.length;
  let done = 0;
  options.observer?.onCurvePoint?.({ done, total });
  const point = (sweep: CurvePoint["sweep"], epsilon: number, lambda: number): CurvePoint => {
    const m = cutAt(epsilon);
    const key = `${m} ${lambda}`;
    let r = measured.get(key);
    if (!r) {
      const pruned = storedWeights(applyPop(w, order, m, { lambda, delta }), storage.weightType);
      const size = sizeOf(m, lambda, pruned);
      r = {
        lambda,
        numPrunedLabels: m,
        nnz: typeof size === "number" ? pruned.labelPtr[pruned.numLabels] : size.nnz,
        bytes: typeof size === "number" ? size : size.bytes,
        psp: validationPsp(pruned, rows, propensities, ks, run.biasOrders),
      };
      measured.set(key, r);
    }
    options.observer?.onCurvePoint?.({ done: ++done, total });
    return { sweep, epsilon, ...r, psp: r.psp.slice() };
  };
  return [
    ...epsilons.map((e) => point("epsilon", e, fixedLambda)),
    ...lambdas.map((l) => point("lambda", fixedEps, l)),
  ];
}

/**
 * Options of {@linkcode curveSvg}.
 *
 * @example
 * ```ts
 * import type { CurveSvgOptions } from "./curve.ts";
 * const o: CurveSvgOptions = { title: "POP on bibtex", referenceBytes: 2_300_000 };
 * console.log(o.title); // "POP on bibtex"
 * ```
 */
export interface CurveSvgOptions {
  title?: string;
  /** PSP cut-offs of the points' `psp` entries (default [1, 3, 5]). */
  ks?: number[];
  /** Size of the unpruned model, drawn as a vertical reference line. */
  referenceBytes?: number;
  /** Legend of the reference line (default "unpruned"). */
  referenceLabel?: string;
  /**
   * Validation PSP@k (one per k) of the unpruned model: drawn as its points at
   * `referenceBytes` (legend "input PSP@k").
   */
  referencePsp?: readonly number[];
}

const EPS_COLORS = ["#08519c", "#3182bd", "#6baed6"];
const LAMBDA_COLORS = ["#a50f15", "#de2d26", "#fb6a4a"];
const INPUT_COLORS = ["#00441b", "#238b45", "#74c476"];

/**
 * Renders curve points as an SVG plot: x = model size (kB), y = validation PSP@k, one line per
 * sweep and k (blues for the ε sweep, reds for the λ sweep), points joined in order of size;
 * the title says at which λ and ε the sweeps ran. The unpruned model is a grey vertical line at
 * its size and, with `referencePsp`, its own PSP@k as green diamonds on it.
 *
 * @example
 * ```ts
 * import { curveSvg } from "./curve.ts";
 * const svg = curveSvg([
 *   { sweep: "epsilon", epsilon: 0, lambda: 0.01, numPrunedLabels: 0, nnz: 90, bytes: 2000, psp: [50] },
 *   { sweep: "epsilon", epsilon: 0.05, lambda: 0.01, numPrunedLabels: 4, nnz: 40, bytes: 1000, psp: [47] },
 * ], { ks: [1], referenceBytes: 4000, referencePsp: [51] });
 * console.log(svg.startsWith("<svg"), svg.includes("ε sweep PSP@1"), svg.includes("input PSP@1")); // true true true
 * ```
 */
export function curveSvg(points: readonly CurvePoint[], options: CurveSvgOptions = {}): string {
  const ks = options.ks ?? [1, 3, 5];
  const series: Series[] = [];
  const notes: string[] = [];
  let yMin = Infinity, yMax = -Infinity;
  for (const sweep of ["epsilon", "lambda"] as const) {
    const pts = points.filter((p) => p.sweep === sweep).sort((a, b) => a.bytes - b.bytes);
    if (pts.length === 0) continue;
    const fixed = sweep === "epsilon" ? `ε sweep` : `λ sweep`;
    notes.push(
      sweep === "epsilon" ? `ε sweep at λ = ${pts[0].lambda}` : `λ sweep at ε = ${pts[0].epsilon}`,
    );
    ks.forEach((k, i) => {
      const y = pts.map((p) => p.psp[i]);
      for (const v of y) {
        yMin = Math.min(yMin, v);
        yMax = Math.max(yMax, v);
      }
      series.push({
        name: `${fixed} PSP@${k}`,
        x: pts.map((p) => p.bytes / 1000),
        y,
        color: (sweep === "epsilon" ? EPS_COLORS : LAMBDA_COLORS)[i % 3],
      });
    });
  }
  const ref = options.referenceBytes;
  if (ref !== undefined && options.referencePsp) {
    const psp = options.referencePsp;
    ks.forEach((k, i) => {
      if (!Number.isFinite(psp[i])) return;
      yMin = Math.min(yMin, psp[i]);
      yMax = Math.max(yMax, psp[i]);
      series.push({
        name: `input PSP@${k}`,
        x: [ref / 1000],
        y: [psp[i]],
        color: INPUT_COLORS[i % 3],
        marker: "diamond",
      });
    });
  }
  if (options.referenceBytes !== undefined && yMin <= yMax) {
    series.push({
      name: options.referenceLabel ?? "unpruned",
      x: [options.referenceBytes / 1000, options.referenceBytes / 1000],
      y: [yMin, yMax],
      color: "#888888",
      markers: false,
    });
  }
  return linePlot(series, {
    title: `${options.title ?? "POP: model size vs validation PSP@k"}` +
      (notes.length ? ` (${notes.join(", ")})` : ""),
    xLabel: "model file size (kB)",
    yLabel: "validation PSP@k (%)",
    width: 820,
    height: 440,
  });
}
