/**
 * POP from a training run of binary relevance, with validation on the training file only:
 * BR is trained on a seeded (1 − f) part of the training rows, POP's label search runs on the
 * held-out f, and the number of δ-pruned labels it finds is applied, with the √λ threshold, to
 * BR retrained on all training rows. Labels are ranked by wⱼuⱼ from the whole training file.
 *
 * @module
 */
import { type Dataset, labelCounts, splitRows } from "../data/dataset.ts";
import { encodeModelFile } from "../format/model_file.ts";
import type { ModelFileContent } from "../format/types.ts";
import type { DcdOptions } from "../models/br/dcd.ts";
import type { BrEstimator } from "../models/br/estimator.ts";
import { type LabelWeights, linearSparseContent } from "../models/label_weights.ts";
import { trainBr } from "../models/br/mod.ts";
import { preprocessRows } from "../data/preprocess.ts";
import { type CurveOptions, type CurvePoint, popCurve } from "./curve.ts";
import {
  applyPop,
  impactOrder,
  labelImpact,
  pop,
  POP_OPTION_KEYS,
  popDefaults,
  type PopObserver,
  type PopOptions,
  type PopResult,
  type SearchRun,
} from "./pop.ts";
import {
  resolveStorage,
  STORAGE_OPTION_KEYS,
  type StorageOptions,
  storedWeights,
} from "./storage.ts";
import { booleanOption, checkOptionKeys, shown } from "../data/option_check.ts";
import { biasOrderMemo, type ValidationRows } from "./validation.ts";

/**
 * Options of {@linkcode popBr}.
 *
 * @example
 * ```ts
 * import type { PopBrOptions } from "./pop_br.ts";
 * const o: PopBrOptions = { epsilon: 0.01, lambda: 0.01, delta: 5, dcd: { C: 1 } };
 * console.log(o.dcd?.C); // 1
 * ```
 */
export interface PopBrOptions extends PopOptions, StorageOptions {
  /** Dual coordinate descent settings of both BR fits (`onLabel` is set by `onProgress`). */
  dcd?: Omit<DcdOptions, "onLabel">;
  /** Train and score on unit-L2 rows (default true). */
  l2Normalize?: boolean;
  /** Fraction of the training rows held out for the search (default 0.2). */
  validationFraction?: number;
  /** Seed of the split and of DCD (default 0). */
  seed?: number;
  /** Label names and metadata recorded in the pruned file. */
  labelNames?: readonly string[];
  meta?: Record<string, unknown>;
  /** Also sweep ε and λ on the held-out rows; sizes are those of the retrained model's files. */
  curve?: Omit<
    CurveOptions,
    keyof SearchRun | "delta" | "ks" | "weightType" | "indexType" | "sizeOf"
  >;
  /** Called as BR trains: phase, labels done, labels in all. */
  onProgress?: (phase: "fit" | "full", done: number, total: number) => void;
  /** Told of POP's label search on the held-out rows, then of the curve's (`curve`). */
  observer?: PopObserver;
}

/** The keys of {@linkcode PopBrOptions} and of its `curve`. */
const POP_BR_KEYS = [
  ...POP_OPTION_KEYS,
  ...STORAGE_OPTION_KEYS,
  "dcd",
  "l2Normalize",
  "validationFraction",
  "seed",
  "labelNames",
  "meta",
  "curve",
  "onProgress",
  "observer",
];
const POP_BR_CURVE_KEYS = ["epsilons", "lambdas", "epsilon", "lambda"];

/**
 * The outcome of {@linkcode popBr}.
 *
 * @example
 * ```ts
 * import type { PopBrResult } from "./pop_br.ts";
 * function ratio(r: PopBrResult): number { return r.bytes.length / r.search.nnzBefore; }
 * console.log(typeof ratio); // "function"
 * ```
 */
export interface PopBrResult {
  /** BR trained on all training rows (unpruned). */
  full: BrEstimator;
  /** The search on the held-out rows (its `model` is the pruned fit-split model). */
  search: PopResult;
  /** Labels in ascending order of impact. */
  order: Int32Array;
  /** The pruned full model's weights exactly as stored. */
  weights: LabelWeights;
  /** Its `linear-sparse` content and encoded file. */
  content: ModelFileContent;
  bytes: Uint8Array;
  /** The held-out rows, preprocessed as the model expects. */
  validation: ValidationRows;
  /**
   * The ε and λ sweeps, when `options.curve` was given: each point's `nnz` and `bytes` are those
   * of the file its setting writes (BR trained on all rows), its `psp` the held-out PSP@k of BR
   * fitted without them.
   */
  curve?: CurvePoint[];
  /** Wall-clock seconds of the fit-split training + search, and of the full training. */
  searchSeconds: number;
  trainSeconds: number;
}

/**
 * Runs the protocol above: trains BR by dual coordinate descent on the fit split, runs POP
 * (Algorithm 2) on the held-out split, retrains on all of `train`, applies the found label cut
 * and threshold, and encodes the pruned model (weights rounded to the stored type).
 *
 * @param propensities one per label of `train` (from the training label counts)
 * @throws {TypeError} for an unknown option (also in `curve`) or a value of the wrong type
 * @throws {RangeError} on invalid options or mismatched sizes
 *
 * @example
 * ```ts
 * import { popBr } from "./pop_br.ts";
 * import { propensities } from "../metrics/propensity.ts";
 * import { labelCounts } from "../data/dataset.ts";
 * // 40 rows: label l is on when feature l is; features 4..7 are noise
 * const indptr = [0], indices: number[] = [], yptr = [0], yind: number[] = [];
 * for (let i = 0; i < 40; i++) {
 *   indices.push(i % 4, 4 + (i % 3));
 *   indptr.push(indices.length);
 *   yind.push(i % 4);
 *   yptr.push(yind.length);
 * }
 * const train = {
 *   name: "toy", numFeatures: 8, numLabels: 4,
 *   x: { numRows: 40, numCols: 8, indptr: Int32Array.from(indptr), indices: Int32Array.from(indices), values: new Float32Array(indices.length).fill(1) },
 *   y: { numRows: 40, numCols: 4, indptr: Int32Array.from(yptr), indices: Int32Array.from(yind) },
 * };
 * const p = propensities(labelCounts(train.y), 40);
 * const r = popBr(train, p, { delta: 1, lambda: 0.01 });
 * console.log(r.search.final[0], r.weights.labelPtr[4] <= r.search.nnzBefore); // 100 true
 * ```
 */
export function popBr(
  train: Dataset,
  propensities: ArrayLike<number>,
  options: PopBrOptions = {},
): PopBrResult {
  checkOptionKeys("popBr", options, POP_BR_KEYS);
  checkOptionKeys("popBr: curve", options.curve, POP_BR_CURVE_KEYS);
  const L = train.numLabels;
  if (propensities.length !== L) {
    throw new RangeError(`popBr: ${propensities.length} propensities for ${L} labels`);
  }
  const seed = options.seed ?? 0;
  const l2Normalize = booleanOption("popBr", "l2Normalize", options.l2Normalize, true);
  const storage = resolveStorage(options, L);
  const popOpts: PopOptions = {
    epsilon: options.epsilon,
    lambda: options.lambda,
    delta: options.delta,
    ks: options.ks,
  };
  const counts = labelCounts(train.y);
  const order = impactOrder(labelImpact(counts, propensities));
  // the search and the curve validate cuts of the fit-split model on the same rows
  const run: SearchRun = {
    cache: new Map(),
    observer: options.observer,
    biasOrders: biasOrderMemo(),
  };
  const fitBr = (ds: Dataset, phase: "fit" | "full") =>
    trainBr(ds.x, ds.y, {
      seed,
      ...options.dcd,
      onLabel: options.onProgress && ((d, t) => options.onProgress!(phase, d, t)),
    }, { l2Normalize });

  const t0 = performance.now();
  const f = options.validationFraction ?? 0.2;
  if (!(typeof f === "number" && f > 0 && f < 1)) {
    const Err = typeof f === "number" ? RangeError : TypeError;
    throw new Err(`popBr: validationFraction must be in (0, 1), got ${shown(f)}`);
  }
  const { train: fit, valid } = splitRows(train, f, seed);
  const probe = fitBr(fit, "fit").toLabelWeights();
  const validation: ValidationRows = {
    x: preprocessRows(valid.x, { l2Normalize }),
    y: valid.y,
  };
  const search = pop(probe, validation, counts, propensities, popOpts, run);
  const searchSeconds = (performance.now() - t0) / 1000;

  const t1 = performance.now();
  const full = fitBr(train, "full");
  const trainSeconds = (performance.now() - t1) / 1000;
  const fullWeights = full.toLabelWeights();
  const { epsilon, lambda, delta, ks } = popDefaults(options);
  const prune = (m: number, lam: number) =>
    storedWeights(applyPop(fullWeights, order, m, { lambda: lam, delta }), storage.weightType);
  const build = (w: LabelWeights, pop: Record<string, unknown>) =>
    linearSparseContent(w, {
      labelNames: options.labelNames,
      preprocess: l2Normalize ? { l2Normalize } : undefined,
      meta: { trainer: "br", ...options.meta, pop },
      ...storage,
    });
  const popMeta = {
    epsilon,
    lambda,
    delta,
    ks,
    from: "br",
    numPrunedLabels: search.numPrunedLabels,
    validationFraction: f,
    validationBaseline: search.baseline,
    validationPruned: search.final,
  };
  const weights = prune(search.numPrunedLabels, lambda);
  const content = build(weights, popMeta);
  const bytes = encodeModelFile(content);
  const curve = options.curve &&
    popCurve(probe, validation, counts, propensities, {
      epsilon: options.epsilon,
      lambda,
      ...options.curve,
      delta,
      ks: options.ks,
      ...run,
      ...storage,
      // each point's size and weights are those of the file its setting writes (the full
      // model, cut and thresholded), its PSP@k the probe's on the held-out rows
      sizeOf: (m, lam) => {
        const w = prune(m, lam);
        const meta = { ...popMeta, lambda: lam, numPrunedLabels: m };
        return { bytes: encodeModelFile(build(w, meta)).length, nnz: w.labelPtr[w.numLabels] };
      },
    });
  return {
    full,
    search,
    order,
    weights,
    content,
    bytes,
    validation,
    curve,
    searchSeconds,
    trainSeconds,
  };
}
