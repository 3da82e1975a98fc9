/**
 * POP, joint label and feature parameter optimisation (Wei and Li, AAAI 2019, Algorithms 1-2):
 * labels are ranked by their performance impact wⱼuⱼ (inverse propensity × training frequency);
 * a binary search finds how many of the lowest-impact labels can keep only their δ largest
 * weights while PSP@k on a validation set stays within the tolerance ε of the unpruned model;
 * then weights in [−√λ, √λ] are zeroed, keeping at least δ per label.
 *
 * ε is relative: every PSP@k (k in `ks`) must stay ≥ (1 − ε) × its unpruned value (the paper's
 * constraint is absolute, perf ≥ q* − ε, on one metric; the search runs on a held-out split and
 * the pruned-label count is applied to the model refit on the whole training file by `pop_br.ts`:
 * docs/deviations.md, "POP").
 *
 * @module
 */
import type { LabelWeights } from "../models/label_weights.ts";
import {
  type BiasOrderMemo,
  biasOrderMemo,
  validationPsp,
  type ValidationRows,
} from "./validation.ts";
import { checkOptionKeys } from "../data/option_check.ts";

/**
 * Performance impact wⱼuⱼ of each label: `count / propensity`.
 *
 * @example
 * ```ts
 * import { labelImpact } from "./pop.ts";
 * console.log([...labelImpact([10, 1], [0.5, 0.25])]); // [20, 4]
 * ```
 */
export function labelImpact(
  labelCounts: ArrayLike<number>,
  propensities: ArrayLike<number>,
): Float64Array {
  if (labelCounts.length !== propensities.length) {
    throw new RangeError(
      `labelImpact: ${labelCounts.length} label counts but ${propensities.length} propensities`,
    );
  }
  const out = new Float64Array(labelCounts.length);
  for (let l = 0; l < out.length; l++) {
    const p = propensities[l], c = labelCounts[l];
    if (!(p > 0)) throw new RangeError(`labelImpact: propensity of label ${l} is ${p}`);
    // (a NaN count made the impact NaN, which the impact order sorted anywhere)
    if (!(c >= 0 && c < Infinity)) {
      throw new RangeError(`labelImpact: count of label ${l} is ${c}, not a finite number >= 0`);
    }
    out[l] = c / p;
  }
  return out;
}

/**
 * Labels in ascending order of impact (ties: smaller index first).
 *
 * @example
 * ```ts
 * import { impactOrder } from "./pop.ts";
 * console.log([...impactOrder(Float64Array.of(3, 1, 3, 0))]); // [3, 1, 0, 2]
 * ```
 */
export function impactOrder(impact: ArrayLike<number>): Int32Array {
  const order = Int32Array.from({ length: impact.length }, (_, i) => i);
  return order.sort((a, b) => impact[a] - impact[b] || a - b);
}

/**
 * A copy of `w` in which every label with `mask[l] === 1` keeps only its `delta` weights of
 * largest magnitude (ties: smaller feature index), and every other label keeps all of them.
 *
 * @example
 * ```ts
 * import { keepTopDelta } from "./pop.ts";
 * const w = { numFeatures: 3, numLabels: 1, labelPtr: Int32Array.of(0, 3),
 *   featIdx: Int32Array.of(0, 1, 2), values: Float32Array.of(0.1, -3, 2) };
 * const p = keepTopDelta(w, Uint8Array.of(1), 2);
 * console.log([...p.featIdx], [...p.values]); // [1, 2] [-3, 2]
 * ```
 */
export function keepTopDelta(w: LabelWeights, mask: Uint8Array, delta: number): LabelWeights {
  return filterLabels(w, (l, s, e, keep) => {
    if (mask[l] === 1 && e - s > delta) markTop(w.values, s, e, delta, keep);
    else keep.fill(1, s, e);
  });
}

/**
 * A copy of `w` in which weights with |w| ≤ √λ are zeroed, except that each label keeps at
 * least its `delta` largest-magnitude weights (Algorithm 2, line 4).
 *
 * @example
 * ```ts
 * import { thresholdWeights } from "./pop.ts";
 * const w = { numFeatures: 4, numLabels: 1, labelPtr: Int32Array.of(0, 4),
 *   featIdx: Int32Array.of(0, 1, 2, 3), values: Float32Array.of(0.05, -0.5, 0.02, 0.09) };
 * console.log([...thresholdWeights(w, 0.01, 2).featIdx]); // [1, 3]
 * ```
 */
export function thresholdWeights(w: LabelWeights, lambda: number, delta: number): LabelWeights {
  if (!(lambda >= 0)) throw new RangeError(`thresholdWeights: lambda must be >= 0, got ${lambda}`);
  const t = Math.sqrt(lambda);
  return filterLabels(w, (_l, s, e, keep) => {
    let n = 0;
    for (let p = s; p < e; p++) {
      if (Math.abs(w.values[p]) > t) {
        keep[p] = 1;
        n++;
      }
    }
    if (n < delta) markTop(w.values, s, e, Math.min(delta, e - s), keep);
  });
}

/**
 * Marks the `count` largest |values[s..e)| (ties: smaller position; NaN ranks below every
 * magnitude, as the threshold drops it) in `keep`.
 */
function markTop(values: Float32Array, s: number, e: number, count: number, keep: Uint8Array) {
  const pos = Int32Array.from({ length: e - s }, (_, i) => s + i);
  // (a NaN magnitude made the comparator inconsistent: [0.3, 0.1, NaN, 0.5] kept 0.3 for δ = 1)
  const mag = (p: number) => {
    const a = Math.abs(values[p]);
    return a === a ? a : -1;
  };
  pos.sort((a, b) => mag(b) - mag(a) || a - b);
  for (let i = 0; i < count && i < pos.length; i++) keep[pos[i]] = 1;
}

function filterLabels(
  w: LabelWeights,
  mark: (label: number, start: number, end: number, keep: Uint8Array) => void,
): LabelWeights {
  const L = w.numLabels, nnz = w.labelPtr[L];
  const keep = new Uint8Array(nnz);
  for (let l = 0; l < L; l++) mark(l, w.labelPtr[l], w.labelPtr[l + 1], keep);
  const labelPtr = new Int32Array(L + 1);
  let n = 0;
  for (let l = 0; l < L; l++) {
    for (let p = w.labelPtr[l]; p < w.labelPtr[l + 1]; p++) n += keep[p];
    labelPtr[l + 1] = n;
  }
  const featIdx = new Int32Array(n), values = new Float32Array(n);
  let q = 0;
  for (let p = 0; p < nnz; p++) {
    if (keep[p]) {
      featIdx[q] = w.featIdx[p];
      values[q++] = w.values[p];
    }
  }
  return {
    numFeatures: w.numFeatures,
    numLabels: L,
    labelPtr,
    featIdx,
    values,
    bias: w.bias?.slice(),
  };
}

/**
 * Options of {@linkcode labelOptimization} and {@linkcode pop}.
 *
 * @example
 * ```ts
 * import type { PopOptions } from "./pop.ts";
 * const o: PopOptions = { epsilon: 0.01, lambda: 0.01, delta: 5 };
 * console.log(o.delta); // 5
 * ```
 */
export interface PopOptions {
  /** Relative tolerance on every PSP@k (default 0.01, i.e. 1%). */
  epsilon?: number;
  /** Feature-parameter threshold: weights in [−√λ, √λ] are zeroed (default 0.01). */
  lambda?: number;
  /** Weights every label keeps at least (default 5). */
  delta?: number;
  /** Cut-offs of the PSP@k constraint (default [1, 3, 5]). */
  ks?: number[];
}

/**
 * The keys of {@linkcode PopOptions}.
 *
 * @example
 * ```ts
 * import { POP_OPTION_KEYS } from "./pop.ts";
 * console.log(POP_OPTION_KEYS); // [ "epsilon", "lambda", "delta", "ks" ]
 * ```
 */
export const POP_OPTION_KEYS: readonly (keyof PopOptions)[] = ["epsilon", "lambda", "delta", "ks"];

/**
 * {@linkcode PopOptions} with the defaults filled in: ε 0.01, λ 0.01, δ 5, ks [1, 3, 5] (the
 * values are checked where they are used).
 *
 * @example
 * ```ts
 * import { popDefaults } from "./pop.ts";
 * console.log(popDefaults({ delta: 2 })); // { epsilon: 0.01, lambda: 0.01, delta: 2, ks: [ 1, 3, 5 ] }
 * ```
 */
export function popDefaults(options: PopOptions = {}): Required<PopOptions> {
  return {
    epsilon: options.epsilon ?? 0.01,
    lambda: options.lambda ?? 0.01,
    delta: options.delta ?? 5,
    ks: options.ks ?? [1, 3, 5],
  };
}

/**
 * POP's constraint (Eq. 1 of the paper): every PSP@k of `psp` is at least (1 − ε) times the
 * unpruned model's `baseline` (up to 1e-9 for rounding).
 *
 * @example
 * ```ts
 * import { withinTolerance } from "./pop.ts";
 * console.log(withinTolerance([99.5, 80], [100, 80], 0.01), withinTolerance([98], [100], 0.01)); // true false
 * ```
 */
export function withinTolerance(
  psp: readonly number[],
  baseline: readonly number[],
  epsilon: number,
): boolean {
  return psp.every((v, i) => v >= (1 - epsilon) * baseline[i] - 1e-9);
}

/**
 * Result of {@linkcode labelOptimization}.
 *
 * @example
 * ```ts
 * import type { LabelOptimization } from "./pop.ts";
 * function pruned(r: LabelOptimization): number { return r.numPrunedLabels; }
 * console.log(typeof pruned); // "function"
 * ```
 */
export interface LabelOptimization {
  /** The model with the lowest-impact `numPrunedLabels` labels cut to δ weights. */
  model: LabelWeights;
  /** How many labels (first in `order`) keep only δ weights. */
  numPrunedLabels: number;
  /** PSP@k of the unpruned model on the validation rows (q*). */
  baseline: number[];
  /** PSP@k of `model` on the validation rows. */
  validation: number[];
  /** Number of validation evaluations the search made (cached cuts not counted). */
  evaluations: number;
}

/**
 * Checks that `order` holds each of the `numLabels` labels once (a label out of range was
 * ignored by the mask, a repeated one counted twice: fewer labels cut than asked, silently).
 */
function checkOrder(order: Int32Array, numLabels: number, where: string): void {
  if (order.length !== numLabels) {
    throw new RangeError(
      `${where}: label order has ${order.length} entries for ${numLabels} labels`,
    );
  }
  const seen = new Uint8Array(numLabels);
  for (let i = 0; i < order.length; i++) {
    const l = order[i];
    if (!(l >= 0 && l < numLabels) || seen[l]++) {
      throw new RangeError(
        `${where}: label order entry ${i} is ${l}: the order must hold each label of ` +
          `[0, ${numLabels}) once`,
      );
    }
  }
}

/** Whether some validation row has a label in [0, numLabels). */
function hasPositive(rows: ValidationRows, numLabels: number): boolean {
  const { indptr, indices } = rows.y;
  for (let p = indptr[0]; p < indptr[rows.y.numRows]; p++) {
    if (indices[p] >= 0 && indices[p] < numLabels) return true;
  }
  return false;
}

/** Mask of the first `m` labels of `order`. */
function prefixMask(order: Int32Array, m: number, numLabels: number): Uint8Array {
  const mask = new Uint8Array(numLabels);
  for (let i = 0; i < m; i++) mask[order[i]] = 1;
  return mask;
}

/**
 * PSP@k of the model with its first m lowest-impact labels cut to δ weights, by m: lets several
 * searches over the same model, rows and δ (e.g. an ε sweep) share their evaluations.
 *
 * @example
 * ```ts
 * import type { CutCache } from "./pop.ts";
 * const cache: CutCache = new Map();
 * console.log(cache.size); // 0
 * ```
 */
export type CutCache = Map<number, number[]>;

/**
 * What a POP run tells as it goes, each member optional (called synchronously, from inside the
 * run): the label searches it begins, the label cuts they evaluate, and the points of a curve.
 * `tagstream prune` turns it into its "POP search" and "POP curve" progress.
 *
 * @example
 * ```ts
 * import { labelOptimization, type PopObserver } from "./pop.ts";
 * const w = { numFeatures: 2, numLabels: 2, labelPtr: Int32Array.of(0, 2, 4),
 *   featIdx: Int32Array.of(0, 1, 0, 1), values: Float32Array.of(1, -1, -1, 1) };
 * const v = {
 *   x: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 * };
 * const seen: string[] = [];
 * const observer: PopObserver = {
 *   onSearch: (e) => seen.push(`search of ${e.numLabels} labels`),
 *   onEvaluation: (e) => seen.push(`cut ${e.cut}: PSP@1 ${e.psp[0]}`),
 * };
 * labelOptimization(w, v, Float64Array.of(0.5, 0.5), Int32Array.of(0, 1), { delta: 1, ks: [1] }, { observer });
 * console.log(seen); // [ "search of 2 labels", "cut 0: PSP@1 100", "cut 1: PSP@1 100", "cut 2: PSP@1 50" ]
 * ```
 */
export interface PopObserver {
  /** A label search begins, on `numLabels` labels: POP's own, then one per point of a curve. */
  onSearch?(e: { numLabels: number }): void;
  /**
   * The search validated a cut: the model with its `cut` lowest-impact labels cut to δ weights
   * (0: the unpruned model) has PSP@k `psp` (one per k). A cut found in the run's
   * {@linkcode CutCache} is not validated again, and not told.
   */
  onEvaluation?(e: { cut: number; psp: readonly number[] }): void;
  /** `popCurve`: its sweeps begin (`done` 0), then each point is measured (`done` 1 to `total`). */
  onCurvePoint?(e: { done: number; total: number }): void;
}

/**
 * What the label searches and validations of one POP run share, each member optional.
 *
 * @example
 * ```ts
 * import type { SearchRun } from "./pop.ts";
 * const run: SearchRun = { cache: new Map(), observer: { onEvaluation: (e) => console.log(e.cut) } };
 * console.log(run.cache?.size); // 0
 * ```
 */
export interface SearchRun {
  /**
   * Memo of the evaluated cuts, valid only for the same weights, rows, δ and ks (default: one
   * per call).
   */
  cache?: CutCache;
  /** Told of the run's progress. */
  observer?: PopObserver;
  /**
   * Memo of the order of the validated weights' bias (`biasOrderMemo()` of ./validation.ts;
   * default: one per call), kept only as long as the run holds it.
   */
  biasOrders?: BiasOrderMemo;
}

/**
 * Algorithm 1: binary search for the largest number m of lowest-impact labels (in `order`) that
 * can keep only δ weights with every PSP@k ≥ (1 − ε) q*_k on the validation rows (the rows
 * must already be preprocessed as the model expects). Since the search only visits m where
 * the constraint held for its lower bound, m never decreases when ε grows.
 *
 * @param run what the searches of a run share: the memo of evaluated cuts, the observer told of
 * each search and evaluated cut, the bias-order memo ({@linkcode SearchRun})
 * @throws {RangeError} when no validation row has a label (PSP@k would be 0 for every cut)
 *
 * @example
 * ```ts
 * import { labelOptimization } from "./pop.ts";
 * const w = { numFeatures: 2, numLabels: 2, labelPtr: Int32Array.of(0, 2, 4),
 *   featIdx: Int32Array.of(0, 1, 0, 1), values: Float32Array.of(1, -1, -1, 1) };
 * const v = {
 *   x: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 * };
 * const r = labelOptimization(w, v, Float64Array.of(0.5, 0.5), Int32Array.of(0, 1), { delta: 1 });
 * console.log(r.numPrunedLabels, r.validation[0]); // 1 100
 * ```
 */
export function labelOptimization(
  w: LabelWeights,
  rows: ValidationRows,
  propensities: ArrayLike<number>,
  order: Int32Array,
  options: PopOptions = {},
  run: SearchRun = {},
): LabelOptimization {
  const { epsilon: eps, delta, ks } = checkedPopOptions(options);
  checkOrder(order, w.numLabels, "POP");
  const cache = run.cache ?? new Map();
  const orders = run.biasOrders ?? biasOrderMemo();
  let evaluations = 0;
  const evaluate = (m: number): number[] => {
    let psp = cache.get(m);
    if (psp === undefined) {
      const model = m === 0 ? w : keepTopDelta(w, prefixMask(order, m, w.numLabels), delta);
      psp = validationPsp(model, rows, propensities, ks, orders);
      cache.set(m, psp);
      evaluations++;
      run.observer?.onEvaluation?.({ cut: m, psp: psp.slice() });
    }
    return psp;
  };
  const L = w.numLabels;
  if (L > 0 && !hasPositive(rows, L)) {
    // PSP@k is then 0 whatever is cut: every cut was "within ε", so the search cut L − 1 labels
    throw new RangeError(
      `POP: the ${rows.y.numRows} validation rows hold no label in [0, ${L}): PSP@k is 0 ` +
        `whatever is pruned, so ε cannot bound the search (give labelled validation rows)`,
    );
  }
  run.observer?.onSearch?.({ numLabels: L });
  const baseline = evaluate(0);
  let lo = 0, hi = L;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (withinTolerance(evaluate(mid), baseline, eps)) lo = mid;
    else hi = mid;
  }
  // the search never probes its upper end: every label cut (m = L) is tried once all below passed
  // (the paper's Algorithm 1 stops at L − 1, though its Eq. 3 allows m = L: docs/deviations.md P5)
  if (L > 0 && lo === L - 1 && withinTolerance(evaluate(L), baseline, eps)) lo = L;
  const model = lo === 0 ? w : keepTopDelta(w, prefixMask(order, lo, w.numLabels), delta);
  return { model, validation: evaluate(lo), numPrunedLabels: lo, baseline, evaluations };
}

/**
 * {@linkcode popDefaults} of options that hold only POP's keys, each checked: ε a number in
 * [0, 1), λ a finite number ≥ 0, δ a non-negative integer (`ks` is checked by PSP@k). A value of
 * the wrong type (e.g. the string "0.1") or an unknown key is a TypeError, one out of range a
 * RangeError.
 */
function checkedPopOptions(options: PopOptions): Required<PopOptions> {
  const o = popDefaults(checkOptionKeys("POP", options, POP_OPTION_KEYS));
  const check = (name: string, v: unknown, ok: boolean, allowed: string) => {
    if (ok) return;
    const Err = typeof v === "number" ? RangeError : TypeError;
    throw new Err(
      `POP: option ${name} must be ${allowed}, got ${typeof v === "string" ? `"${v}"` : v}`,
    );
  };
  const { epsilon: e, lambda: l, delta: d } = o;
  check("epsilon", e, typeof e === "number" && e >= 0 && e < 1, "in [0, 1)");
  check("lambda", l, typeof l === "number" && l >= 0 && Number.isFinite(l), "a finite number >= 0");
  check("delta", d, Number.isInteger(d) && d >= 0, "a non-negative integer");
  return o;
}

/**
 * Result of {@linkcode pop}.
 *
 * @example
 * ```ts
 * import type { PopResult } from "./pop.ts";
 * function kept(r: PopResult): number { return r.nnzAfter / r.nnzBefore; }
 * console.log(typeof kept); // "function"
 * ```
 */
export interface PopResult extends LabelOptimization {
  /** Non-zero weights before and after pruning. */
  nnzBefore: number;
  nnzAfter: number;
  /** PSP@k of the final (thresholded) model on the validation rows. */
  final: number[];
}

/**
 * Algorithm 2: label ordering by impact, {@linkcode labelOptimization}, then feature
 * thresholding at √λ keeping at least δ weights per label.
 *
 * @param rows validation rows, already preprocessed as the model expects
 * @param labelCounts training positives per label (uⱼ)
 * @param propensities label propensities (wⱼ = 1/pⱼ)
 * @param run what the run shares ({@linkcode SearchRun}): a memo of cuts shared by searches on
 * the same w, rows, δ and ks, an observer of the search, the bias-order memo
 *
 * @example
 * ```ts
 * import { pop } from "./pop.ts";
 * const w = { numFeatures: 3, numLabels: 2, labelPtr: Int32Array.of(0, 3, 6),
 *   featIdx: Int32Array.of(0, 1, 2, 0, 1, 2), values: Float32Array.of(1, -1, 0.01, -1, 1, 0.02) };
 * const v = {
 *   x: { numRows: 2, numCols: 3, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 * };
 * const r = pop(w, v, [5, 5], Float64Array.of(0.5, 0.5), { delta: 1 });
 * console.log(r.nnzBefore, r.nnzAfter, r.final[0]); // 6 3 100
 * ```
 */
export function pop(
  w: LabelWeights,
  rows: ValidationRows,
  labelCounts: ArrayLike<number>,
  propensities: ArrayLike<number>,
  options: PopOptions = {},
  run: SearchRun = {},
): PopResult {
  const { lambda, delta, ks } = checkedPopOptions(options);
  const order = impactOrder(labelImpact(labelCounts, propensities));
  // (the thresholded model has the search's bias: its order is the search's)
  const biasOrders = run.biasOrders ?? biasOrderMemo();
  const opt = labelOptimization(w, rows, propensities, order, options, { ...run, biasOrders });
  const model = thresholdWeights(opt.model, lambda, delta);
  const final = validationPsp(model, rows, propensities, ks, biasOrders);
  return {
    ...opt,
    model,
    final,
    nnzBefore: w.labelPtr[w.numLabels],
    nnzAfter: model.labelPtr[model.numLabels],
  };
}

/**
 * Applies a POP result found on another model: cuts the first `numPrunedLabels` labels of
 * `order` to δ weights, then thresholds at √λ (for retraining on the full data after the
 * search ran on a held-out split).
 *
 * @throws {TypeError | RangeError} for bad options (as {@linkcode pop}), an order that is not
 * one entry per label or a `numPrunedLabels` outside [0, numLabels]
 *
 * @example
 * ```ts
 * import { applyPop } from "./pop.ts";
 * const w = { numFeatures: 2, numLabels: 1, labelPtr: Int32Array.of(0, 2),
 *   featIdx: Int32Array.of(0, 1), values: Float32Array.of(0.5, 0.05) };
 * console.log([...applyPop(w, Int32Array.of(0), 1, { delta: 1 }).featIdx]); // [0]
 * ```
 */
export function applyPop(
  w: LabelWeights,
  order: Int32Array,
  numPrunedLabels: number,
  options: PopOptions = {},
): LabelWeights {
  const { lambda, delta } = checkedPopOptions(options);
  checkOrder(order, w.numLabels, "applyPop");
  if (
    !(Number.isInteger(numPrunedLabels) && numPrunedLabels >= 0 && numPrunedLabels <= w.numLabels)
  ) {
    throw new RangeError(
      `applyPop: numPrunedLabels must be an integer in [0, ${w.numLabels}] (the labels), got ` +
        `${numPrunedLabels}`,
    );
  }
  const cut = keepTopDelta(w, prefixMask(order, numPrunedLabels, w.numLabels), delta);
  return thresholdWeights(cut, lambda, delta);
}
