/**
 * Streaming LEML: minibatch SGD or Adam on W and H over
 * Σ_{(i,l) observed} ℓ(y_il, x_iᵀW h_l + b_l) + λ/2(‖W‖² + ‖H‖²), never materialising n × L.
 *
 * Per batch of b rows:
 * - squared loss, fully observed rows: the k×k Gram identity of the paper's Algorithm 2.
 *   With U = X_b W and r_il = u_iᵀh_l + b_l − y_il,
 *   ∂/∂u_i = (HᵀH) u_i + Hᵀb − Σ_{l∈y_i} h_l and ∂/∂h_l = (UᵀU) h_l + b_l Σu_i − Σ_{i∋l} u_i,
 *   so a batch costs O((nnz(X_b) + nnz(Y_b))·k + L·k²);
 * - rows with an observed mask (explicit negatives): exactly their observed entries;
 * - other losses on fully observed rows: the positives plus `negatives` labels sampled uniformly
 *   among the row's negatives, each weighted (L − |y_i|)/negatives (an unbiased estimate of the
 *   sum over all negatives).
 *
 * The gradient is the batch mean; λ is applied to the rows of W touched by the batch and the rows
 * of H that received a gradient (lazy regularisation). Adam is lazy (row-sparse) for W and H,
 * with its own learning rate for H and the bias (`lrH`: H receives a dense gradient at every
 * step through the Gram term and is best moved more slowly than the sparse W rows). With
 * `l2Normalize`, every row is scaled to unit L2 norm before learning and scoring (and the model
 * file says so, so that the SDK does the same).
 * Optional experience replay (`replay` > 0): the estimator keeps a bounded, seeded reservoir of
 * at most `replay` earlier rows (a uniform sample of the stream, Algorithm R, see
 * ../../data/reservoir.ts) and every incoming minibatch of b rows is learned in `replaySteps`
 * optimiser steps, each on the b new rows joined by round(`replayRatio`·b) rows drawn from the
 * reservoir; the new rows enter the reservoir afterwards. One pass then makes more optimiser
 * progress per row without a second pass over the stream, and memory stays bounded by
 * `replay` rows whatever the stream's length (the reservoir is part of {@linkcode
 * LemlStream.toState}, never of the model file).
 *
 * Local update mode (`update: "local"`, squared loss; the default `"full"` above is unchanged,
 * bit for bit): a step costs O((nnz(X_b) + nnz(Y_b))·k + (b + |T|)·k²) whatever L. It touches
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
 * not on L ({@linkcode LemlStream.refreshStats}). The Gram, the sampler, the last-touch steps and
 * the counters are part of {@linkcode LemlStream.toState}.
 * New features get zero W rows; new labels get H rows initialised by a seeded hash, so the
 * model does not depend on when a row was created. Scores are raw scores minus `threshold`
 * (0.5 for the squared loss on 0/1 targets, 0 for logistic and squared hinge).
 *
 * @module
 */
import type { Batch, BinaryCsr, CsrMatrix, SparseVector } from "../../data/types.ts";
import type { Estimator, ModelState, TopK } from "../estimator.ts";
import { topKDense } from "../../metrics/topk.ts";
import { adamUpdateRows } from "../../optim/adam.ts";
import { sgdRate, sgdUpdateRows } from "../../optim/sgd.ts";
import { defaultThreshold, type LemlLoss, lossGrad, parseLoss } from "./loss.ts";
import { GrowableRows, LowRankScorer } from "./lowrank.ts";
import { hashUniform, SmallRng } from "../../linalg/rng.ts";
import { RowReservoir, withReplay } from "../../data/reservoir.ts";
import { addGram, addMatVec, GramCache } from "./gram_cache.ts";
import { LocalStep } from "./local_step.ts";
import { LabelPool } from "./label_pool.ts";
import { refreshFactors, type RefreshResult, type RefreshStats } from "./refresh.ts";

/**
 * Options of the streaming estimator (all optional).
 *
 * @example
 * ```ts
 * import type { LemlStreamOptions } from "./stream.ts";
 * const o: LemlStreamOptions = { rank: 16, loss: "squared", optimizer: "adam", lr: 0.01 };
 * console.log(o.rank); // 16
 * ```
 */
export interface LemlStreamOptions {
  /** Seed of initialisation and negative sampling (default 0). */
  seed?: number;
  /** Initial feature-space size (default 0: grows with the data). */
  numFeatures?: number;
  /** Initial label-space size (default 0). */
  numLabels?: number;
  /** Rank k (default 32). */
  rank?: number;
  /** Regularisation λ per batch step (default 1e-4). */
  lambda?: number;
  /** Learning rate of W (default 0.01 for Adam, 0.05 for SGD). */
  lr?: number;
  /** Learning rate of H and the bias (default: `lr`). */
  lrH?: number;

  /** SGD learning-rate decay: lr/(1 + decay·(t−1)) (default 0; ignored by Adam). */
  lrDecay?: number;
  /** "adam" (default; lazy: only the rows a minibatch touches are updated) or "sgd". */
  optimizer?: "adam" | "sgd";
  /** Loss (default "squared"). */
  loss?: LemlLoss;
  /** Sampled negatives per row for the logistic / squared hinge losses (default 16). */
  negatives?: number;
  /** Learn a per-label bias (default true). */
  bias?: boolean;
  /** Decision threshold subtracted from scores (default: 0.5 squared, else 0). */
  threshold?: number;
  /** Scale of the initial H entries, uniform in ±initScale (default 1/√rank). */
  initScale?: number;
  /** Scale every row to unit L2 norm before learning and scoring (default false). */
  l2Normalize?: boolean;
  /**
   * Experience replay: rows kept in a seeded reservoir of earlier rows (default 0: no replay).
   * Memory grows by at most this many rows, whatever the length of the stream.
   */
  replay?: number;
  /** Replayed rows per new row in each step (default 1; used when `replay` > 0). */
  replayRatio?: number;
  /** Optimiser steps per incoming minibatch, each with a fresh replay draw (default 1). */
  replaySteps?: number;
  /**
   * "full" (default): every step updates every label row (O(L·k²) per step). "local" (squared
   * loss only): a step updates the W rows of the batch's features and the H rows of its
   * positives plus `localNegatives` sampled labels per row, with the all-label Gram term exact
   * from a cached HᵀH (./local_step.ts, ./gram_cache.ts), and a periodic closed-form refresh on
   * the replay reservoir (./refresh.ts): a step's cost does not grow with L. The options below
   * apply to the local mode only (giving one with "full" is an error).
   */
  update?: "full" | "local";
  /** Local: sampled negatives per row, drawn by recent label frequency (default 8). */
  localNegatives?: number;
  /** Local: cap of the catch-up weight of a label's all-row gradient (default 16; 1: none). */
  catchUp?: number;
  /**
   * Local: rows between two refreshes on the replay reservoir (default `replay`; 0: never).
   * Needs `replay` > 0 (without a reservoir nothing is refreshed).
   */
  refreshEvery?: number;
  /** Local: at most this many reservoir rows per refresh, drawn uniformly (default 0: all). */
  refreshRows?: number;
  /**
   * Local: CG iterations of the refresh's W step (default 0: H rows only; on a validation
   * split of synthetic data, 1–3 iterations cost twice the time for no gain).
   */
  refreshCg?: number;
  /** Local: pull μ of the refresh towards the current factors (default 0.01; 0: plain ridge). */
  refreshProx?: number;
  /** Local: recompute the cached Gram after this many row changes per label (default 4). */
  gramRecompute?: number;
}

/** The settings of the local update mode. */
interface LocalConfig {
  update: "local";
  localNegatives: number;
  catchUp: number;
  refreshEvery: number;
  refreshRows: number;
  refreshCg: number;
  refreshProx: number;
  gramRecompute: number;
}

/**
 * The options that only `update: "local"` takes (in full mode each is a RangeError).
 *
 * @example
 * ```ts
 * import { LOCAL_KEYS } from "./stream.ts";
 * console.log(LOCAL_KEYS.includes("refreshEvery")); // true
 * ```
 */
export const LOCAL_KEYS = [
  "localNegatives",
  "catchUp",
  "refreshEvery",
  "refreshRows",
  "refreshCg",
  "refreshProx",
  "gramRecompute",
] as const;

interface BaseConfig {
  seed: number;
  rank: number;
  lambda: number;
  lr: number;
  lrH: number;
  lrDecay: number;
  optimizer: "adam" | "sgd";
  loss: LemlLoss;
  negatives: number;
  bias: boolean;
  threshold: number;
  initScale: number;
  l2Normalize: boolean;
  replay: number;
  replayRatio: number;
  replaySteps: number;
}

/** Config of the local mode: the local settings are only present there. */
type Config = BaseConfig & Partial<LocalConfig>;

function num(v: unknown, dflt: number, name: string, min = -Infinity): number {
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isFinite(v) || v < min) {
    throw new RangeError(`leml: option ${name} must be a finite number >= ${min}, got ${v}`);
  }
  return v;
}

function makeConfig(o: Record<string, unknown>): Config {
  const loss = parseLoss(o.loss ?? "squared", "leml option loss");
  const optimizer = o.optimizer ?? "adam";
  if (optimizer !== "adam" && optimizer !== "sgd") {
    throw new TypeError(`leml: option optimizer must be "adam" or "sgd", got ${optimizer}`);
  }
  const rank = num(o.rank, 32, "rank", 1);
  if (!Number.isInteger(rank)) throw new RangeError(`leml: option rank must be an integer`);
  const negatives = num(o.negatives, 16, "negatives", 1);
  const lr = num(o.lr, optimizer === "adam" ? 0.01 : 0.05, "lr", 0);
  const replay = num(o.replay, 0, "replay", 0),
    replaySteps = num(o.replaySteps, 1, "replaySteps", 1);
  if (!Number.isInteger(replay) || !Number.isInteger(replaySteps)) {
    throw new RangeError(`leml: options replay and replaySteps must be integers`);
  }
  const base: BaseConfig = {
    seed: num(o.seed, 0, "seed"),
    rank,
    lambda: num(o.lambda, 1e-4, "lambda", 0),
    lr,
    lrH: num(o.lrH, lr, "lrH", 0),
    lrDecay: num(o.lrDecay, 0, "lrDecay", 0),
    optimizer,
    loss,
    negatives: Math.floor(negatives),
    bias: o.bias === undefined ? true : Boolean(o.bias),
    threshold: num(o.threshold, defaultThreshold(loss), "threshold"),
    initScale: num(o.initScale, 1 / Math.sqrt(rank), "initScale", 0),
    l2Normalize: o.l2Normalize === undefined ? false : Boolean(o.l2Normalize),
    replay,
    replayRatio: num(o.replayRatio, 1, "replayRatio", 0),
    replaySteps,
  };
  const update = o.update ?? "full";
  if (update !== "full" && update !== "local") {
    throw new RangeError(`leml: option update must be "full" or "local", got ${update}`);
  }
  if (update === "full") {
    for (const key of LOCAL_KEYS) {
      if (o[key] !== undefined) {
        throw new RangeError(`leml: option ${key} applies to update: "local" only`);
      }
    }
    return base;
  }
  if (loss !== "squared") {
    throw new RangeError(`leml: option update "local" needs loss "squared", got ${loss}`);
  }
  const int = (key: typeof LOCAL_KEYS[number], dflt: number, min: number): number => {
    const v = num(o[key], dflt, key, min);
    if (!Number.isInteger(v)) throw new RangeError(`leml: option ${key} must be an integer`);
    return v;
  };
  const local: LocalConfig = {
    update,
    localNegatives: int("localNegatives", 8, 0),
    catchUp: num(o.catchUp, 16, "catchUp", 1),
    refreshEvery: int("refreshEvery", replay, 0),
    refreshRows: int("refreshRows", 0, 0),
    refreshCg: int("refreshCg", 0, 0),
    refreshProx: num(o.refreshProx, 0.01, "refreshProx", 0),
    gramRecompute: num(o.gramRecompute, 4, "gramRecompute", 0),
  };
  return { ...base, ...local };
}

/** The state of the local update mode (besides the config). */
interface LocalMode {
  step: LocalStep;
  gram: GramCache;
  pool: LabelPool;
  /** Step at which each label was last touched (or created). */
  lastTouch: Int32Array;
  oldH: Float64Array;
  oldB: Float64Array;
  rowsSinceRefresh: number;
  refreshes: number;
  refreshMsTotal: number;
  refreshMsLast: number;
  lastRefresh: RefreshResult | undefined;
}

/** Occurrences kept for sampling negatives by frequency. */
const POOL_SIZE = 8192;

/**
 * The streaming LEML estimator (kind "leml").
 *
 * @example
 * ```ts
 * import { LemlStream } from "./stream.ts";
 * const m = new LemlStream({ rank: 2, numFeatures: 2, numLabels: 2, lr: 0.1 });
 * const a = { indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const b = { indices: Int32Array.of(1), values: Float32Array.of(1) };
 * for (let i = 0; i < 50; i++) { m.learnOne(a, [0]); m.learnOne(b, [1]); }
 * console.log(m.predictTopK(a, 1).labels[0], m.predictTopK(b, 1).labels[0]); // 0 1
 * ```
 */
export class LemlStream extends LowRankScorer implements Estimator {
  readonly config: Readonly<Config>;
  /** Optimiser steps taken (`replaySteps` per non-empty batch). */
  step = 0;
  #rng: SmallRng;
  #reservoir: RowReservoir;
  #mW: GrowableRows;
  #vW: GrowableRows;
  #mH: GrowableRows;
  #vH: GrowableRows;
  #mb: GrowableRows;
  #vb: GrowableRows;
  // scratch (not model state)
  #U = new Float64Array(0);
  #gU = new Float64Array(0);
  #rowScale = new Float64Array(0);
  #wSlot = new Int32Array(0);
  #wRows = new Int32Array(0);
  #gW = new Float64Array(0);
  #hSlot = new Int32Array(0);
  #hRows = new Int32Array(0);
  #gH = new Float64Array(0);
  #gb = new Float64Array(0);
  #G: Float64Array;
  #HtH: Float64Array;
  #Htb: Float64Array;
  #s: Float64Array;
  #mark = new Uint8Array(0);
  #fullRows = new Int32Array(0);
  #scoreBuf = new Float32Array(0);
  #colPtr = new Int32Array(0);
  #entRow = new Int32Array(0);
  #entVal = new Float64Array(0);
  /** The local update mode's state (undefined in the full mode). */
  #local: LocalMode | undefined;

  /** @param options see {@linkcode LemlStreamOptions}. */
  constructor(options: LemlStreamOptions | Record<string, unknown> = {}) {
    const o = options as Record<string, unknown>;
    const config = makeConfig(o);
    const D = Math.floor(num(o.numFeatures, 0, "numFeatures", 0));
    const L = Math.floor(num(o.numLabels, 0, "numLabels", 0));
    super(config.rank, 0, 0, config.threshold, config.l2Normalize);
    this.config = config;
    this.#rng = new SmallRng(Math.imul(Math.floor(config.seed) | 0, 0x9e3779b1) ^ 0x5bd1e995);
    this.#reservoir = new RowReservoir(config.replay, Math.floor(config.seed));
    const k = config.rank;
    this.#mW = new GrowableRows(k, 0);
    this.#vW = new GrowableRows(k, 0);
    this.#mH = new GrowableRows(k, 0);
    this.#vH = new GrowableRows(k, 0);
    this.#mb = new GrowableRows(1, 0);
    this.#vb = new GrowableRows(1, 0);
    this.#G = new Float64Array(k * k);
    this.#HtH = new Float64Array(k * k);
    this.#Htb = new Float64Array(k);
    this.#s = new Float64Array(k);
    if (config.update === "local") {
      this.#local = {
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
    this.grow(D, L);
  }

  /**
   * Grows the feature and label spaces (never shrinks): zero W rows, hashed H rows.
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const m = new LemlStream({ rank: 2 });
   * m.grow(5, 3);
   * console.log(m.numFeatures, m.numLabels); // 5 3
   * ```
   */
  grow(numFeatures: number, numLabels: number): void {
    const k = this.rank;
    if (numFeatures > this.w.rows) {
      this.w.resize(numFeatures);
      if (this.config.optimizer === "adam") {
        this.#mW.resize(numFeatures);
        this.#vW.resize(numFeatures);
      }
    }
    if (numLabels > this.h.rows) {
      const from = this.h.rows;
      this.h.resize(numLabels);
      this.bias.resize(numLabels);
      if (this.config.optimizer === "adam") {
        this.#mH.resize(numLabels);
        this.#vH.resize(numLabels);
        this.#mb.resize(numLabels);
        this.#vb.resize(numLabels);
      }
      const H = this.h.data, sc = this.config.initScale, seed = this.config.seed;
      for (let l = from; l < numLabels; l++) {
        for (let c = 0; c < k; c++) H[l * k + c] = sc * hashUniform(seed, l, c);
      }
      const loc = this.#local;
      if (loc) {
        // new labels count as touched now (no missed gradient) and enter the cached Gram
        if (loc.lastTouch.length < numLabels) {
          const next = new Int32Array(Math.max(numLabels, 2 * loc.lastTouch.length));
          next.set(loc.lastTouch.subarray(0, from));
          loc.lastTouch = next;
        }
        loc.lastTouch.fill(this.step, from, numLabels);
        if (from === 0) loc.gram.recompute(H, this.bias.data, numLabels);
        else loc.gram.addRange(H, this.bias.data, from, numLabels);
      }
    }
  }

  /**
   * Learns from one minibatch (see the module doc for the objective).
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const m = new LemlStream({ rank: 2 });
   * m.learnMany({
   *   x: { numRows: 1, numCols: 3, indptr: Int32Array.of(0, 1), indices: Int32Array.of(2), values: Float32Array.of(1) },
   *   y: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) },
   * });
   * console.log(m.numFeatures, m.numLabels, m.step); // 3 2 1
   * ```
   */
  learnMany(batch: Batch): void {
    this.#grow(batch);
    this.#learn(batch, 0);
  }

  /**
   * Test-then-train on one minibatch: the top `k` labels of every row under the model as it is
   * before this call (exactly what `predictTopK(row, k)` returns then: the labels known before
   * the batch, scores bit-identical), then learns the batch exactly as {@linkcode learnMany}
   * does (the same model afterwards). The latent rows u = xᵀW computed for scoring are reused
   * by the first optimiser step instead of being computed twice (not with `l2Normalize`, where
   * scoring normalises by the features the model knew before the batch: the rows are then
   * scored apart).
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const m = new LemlStream({ rank: 2, numFeatures: 2, numLabels: 2, lr: 0.1 });
   * const batch = {
   *   x: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
   *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
   * };
   * for (let i = 0; i < 50; i++) m.learnMany(batch);
   * const tops = m.scoreThenLearn(batch, 1);
   * console.log(tops.map((t) => t.labels[0]), m.step); // [ 0, 1 ] 51
   * ```
   */
  scoreThenLearn(batch: Batch, k: number): TopK[] {
    if (!Number.isInteger(k) || k < 0) {
      throw new RangeError(`leml.scoreThenLearn: k must be a non-negative integer, got ${k}`);
    }
    const x = batch.x, n = x.numRows, L0 = this.numLabels, r = this.rank;
    const tops: TopK[] = new Array(n);
    if (this.config.l2Normalize) {
      this.#check(batch);
      for (let i = 0; i < n; i++) {
        const p0 = x.indptr[i], p1 = x.indptr[i + 1];
        tops[i] = this.predictTopK(
          { indices: x.indices.subarray(p0, p1), values: x.values.subarray(p0, p1) },
          k,
        );
      }
      this.#grow(batch);
      this.#learn(batch, 0);
      return tops;
    }
    // new features get zero W rows: u = xᵀW is the same before and after growing
    this.#grow(batch);
    if (n === 0) return tops;
    const res = this.#reservoir;
    this.#ensureScratch(
      n + (res.capacity === 0 ? 0 : Math.round(this.config.replayRatio * n)),
      this.#local === undefined,
    );
    this.#latent(x, 0, n);
    if (this.#scoreBuf.length < L0) this.#scoreBuf = new Float32Array(L0);
    const out = this.#scoreBuf.subarray(0, L0);
    for (let i = 0; i < n; i++) {
      this.scoreLatent(this.#U, i * r, out, L0);
      tops[i] = topKDense(out, k);
    }
    this.#learn(batch, n);
    return tops;
  }

  /** Validates a batch; returns the feature and label space sizes it needs. */
  #check(batch: Batch): [number, number] {
    const { x, y } = batch;
    const n = x.numRows;
    if (y.numRows !== n) {
      throw new RangeError(`leml.learnMany: x has ${n} rows but y has ${y.numRows}`);
    }
    if (batch.observed && batch.observed.numRows !== n) {
      throw new RangeError(
        `leml.learnMany: observed has ${batch.observed.numRows} rows, x has ${n}`,
      );
    }
    const needD = checkCsr(x.indptr, x.indices, n, x.numCols, "x", "feature");
    const needL = Math.max(
      checkCsr(y.indptr, y.indices, n, y.numCols, "y", "label"),
      batch.observed
        ? checkCsr(
          batch.observed.indptr,
          batch.observed.indices,
          n,
          batch.observed.numCols,
          "observed",
          "label",
        )
        : 0,
    );
    return [needD, needL];
  }

  /** Validates a batch and grows the spaces to hold it. */
  #grow(batch: Batch): void {
    const [needD, needL] = this.#check(batch);
    this.grow(needD, needL);
  }

  /**
   * The optimiser steps of a validated batch (with replay: `replaySteps` steps on the batch
   * joined by replayed rows, then the batch enters the reservoir). `haveU`: rows of the batch
   * whose latent rows are already in the scratch U (used by the first step only).
   */
  #learn(batch: Batch, haveU: number): void {
    const n = batch.x.numRows;
    if (n === 0) return;
    const res = this.#reservoir;
    if (res.capacity === 0) {
      this.#step(batch, haveU);
      return;
    }
    const extra = Math.round(this.config.replayRatio * n);
    for (let s = 0; s < this.config.replaySteps; s++) {
      // the batch's rows come first in the joined batch
      this.#step(withReplay(batch, res.sample(extra)), s === 0 ? haveU : 0);
    }
    res.addRows(batch);
    const loc = this.#local;
    if (loc && this.config.refreshEvery! > 0) {
      loc.rowsSinceRefresh += n;
      if (loc.rowsSinceRefresh >= this.config.refreshEvery!) {
        loc.rowsSinceRefresh %= this.config.refreshEvery!;
        this.refresh();
      }
    }
  }

  /**
   * Local update mode: one closed-form refresh on the replay reservoir now (./refresh.ts: a few
   * CG iterations for the W rows of the reservoir's features, then the exact H rows of its
   * labels given U = X_res W), as scheduled every `refreshEvery` rows. The cached Gram absorbs
   * the changed rows; the refreshed labels count as touched now.
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const m = new LemlStream({ rank: 2, update: "local", replay: 8, refreshEvery: 0 });
   * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
   * const r = m.refresh();
   * console.log(r.rows, r.labels, m.refreshStats.count); // 1 1 1
   * ```
   */
  refresh(): RefreshResult {
    const loc = this.#local;
    if (!loc) {
      throw new TypeError(`leml.refresh: only in the local update mode (option update: "local")`);
    }
    const t0 = performance.now();
    const cfg = this.config, res = this.#reservoir;
    const rows = cfg.refreshRows! > 0 && cfg.refreshRows! < res.size
      ? res.sample(cfg.refreshRows!)
      : res.rows();
    const H = this.h.data, b = this.bias.data;
    const r = refreshFactors({
      rows,
      k: this.rank,
      W: this.w.data,
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
      for (let p = 0; p < y.indptr[y.numRows]; p++) loc.lastTouch[y.indices[p]] = this.step;
    }
    if (loc.gram.due(this.numLabels, cfg.gramRecompute!)) {
      loc.gram.recompute(H, b, this.numLabels);
    }
    const ms = performance.now() - t0;
    loc.refreshes++;
    loc.refreshMsTotal += ms;
    loc.refreshMsLast = ms;
    loc.lastRefresh = r;
    return r;
  }

  /**
   * Local update mode: the refreshes run so far and their cost (all zero in the full mode).
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const m = new LemlStream({ rank: 2, update: "local", replay: 4, refreshEvery: 2 });
   * for (let i = 0; i < 5; i++) m.learnOne({ indices: Int32Array.of(i), values: Float32Array.of(1) }, [i % 2]);
   * console.log(m.refreshStats.count, m.refreshStats.rowsSinceLast); // 2 1
   * ```
   */
  get refreshStats(): RefreshStats {
    const loc = this.#local;
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

  /**
   * Rows held in the replay reservoir (at most `replay`).
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const m = new LemlStream({ rank: 2, replay: 1 });
   * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
   * m.learnOne({ indices: Int32Array.of(1), values: Float32Array.of(1) }, [1]);
   * console.log(m.replayRows); // 1
   * ```
   */
  get replayRows(): number {
    return this.#reservoir.size;
  }

  /**
   * Learns from one example (`y` lists its positive labels, any order).
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const m = new LemlStream({ rank: 2 });
   * m.learnOne({ indices: Int32Array.of(4), values: Float32Array.of(1) }, [2]);
   * console.log(m.numFeatures, m.numLabels); // 5 3
   * ```
   */
  learnOne(x: SparseVector, y: ArrayLike<number>): void {
    const labels = Int32Array.from(y).sort();
    for (let i = 1; i < labels.length; i++) {
      if (labels[i] === labels[i - 1]) {
        throw new RangeError(`leml.learnOne: label ${labels[i]} is listed twice`);
      }
    }
    let D = 0;
    for (let p = 0; p < x.indices.length; p++) D = Math.max(D, x.indices[p] + 1);
    const L = labels.length ? labels[labels.length - 1] + 1 : 0;
    this.learnMany({
      x: {
        numRows: 1,
        numCols: Math.max(D, this.numFeatures),
        indptr: Int32Array.of(0, x.indices.length),
        indices: x.indices,
        values: x.values,
      },
      y: {
        numRows: 1,
        numCols: Math.max(L, this.numLabels),
        indptr: Int32Array.of(0, labels.length),
        indices: labels,
      },
    });
  }

  /** Scratch for n rows; `denseH`: also the per-label slots and gradient rows (full mode). */
  #ensureScratch(n: number, denseH = true): void {
    const k = this.rank, D = this.numFeatures, L = this.numLabels;
    if (this.#U.length < n * k) {
      this.#U = new Float64Array(n * k * 2);
      this.#gU = new Float64Array(n * k * 2);
    }
    if (this.#rowScale.length < n) {
      this.#rowScale = new Float64Array(n * 2);
      this.#fullRows = new Int32Array(n * 2);
    }
    if (this.#wSlot.length < D) {
      const cap = Math.max(D, this.#wSlot.length * 2);
      this.#wSlot = new Int32Array(cap).fill(-1);
      this.#wRows = new Int32Array(cap);
    }
    if (denseH && this.#hSlot.length < L) {
      const cap = Math.max(L, this.#hSlot.length * 2);
      this.#hSlot = new Int32Array(cap).fill(-1);
      this.#hRows = new Int32Array(cap);
      this.#gb = new Float64Array(cap);
      this.#mark = new Uint8Array(cap);
    }
    if (denseH && this.#gH.length < L * k) {
      this.#gH = new Float64Array(Math.max(L * k, this.#gH.length * 2));
    }
  }

  #step(batch: Batch, haveU = 0): void {
    if (this.#local) {
      const [nw, nh] = this.#gradientLocal(batch, haveU);
      this.#applyLocal(nw, nh);
      this.#local.pool.add(batch.y.indices, 0, batch.y.indptr[batch.y.numRows]);
      return;
    }
    const [nw, nh] = this.#gradient(batch, haveU);
    this.#apply(nw, nh);
  }

  /** Slots of the batch's features in `#wRows`; returns their count. */
  #featureSlots(x: CsrMatrix): number {
    const wSlot = this.#wSlot, wRows = this.#wRows;
    let nw = 0;
    for (let p = 0; p < x.indptr[x.numRows]; p++) {
      const j = x.indices[p];
      if (wSlot[j] < 0) {
        wSlot[j] = nw;
        wRows[nw++] = j;
      }
    }
    return nw;
  }

  /**
   * The local mode's gradient (./local_step.ts): the W rows of the batch's features (exact, the
   * u part uses the cached Gram) and the touched labels' rows in the local step's scratch.
   */
  #gradientLocal(batch: Batch, haveU = 0): [number, number] {
    const x = batch.x, n = x.numRows, k = this.rank, cfg = this.config, loc = this.#local!;
    const U0 = this.#U, scale0 = this.#rowScale;
    this.#ensureScratch(n, false);
    if (this.#U !== U0 || this.#rowScale !== scale0) haveU = 0;
    this.#latent(x, haveU, n);
    this.#gU.fill(0, 0, n * k);
    const nh = loc.step.gradient({
      y: batch.y,
      observed: batch.observed,
      fullyObserved: batch.fullyObserved,
      n,
      k,
      U: this.#U,
      gU: this.#gU,
      H: this.h.data,
      bias: this.bias.data,
      L: this.numLabels,
      gram: loc.gram,
      negatives: cfg.localNegatives!,
      pool: loc.pool,
      rng: this.#rng,
      lastTouch: loc.lastTouch,
      step: this.step + 1,
      catchUp: cfg.catchUp!,
      lambda: cfg.lambda,
      useBias: cfg.bias,
    });
    const nw = this.#featureSlots(x);
    this.#wGradient(x, n, nw, 1 / n);
    return [nw, nh];
  }

  /** The local mode's optimiser step: W rows, touched H rows and biases, then the Gram cache. */
  #applyLocal(nw: number, nh: number): void {
    const cfg = this.config, k = this.rank, useBias = cfg.bias, loc = this.#local!;
    const W = this.w.data, H = this.h.data, b = this.bias.data, st = loc.step;
    const gW = this.#gW, wRows = this.#wRows, wSlot = this.#wSlot, rows = st.rows;
    if (loc.oldH.length < nh * k) {
      loc.oldH = new Float64Array(2 * nh * k);
      loc.oldB = new Float64Array(2 * nh);
    }
    const oldH = loc.oldH, oldB = loc.oldB;
    for (let q = 0; q < nh; q++) {
      const hb = rows[q] * k, ob = q * k;
      for (let c = 0; c < k; c++) oldH[ob + c] = H[hb + c];
      oldB[q] = b[rows[q]];
    }
    this.step++;
    const t = this.step;
    if (cfg.optimizer === "adam") {
      const ow = { lr: cfg.lr }, oh = { lr: cfg.lrH };
      adamUpdateRows(W, this.#mW.data, this.#vW.data, gW, wRows, nw, k, t, ow);
      adamUpdateRows(H, this.#mH.data, this.#vH.data, st.gH, rows, nh, k, t, oh);
      if (useBias) adamUpdateRows(b, this.#mb.data, this.#vb.data, st.gb, rows, nh, 1, t, oh);
    } else {
      const lw = sgdRate(cfg.lr, cfg.lrDecay, t), lh = sgdRate(cfg.lrH, cfg.lrDecay, t);
      sgdUpdateRows(W, gW, wRows, nw, k, lw);
      sgdUpdateRows(H, st.gH, rows, nh, k, lh);
      if (useBias) sgdUpdateRows(b, st.gb, rows, nh, 1, lh);
    }
    loc.gram.replaceRows(oldH, oldB, H, b, rows, nh);
    for (let q = 0; q < nh; q++) loc.lastTouch[rows[q]] = t;
    st.release(nh);
    for (let q = 0; q < nw; q++) wSlot[wRows[q]] = -1;
    if (loc.gram.due(this.numLabels, cfg.gramRecompute!)) loc.gram.recompute(H, b, this.numLabels);
  }

  /**
   * The gradient the next {@linkcode learnMany} step would use (dense copies; for tests and
   * diagnostics), without changing the model. Objective: the batch mean of the per-row losses
   * over observed entries plus λ/2 times the squared norms of the W rows the batch touches and
   * of the H rows that receive a loss gradient. For the logistic / squared hinge losses on fully
   * observed rows the negatives are sampled, so only the expectation matches. In the local
   * update mode: the local step's gradient (W exact; H and bias only on the touched labels,
   * zero elsewhere), without advancing the negative sampler.
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const m = new LemlStream({ rank: 2, numFeatures: 2, numLabels: 2 });
   * const g = m.batchGradient({
   *   x: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) },
   *   y: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) },
   * });
   * console.log(g.W.length, g.H.length, g.bias.length); // 4 4 2
   * ```
   */
  batchGradient(batch: Batch): { W: Float64Array; H: Float64Array; bias: Float64Array } {
    const n = batch.x.numRows;
    if (batch.y.numRows !== n) throw new RangeError(`leml.batchGradient: row counts differ`);
    checkCsr(batch.x.indptr, batch.x.indices, n, batch.x.numCols, "x", "feature");
    checkCsr(batch.y.indptr, batch.y.indices, n, batch.y.numCols, "y", "label");
    if (batch.x.numCols > this.numFeatures || batch.y.numCols > this.numLabels) {
      throw new RangeError(`leml.batchGradient: the batch is wider than the model`);
    }
    const rng = this.#rng.state;
    const loc = this.#local;
    const [nw, nh] = loc ? this.#gradientLocal(batch) : this.#gradient(batch);
    this.#rng.state = rng;
    const k = this.rank;
    const W = new Float64Array(this.numFeatures * k), H = new Float64Array(this.numLabels * k);
    const bias = new Float64Array(this.numLabels);
    for (let q = 0; q < nw; q++) {
      W.set(this.#gW.subarray(q * k, q * k + k), this.#wRows[q] * k);
      this.#wSlot[this.#wRows[q]] = -1;
    }
    const hRows = loc ? loc.step.rows : this.#hRows, gH = loc ? loc.step.gH : this.#gH;
    const gb = loc ? loc.step.gb : this.#gb;
    for (let q = 0; q < nh; q++) {
      H.set(gH.subarray(q * k, q * k + k), hRows[q] * k);
      bias[hRows[q]] = gb[q];
      if (!loc) this.#hSlot[hRows[q]] = -1;
    }
    if (loc) loc.step.release(nh);
    return { W, H, bias };
  }

  /**
   * Rows [from, to) of U = X W into the scratch `#U` (each row scaled to unit L2 norm when
   * configured; the scale goes to `#rowScale`). Two features at a time: each U entry still
   * receives its terms one by one in feature order, so the sums are bit-identical to a plain
   * loop, with half the loads and stores of U.
   */
  #latent(x: CsrMatrix, from: number, to: number): void {
    const k = this.rank, U = this.#U, W = this.w.data, scale = this.#rowScale;
    const l2 = this.config.l2Normalize, ip = x.indptr, ix = x.indices, xv = x.values;
    U.fill(0, from * k, to * k);
    for (let i = from; i < to; i++) {
      const p0 = ip[i], p1 = ip[i + 1];
      let ss = 0;
      if (l2) { for (let p = p0; p < p1; p++) ss += xv[p] * xv[p]; }
      const f = l2 ? (ss > 0 ? 1 / Math.sqrt(ss) : 0) : 1;
      scale[i] = f;
      const ub = i * k;
      let p = p0;
      for (; p + 1 < p1; p += 2) {
        const v0 = xv[p] * f, w0 = ix[p] * k, v1 = xv[p + 1] * f, w1 = ix[p + 1] * k;
        for (let c = 0; c < k; c++) {
          let t = U[ub + c];
          t += v0 * W[w0 + c];
          t += v1 * W[w1 + c];
          U[ub + c] = t;
        }
      }
      if (p < p1) {
        const v = xv[p] * f, wb = ix[p] * k;
        for (let c = 0; c < k; c++) U[ub + c] += v * W[wb + c];
      }
    }
  }

  /**
   * gW_q = Σ_i x_ij f_i gU_i + λ W_j for the `nw` feature slots of the batch (j = wRows[q]),
   * column by column: the batch's entries are sorted by slot (stable, so each column keeps row
   * order) and each gW entry is summed in a register in row order, then λW is added: the same
   * terms in the same order as scattering row by row, so bit-identical, without the scattered
   * loads and stores.
   */
  #wGradient(x: CsrMatrix, n: number, nw: number, inv: number): void {
    const k = this.rank, W = this.w.data, gU = this.#gU, scale = this.#rowScale;
    const wSlot = this.#wSlot, wRows = this.#wRows, lam = this.config.lambda;
    const ip = x.indptr, ix = x.indices, xv = x.values, nnz = ip[n];
    if (this.#gW.length < nw * k) {
      this.#gW = new Float64Array(Math.max(nw * k, this.#gW.length * 2));
    }
    if (this.#colPtr.length < nw + 1) {
      this.#colPtr = new Int32Array(Math.max(nw + 1, 2 * this.#colPtr.length));
    }
    if (this.#entRow.length < nnz) {
      this.#entRow = new Int32Array(Math.max(nnz, 2 * this.#entRow.length));
      this.#entVal = new Float64Array(this.#entRow.length);
    }
    const gW = this.#gW, ptr = this.#colPtr, er = this.#entRow, ev = this.#entVal;
    ptr.fill(0, 0, nw + 1);
    for (let p = 0; p < nnz; p++) ptr[wSlot[ix[p]] + 1]++;
    for (let q = 0; q < nw; q++) ptr[q + 1] += ptr[q];
    for (let i = 0; i < n; i++) {
      const f = scale[i] * inv, ub = i * k;
      for (let p = ip[i]; p < ip[i + 1]; p++) {
        const e = ptr[wSlot[ix[p]]]++;
        er[e] = ub;
        ev[e] = xv[p] * f;
      }
    }
    // ptr[q] is now the end of column q (the start of column q + 1)
    let e0 = 0;
    for (let q = 0; q < nw; q++) {
      const e1 = ptr[q], sb = q * k, wb = wRows[q] * k;
      let c = 0;
      for (; c + 3 < k; c += 4) {
        let t0 = 0, t1 = 0, t2 = 0, t3 = 0;
        for (let e = e0; e < e1; e++) {
          const v = ev[e], u = er[e] + c;
          t0 += v * gU[u];
          t1 += v * gU[u + 1];
          t2 += v * gU[u + 2];
          t3 += v * gU[u + 3];
        }
        gW[sb + c] = t0 + lam * W[wb + c];
        gW[sb + c + 1] = t1 + lam * W[wb + c + 1];
        gW[sb + c + 2] = t2 + lam * W[wb + c + 2];
        gW[sb + c + 3] = t3 + lam * W[wb + c + 3];
      }
      for (; c < k; c++) {
        let t = 0;
        for (let e = e0; e < e1; e++) t += ev[e] * gU[er[e] + c];
        gW[sb + c] = t + lam * W[wb + c];
      }
      e0 = e1;
    }
  }

  #gradient(batch: Batch, haveU = 0): [number, number] {
    const { x, y } = batch;
    const observed: BinaryCsr | undefined = batch.observed;
    const full = batch.fullyObserved;
    const n = x.numRows, k = this.rank, L = this.numLabels;
    const cfg = this.config;
    const U0 = this.#U, scale0 = this.#rowScale;
    this.#ensureScratch(n);
    // rows computed before are lost if the scratch had to grow: compute every row then
    if (this.#U !== U0 || this.#rowScale !== scale0) haveU = 0;
    const U = this.#U, gU = this.#gU, H = this.h.data, b = this.bias.data;
    const useBias = cfg.bias;
    // U = X_b W (rows scaled to unit norm when configured); the first `haveU` rows are there
    this.#latent(x, haveU, n);
    gU.fill(0, 0, n * k);
    const hSlot = this.#hSlot, hRows = this.#hRows, gH = this.#gH, gb = this.#gb;
    let nh = 0;
    const touchH = (l: number): number => {
      let s = hSlot[l];
      if (s < 0) {
        s = nh++;
        hSlot[l] = s;
        hRows[s] = l;
        gH.fill(0, s * k, s * k + k);
        gb[s] = 0;
      }
      return s;
    };
    const isFull = (i: number) => !observed || (full !== undefined && full[i] === 1);
    // ---- squared loss, fully observed rows: Gram identity (Algorithm 2) ----
    // The k×k products below are blocked (four rows or four outputs at a time) for fewer loads
    // and independent accumulators; every sum still receives its terms in the same order as a
    // plain loop, so the results are bit-identical to it.
    let nFull = 0;
    const fullRows = this.#fullRows;
    if (cfg.loss === "squared") {
      for (let i = 0; i < n; i++) if (isFull(i)) fullRows[nFull++] = i;
    }
    if (nFull > 0) {
      const G = this.#G, HtH = this.#HtH, Htb = this.#Htb, s = this.#s;
      G.fill(0);
      HtH.fill(0);
      Htb.fill(0);
      s.fill(0);
      // G = Σ_i u_i u_iᵀ (upper triangle), s = Σ_i u_i
      addGram(U, fullRows, nFull, k, undefined, G, s);
      // HᵀH (upper triangle) and Hᵀb
      addGram(H, undefined, L, k, b, HtH, Htb);
      for (let a = 0; a < k; a++) {
        for (let c = 0; c < a; c++) {
          G[a * k + c] = G[c * k + a];
          HtH[a * k + c] = HtH[c * k + a];
        }
      }
      // every label receives a gradient: slots in label order; ∂/∂h_l = G h_l + b_l s
      for (let l = 0; l < L; l++) {
        const sl = touchH(l), hb = l * k, bl = b[l];
        addMatVec(G, k, H, hb, bl, s, gH, sl * k);
        let hs = 0;
        for (let a = 0; a < k; a++) hs += H[hb + a] * s[a];
        gb[sl] += hs + nFull * bl;
      }
      // ∂/∂u_i = HᵀH u_i + Hᵀb − Σ_{l∈y_i} h_l
      for (let q = 0; q < nFull; q++) {
        const i = fullRows[q], ub = i * k;
        addMatVec(HtH, k, U, ub, 1, Htb, gU, ub);
        for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) {
          const l = y.indices[p], hb = l * k, sl = hSlot[l] * k;
          for (let c = 0; c < k; c++) {
            gU[ub + c] -= H[hb + c];
            gH[sl + c] -= U[ub + c];
          }
          gb[hSlot[l]] -= 1;
        }
      }
    }
    // ---- explicit entries: masked rows, and sampled negatives for other losses ----
    const entry = (i: number, l: number, target: number, weight: number) => {
      const ub = i * k, hb = l * k;
      let z = b[l];
      for (let c = 0; c < k; c++) z += U[ub + c] * H[hb + c];
      const d = weight * lossGrad(cfg.loss, z, target);
      if (d === 0) return;
      const sl = touchH(l), gb0 = sl * k;
      for (let c = 0; c < k; c++) {
        gU[ub + c] += d * H[hb + c];
        gH[gb0 + c] += d * U[ub + c];
      }
      gb[sl] += d;
    };
    const mark = this.#mark;
    for (let i = 0; i < n; i++) {
      const full_i = isFull(i);
      if (full_i && cfg.loss === "squared") continue;
      const y0 = y.indptr[i], y1 = y.indptr[i + 1];
      if (!full_i) {
        // observed = labels ∪ mask row, merged in increasing order
        const o = observed!;
        let p = y0, q = o.indptr[i];
        const q1 = o.indptr[i + 1];
        while (p < y1 || q < q1) {
          const ly = p < y1 ? y.indices[p] : Infinity, lo = q < q1 ? o.indices[q] : Infinity;
          if (ly <= lo) {
            entry(i, ly, 1, 1);
            p++;
            if (ly === lo) q++;
          } else {
            entry(i, lo, 0, 1);
            q++;
          }
        }
        continue;
      }
      const np = y1 - y0;
      for (let p = y0; p < y1; p++) {
        entry(i, y.indices[p], 1, 1);
        mark[y.indices[p]] = 1;
      }
      const nneg = L - np;
      if (nneg > 0) {
        const m = cfg.negatives, wgt = nneg / m;
        for (let t = 0; t < m; t++) {
          let l = this.#rng.nextInt(L);
          // rejection: positives are few; give up after a few tries on dense rows
          for (let tries = 0; mark[l] === 1 && tries < 32; tries++) l = this.#rng.nextInt(L);
          if (mark[l] === 1) continue;
          entry(i, l, 0, wgt);
        }
      }
      for (let p = y0; p < y1; p++) mark[y.indices[p]] = 0;
    }
    // ---- W gradient rows: gW_j = Σ_i x_ij gU_i / n + λ W_j ----
    const inv = 1 / n;
    const wSlot = this.#wSlot, wRows = this.#wRows;
    let nw = 0;
    for (let p = 0; p < x.indptr[n]; p++) {
      const j = x.indices[p];
      if (wSlot[j] < 0) {
        wSlot[j] = nw;
        wRows[nw++] = j;
      }
    }
    this.#wGradient(x, n, nw, inv);
    const lam = cfg.lambda;
    for (let q = 0; q < nh; q++) {
      const hb = hRows[q] * k, sb = q * k;
      for (let c = 0; c < k; c++) gH[sb + c] = gH[sb + c] * inv + lam * H[hb + c];
      gb[q] = useBias ? gb[q] * inv : 0;
    }
    return [nw, nh];
  }

  #apply(nw: number, nh: number): void {
    const cfg = this.config, k = this.rank, useBias = cfg.bias;
    const W = this.w.data, H = this.h.data, b = this.bias.data;
    const gW = this.#gW, gH = this.#gH, gb = this.#gb;
    const wRows = this.#wRows, hRows = this.#hRows, wSlot = this.#wSlot, hSlot = this.#hSlot;
    // ---- optimiser ----
    this.step++;
    const t = this.step;
    if (cfg.optimizer === "adam") {
      const ow = { lr: cfg.lr }, oh = { lr: cfg.lrH };
      adamUpdateRows(W, this.#mW.data, this.#vW.data, gW, wRows, nw, k, t, ow);
      adamUpdateRows(H, this.#mH.data, this.#vH.data, gH, hRows, nh, k, t, oh);
      if (useBias) adamUpdateRows(b, this.#mb.data, this.#vb.data, gb, hRows, nh, 1, t, oh);
    } else {
      const lw = sgdRate(cfg.lr, cfg.lrDecay, t), lh = sgdRate(cfg.lrH, cfg.lrDecay, t);
      sgdUpdateRows(W, gW, wRows, nw, k, lw);
      sgdUpdateRows(H, gH, hRows, nh, k, lh);
      if (useBias) sgdUpdateRows(b, gb, hRows, nh, 1, lh);
    }
    for (let q = 0; q < nw; q++) wSlot[wRows[q]] = -1;
    for (let q = 0; q < nh; q++) hSlot[hRows[q]] = -1;
  }

  /**
   * Full training state (copies): config, step, RNG state, factors and optimiser moments.
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const s = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 2 }).toState();
   * console.log(s.kind, s.tensors.W.length, s.tensors.H.length); // "leml" 6 4
   * ```
   */
  toState(): ModelState {
    const tensors: ModelState["tensors"] = {
      W: this.w.snapshot(),
      H: this.h.snapshot(),
      bias: this.bias.snapshot(),
    };
    if (this.config.optimizer === "adam") {
      tensors.mW = this.#mW.snapshot();
      tensors.vW = this.#vW.snapshot();
      tensors.mH = this.#mH.snapshot();
      tensors.vH = this.#vH.snapshot();
      tensors.mb = this.#mb.snapshot();
      tensors.vb = this.#vb.snapshot();
    }
    const scalars: ModelState["scalars"] = {
      step: this.step,
      rngState: this.#rng.state,
      numFeatures: this.numFeatures,
      numLabels: this.numLabels,
    };
    if (this.config.replay > 0) {
      const r = this.#reservoir.toState();
      Object.assign(tensors, r.tensors);
      scalars.replaySeen = r.scalars.seen;
      scalars.replayRng = r.scalars.rngState;
    }
    const loc = this.#local;
    if (loc) {
      tensors.gram = loc.gram.gram.slice();
      tensors.gramHb = loc.gram.hb.slice();
      tensors.lastTouch = loc.lastTouch.slice(0, this.numLabels);
      tensors.labelPool = loc.pool.buffer.slice();
      scalars.gramUpdates = loc.gram.updates;
      scalars.gramRecomputes = loc.gram.recomputes;
      scalars.labelPoolPos = loc.pool.pos;
      scalars.labelPoolSize = loc.pool.size;
      scalars.refreshRowsSince = loc.rowsSinceRefresh;
      scalars.refreshCount = loc.refreshes;
    }
    return { kind: "leml", config: { trainer: "stream", ...this.config }, scalars, tensors };
  }

  /**
   * The state of a prediction replica: W, H and bias (fresh copies), without the Adam moments
   * and the replay rows; restored, it is an SGD learner that predicts exactly like this one.
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const a = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 2, seed: 4 });
   * const r = LemlStream.fromState(a.toReplicaState(), true);
   * const x = { indices: Int32Array.of(0, 2), values: Float32Array.of(1, 0.5) };
   * console.log(Object.keys(a.toReplicaState().tensors), r.predictTopK(x, 2).labels.join() === a.predictTopK(x, 2).labels.join()); // [ "W", "H", "bias" ] true
   * ```
   */
  toReplicaState(): ModelState {
    return {
      kind: "leml",
      config: { trainer: "stream", ...this.config, optimizer: "sgd", replay: 0 },
      scalars: {
        step: this.step,
        rngState: this.#rng.state,
        numFeatures: this.numFeatures,
        numLabels: this.numLabels,
      },
      tensors: { W: this.w.snapshot(), H: this.h.snapshot(), bias: this.bias.snapshot() },
    };
  }

  /**
   * Rebuilds a streaming estimator from {@linkcode toState}, bit-for-bit (with `adopt`, W, H
   * and bias keep the state's Float32Arrays instead of copies).
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const a = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 2, seed: 4 });
   * const b = LemlStream.fromState(a.toState());
   * console.log(b.numFeatures, b.h.data[0] === a.h.data[0]); // 3 true
   * ```
   */
  static fromState(state: ModelState, adopt = false): LemlStream {
    if (state.kind !== "leml") {
      throw new TypeError(`leml.restore: state kind is "${state.kind}", expected "leml"`);
    }
    const { trainer: _t, ...config } = state.config;
    const m = new LemlStream({ ...config, numFeatures: 0, numLabels: 0 });
    const D = state.scalars.numFeatures, L = state.scalars.numLabels, k = m.rank;
    const t = state.tensors;
    const need = (name: string, len: number): ArrayLike<number> => {
      const a = t[name];
      if (!a || a.length !== len) {
        throw new RangeError(
          `leml.restore: tensor ${name} has length ${a?.length ?? "none"}, expected ${len}`,
        );
      }
      return a;
    };
    for (
      const [rows, name, len] of [[m.w, "W", D * k], [m.h, "H", L * k], [
        m.bias,
        "bias",
        L,
      ]] as const
    ) {
      const values = need(name, len);
      if (adopt && values instanceof Float32Array) rows.adopt(values);
      else rows.load(values);
    }
    if (m.config.optimizer === "adam") {
      m.#mW.load(need("mW", D * k));
      m.#vW.load(need("vW", D * k));
      m.#mH.load(need("mH", L * k));
      m.#vH.load(need("vH", L * k));
      m.#mb.load(need("mb", L));
      m.#vb.load(need("vb", L));
    }
    m.step = state.scalars.step;
    m.#rng.state = state.scalars.rngState >>> 0;
    if (m.config.replay > 0 && t.resXIndptr !== undefined) {
      m.#reservoir = RowReservoir.fromState(
        m.config.replay,
        Math.floor(m.config.seed),
        { seen: state.scalars.replaySeen, rngState: state.scalars.replayRng },
        t,
        "leml",
      );
    }
    const loc = m.#local;
    if (loc) {
      // the cached Gram, the sampler and the counters continue exactly; a state without them
      // (a replica's) recomputes the Gram and counts every label as touched now
      loc.lastTouch = t.lastTouch !== undefined
        ? Int32Array.from(need("lastTouch", L))
        : new Int32Array(L).fill(m.step);
      if (t.gram !== undefined) {
        loc.gram.gram = Float64Array.from(need("gram", k * k));
        loc.gram.hb = Float64Array.from(need("gramHb", k));
        loc.gram.updates = state.scalars.gramUpdates ?? 0;
        loc.gram.recomputes = state.scalars.gramRecomputes ?? 0;
      } else {
        loc.gram.recomputes = 0;
        loc.gram.recompute(m.h.data, m.bias.data, L);
      }
      if (t.labelPool !== undefined) {
        loc.pool = LabelPool.restore(
          Int32Array.from(need("labelPool", POOL_SIZE)),
          state.scalars.labelPoolPos ?? 0,
          state.scalars.labelPoolSize ?? 0,
        );
      }
      loc.rowsSinceRefresh = state.scalars.refreshRowsSince ?? 0;
      loc.refreshes = state.scalars.refreshCount ?? 0;
    }
    return m;
  }
}

/** Validates one CSR part of a batch; returns the space size it needs (max index + 1, numCols). */
function checkCsr(
  indptr: Int32Array,
  indices: Int32Array,
  n: number,
  numCols: number,
  what: string,
  entity: string,
): number {
  if (indptr.length !== n + 1 || indptr[0] !== 0 || indptr[n] > indices.length) {
    throw new RangeError(`leml.learnMany: ${what}.indptr is not a valid row pointer for ${n} rows`);
  }
  let need = numCols;
  for (let i = 0; i < n; i++) {
    let prev = -1;
    const p1 = indptr[i + 1];
    if (p1 < indptr[i]) {
      throw new RangeError(`leml.learnMany: ${what}.indptr decreases at row ${i}`);
    }
    for (let p = indptr[i]; p < p1; p++) {
      const j = indices[p];
      if (!(j > prev)) {
        throw new RangeError(
          `leml.learnMany: row ${i} of ${what}: ${entity} indices are not strictly increasing (${j} after ${prev})`,
        );
      }
      prev = j;
    }
    if (prev + 1 > need) need = prev + 1;
  }
  return need;
}
