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
 * Optional experience replay (`replay` > 0, ./replay.ts): `replaySteps` steps per minibatch,
 * each joined by replayed rows from a bounded, seeded reservoir of earlier rows (part of
 * {@linkcode LemlStream.toState}, never of the model file). Local update mode (`update:
 * "local"`, squared loss, ./local_mode.ts): a step's cost does not grow with L.
 *
 * The parts: the settings (./settings.ts), the gradients (./gradients.ts), the optimiser
 * (./optimizer.ts), replay (./replay.ts), the local mode (./local_mode.ts), the training state
 * (./state.ts), batch validation (../../data/batch_check.ts) and the raw-value limit of the
 * squared loss and of SGD without `l2Normalize` (./value_limit.ts: a row with a value past 1e15
 * is refused, naming it, before anything changes), and SGD's step-size cap on raw rows above
 * unit norm (./step_cap.ts: a block's step whose curvature along it makes lr·β > 2, a step that
 * would raise the batch's loss, is cut to the minimum along it; other steps, and at the default
 * settings every batch of rows with ‖x‖ ≤ 1, are stepped exactly as without it; above them unit
 * batches are measured too); this file ties them together.
 * New features get zero W rows; new labels get H rows initialised by a seeded hash, so the
 * model does not depend on when a row was created. Scores are raw scores minus `threshold`
 * (0.5 for the squared loss on 0/1 targets, 0 for logistic and squared hinge).
 *
 * @module
 */
import type { Batch, SparseVector } from "../../data/types.ts";
import type { Estimator, ModelState, TopK } from "../estimator.ts";
import { rowView } from "../../data/dataset_rows.ts";
import { topKDense } from "../../../sdk/internal.ts";
import { LowRankScorer } from "./lowrank.ts";
import { LABEL_INDEX_MIN_LABELS } from "../../linalg/mips_index.ts";
import { hashUniform, SmallRng } from "../../random/mod.ts";
import { RowReservoir } from "../../data/reservoir.ts";
import { checkBatch, checkCsr, type SpaceLimits } from "../../data/batch_check.ts";
import { withStoredLimits } from "../space_limits.ts";
import { shown } from "../../data/option_check.ts";
import { checkFinite, checkStateKind, requireTensor } from "../state_check.ts";
import { learnOneVia } from "../learn_one.ts";
import { learnWithReplay } from "./replay.ts";
import type { RefreshResult, RefreshStats } from "./refresh.ts";
import {
  type LemlStreamConfig,
  type LemlStreamOptions,
  resolveLemlStreamOptions,
} from "./settings.ts";
import { GradientScratch } from "./gradients.ts";
import { valueLimitReason } from "./value_limit.ts";
import { checkRawValues, rawValueRefusal } from "../raw_value_limit.ts";
import { LemlOptimizer } from "./optimizer.ts";
import {
  afterLocalStep,
  beforeLocalStep,
  growLocalLabels,
  type LocalMode,
  newLocalMode,
  refreshDue,
  refreshLocal,
  refreshStats,
} from "./local_mode.ts";
import {
  lemlReplicaState,
  type LemlStreamParts,
  lemlStreamState,
  loadLemlStreamState,
} from "./state.ts";

export {
  LEML_SETTINGS,
  type LemlStreamConfig,
  type LemlStreamOptions,
  LOCAL_KEYS,
  resolveLemlStreamOptions,
} from "./settings.ts";

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
  /** The resolved settings (see {@linkcode LEML_SETTINGS}). */
  readonly config: Readonly<LemlStreamConfig>;
  /** How far learning may grow the spaces (`maxFeatures`, `maxLabels`). */
  readonly limits: SpaceLimits;
  /** Optimiser steps taken (`replaySteps` per non-empty batch). */
  step = 0;
  #rng: SmallRng;
  #reservoir: RowReservoir;
  #opt: LemlOptimizer;
  /** Gradient scratch (not model state). */
  #sc: GradientScratch;
  #scoreBuf = new Float32Array(0);
  /** The local update mode's state (undefined in the full mode). */
  #local: LocalMode | undefined;
  /** Why raw values are limited under this configuration (undefined: they are not). */
  #valueLimit: string | undefined;

  /**
   * @param options see {@linkcode LemlStreamOptions}; validated against
   * {@linkcode LEML_SETTINGS} (an unknown key or a bad value is an error naming it).
   */
  constructor(options: LemlStreamOptions | Record<string, unknown> = {}) {
    const { config, numFeatures, numLabels, limits } = resolveLemlStreamOptions(
      options as Record<string, unknown>,
    );
    super(config.rank, 0, 0, config.threshold, config.l2Normalize);
    this.config = config;
    this.limits = limits;
    this.#rng = new SmallRng(Math.imul(Math.floor(config.seed) | 0, 0x9e3779b1) ^ 0x5bd1e995);
    this.#reservoir = new RowReservoir(config.replay, Math.floor(config.seed));
    this.#opt = new LemlOptimizer(config);
    this.#sc = new GradientScratch(config.rank);
    this.#valueLimit = valueLimitReason(config);
    if (config.update === "local") this.#local = newLocalMode(config.rank);
    this.grow(numFeatures, numLabels);
  }

  /**
   * The label index's calibration queries (see {@linkcode LowRankScorer.calibrationQueries}):
   * `calibration` when set, else up to 512 rows of the replay reservoir, evenly spaced (no
   * random draw: the model's state is not touched), as the current W projects them; none
   * (synthetic queries) while the reservoir holds fewer than 32 rows.
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const m = new LemlStream({ rank: 2, replay: 100 });
   * const rows = { numRows: 40, numCols: 3, indptr: Int32Array.from({ length: 41 }, (_, i) => i),
   *   indices: Int32Array.from({ length: 40 }, (_, i) => i % 3), values: new Float32Array(40).fill(1) };
   * m.learnMany({ x: rows, y: { numRows: 40, numCols: 2, indptr: Int32Array.from({ length: 41 }, (_, i) => i), indices: Int32Array.from({ length: 40 }, (_, i) => i % 2) } });
   * console.log(m.labelIndexInput().queries?.length); // 80
   * ```
   */
  override calibrationQueries(): Float32Array | undefined {
    if (this.calibration !== undefined || this.#reservoir.size < 32) return this.calibration;
    const x = this.#reservoir.rows(512).x;
    return this.queryRows(Array.from({ length: x.numRows }, (_, i) => rowView(x, i)));
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
    if (numFeatures <= this.w.rows && numLabels <= this.h.rows) return;
    // every array grows on its own: if one cannot be allocated, the ones grown before it go
    // back to their rows (their new rows are zero or rewritten by the next growth)
    const o = this.#opt;
    const parts = [this.w, this.h, this.bias, o.mW, o.vW, o.mH, o.vH, o.mb, o.vb];
    const rows = parts.map((p) => p.rows);
    try {
      this.#growParts(numFeatures, numLabels);
    } catch (e) {
      parts.forEach((p, i) => p.rows = rows[i]);
      throw new RangeError(
        `leml: cannot grow the model to ${numFeatures} features and ${numLabels} labels at rank ${this.rank}: ${
          (e as Error).message
        }`,
      );
    }
  }

  #growParts(numFeatures: number, numLabels: number): void {
    const k = this.rank;
    this.markLearned();
    if (numFeatures > this.w.rows) {
      this.w.resize(numFeatures);
      this.#opt.growFeatures(numFeatures);
    }
    if (numLabels > this.h.rows) {
      const from = this.h.rows;
      this.h.resize(numLabels);
      this.bias.resize(numLabels);
      this.#opt.growLabels(numLabels);
      const H = this.h.data, sc = this.config.initScale, seed = this.config.seed;
      for (let l = from; l < numLabels; l++) {
        for (let c = 0; c < k; c++) H[l * k + c] = sc * hashUniform(seed, l, c);
      }
      // new labels count as touched now (no missed gradient) and enter the cached Gram
      if (this.#local) growLocalLabels(this.#local, from, numLabels, this.step, H, this.bias.data);
    }
  }

  /**
   * Why {@linkcode LemlStream.learnMany} would refuse a row with features `x`, or undefined: a
   * raw value past the limit of ./value_limit.ts when this configuration has one (the squared
   * loss or SGD without `l2Normalize`). Reads `x` only; the service asks before it accepts an
   * event.
   *
   * @example
   * ```ts
   * import { LemlStream } from "./stream.ts";
   * const x = { indices: Int32Array.of(4), values: Float32Array.of(1e30) };
   * console.log(new LemlStream().learnRefusal(x)?.slice(0, 34), new LemlStream({ l2Normalize: true }).learnRefusal(x)); // feature 4 has value 1e+30, above undefined
   * ```
   */
  learnRefusal(x: SparseVector): string | undefined {
    return rawValueRefusal(x, this.#valueLimit);
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
   * before this call (exactly what `predictTopK(row, k, { exact: true })` returns then: the
   * labels known before the batch, scores bit-identical; a label index is not used), then learns
   * the batch exactly as {@linkcode learnMany} does (the same model afterwards). The latent
   * rows u = xᵀW computed for scoring are reused by the first optimiser step instead of being
   * computed twice (not with `l2Normalize`, where scoring normalises by the features the model
   * knew before the batch: the rows are then scored apart).
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
      checkBatch(batch, "leml.scoreThenLearn", this.limits); // before predicting: a bad batch changes nothing
      for (let i = 0; i < n; i++) {
        const p0 = x.indptr[i], p1 = x.indptr[i + 1];
        tops[i] = this.predictTopK(
          { indices: x.indices.subarray(p0, p1), values: x.values.subarray(p0, p1) },
          k,
          { exact: true },
        );
      }
      this.#grow(batch, "leml.scoreThenLearn");
      this.#learn(batch, 0);
      return tops;
    }
    // new features get zero W rows: u = xᵀW is the same before and after growing
    this.#grow(batch, "leml.scoreThenLearn");
    if (n === 0) return tops;
    const res = this.#reservoir;
    // room for the first step's joined batch: at most the rows the reservoir holds are replayed
    // (room for replayRatio × n of them was gigabytes for a large ratio, or a RangeError after
    // the model had grown, where learnMany learns the batch)
    this.#sc.ensure(
      this,
      n + Math.min(res.size, Math.round(this.config.replayRatio * n)),
      this.#local === undefined,
    );
    this.#sc.latent(this, x, 0, n);
    if (this.#scoreBuf.length < L0) this.#scoreBuf = new Float32Array(L0);
    const out = this.#scoreBuf.subarray(0, L0);
    for (let i = 0; i < n; i++) {
      this.scoreLatent(this.#sc.U, i * r, out, L0);
      tops[i] = topKDense(out, k);
    }
    this.#learn(batch, n);
    return tops;
  }

  /**
   * Validates a batch (and, where the configuration needs it, its raw values against the limit
   * of ./value_limit.ts) and grows the spaces to hold it.
   */
  #grow(batch: Batch, where = "leml.learnMany"): void {
    const [needD, needL] = checkBatch(batch, where, this.limits);
    checkRawValues(batch, where, this.#valueLimit);
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
    this.markLearned(); // drops the label index (LowRankScorer.indexLabels)
    const replayed = learnWithReplay(
      batch,
      this.#reservoir,
      this.config,
      haveU,
      (b, u) => this.#step(b, u),
    );
    const loc = this.#local;
    if (replayed && loc && refreshDue(loc, n, this.config.refreshEvery!)) this.refresh();
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
    this.markLearned();
    return refreshLocal(loc, this, this.#reservoir, this.step);
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
    return refreshStats(this.#local);
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
    learnOneVia(this, x, y, "leml");
  }

  #step(batch: Batch, haveU = 0): void {
    const loc = this.#local;
    if (loc) {
      const [nw, nh] = this.#sc.local(this, batch, haveU, this.#rng, loc, this.step + 1);
      this.#applyLocal(loc, nw, nh);
      loc.pool.add(batch.y.indices, 0, batch.y.indptr[batch.y.numRows]);
      return;
    }
    const [nw, nh] = this.#sc.full(this, batch, haveU, this.#rng);
    this.#apply(nw, nh);
  }

  /** The full mode's optimiser step on the gradient in the scratch; releases its slots. */
  #apply(nw: number, nh: number): void {
    const sc = this.#sc, wRows = sc.wRows, hRows = sc.hRows, wSlot = sc.wSlot, hSlot = sc.hSlot;
    this.step++;
    this.#opt.update(
      this.step,
      { param: this.w.data, grad: sc.gW, rows: wRows, count: nw },
      { param: this.h.data, grad: sc.gH, rows: hRows, count: nh },
      { param: this.bias.data, grad: sc.gb, rows: hRows, count: nh },
      sc.curv,
    );
    for (let q = 0; q < nw; q++) wSlot[wRows[q]] = -1;
    for (let q = 0; q < nh; q++) hSlot[hRows[q]] = -1;
  }

  /** The local mode's optimiser step: W rows, touched H rows and biases, then the Gram cache. */
  #applyLocal(loc: LocalMode, nw: number, nh: number): void {
    const k = this.rank, sc = this.#sc, st = loc.step, wRows = sc.wRows, wSlot = sc.wSlot;
    const H = this.h.data, b = this.bias.data;
    beforeLocalStep(loc, nh, k, H, b);
    this.step++;
    const t = this.step;
    this.#opt.update(
      t,
      { param: this.w.data, grad: sc.gW, rows: wRows, count: nw },
      { param: H, grad: st.gH, rows: st.rows, count: nh },
      { param: b, grad: st.gb, rows: st.rows, count: nh },
      sc.curv,
    );
    afterLocalStep(loc, nh, t, H, b, this.numLabels, this.config.gramRecompute!);
    for (let q = 0; q < nw; q++) wSlot[wRows[q]] = -1;
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
    // the sizes the batch needs (its largest indices, not only its declared numCols: an index
    // past the model gave NaN gradients), and finite values, as learnMany checks them
    const needD = checkCsr(
      batch.x.indptr,
      batch.x.indices,
      n,
      batch.x.numCols,
      "x",
      "feature",
      "leml.batchGradient",
      undefined,
      batch.x.values,
    );
    let needL = checkCsr(
      batch.y.indptr,
      batch.y.indices,
      n,
      batch.y.numCols,
      "y",
      "label",
      "leml.batchGradient",
    );
    const o = batch.observed;
    if (o !== undefined) {
      if (o.numRows !== n) throw new RangeError(`leml.batchGradient: row counts differ`);
      needL = Math.max(
        needL,
        checkCsr(o.indptr, o.indices, n, o.numCols, "observed", "label", "leml.batchGradient"),
      );
    }
    if (needD > this.numFeatures || needL > this.numLabels) {
      throw new RangeError(`leml.batchGradient: the batch is wider than the model`);
    }
    const rng = this.#rng.state;
    const loc = this.#local;
    const sc = this.#sc;
    const [nw, nh] = loc
      ? sc.local(this, batch, 0, this.#rng, loc, this.step + 1)
      : sc.full(this, batch, 0, this.#rng);
    this.#rng.state = rng;
    const k = this.rank;
    const W = new Float64Array(this.numFeatures * k), H = new Float64Array(this.numLabels * k);
    const bias = new Float64Array(this.numLabels);
    for (let q = 0; q < nw; q++) {
      W.set(sc.gW.subarray(q * k, q * k + k), sc.wRows[q] * k);
      sc.wSlot[sc.wRows[q]] = -1;
    }
    const hRows = loc ? loc.step.rows : sc.hRows, gH = loc ? loc.step.gH : sc.gH;
    const gb = loc ? loc.step.gb : sc.gb;
    for (let q = 0; q < nh; q++) {
      H.set(gH.subarray(q * k, q * k + k), hRows[q] * k);
      bias[hRows[q]] = gb[q];
      if (!loc) sc.hSlot[hRows[q]] = -1;
    }
    if (loc) loc.step.release(nh);
    return { W, H, bias };
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
    return lemlStreamState(this.#parts());
  }

  /**
   * The state of a prediction replica: W, H and bias (fresh copies), without the Adam moments
   * and the replay rows; restored, it is an SGD learner that predicts exactly like this one.
   * From {@linkcode LABEL_INDEX_MIN_LABELS} labels on, also `calibration`: this model's
   * {@linkcode LemlStream.calibrationQueries} (the replica's own `calibration` once restored), so
   * that a replica's label index calibrates its probes on the same queries as this model's.
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
    const state = lemlReplicaState(this.#parts());
    // the queries the label index calibrates on, so that the replica's index (the service's
    // /predict) calibrates as this model's and its file's do (a copy: states are transferred)
    const queries = this.numLabels >= LABEL_INDEX_MIN_LABELS
      ? this.calibrationQueries()
      : undefined;
    if (queries !== undefined) state.tensors.calibration = queries.slice();
    return state;
  }

  /**
   * Rebuilds a streaming estimator from {@linkcode toState}, bit-for-bit (with `adopt`, W, H
   * and bias keep the state's Float32Arrays instead of copies). Every value is checked first
   * (./state.ts, `loadLemlStreamState`): a NaN factor, a negative moment, a fractional step or
   * sizes past the limits are a `RangeError` naming the field.
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
    checkStateKind(state, "leml", "leml.restore");
    const { trainer, ...config } = withStoredLimits(state.config);
    // "stream" (or absent); any other trainer is not this model's state, whatever else it holds
    if (trainer !== undefined && trainer !== "stream") {
      throw new TypeError(
        `leml.restore: config.trainer is ${shown(trainer)}, not "stream" (or "batch", which ` +
          `the factory restores as a batch-trained model)`,
      );
    }
    const m = new LemlStream({ ...config, numFeatures: 0, numLabels: 0 });
    m.#reservoir = loadLemlStreamState(m.#parts(), state, adopt);
    m.step = state.scalars.step;
    if (state.tensors.calibration !== undefined) {
      const queries = requireTensor(state.tensors, "calibration", Float32Array, "leml.restore");
      if (queries.length % m.config.rank !== 0) {
        throw new RangeError(
          `leml.restore: tensor calibration has length ${queries.length}, not a multiple of the rank ${m.config.rank}`,
        );
      }
      checkFinite(queries, "calibration", "leml.restore");
      m.calibration = adopt ? queries : queries.slice();
    }
    return m;
  }

  /** The parts of the model that make up its state (./state.ts). */
  #parts(): LemlStreamParts {
    return {
      config: this.config,
      limits: this.limits,
      step: this.step,
      rng: this.#rng,
      numFeatures: this.numFeatures,
      numLabels: this.numLabels,
      w: this.w,
      h: this.h,
      bias: this.bias,
      opt: this.#opt,
      reservoir: this.#reservoir,
      local: this.#local,
    };
  }
}
