/**
 * Binary relevance (one-vs-all linear models) as a streaming estimator: Adam or SGD on the
 * L2-regularised squared hinge or logistic loss, with sparse (lazy) updates that touch only the
 * weight rows of the features present in a minibatch. Weights are kept feature-major in a dense
 * float32 block that grows with the feature and label spaces; the model file stores only the
 * non-zero weights (`linear-sparse`). With SGD, a batch with a row above unit norm (raw rows) has
 * each label's step measured along it and cut to the minimum along it where it would overshoot
 * (./step_cap.ts); so has a batch of unit rows when the rate could overshoot on them
 * (`unitRowsNeedCap`: not at the default rate, where they are stepped at the fixed rate).
 *
 * @module
 */
import { checkK, checkRow, scoresOut } from "../query_check.ts";
import { checkBatch } from "../../data/batch_check.ts";
import { spaceLimits, withoutLimits, withStoredLimits } from "../space_limits.ts";
import { learnOneVia } from "../learn_one.ts";
import type { Batch, SparseVector } from "../../data/types.ts";
import type { Estimator, ModelFileOptions, ModelState, TopK } from "../estimator.ts";
import { topKDense } from "../../../sdk/internal.ts";
import { type LabelWeights, toFeatureMajor } from "../label_weights.ts";
import { linearSparseFile } from "../linear_sparse_file.ts";
import { BR_SETTINGS, type BrSettings } from "./settings.ts";
import { checkFinite, checkStateKind, checkSums, requireTensor } from "../state_check.ts";
import { clipGradient, GRADIENT_LIMIT } from "../../optim/limits.ts";
import { checkRawValues, rawValueRefusal } from "../raw_value_limit.ts";
import { curvatureBound, LabelStepScratch, unitRowsNeedCap } from "./step_cap.ts";
import { stepScale, UNIT_NORM_SQ } from "../../optim/step_cap.ts";

/**
 * Hyper-parameters of the streaming BR estimator (all optional): the declared
 * {@linkcode BR_SETTINGS} but the initial sizes.
 *
 * @example
 * ```ts
 * import type { BrConfig } from "./estimator.ts";
 * const c: BrConfig = { loss: "logistic", optimizer: "sgd", learningRate: 0.1 };
 * console.log(c.loss); // "logistic"
 * ```
 */
export type BrConfig = Omit<BrSettings, "numFeatures" | "numLabels">;

interface ResolvedConfig {
  loss: "squared-hinge" | "logistic";
  optimizer: "adam" | "sgd";
  learningRate: number;
  lambda: number;
  bias: boolean;
  beta1: number;
  beta2: number;
  epsilon: number;
  l2Normalize: boolean;
  seed: number;
  maxFeatures: number;
  maxLabels: number;
}

function checkSize(what: string, n: unknown): number {
  const v = n ?? 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
    throw new RangeError(`br: ${what} must be a non-negative integer, got ${String(n)}`);
  }
  return v;
}

/**
 * The streaming binary-relevance estimator (kind "br").
 *
 * @example
 * ```ts
 * import { BrEstimator } from "./estimator.ts";
 * const m = new BrEstimator({ numFeatures: 4, numLabels: 2 });
 * const a = { indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const b = { indices: Int32Array.of(2, 3), values: Float32Array.of(1, 1) };
 * for (let i = 0; i < 30; i++) { m.learnOne(a, [0]); m.learnOne(b, [1]); }
 * console.log(m.predictTopK(a, 1).labels[0], m.predictTopK(b, 1).labels[0]); // 0 1
 * ```
 */
export class BrEstimator implements Estimator {
  readonly kind = "br";
  #cfg: ResolvedConfig;
  #d = 0;
  #l = 0;
  #dCap = 0;
  #lCap = 0;
  #w: Float32Array = new Float32Array(0);
  #b: Float32Array = new Float32Array(0);
  #mw: Float32Array = new Float32Array(0);
  #vw: Float32Array = new Float32Array(0);
  #mb: Float32Array = new Float32Array(0);
  #vb: Float32Array = new Float32Array(0);
  #step = 0;
  // scratch (not model state)
  #grad: Float64Array = new Float64Array(0);
  #gb: Float64Array = new Float64Array(0);
  #scores: Float64Array = new Float64Array(0);
  #deriv: Float64Array = new Float64Array(0);
  #mark: Int8Array = new Int8Array(0);
  #touched: Uint8Array = new Uint8Array(0);
  #cap: LabelStepScratch = new LabelStepScratch();
  // SGD whose rate could overshoot on unit rows: every batch is measured (./step_cap.ts)
  #unitCap: boolean;

  /** A new (all-zero) model with the given initial sizes and configuration. */
  constructor(options: BrConfig & { numFeatures?: number; numLabels?: number } = {}) {
    const { numFeatures, numLabels, ...cfg } = BR_SETTINGS.resolve(options);
    this.#cfg = cfg as ResolvedConfig;
    const c = this.#cfg;
    this.#unitCap = c.optimizer === "sgd" &&
      unitRowsNeedCap(c.learningRate, c.loss, c.bias, c.lambda);
    spaceLimits("br", { ...this.#cfg, numFeatures, numLabels });
    this.#grow(numFeatures!, numLabels!);
  }

  /** Current feature-space size. */
  get numFeatures(): number {
    return this.#d;
  }

  /** Current label-space size. */
  get numLabels(): number {
    return this.#l;
  }

  /** The resolved configuration (a copy). */
  get config(): Required<BrConfig> {
    return { ...this.#cfg };
  }

  #grow(d: number, l: number): void {
    if (d <= this.#dCap && l <= this.#lCap) {
      this.#d = Math.max(this.#d, d);
      this.#l = Math.max(this.#l, l);
      return;
    }
    const nd = Math.max(this.#d, d), nl = Math.max(this.#l, l);
    const dCap = nd <= this.#dCap ? this.#dCap : Math.max(nd, Math.ceil(this.#dCap * 1.5));
    const lCap = nl <= this.#lCap ? this.#lCap : Math.max(nl, Math.ceil(this.#lCap * 1.5));
    const adam = this.#cfg.optimizer === "adam";
    const move = (src: Float32Array): Float32Array => {
      const dst = new Float32Array(dCap * lCap);
      for (let j = 0; j < this.#d; j++) {
        dst.set(src.subarray(j * this.#lCap, j * this.#lCap + this.#l), j * lCap);
      }
      return dst;
    };
    const moveVec = (src: Float32Array): Float32Array => {
      const dst = new Float32Array(lCap);
      dst.set(src.subarray(0, this.#l));
      return dst;
    };
    // everything is allocated before anything is put in place: a size that cannot be
    // allocated is an error naming it, the model unchanged
    let arrays;
    try {
      arrays = {
        w: move(this.#w),
        b: moveVec(this.#b),
        mw: adam ? move(this.#mw) : this.#mw,
        vw: adam ? move(this.#vw) : this.#vw,
        mb: adam ? moveVec(this.#mb) : this.#mb,
        vb: adam ? moveVec(this.#vb) : this.#vb,
        grad: new Float64Array(dCap * lCap),
      };
    } catch (e) {
      throw new RangeError(
        `br: cannot allocate the dense weights of ${nd} features × ${nl} labels (${dCap} × ${lCap} per array): ${
          (e as Error).message
        }`,
      );
    }
    this.#w = arrays.w;
    this.#b = arrays.b;
    this.#mw = arrays.mw;
    this.#vw = arrays.vw;
    this.#mb = arrays.mb;
    this.#vb = arrays.vb;
    this.#grad = arrays.grad;
    this.#gb = new Float64Array(lCap);
    this.#scores = new Float64Array(lCap);
    this.#deriv = new Float64Array(lCap);
    this.#mark = new Int8Array(lCap);
    this.#touched = new Uint8Array(dCap);
    this.#dCap = dCap;
    this.#lCap = lCap;
    this.#d = nd;
    this.#l = nl;
  }

  /** Scores into the float64 scratch (length ≥ numLabels). */
  /** Row scale: 1, or 1/‖x‖ over the model's features when rows are L2-normalised. */
  #rowScale(indices: Int32Array, values: Float32Array, from: number, to: number): number {
    if (!this.#cfg.l2Normalize) return 1;
    let ss = 0;
    const d = this.#d;
    for (let p = from; p < to; p++) {
      const j = indices[p];
      if (j >= 0 && j < d) ss += values[p] * values[p];
    }
    return ss > 0 ? 1 / Math.sqrt(ss) : 0;
  }

  #score(indices: Int32Array, values: Float32Array, from: number, to: number): Float64Array {
    const s = this.#scores, w = this.#w, L = this.#l, stride = this.#lCap, d = this.#d;
    const f = this.#rowScale(indices, values, from, to);
    if (this.#cfg.bias) { for (let l = 0; l < L; l++) s[l] = this.#b[l]; }
    else s.fill(0, 0, L);
    for (let p = from; p < to; p++) {
      const j = indices[p];
      if (j < 0 || j >= d) continue;
      const v = values[p] * f;
      const row = j * stride;
      for (let l = 0; l < L; l++) s[l] += v * w[row + l];
    }
    return s;
  }

  /** What limits raw values ("SGD" without `l2Normalize`), or undefined: see learnMany. */
  #valueLimit(): string | undefined {
    return !this.#cfg.l2Normalize && this.#cfg.optimizer === "sgd" ? "SGD" : undefined;
  }

  /**
   * Why {@linkcode BrEstimator.learnMany} would refuse a row with features `x`, or undefined:
   * with SGD and without `l2Normalize`, a raw value past 1e15 (`RAW_VALUE_LIMIT` of
   * ../raw_value_limit.ts). Reads `x` only; the service asks before it accepts an event.
   *
   * @example
   * ```ts
   * import { BrEstimator } from "./estimator.ts";
   * const x = { indices: Int32Array.of(4), values: Float32Array.of(1e30) };
   * const sgd = new BrEstimator({ optimizer: "sgd", l2Normalize: false });
   * console.log(sgd.learnRefusal(x)?.slice(0, 34), new BrEstimator().learnRefusal(x)); // feature 4 has value 1e+30, above undefined
   * ```
   */
  learnRefusal(x: SparseVector): string | undefined {
    return rawValueRefusal(x, this.#valueLimit());
  }

  /** Learns from a minibatch (grows to the batch's feature and label spaces). */
  learnMany(batch: Batch): void {
    const [maxF, maxL] = checkBatch(batch, "br.learnMany", this.#cfg);
    const { x } = batch;
    // SGD on raw values: weights grow by lr·value a step and scores by lr·value², past float32
    // from about 1e19 (../../optim/limits.ts); Adam's steps stay near lr and need no limit
    checkRawValues(batch, "br.learnMany", this.#valueLimit());
    this.#grow(maxF, maxL);
    const n = x.numRows;
    if (n === 0) return;
    const L = this.#l, stride = this.#lCap;
    const grad = this.#grad, gb = this.#gb, deriv = this.#deriv, mark = this.#mark;
    const touched = this.#touched;
    const touchedList: number[] = [];
    const logistic = this.#cfg.loss === "logistic";
    gb.fill(0, 0, L);
    const inv = 1 / n;
    // a bound on every gradient element of the batch, Σ_i max(1, max|x_i·f_i|) · max_l |deriv_il|
    // (see #clipGradients)
    let bound = 0;
    let xxMax = 0; // the largest squared row norm (after l2Normalize's scaling)
    for (let i = 0; i < n; i++) {
      const xs = x.indptr[i], xe = x.indptr[i + 1];
      const s = this.#score(x.indices, x.values, xs, xe);
      const partial = this.#markRow(batch, i);
      let dMax = 0;
      for (let l = 0; l < L; l++) {
        const m = mark[l];
        if (partial && m === 0) {
          deriv[l] = 0;
          continue;
        }
        const yl = m === 1 ? 1 : -1;
        const z = yl * s[l];
        let g: number;
        if (logistic) g = -yl / (1 + Math.exp(z));
        else g = z < 1 ? -2 * yl * (1 - z) : 0;
        g *= inv;
        deriv[l] = g;
        gb[l] += g;
        if (g > dMax) dMax = g;
        else if (-g > dMax) dMax = -g;
      }
      this.#unmarkRow(batch, i, partial);
      const f = this.#rowScale(x.indices, x.values, xs, xe);
      let xMax = 0, xx = 0;
      for (let p = xs; p < xe; p++) {
        const j = x.indices[p];
        const v = x.values[p] * f;
        xx += v * v;
        if (v > xMax) xMax = v;
        else if (-v > xMax) xMax = -v;
        if (touched[j] === 0) {
          touched[j] = 1;
          touchedList.push(j);
        }
        const row = j * stride;
        for (let l = 0; l < L; l++) grad[row + l] += v * deriv[l];
      }
      bound += (xMax > 1 ? xMax : 1) * dMax; // also bounds the bias gradients, Σ_i dMax_i
      if (xx > xxMax) xxMax = xx;
    }
    touchedList.sort((a, b) => a - b);
    if (!(bound <= GRADIENT_LIMIT / 2)) this.#clipGradients(touchedList);
    this.#step++;
    // SGD: a batch with a row above unit norm (raw rows), or any batch when the rate could
    // overshoot on unit rows, has each label's step measured and capped where it would
    // overshoot (./step_cap.ts); every other batch is stepped as before
    if (this.#unitCap || (this.#valueLimit() !== undefined && xxMax > UNIT_NORM_SQ)) {
      this.#capSteps(batch, touchedList);
      this.#applyCapped(touchedList);
    } else this.#apply(touchedList);
    for (const j of touchedList) touched[j] = 0;
  }

  /**
   * Marks row `i`'s labels in the scratch `mark`: 1 for a positive, -1 for an observed negative
   * of a partially observed row; returns whether the row is partially observed (then only its
   * marked entries contribute). With `observed`, a row is fully observed only where
   * `fullyObserved` says so (as in `Batch`, LEML and the replay reservoir): an empty mask row
   * without that flag observes nothing, not every label as a negative.
   */
  #markRow(batch: Batch, i: number): boolean {
    const y = batch.y, obs = batch.observed, full = batch.fullyObserved;
    const mark = this.#mark, L = this.#l;
    for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) mark[y.indices[p]] = 1;
    const partial = obs !== undefined && !(full !== undefined && full[i] === 1);
    if (partial) {
      for (let p = obs!.indptr[i]; p < obs!.indptr[i + 1]; p++) {
        const l = obs!.indices[p];
        if (l < L && mark[l] === 0) mark[l] = -1;
      }
    }
    return partial;
  }

  /** Clears what `#markRow` marked for row `i`. */
  #unmarkRow(batch: Batch, i: number, partial: boolean): void {
    const y = batch.y, obs = batch.observed, mark = this.#mark, L = this.#l;
    for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) mark[y.indices[p]] = 0;
    if (partial) {
      for (let p = obs!.indptr[i]; p < obs!.indptr[i + 1]; p++) {
        if (obs!.indices[p] < L) mark[obs!.indices[p]] = 0;
      }
    }
  }

  /**
   * Each label's SGD rate for this batch (into the cap scratch's `rate`), by the curvature of its
   * own batch loss along its step (./step_cap.ts): lr, or 1/β_l where lr·β_l > 2. Turns the touched
   * gradient rows into the step's weight part, ∂w + λw (what `#apply`
   * computes inline), so that x_iᵀ d_l costs what the gradient's own loop did; O(nnz·L +
   * touched·L), no allocation once the scratch has grown.
   */
  #capSteps(batch: Batch, rows: readonly number[]): void {
    const c = this.#cfg, L = this.#l, stride = this.#lCap, x = batch.x, n = x.numRows;
    const w = this.#w, grad = this.#grad, gb = this.#gb, mark = this.#mark, lam = c.lambda;
    const cap = this.#cap;
    cap.ensure(L);
    const along = cap.along, curv = cap.curv, norm = cap.norm, rate = cap.rate;
    curv.fill(0, 0, L);
    norm.fill(0, 0, L);
    for (const j of rows) {
      const row = j * stride;
      for (let l = 0; l < L; l++) {
        const q = row + l;
        const d = grad[q] + lam * w[q];
        grad[q] = d;
        norm[l] += d * d;
      }
    }
    for (let i = 0; i < n; i++) {
      if (c.bias) { for (let l = 0; l < L; l++) along[l] = gb[l]; }
      else along.fill(0, 0, L);
      const xs = x.indptr[i], xe = x.indptr[i + 1];
      // the row as learned: scaled with l2Normalize (a scale of 1, bit for bit, on raw rows)
      const f = this.#rowScale(x.indices, x.values, xs, xe);
      for (let p = xs; p < xe; p++) {
        const v = x.values[p] * f, row = x.indices[p] * stride;
        for (let l = 0; l < L; l++) along[l] += v * grad[row + l];
      }
      const partial = this.#markRow(batch, i);
      if (partial) {
        for (let l = 0; l < L; l++) if (mark[l] !== 0) curv[l] += along[l] * along[l];
      } else for (let l = 0; l < L; l++) curv[l] += along[l] * along[l];
      this.#unmarkRow(batch, i, partial);
    }
    const k = curvatureBound(c.loss) / n, lr = c.learningRate;
    for (let l = 0; l < L; l++) {
      const gg = norm[l] + (c.bias ? gb[l] * gb[l] : 0);
      rate[l] = lr * stepScale(lr, (k * curv[l] + lam * norm[l]) / gg);
    }
  }

  /**
   * The SGD step at each label's rate from `#capSteps` (whose gradient rows
   * already hold ∂w + λw); a label at the full rate moves exactly as in
   * `#apply`.
   */
  #applyCapped(rows: readonly number[]): void {
    const L = this.#l, stride = this.#lCap, w = this.#w, grad = this.#grad;
    const rate = this.#cap.rate;
    for (const j of rows) {
      const row = j * stride;
      for (let l = 0; l < L; l++) {
        const q = row + l;
        w[q] -= rate[l] * grad[q];
        grad[q] = 0;
      }
    }
    if (this.#cfg.bias) {
      const b = this.#b, gb = this.#gb;
      for (let l = 0; l < L; l++) b[l] -= rate[l] * gb[l];
    }
  }

  /**
   * Clips the batch's gradient elements (the touched rows and the biases) to ±GRADIENT_LIMIT
   * (../../optim/limits.ts), run only when the batch's bound on them passes half the limit: the
   * weights and Adam moments are float32, and raw values near 1e30 made the second moments
   * Infinity (the weights stopped learning) and, with SGD and the squared hinge, could make the
   * weights ±Infinity. The λw term is added afterwards: Adam moves a weight by about lr per step
   * and the SGD step lr·(g + λw) only shrinks it, so it stays far below the limit. Ordinary
   * batches never come near the bound: their steps are unchanged, bit for bit and in cost.
   */
  #clipGradients(rows: readonly number[]): void {
    const L = this.#l, stride = this.#lCap, grad = this.#grad, gb = this.#gb;
    for (const j of rows) {
      const row = j * stride;
      for (let l = 0; l < L; l++) grad[row + l] = clipGradient(grad[row + l]);
    }
    for (let l = 0; l < L; l++) gb[l] = clipGradient(gb[l]);
  }

  #apply(rows: readonly number[]): void {
    const c = this.#cfg, L = this.#l, stride = this.#lCap;
    const w = this.#w, grad = this.#grad, lam = c.lambda, lr = c.learningRate;
    if (c.optimizer === "adam") {
      const b1 = c.beta1, b2 = c.beta2, eps = c.epsilon;
      const c1 = 1 - Math.pow(b1, this.#step), c2 = 1 - Math.pow(b2, this.#step);
      const mw = this.#mw, vw = this.#vw;
      for (const j of rows) {
        const row = j * stride;
        for (let l = 0; l < L; l++) {
          const q = row + l;
          const g = grad[q] + lam * w[q];
          grad[q] = 0;
          const m = b1 * mw[q] + (1 - b1) * g;
          const v = b2 * vw[q] + (1 - b2) * g * g;
          mw[q] = m;
          vw[q] = v;
          // with epsilon 0, a weight whose gradients were all 0 takes no step (0/0 was NaN)
          const den = Math.sqrt(v / c2) + eps;
          if (den > 0) w[q] -= lr * (m / c1) / den;
        }
      }
      if (c.bias) {
        const mb = this.#mb, vb = this.#vb, b = this.#b, gb = this.#gb;
        for (let l = 0; l < L; l++) {
          const g = gb[l];
          const m = b1 * mb[l] + (1 - b1) * g;
          const v = b2 * vb[l] + (1 - b2) * g * g;
          mb[l] = m;
          vb[l] = v;
          const den = Math.sqrt(v / c2) + eps;
          if (den > 0) b[l] -= lr * (m / c1) / den;
        }
      }
    } else {
      for (const j of rows) {
        const row = j * stride;
        for (let l = 0; l < L; l++) {
          const q = row + l;
          w[q] -= lr * (grad[q] + lam * w[q]);
          grad[q] = 0;
        }
      }
      if (c.bias) { for (let l = 0; l < L; l++) this.#b[l] -= lr * this.#gb[l]; }
    }
  }

  /** Learns from one example; `y` lists the positive labels. */
  learnOne(x: SparseVector, y: ArrayLike<number>): void {
    learnOneVia(this, x, y, "br");
  }

  /** Scores of every label (features beyond the model are ignored). */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "br.predictScores");
    const L = this.#l;
    // the first L entries of a longer out (the rest were returned as label scores)
    const res = scoresOut(out, L, "br.predictScores");
    const s = this.#score(x.indices, x.values, 0, x.indices.length);
    for (let l = 0; l < L; l++) res[l] = s[l];
    return res;
  }

  /** The k best labels for `x` (ties: smaller label index first). */
  predictTopK(x: SparseVector, k: number): TopK {
    checkRow(x, "br.predictTopK");
    checkK(k, "br.predictTopK");
    const s = this.#score(x.indices, x.values, 0, x.indices.length);
    return topKDense(s.subarray(0, this.#l), k);
  }

  /** The non-zero weights as label-major sparse vectors, with the bias when learned. */
  toLabelWeights(): LabelWeights {
    const D = this.#d, L = this.#l, stride = this.#lCap, w = this.#w;
    const labelPtr = new Int32Array(L + 1);
    for (let j = 0; j < D; j++) {
      const row = j * stride;
      for (let l = 0; l < L; l++) if (w[row + l] !== 0) labelPtr[l + 1]++;
    }
    for (let l = 0; l < L; l++) labelPtr[l + 1] += labelPtr[l];
    const next = labelPtr.slice(0, L);
    const featIdx = new Int32Array(labelPtr[L]);
    const values = new Float32Array(labelPtr[L]);
    for (let j = 0; j < D; j++) {
      const row = j * stride;
      for (let l = 0; l < L; l++) {
        const v = w[row + l];
        if (v !== 0) {
          const q = next[l]++;
          featIdx[q] = j;
          values[q] = v;
        }
      }
    }
    return {
      numFeatures: D,
      numLabels: L,
      labelPtr,
      featIdx,
      values,
      bias: this.#cfg.bias ? this.#b.slice(0, L) : undefined,
    };
  }

  /**
   * A model holding the given weights (e.g. from the batch trainer or POP); it can keep
   * learning with `config`.
   */
  static fromLabelWeights(lw: LabelWeights, config: BrConfig = {}): BrEstimator {
    const m = new BrEstimator({
      ...config,
      bias: config.bias ?? lw.bias !== undefined,
      numFeatures: lw.numFeatures,
      numLabels: lw.numLabels,
    });
    const stride = m.#lCap;
    for (let l = 0; l < lw.numLabels; l++) {
      for (let p = lw.labelPtr[l]; p < lw.labelPtr[l + 1]; p++) {
        m.#w[lw.featIdx[p] * stride + l] = lw.values[p];
      }
    }
    if (lw.bias && m.#cfg.bias) m.#b.set(lw.bias);
    return m;
  }

  /** Inference-only `linear-sparse` model file of the non-zero weights. */
  toModelFile(options: ModelFileOptions = {}): Uint8Array {
    const w = this.toLabelWeights();
    return linearSparseFile(toFeatureMajor(w), w.numFeatures, w.numLabels, w.bias, options, {
      where: "br.toModelFile",
      meta: { trainer: "br", ...withoutLimits(this.#cfg), steps: this.#step },
      normalizes: this.#cfg.l2Normalize,
    });
  }

  #compact(src: Float32Array): Float32Array {
    const D = this.#d, L = this.#l, stride = this.#lCap;
    const out = new Float32Array(D * L);
    for (let j = 0; j < D; j++) out.set(src.subarray(j * stride, j * stride + L), j * L);
    return out;
  }

  /** Full training state (a snapshot: copies, never live views). */
  toState(): ModelState {
    const L = this.#l;
    const tensors: Record<string, Float32Array> = {
      w: this.#compact(this.#w),
      b: this.#b.slice(0, L),
    };
    if (this.#cfg.optimizer === "adam") {
      tensors.mw = this.#compact(this.#mw);
      tensors.vw = this.#compact(this.#vw);
      tensors.mb = this.#mb.slice(0, L);
      tensors.vb = this.#vb.slice(0, L);
    }
    return {
      kind: "br",
      config: { ...this.#cfg },
      scalars: { numFeatures: this.#d, numLabels: L, step: this.#step },
      tensors,
    };
  }

  /**
   * The state of a prediction replica: weights and biases only (fresh copies), no Adam moments
   * (`scalars.replica` is 1). Restored, it predicts exactly like this model and writes the same
   * model file; learning on from it starts Adam's moments afresh.
   *
   * @example
   * ```ts
   * import { BrEstimator } from "./estimator.ts";
   * const m = new BrEstimator({ numFeatures: 2, numLabels: 2 });
   * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
   * const r = BrEstimator.restore(m.toReplicaState());
   * console.log(Object.keys(m.toReplicaState().tensors), r.predictTopK({ indices: Int32Array.of(0), values: Float32Array.of(1) }, 1).labels[0]); // [ "w", "b" ] 1
   * ```
   */
  toReplicaState(): ModelState {
    const L = this.#l;
    return {
      kind: "br",
      config: { ...this.#cfg },
      scalars: { numFeatures: this.#d, numLabels: L, step: this.#step, replica: 1 },
      tensors: { w: this.#compact(this.#w), b: this.#b.slice(0, L) },
    };
  }

  /**
   * Rebuilds a model from {@linkcode BrEstimator.toState}, bit-for-bit (or from
   * {@linkcode BrEstimator.toReplicaState}: zero Adam moments). Every value is checked first:
   * a weight, bias or first moment that is not finite, or a second moment below 0 or NaN, is a
   * `RangeError` naming the field; a state of another kind, or a tensor missing or of another
   * array class, a `TypeError` (../state_check.ts).
   */
  static restore(state: ModelState): BrEstimator {
    checkStateKind(state, "br", "br.restore");
    const D = checkSize("state numFeatures", state.scalars.numFeatures);
    const L = checkSize("state numLabels", state.scalars.numLabels);
    const m = new BrEstimator({
      ...(withStoredLimits(state.config) as BrConfig),
      numFeatures: D,
      numLabels: L,
    });
    // every tensor is checked before any is taken: finite weights, biases and first moments,
    // second moments >= 0 (a NaN would be served, or spread by the next Adam step)
    const take = (name: string, len: number, sums = false): Float32Array => {
      const t = requireTensor(state.tensors, name, Float32Array, "br.restore", len);
      if (sums) checkSums(t, name, "br.restore");
      else checkFinite(t, name, "br.restore");
      return t;
    };
    const adam = m.#cfg.optimizer === "adam" && state.scalars.replica !== 1;
    const w = take("w", D * L), b = take("b", L);
    const moments = adam
      ? [take("mw", D * L), take("vw", D * L, true), take("mb", L), take("vb", L, true)]
      : [];
    const step = checkSize("state step", state.scalars.step);
    const fill = (dst: Float32Array, src: Float32Array) => {
      for (let j = 0; j < D; j++) dst.set(src.subarray(j * L, j * L + L), j * m.#lCap);
    };
    fill(m.#w, w);
    m.#b.set(b);
    if (adam) {
      fill(m.#mw, moments[0]);
      fill(m.#vw, moments[1]);
      m.#mb.set(moments[2]);
      m.#vb.set(moments[3]);
    }
    m.#step = step;
    return m;
  }
}
