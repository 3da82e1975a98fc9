/**
 * POP on a decoded model file: binary relevance (`linear-sparse`) is pruned directly; LEML
 * (`linear-lowrank`) is pruned as the per-label columns of its product W·Hᵀ, and the pruned
 * `linear-sparse` file replaces the low-rank one only when it is smaller (otherwise the original
 * is kept and the result says why).
 *
 * @module
 */
import type { ModelFileContent } from "../format/types.ts";
import { encodeModelFile } from "../format/model_file.ts";
import { type LabelWeights, linearSparseContent } from "../models/label_weights.ts";
import { preprocessRows } from "../data/preprocess.ts";
import {
  pop,
  POP_OPTION_KEYS,
  popDefaults,
  type PopOptions,
  type PopResult,
  type SearchRun,
  withinTolerance,
} from "./pop.ts";
import { biasOrderMemo, modelColumns, validationPsp, type ValidationRows } from "./validation.ts";
import { labelWeightsOfContent, rowPreprocessOfContent } from "./model_weights.ts";
import {
  resolveStorage,
  STORAGE_OPTION_KEYS,
  type StorageOptions,
  storedWeights,
} from "./storage.ts";
import { checkOptionKeys } from "../data/option_check.ts";
import { type CurveOptions, type CurvePoint, popCurve } from "./curve.ts";
import { smallestWithin, thresholdingNote, toleranceShortfall } from "./tolerance.ts";

/**
 * Options of {@linkcode pruneModel}.
 *
 * @example
 * ```ts
 * import type { PruneModelOptions } from "./prune_model.ts";
 * const o: PruneModelOptions = { epsilon: 0.01, lambda: 0.01, delta: 5, weightType: "f32" };
 * console.log(o.delta); // 5
 * ```
 */
export interface PruneModelOptions extends PopOptions, StorageOptions, SearchRun {
  /** Extra metadata recorded in the pruned file's `meta` (besides `pop`). */
  meta?: Record<string, unknown>;
  /**
   * Also sweep ε and λ (see {@linkcode popCurve}; δ, ks, storage, the cut memo `cache` and the
   * `observer` are this call's); the points are returned as `curve`.
   */
  curve?: Omit<CurveOptions, keyof SearchRun | "delta" | "ks" | "weightType" | "indexType">;
}

/** The keys of {@linkcode PruneModelOptions} and of its `curve`. */
const PRUNE_MODEL_KEYS = [
  ...POP_OPTION_KEYS,
  ...STORAGE_OPTION_KEYS,
  "meta",
  "cache",
  "observer",
  "biasOrders",
  "curve",
];
const PRUNE_CURVE_KEYS = ["epsilons", "lambdas", "epsilon", "lambda", "sizeOf"];

/**
 * The outcome of {@linkcode pruneModel}.
 *
 * @example
 * ```ts
 * import type { PrunedModel } from "./prune_model.ts";
 * function saved(p: PrunedModel): number { return p.originalBytes - p.bytes.length; }
 * console.log(typeof saved); // "function"
 * ```
 */
export interface PrunedModel {
  /**
   * True when `bytes` is the pruned model; false when the original was kept (the CLI then writes
   * no output model: it would be a copy of the input). A `linear-sparse` model of which no
   * weight is dropped and whose storage does not shrink (e.g. f16 already) is kept: its pruned
   * file would differ only by metadata.
   */
  pruned: boolean;
  /**
   * Why the model was not pruned ("not pruned: …", e.g. the pruned file would not be smaller),
   * or a one-line summary of the pruning — which, when `withinTolerance` is false, explains it
   * (ε bounds the label search only; the λ thresholding lost more; a smaller λ if the curve has
   * one).
   */
  reason: string;
  /** The file to write: the pruned `linear-sparse` model, or the original bytes. */
  bytes: Uint8Array;
  /** The content of the pruned model (also when it was not kept). */
  content: ModelFileContent;
  /** The pruned weights exactly as stored (after rounding to the weight type). */
  weights: LabelWeights;
  /** Size of the input file and of the pruned file, in bytes. */
  originalBytes: number;
  prunedBytes: number;
  /** The POP search on the (preprocessed) validation rows. */
  search: PopResult;
  /** PSP@k of the stored pruned weights on the validation rows. */
  stored: number[];
  /**
   * Whether every stored PSP@k is ≥ (1 − ε) × the unpruned model's on the validation rows. A
   * pruned `linear-sparse` model can be `pruned` without being within the tolerance: ε bounds the
   * label search, the λ thresholding after it is not bounded (POP's Algorithm 2); `reason` then
   * says so.
   */
  withinTolerance: boolean;
  /** The ε and λ sweeps, when `options.curve` was given. */
  curve?: CurvePoint[];
}

/** Bytes of a `linear-sparse` content's weights and label indices (its per-weight storage). */
function weightBytes(c: ModelFileContent): number {
  return (c.tensors.weights?.data.byteLength ?? 0) + (c.tensors.labelIdx?.data.byteLength ?? 0);
}

/**
 * Runs POP on a decoded `linear-sparse` or `linear-lowrank` model: the validation rows are
 * restricted to the model's columns and preprocessed as the file says (as the SDK does), labels
 * are ranked by `labelCounts[l] / propensities[l]`, the label cut is searched under the
 * tolerance ε and weights in [−√λ, √λ] are dropped (at least δ kept per label). The result is encoded as a `linear-sparse` file (labels, feature space,
 * preprocessing and metadata carried over; `meta.pop` records the settings and validation
 * PSP@k).
 *
 * Which file is returned: a `linear-sparse` model is replaced by its pruned version when that is
 * smaller and POP dropped weights or stored them in fewer bytes (Algorithm 2 as is;
 * `withinTolerance` reports whether the thresholding kept the validation PSP@k within ε; a file
 * POP already pruned, of which nothing more is dropped, is kept: "already pruned"). A
 * `linear-lowrank` model changes representation, so its pruned product replaces it only when it
 * is smaller AND within the tolerance ε on every validation PSP@k (the constraint of the paper's Eq. 1); otherwise the original is kept and `reason` says
 * why (with the curve, it names the smallest swept λ that would have qualified, if any).
 *
 * An `observer` (`PopObserver` of ./pop.ts) is told of the run as it goes: POP's label search,
 * each cut it validates, then, with `curve`, each point's search and each point measured.
 *
 * @param originalFile the input file's bytes, returned unchanged when the original is kept
 * (default: `content` re-encoded)
 * @throws {TypeError} for a model kind POP cannot prune, or an unknown option (also in `curve`)
 * @throws {RangeError} when the rows, counts or propensities do not match the model
 *
 * @example
 * ```ts
 * import { pruneModel } from "./prune_model.ts";
 * // a rank-1 model: 4 features, 2 labels; label 0 ← feature 0, label 1 ← feature 1
 * const content = {
 *   kind: "linear-lowrank" as const, numFeatures: 4, numLabels: 2, params: { rank: 1 },
 *   tensors: {
 *     W: { dtype: "f32" as const, shape: [4, 1], data: Float32Array.of(1, -1, 0.01, 0.02) },
 *     H: { dtype: "f32" as const, shape: [2, 1], data: Float32Array.of(1, -1) },
 *   },
 * };
 * const rows = {
 *   x: { numRows: 2, numCols: 4, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 * };
 * const r = pruneModel(content, rows, [1, 1], Float64Array.of(0.5, 0.5), { delta: 1 });
 * console.log(r.search.nnzBefore, r.search.nnzAfter, r.pruned); // 8 3 false (not smaller)
 * console.log(r.reason.startsWith("not pruned:"), r.reason.includes("pruning cannot help")); // true true
 * ```
 */
export function pruneModel(
  content: ModelFileContent,
  rows: ValidationRows,
  labelCounts: ArrayLike<number>,
  propensities: ArrayLike<number>,
  options: PruneModelOptions = {},
  originalFile?: Uint8Array,
): PrunedModel {
  checkOptionKeys("pruneModel", options, PRUNE_MODEL_KEYS);
  checkOptionKeys("pruneModel: curve", options.curve, PRUNE_CURVE_KEYS);
  const L = content.numLabels;
  if (labelCounts.length !== L || propensities.length !== L) {
    throw new RangeError(
      `POP: the model has ${L} labels but there are ${labelCounts.length} label counts and ${propensities.length} propensities`,
    );
  }
  if (rows.y.numCols > L) {
    throw new RangeError(
      `POP: the validation rows have ${rows.y.numCols} labels but the model only ${L}`,
    );
  }
  const storage = resolveStorage(options, L);
  const weights = labelWeightsOfContent(content);
  const pre = rowPreprocessOfContent(content);
  const prepared: ValidationRows = {
    x: preprocessRows(modelColumns(rows.x, content.numFeatures), pre),
    y: rows.y,
  };
  const { epsilon: eps, lambda, delta, ks } = popDefaults(options);
  // what the search, the stored weights' validation and the curve share: all the weights they
  // validate are cuts of `weights`, so one bias order serves them all (dropped on return)
  const run: SearchRun = {
    cache: options.cache ?? new Map(),
    observer: options.observer,
    biasOrders: options.biasOrders ?? biasOrderMemo(),
  };
  const popOptions = { epsilon: eps, lambda, delta, ks };
  const search = pop(weights, prepared, labelCounts, propensities, popOptions, run);
  const stored = storedWeights(search.model, storage.weightType);
  const storedPsp = storage.weightType === "f32"
    ? search.final
    : validationPsp(stored, prepared, propensities, ks, run.biasOrders);
  const popMeta = {
    epsilon: eps,
    lambda,
    delta,
    ks,
    from: content.kind,
    numPrunedLabels: search.numPrunedLabels,
    nnzBefore: search.nnzBefore,
    nnzAfter: search.nnzAfter,
    validationRows: rows.x.numRows,
    validationBaseline: search.baseline,
    validationPruned: storedPsp,
  };
  const build = (w: LabelWeights, pop: Record<string, unknown>): ModelFileContent => {
    const c = linearSparseContent(w, {
      labelNames: content.labelNames,
      preprocess: pre,
      meta: { ...content.meta, ...options.meta, pop },
      weightType: storage.weightType,
      indexType: storage.indexType,
    });
    if (content.featureSpace) c.featureSpace = structuredClone(content.featureSpace);
    return c;
  };
  const pruned = build(stored, popMeta);
  const bytes = encodeModelFile(pruned);
  const original = originalFile ?? encodeModelFile(content);
  const before = original.length;
  const within = (psp: number[]) => withinTolerance(psp, search.baseline, eps);
  const storedWithin = within(storedPsp);
  const lowRank = content.kind === "linear-lowrank";
  const smaller = bytes.length < before;
  // a linear-sparse file of which POP drops nothing and whose weights it stores no smaller (a
  // POP-pruned file pruned again) would differ from the input by its `meta.pop` only
  const nothingToDrop = !lowRank && search.nnzAfter === search.nnzBefore &&
    weightBytes(pruned) >= weightBytes(content);
  const already = content.meta?.pop !== undefined;
  const kept = smaller && !nothingToDrop && (storedWithin || !lowRank);
  const curve = options.curve &&
    popCurve(weights, prepared, labelCounts, propensities, {
      epsilon: eps,
      lambda: options.lambda,
      ...options.curve,
      delta: options.delta,
      ks,
      ...run,
      ...storage,
      sizeOf: (m, lam, w) =>
        encodeModelFile(build(w, { ...popMeta, lambda: lam, numPrunedLabels: m })).length,
    });
  const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
  const what = lowRank
    ? `the pruned product W·Hᵀ (${search.nnzAfter} of ${search.nnzBefore} weights, ${
      kb(bytes.length)
    })`
    : `the pruned weights (${search.nnzAfter} of ${search.nnzBefore}, ${kb(bytes.length)})`;
  let reason: string;
  if (kept) {
    reason = `pruned ${content.kind} → linear-sparse: ${what}, ${kb(before)} → ${kb(bytes.length)}`;
    const note = thresholdingNote(storedPsp, search.baseline, {
      epsilon: eps,
      lambda,
      ks,
      curve,
      maxBytes: before,
    });
    if (note) reason += `; ${note}`;
  } else {
    const why: string[] = [];
    if (!smaller) {
      // (the pruned product is one thing, the pruned weights many)
      why.push(
        `${lowRank ? "is" : "are"} not smaller than the ${content.kind} original ${
          kb(before)
        }: pruning cannot help`,
      );
    }
    const short = toleranceShortfall(storedPsp, search.baseline, eps, ks);
    if (lowRank && short) why.push(short);
    if (search.nnzBefore === 0) {
      reason = `not pruned: the ${content.kind} model has no feature weights to prune`;
    } else if (nothingToDrop && (smaller || already)) {
      // (a file POP did not prune, and that would grow by its metadata, is "not smaller")
      const storage = (c: ModelFileContent) =>
        `${c.tensors.weights?.dtype}/${c.tensors.labelIdx?.dtype}`;
      reason =
        `not pruned: ${already ? "already pruned: nothing more to drop" : "nothing to drop"}` +
        ` (all ${search.nnzBefore} weights kept; ${storage(pruned)} storage is no smaller than ` +
        `the file's ${storage(content)})`;
    } else {
      reason = `not pruned: ${what} ${why.join(" and ")}`;
    }
    if (curve) {
      const ok = smallestWithin(curve, search.baseline, eps, before);
      reason += ok
        ? `; λ = ${ok.lambda} would give ${kb(ok.bytes)} within the tolerance`
        : "; no λ of the sweep gives a smaller file within the tolerance";
    }
  }
  return {
    curve,
    withinTolerance: storedWithin,
    pruned: kept,
    reason,
    bytes: kept ? bytes : original,
    content: pruned,
    weights: stored,
    originalBytes: before,
    prunedBytes: bytes.length,
    search,
    stored: storedPsp,
  };
}
