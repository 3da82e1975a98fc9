/**
 * The state of streaming LEML's local update mode and what happens to it around a step: new
 * labels enter the cached Gram, a step's touched H rows replace their old values in it, and
 * every `refreshEvery` rows a closed-form refresh on the replay reservoir solves the H rows of
 * the reservoir's labels.
 *
 * The mode (`update: "local"`, squared loss; the default `"full"` mode of ./stream.ts is
 * unchanged by it, bit for bit): a step costs O((nnz(X_b) + nnz(Y_b))·k + (b + |T|)·k²) whatever L. It touches
 * the W rows of the batch's features and the H rows and biases of T = its positives plus
 * `localNegatives` labels per row sampled by recent frequency (./label_pool.ts), with lazy
 * optimiser state for exactly those rows. Exact: the W gradient (the all-label term
 * (HᵀH)u_i + Hᵀb comes from a cached Gram updated by rank-one changes of the touched rows and
 * recomputed after `gramRecompute`·L changes, ./gram_cache.ts) and each touched row's batch
 * gradient; approximate: the rows outside T get no gradient in that step, a touched label's
 * all-row term is scaled by the steps it missed (capped by `catchUp`, ./local_step.ts). Every
 * `refreshEvery` rows a closed-form refresh on the replay reservoir (./refresh.ts) solves the
 * H rows of the reservoir's labels exactly (ridge given U = X_res W, optionally after
 * `refreshCg` CG iterations on the W rows of its features); its cost depends on the reservoir,
 * not on L (`LemlStream.refreshStats`). The Gram, the sampler, the last-touch steps and
 * the counters are part of `LemlStream.toState`.
 *
 * @module
 */
import type { RowReservoir } from "../../data/reservoir.ts";
import { GramCache } from "./gram_cache.ts";
import { LabelPool } from "./label_pool.ts";
import { LocalStep } from "./local_step.ts";
import { refreshFactors, type RefreshResult, type RefreshStats } from "./refresh.ts";
import type { GradientModel } from "./gradients.ts";

/** Occurrences kept for sampling negatives by frequency. */
export const POOL_SIZE = 8192;

/**
 * The state of the local update mode (besides the config).
 *
 * @example
 * ```ts
 * import { newLocalMode } from "./local_mode.ts";
 * const loc = newLocalMode(4);
 * console.log(loc.refreshes, loc.lastTouch.length); // 0 0
 * ```
 */
export interface LocalMode {
  /** The local step and its scratch. */
  step: LocalStep;
  /** The cached HᵀH and Hᵀb. */
  gram: GramCache;
  /** Recent label occurrences, for sampling negatives by frequency. */
  pool: LabelPool;
  /** Step at which each label was last touched (or created). */
  lastTouch: Int32Array;
  /** The touched H rows before a step (scratch). */
  oldH: Float64Array;
  /** The touched biases before a step (scratch). */
  oldB: Float64Array;
  /** Rows learned since the last scheduled refresh. */
  rowsSinceRefresh: number;
  /** Refreshes run (restored with the state). */
  refreshes: number;
  /** Milliseconds spent in refreshes by this instance. */
  refreshMsTotal: number;
  /** Milliseconds of the last refresh of this instance. */
  refreshMsLast: number;
  /** What the last refresh of this instance did. */
  lastRefresh: RefreshResult | undefined;
}

/**
 * A fresh local-mode state for rank `k`.
 *
 * @example
 * ```ts
 * import { newLocalMode } from "./local_mode.ts";
 * console.log(newLocalMode(3).gram.gram.length); // 9
 * ```
 */
export function newLocalMode(k: number): LocalMode {
  return {
    step: new LocalStep(),
    gram: new GramCache(k),
    pool: new LabelPool(POOL_SIZE),
    lastTouch: new Int32Array(0),
    oldH: new Float64Array(0),
    oldB: new Float64Array(0),
    rowsSinceRefresh: 0,
    refreshes: 0,
    refreshMsTotal: 0,
    refreshMsLast: 0,
    lastRefresh: undefined,
  };
}

/**
 * New labels [from, numLabels) count as touched at `step` (no missed gradient) and enter the
 * cached Gram (recomputed when there were none before).
 *
 * @example
 * ```ts
 * import { growLocalLabels, newLocalMode } from "./local_mode.ts";
 * const loc = newLocalMode(1);
 * growLocalLabels(loc, 0, 2, 5, Float32Array.of(1, 2), Float32Array.of(0, 0));
 * console.log(loc.lastTouch[1], loc.gram.gram[0]); // 5 5
 * ```
 */
export function growLocalLabels(
  loc: LocalMode,
  from: number,
  numLabels: number,
  step: number,
  H: Float32Array,
  bias: Float32Array,
): void {
  if (loc.lastTouch.length < numLabels) {
    const next = new Int32Array(Math.max(numLabels, 2 * loc.lastTouch.length));
    next.set(loc.lastTouch.subarray(0, from));
    loc.lastTouch = next;
  }
  loc.lastTouch.fill(step, from, numLabels);
  if (from === 0) loc.gram.recompute(H, bias, numLabels);
  else loc.gram.addRange(H, bias, from, numLabels);
}

/**
 * Before a step: keeps the values of the `nh` touched H rows (`loc.step.rows`) and their
 * biases, for {@linkcode afterLocalStep}.
 *
 * @example
 * ```ts
 * import { beforeLocalStep, newLocalMode } from "./local_mode.ts";
 * const loc = newLocalMode(1);
 * loc.step.rows = Int32Array.of(1);
 * beforeLocalStep(loc, 1, 1, Float32Array.of(3, 4), Float32Array.of(0, 7));
 * console.log(loc.oldH[0], loc.oldB[0]); // 4 7
 * ```
 */
export function beforeLocalStep(
  loc: LocalMode,
  nh: number,
  k: number,
  H: Float32Array,
  bias: Float32Array,
): void {
  const rows = loc.step.rows;
  if (loc.oldH.length < nh * k) {
    loc.oldH = new Float64Array(2 * nh * k);
    loc.oldB = new Float64Array(2 * nh);
  }
  const oldH = loc.oldH, oldB = loc.oldB;
  for (let q = 0; q < nh; q++) {
    const hb = rows[q] * k, ob = q * k;
    for (let c = 0; c < k; c++) oldH[ob + c] = H[hb + c];
    oldB[q] = bias[rows[q]];
  }
}

/**
 * After step `t`: the cached Gram swaps the touched rows' old values for the new ones, the
 * touched labels count as touched at `t`, the local step's slots are released, and the Gram is
 * recomputed when `gramRecompute`·L changes have accumulated.
 *
 * @example
 * ```ts
 * import { afterLocalStep, beforeLocalStep, newLocalMode } from "./local_mode.ts";
 * const loc = newLocalMode(1), H = Float32Array.of(1), b = Float32Array.of(0);
 * loc.gram.recompute(H, b, 1);
 * loc.lastTouch = new Int32Array(1);
 * loc.step.rows = Int32Array.of(0);
 * beforeLocalStep(loc, 1, 1, H, b);
 * H[0] = 2;
 * afterLocalStep(loc, 1, 1, H, b, 1, 4);
 * console.log(loc.gram.gram[0], loc.lastTouch[0]); // 4 1
 * ```
 */
export function afterLocalStep(
  loc: LocalMode,
  nh: number,
  t: number,
  H: Float32Array,
  bias: Float32Array,
  numLabels: number,
  gramRecompute: number,
): void {
  const rows = loc.step.rows;
  loc.gram.replaceRows(loc.oldH, loc.oldB, H, bias, rows, nh);
  for (let q = 0; q < nh; q++) loc.lastTouch[rows[q]] = t;
  loc.step.release(nh);
  if (loc.gram.due(numLabels, gramRecompute)) loc.gram.recompute(H, bias, numLabels);
}

/**
 * Counts `n` more rows towards the next scheduled refresh; true when one is due now (every
 * `refreshEvery` rows; 0: never). The count carries over past the schedule.
 *
 * @example
 * ```ts
 * import { newLocalMode, refreshDue } from "./local_mode.ts";
 * const loc = newLocalMode(1);
 * console.log(refreshDue(loc, 3, 4), refreshDue(loc, 3, 4), loc.rowsSinceRefresh); // false true 2
 * ```
 */
export function refreshDue(loc: LocalMode, n: number, refreshEvery: number): boolean {
  if (!(refreshEvery > 0)) return false;
  loc.rowsSinceRefresh += n;
  if (loc.rowsSinceRefresh < refreshEvery) return false;
  loc.rowsSinceRefresh %= refreshEvery;
  return true;
}

/**
 * One closed-form refresh on the replay reservoir (./refresh.ts) at `step`, on all its rows or
 * `refreshRows` of them drawn uniformly: the refreshed labels count as touched now, the Gram
 * absorbs the changed rows, the counters advance.
 *
 * @example
 * ```ts
 * import { LemlStream } from "./stream.ts";
 * const m = new LemlStream({ rank: 2, update: "local", replay: 8, refreshEvery: 0 });
 * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
 * console.log(m.refresh().labels); // 1
 * ```
 */
export function refreshLocal(
  loc: LocalMode,
  m: GradientModel,
  reservoir: RowReservoir,
  step: number,
): RefreshResult {
  const t0 = performance.now();
  const cfg = m.config;
  const rows = cfg.refreshRows! > 0 && cfg.refreshRows! < reservoir.size
    ? reservoir.sample(cfg.refreshRows!)
    : reservoir.rows();
  const H = m.h.data, b = m.bias.data;
  const r = refreshFactors({
    rows,
    k: m.rank,
    W: m.w.data,
    H,
    bias: b,
    gram: loc.gram,
    lambda: cfg.lambda,
    prox: cfg.refreshProx!,
    cgIterations: cfg.refreshCg!,
    l2Normalize: cfg.l2Normalize,
    useBias: cfg.bias,
  });
  if (r.rows > 0) {
    const y = rows.y;
    for (let p = 0; p < y.indptr[y.numRows]; p++) loc.lastTouch[y.indices[p]] = step;
  }
  if (loc.gram.due(m.numLabels, cfg.gramRecompute!)) {
    loc.gram.recompute(H, b, m.numLabels);
  }
  const ms = performance.now() - t0;
  loc.refreshes++;
  loc.refreshMsTotal += ms;
  loc.refreshMsLast = ms;
  loc.lastRefresh = r;
  return r;
}

/**
 * The refreshes run so far and their cost (all zero without a local mode).
 *
 * @example
 * ```ts
 * import { newLocalMode, refreshStats } from "./local_mode.ts";
 * console.log(refreshStats(undefined).count, refreshStats(newLocalMode(2)).rowsSinceLast); // 0 0
 * ```
 */
export function refreshStats(loc: LocalMode | undefined): RefreshStats {
  if (!loc) return { count: 0, totalMs: 0, lastMs: 0, rowsSinceLast: 0 };
  const s: RefreshStats = {
    count: loc.refreshes,
    totalMs: loc.refreshMsTotal,
    lastMs: loc.refreshMsLast,
    rowsSinceLast: loc.rowsSinceRefresh,
  };
  if (loc.lastRefresh) s.last = { ...loc.lastRefresh };
  return s;
}
