/**
 * The gradients of a streaming LEML step ({@linkcode GradientScratch}): the latent rows
 * U = X_b W of a batch, then
 *
 * - the full mode's gradient ({@linkcode GradientScratch.full}): the Gram identity of the
 *   paper's Algorithm 2 for fully observed rows under the squared loss, explicit entries for
 *   masked rows and sampled negatives for the other losses, every label's H row;
 * - the local mode's gradient ({@linkcode GradientScratch.local}): the W rows of the batch's
 *   features exactly, the touched labels through ./local_step.ts;
 *
 * and the W rows' gradient shared by both. The buffers are scratch, not model state: they are
 * reused from step to step and grown when a batch needs more. See ./stream.ts for the
 * objective.
 *
 * @module
 */
import type { Batch, BinaryCsr, CsrMatrix } from "../../data/types.ts";
import type { SmallRng } from "../../random/mod.ts";
import { lossGrad } from "./loss.ts";
import { addGram, addMatVec, type GramCache } from "./gram_cache.ts";
import type { GrowableRows } from "./lowrank.ts";
import type { LabelPool } from "./label_pool.ts";
import type { LocalStep } from "./local_step.ts";
import type { LemlStreamConfig } from "./settings.ts";
import {
  curvatureBound,
  latentMoment,
  momentForm,
  StepCurvature,
  symmetricTop,
  unitRowsNeedCap,
} from "./step_cap.ts";
import { UNIT_NORM_SQ } from "../../optim/step_cap.ts";

/**
 * What the gradients read of the model: its sizes, factors and configuration (a `LemlStream`).
 *
 * @example
 * ```ts
 * import type { GradientModel } from "./gradients.ts";
 * function rankOf(m: GradientModel): number { return m.rank; }
 * console.log(typeof rankOf); // function
 * ```
 */
export interface GradientModel {
  /** Rank k. */
  readonly rank: number;
  /** Current feature-space size. */
  readonly numFeatures: number;
  /** Current label-space size. */
  readonly numLabels: number;
  /** W: numFeatures × k. */
  readonly w: GrowableRows;
  /** H: numLabels × k. */
  readonly h: GrowableRows;
  /** Per-label bias. */
  readonly bias: GrowableRows;
  /** The resolved settings. */
  readonly config: Readonly<LemlStreamConfig>;
}

/**
 * What the local mode's gradient reads of the local state (see ./local_mode.ts).
 *
 * @example
 * ```ts
 * import type { LocalGradientState } from "./gradients.ts";
 * function poolOf(s: LocalGradientState) { return s.pool; }
 * console.log(typeof poolOf); // function
 * ```
 */
export interface LocalGradientState {
  /** The local step (its scratch receives the touched labels' gradients). */
  readonly step: LocalStep;
  /** The cached HᵀH and Hᵀb. */
  readonly gram: GramCache;
  /** Recent label occurrences, for sampling negatives by frequency. */
  readonly pool: LabelPool;
  /** Step at which each label was last touched. */
  readonly lastTouch: Int32Array;
}

/**
 * The scratch buffers of the gradient computations and the computations themselves. After
 * {@linkcode GradientScratch.full} or {@linkcode GradientScratch.local}, the W rows' gradients
 * are in `gW` (slot q: feature `wRows[q]`, `wSlot[j]` is the slot of feature j), and in the
 * full mode the H rows' and biases' gradients in `gH` and `gb` (slot q: label `hRows[q]`); the
 * caller applies them and resets the slots it used to -1.
 *
 * @example
 * ```ts
 * import { GradientScratch } from "./gradients.ts";
 * import { LemlStream } from "./stream.ts";
 * import { SmallRng } from "../../random/mod.ts";
 * const m = new LemlStream({ rank: 2, numFeatures: 2, numLabels: 2 });
 * const sc = new GradientScratch(2);
 * const [nw, nh] = sc.full(m, {
 *   x: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) },
 * }, 0, new SmallRng(1));
 * console.log(nw, nh, sc.wRows[0]); // 1 2 0
 * ```
 */
export class GradientScratch {
  /** Latent rows U = X_b W of the batch (n × k). */
  U = new Float64Array(0);
  /** ∂/∂U (n × k). */
  gU = new Float64Array(0);
  /** Each row's scale (1, or 1/‖x_i‖ with `l2Normalize`). */
  rowScale = new Float64Array(0);
  /** Each row's squared norm as learned (‖x_i‖², times rowScale² with `l2Normalize`). */
  rowNormSq = new Float64Array(0);
  /** The step-size cap's explicit entries (./step_cap.ts; only while capping): their rows. */
  capER = new Int32Array(0);
  /** Their labels. */
  capEL = new Int32Array(0);
  /** Their weights w. */
  capEW = new Float64Array(0);
  /** 1 for a sampled negative. */
  capES = new Uint8Array(0);
  /** [u_i; 1]·[g_l; g_b] of the H step at each entry (set before #finishCap). */
  capEA = new Float64Array(0);
  /** 1 where a row's u curvature also has the Gram term HᵀH (only while capping). */
  rowGram = new Uint8Array(0);
  /** The step-size cap's x_iᵀ gW (k). */
  capT: Float64Array;
  /** The step-size cap's Σ [u_i; 1][u_i; 1]ᵀ ((k + 1)²), of the Gram rows. */
  capM: Float64Array;
  /** The same of the masked rows (local mode) or of the sampled rows. */
  capM2: Float64Array;
  /** The step-size cap's power-iteration vectors (k + 1; ./step_cap.ts symmetricTop). */
  eigV: Float64Array;
  /** {@linkcode GradientScratch.eigV}'s partner. */
  eigW: Float64Array;
  /** The curvature bounds of the last step, for the SGD step-size cap (./step_cap.ts). */
  readonly curv: StepCurvature = new StepCurvature();
  /** Slot of each feature in `wRows` (-1: none). */
  wSlot = new Int32Array(0);
  /** The features of the slots. */
  wRows = new Int32Array(0);
  /** W rows' gradients, by slot. */
  gW = new Float64Array(0);
  /** Slot of each label in `hRows` (-1: none; full mode). */
  hSlot = new Int32Array(0);
  /** The labels of the slots (full mode). */
  hRows = new Int32Array(0);
  /** H rows' gradients, by slot (full mode). */
  gH = new Float64Array(0);
  /** Biases' gradients, by slot (full mode). */
  gb = new Float64Array(0);
  /** Σ u_i u_iᵀ of the batch's fully observed rows (k × k). */
  G: Float64Array;
  /** HᵀH (k × k). */
  HtH: Float64Array;
  /** Hᵀb. */
  Htb: Float64Array;
  /** Σ u_i. */
  s: Float64Array;
  /** Marks of a row's positive labels (negative sampling). */
  mark = new Uint8Array(0);
  /** The fully observed rows of the batch. */
  fullRows = new Int32Array(0);
  /** Column pointers of the W gradient's entries. */
  colPtr = new Int32Array(0);
  /** Row offsets of the W gradient's entries. */
  entRow = new Int32Array(0);
  /** Values of the W gradient's entries. */
  entVal = new Float64Array(0);

  /** @param k the rank. */
  constructor(k: number) {
    this.G = new Float64Array(k * k);
    this.HtH = new Float64Array(k * k);
    this.Htb = new Float64Array(k);
    this.s = new Float64Array(k);
    this.capT = new Float64Array(k);
    this.capM = new Float64Array((k + 1) * (k + 1));
    this.capM2 = new Float64Array((k + 1) * (k + 1));
    this.eigV = new Float64Array(k + 1);
    this.eigW = new Float64Array(k + 1);
  }

  /**
   * Scratch for n rows; `denseH`: also the per-label slots and gradient rows (full mode).
   *
   * @example
   * ```ts
   * import { GradientScratch } from "./gradients.ts";
   * import { LemlStream } from "./stream.ts";
   * const sc = new GradientScratch(2);
   * sc.ensure(new LemlStream({ rank: 2, numFeatures: 3, numLabels: 2 }), 4);
   * console.log(sc.U.length >= 8, sc.wSlot.length >= 3, sc.hSlot.length >= 2); // true true true
   * ```
   */
  ensure(m: GradientModel, n: number, denseH = true): void {
    const k = m.rank, D = m.numFeatures, L = m.numLabels;
    if (this.U.length < n * k) {
      this.U = new Float64Array(n * k * 2);
      this.gU = new Float64Array(n * k * 2);
    }
    if (this.rowScale.length < n) {
      this.rowScale = new Float64Array(n * 2);
      this.rowNormSq = new Float64Array(n * 2);
      this.rowGram = new Uint8Array(n * 2);
      this.fullRows = new Int32Array(n * 2);
    }
    if (this.wSlot.length < D) {
      const cap = Math.max(D, this.wSlot.length * 2);
      this.wSlot = new Int32Array(cap).fill(-1);
      this.wRows = new Int32Array(cap);
    }
    if (denseH && this.hSlot.length < L) {
      const cap = Math.max(L, this.hSlot.length * 2);
      this.hSlot = new Int32Array(cap).fill(-1);
      this.hRows = new Int32Array(cap);
      this.gb = new Float64Array(cap);
      this.mark = new Uint8Array(cap);
    }
    if (denseH && this.gH.length < L * k) {
      this.gH = new Float64Array(Math.max(L * k, this.gH.length * 2));
    }
  }

  /**
   * Slots of the batch's features in `wRows`; returns their count.
   *
   * @example
   * ```ts
   * import { GradientScratch } from "./gradients.ts";
   * const sc = new GradientScratch(1);
   * sc.wSlot = new Int32Array(4).fill(-1);
   * sc.wRows = new Int32Array(4);
   * const x = { numRows: 1, numCols: 4, indptr: Int32Array.of(0, 2), indices: Int32Array.of(3, 1), values: Float32Array.of(1, 1) };
   * console.log(sc.featureSlots(x), sc.wRows.subarray(0, 2)); // 2 Int32Array(2) [ 3, 1 ]
   * ```
   */
  featureSlots(x: CsrMatrix): number {
    const wSlot = this.wSlot, wRows = this.wRows;
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
  local(
    m: GradientModel,
    batch: Batch,
    haveU: number,
    rng: SmallRng,
    loc: LocalGradientState,
    step: number,
  ): [number, number] {
    const x = batch.x, n = x.numRows, k = m.rank, cfg = m.config;
    const U0 = this.U, scale0 = this.rowScale;
    this.ensure(m, n, false);
    if (this.U !== U0 || this.rowScale !== scale0) haveU = 0;
    this.latent(m, x, haveU, n);
    this.gU.fill(0, 0, n * k);
    const nh = loc.step.gradient({
      y: batch.y,
      observed: batch.observed,
      fullyObserved: batch.fullyObserved,
      n,
      k,
      U: this.U,
      gU: this.gU,
      H: m.h.data,
      bias: m.bias.data,
      L: m.numLabels,
      gram: loc.gram,
      negatives: cfg.localNegatives!,
      pool: loc.pool,
      rng,
      lastTouch: loc.lastTouch,
      step,
      catchUp: cfg.catchUp!,
      lambda: cfg.lambda,
      useBias: cfg.bias,
    });
    const nw = this.featureSlots(x);
    this.wGradient(m, x, n, nw, 1 / n);
    if (this.#beginCap(m, n)) {
      // W: every row's u curvature is at most HᵀH (masked rows: a subset of the labels);
      // [h; b]: the catch-up weight times the Gram rows' moment, plus the masked rows' (each
      // label sees a subset of them)
      const obs = batch.observed, full = batch.fullyObserved, rows = this.fullRows;
      let nFull = 0, nMask = n;
      for (let i = 0; i < n; i++) {
        this.rowGram[i] = 1;
        if (!obs || (full !== undefined && full[i] === 1)) rows[nFull++] = i;
        else rows[--nMask] = i;
      }
      const U = this.U, M = this.capM, M2 = this.capM2, cw = loc.step.maxWeight;
      latentMoment(U, k, rows, 0, nFull, M);
      latentMoment(U, k, rows, nMask, n, M2);
      const gH = loc.step.gH, gb = loc.step.gb;
      let num = 0, den = 0;
      for (let q = 0; q < nh; q++) {
        num += cw * momentForm(M, k, gH, q * k, gb[q]) + momentForm(M2, k, gH, q * k, gb[q]);
        for (let c = 0; c < k; c++) den += gH[q * k + c] * gH[q * k + c];
        den += gb[q] * gb[q];
      }
      this.#finishCap(m, x, n, nw, loc.gram.gram, 0, num, den, cfg.lambda * cw);
    }
    return [nw, nh];
  }

  /**
   * Rows [from, to) of U = X W into `U` (each row scaled to unit L2 norm when configured; the
   * scale goes to `rowScale`, the squared norm as learned to `rowNormSq`: with SGD or
   * `l2Normalize`, else 0). Two features at a time: each U entry still
   * receives its terms one by one in feature order, so the sums are bit-identical to a plain
   * loop, with half the loads and stores of U.
   */
  latent(m: GradientModel, x: CsrMatrix, from: number, to: number): void {
    const k = m.rank, U = this.U, W = m.w.data, scale = this.rowScale, nsq = this.rowNormSq;
    const l2 = m.config.l2Normalize, ip = x.indptr, ix = x.indices, xv = x.values;
    // the squared norm: for l2Normalize, and for SGD's step-size cap (./step_cap.ts)
    const needSs = l2 || m.config.optimizer === "sgd";
    U.fill(0, from * k, to * k);
    for (let i = from; i < to; i++) {
      const p0 = ip[i], p1 = ip[i + 1];
      let ss = 0;
      if (needSs) { for (let p = p0; p < p1; p++) ss += xv[p] * xv[p]; }
      const f = l2 ? (ss > 0 ? 1 / Math.sqrt(ss) : 0) : 1;
      scale[i] = f;
      nsq[i] = l2 ? ss * f * f : ss;
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
  wGradient(m: GradientModel, x: CsrMatrix, n: number, nw: number, inv: number): void {
    const k = m.rank, W = m.w.data, gU = this.gU, scale = this.rowScale;
    const wSlot = this.wSlot, wRows = this.wRows, lam = m.config.lambda;
    const ip = x.indptr, ix = x.indices, xv = x.values, nnz = ip[n];
    if (this.gW.length < nw * k) {
      this.gW = new Float64Array(Math.max(nw * k, this.gW.length * 2));
    }
    if (this.colPtr.length < nw + 1) {
      this.colPtr = new Int32Array(Math.max(nw + 1, 2 * this.colPtr.length));
    }
    if (this.entRow.length < nnz) {
      this.entRow = new Int32Array(Math.max(nnz, 2 * this.entRow.length));
      this.entVal = new Float64Array(this.entRow.length);
    }
    const gW = this.gW, ptr = this.colPtr, er = this.entRow, ev = this.entVal;
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

  /**
   * The full mode's gradient of a batch (the batch mean, with λ on the touched rows): W rows in
   * `gW`, every label's H row and bias in `gH` and `gb`; returns the numbers of W and H slots.
   * `haveU`: the first rows whose latent rows are already in `U` (recomputed all the same when
   * the scratch had to grow). Sampled negatives draw from `rng`.
   */
  full(m: GradientModel, batch: Batch, haveU: number, rng: SmallRng): [number, number] {
    const { x, y } = batch;
    const observed: BinaryCsr | undefined = batch.observed;
    const full = batch.fullyObserved;
    const n = x.numRows, k = m.rank, L = m.numLabels;
    const cfg = m.config;
    const U0 = this.U, scale0 = this.rowScale;
    this.ensure(m, n);
    // rows computed before are lost if the scratch had to grow: compute every row then
    if (this.U !== U0 || this.rowScale !== scale0) haveU = 0;
    const U = this.U, gU = this.gU, H = m.h.data, b = m.bias.data;
    const useBias = cfg.bias;
    // U = X_b W (rows scaled to unit norm when configured); the first `haveU` rows are there
    this.latent(m, x, haveU, n);
    gU.fill(0, 0, n * k);
    // the SGD step-size cap's curvature (./step_cap.ts): for a batch with an over-unit row, or
    // any batch at rates above the default
    const cap = this.#beginCap(m, n);
    let ne = 0;
    const hSlot = this.hSlot, hRows = this.hRows, gH = this.gH, gb = this.gb;
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
    const fullRows = this.fullRows;
    if (cfg.loss === "squared") {
      for (let i = 0; i < n; i++) if (isFull(i)) fullRows[nFull++] = i;
    }
    if (nFull > 0) {
      const G = this.G, HtH = this.HtH, Htb = this.Htb, s = this.s;
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
      if (cap) {
        // every Gram row's u curvature is HᵀH; every label's [h; b] one the rows' moment
        for (let q = 0; q < nFull; q++) this.rowGram[fullRows[q]] = 1;
        latentMoment(U, k, fullRows, 0, nFull, this.capM);
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
    const squared = cfg.loss === "squared";
    const entry = (i: number, l: number, target: number, weight: number, sampled = false) => {
      const ub = i * k, hb = l * k;
      let z = b[l];
      for (let c = 0; c < k; c++) z += U[ub + c] * H[hb + c];
      const d = weight * lossGrad(cfg.loss, z, target);
      // the entry, for its curvature along the step (#finishCap): the squared loss's curvature
      // is 1 even at a zero residual (an inactive squared hinge entry's is 0)
      if (cap && (d !== 0 || squared)) {
        if (ne === this.capER.length) this.#growEntries();
        this.capER[ne] = i;
        this.capEL[ne] = l;
        this.capEW[ne] = weight;
        this.capES[ne++] = sampled ? 1 : 0;
      }
      if (d === 0) return;
      const sl = touchH(l), gb0 = sl * k;
      for (let c = 0; c < k; c++) {
        gU[ub + c] += d * H[hb + c];
        gH[gb0 + c] += d * U[ub + c];
      }
      gb[sl] += d;
    };
    const mark = this.mark;
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
        const draws = cfg.negatives, wgt = nneg / draws;
        for (let t = 0; t < draws; t++) {
          let l = rng.nextInt(L);
          // rejection: positives are few; give up after a few tries on dense rows
          for (let tries = 0; mark[l] === 1 && tries < 32; tries++) l = rng.nextInt(L);
          if (mark[l] === 1) continue;
          entry(i, l, 0, wgt, true);
        }
      }
      for (let p = y0; p < y1; p++) mark[y.indices[p]] = 0;
    }
    // ---- W gradient rows: gW_j = Σ_i x_ij gU_i / n + λ W_j ----
    const inv = 1 / n;
    const nw = this.featureSlots(x);
    this.wGradient(m, x, n, nw, inv);
    const lam = cfg.lambda;
    for (let q = 0; q < nh; q++) {
      const hb = hRows[q] * k, sb = q * k;
      for (let c = 0; c < k; c++) gH[sb + c] = gH[sb + c] * inv + lam * H[hb + c];
      gb[q] = useBias ? gb[q] * inv : 0;
    }
    if (cap) {
      // along the H step: the Gram rows' moment (every label), the explicit entries' terms
      let num = 0, den = 0;
      if (nFull > 0) {
        for (let q = 0; q < nh; q++) num += momentForm(this.capM, k, gH, q * k, gb[q]);
      }
      for (let q = 0; q < nh; q++) {
        den += gb[q] * gb[q];
        for (let c = 0; c < k; c++) den += gH[q * k + c] * gH[q * k + c];
      }
      // the sampled negatives' [h; b] curvature in expectation: every label is a negative of
      // about every sampled row, with weight 1 on average: c·λ_max((1/n) Σ [u_i; 1][u_i; 1]ᵀ)
      let ns = 0;
      if (cfg.loss !== "squared") {
        for (let i = 0; i < n; i++) if (isFull(i)) fullRows[ns++] = i;
      }
      let negH = 0;
      if (ns > 0) {
        const M2 = this.capM2, d = k + 1;
        latentMoment(U, k, fullRows, 0, ns, M2);
        // without a bias only h_l moves: the moment of u_i alone
        if (!useBias) { for (let a = 0; a < d; a++) M2[a * d + k] = M2[k * d + a] = 0; }
        negH = curvatureBound(cfg.loss) * symmetricTop(this.capM2, k + 1, this.eigV, this.eigW) / n;
      }
      // each entry's [u_i; 1]·[g_l; g_b] (its curvature along the step: #finishCap)
      const ER = this.capER, EL = this.capEL, EA = this.capEA;
      for (let e = 0; e < ne; e++) {
        const ub = ER[e] * k, sl = hSlot[EL[e]];
        // a label whose every entry had a zero residual takes no step: no [h; b] term
        if (sl < 0) {
          EA[e] = 0;
          continue;
        }
        let a = gb[sl];
        for (let c = 0; c < k; c++) a += U[ub + c] * gH[sl * k + c];
        EA[e] = a;
      }
      this.#finishCap(m, x, n, nw, this.HtH, ne, num, den, lam + negH);
    }
    return [nw, nh];
  }

  /**
   * Starts the SGD step-size cap's curvature of a batch of n rows (./step_cap.ts): active with
   * SGD when a row's squared norm as learned exceeds `UNIT_NORM_SQ` (raw rows: `l2Normalize`
   * scales them to 1), or on every batch when the rates need measuring on unit rows too
   * (`unitRowsNeedCap`); then every row's Gram flag (`rowGram`) starts at 0.
   */
  #beginCap(m: GradientModel, n: number): boolean {
    const cfg = m.config, curv = this.curv, nsq = this.rowNormSq;
    curv.active = false;
    if (cfg.optimizer !== "sgd") return false;
    let over = unitRowsNeedCap(cfg);
    for (let i = 0; i < n && !over; i++) over = nsq[i] > UNIT_NORM_SQ;
    if (!over) return false;
    this.rowGram.fill(0, 0, n);
    curv.active = true;
    return true;
  }

  /** Doubles the step-size cap's entry buffers. */
  #growEntries(): void {
    const cap = Math.max(256, 2 * this.capER.length);
    const grow = <T extends Int32Array | Float64Array | Uint8Array>(a: T, b: T): T => {
      b.set(a);
      return b;
    };
    this.capER = grow(this.capER, new Int32Array(cap));
    this.capEL = grow(this.capEL, new Int32Array(cap));
    this.capEW = grow(this.capEW, new Float64Array(cap));
    this.capES = grow(this.capES, new Uint8Array(cap));
    this.capEA = grow(this.capEA, new Float64Array(cap));
  }

  /**
   * The batch's Gauss-Newton curvatures along its step (./step_cap.ts): β_W = (1/n) Σ_i
   * t_iᵀ A_i t_i / ‖gW‖² + λ with t_i = x_iᵀ gW (over the `nw` W slots) and A_i = `gram` (when
   * `rowGram`) plus the row's explicit entries' (`ne` in all) c w h_l h_lᵀ; β_H = (`numH` + the
   * entries' c w ([u_i; 1]·g_l)², sampled negatives excepted)/(n·`denH`) + `lamH` (`numH`: the
   * moments' part; `lamH`: λ and the sampled negatives' expectation, from the caller).
   */
  #finishCap(
    m: GradientModel,
    x: CsrMatrix,
    n: number,
    nw: number,
    gram: Float64Array,
    ne: number,
    numH: number,
    denH: number,
    lamH: number,
  ): void {
    const k = m.rank, gW = this.gW, slot = this.wSlot, t = this.capT, H = m.h.data;
    const ip = x.indptr, ix = x.indices, xv = x.values, rg = this.rowGram, scale = this.rowScale;
    const ER = this.capER, EL = this.capEL, EW = this.capEW, ES = this.capES, EA = this.capEA;
    const cb = curvatureBound(m.config.loss);
    let den = 0, num = 0, e = 0, nh = numH;
    for (let q = 0; q < nw * k; q++) den += gW[q] * gW[q];
    for (let i = 0; i < n; i++) {
      t.fill(0);
      // the row as learned: scaled with l2Normalize (a scale of 1, bit for bit, on raw rows)
      const f = scale[i];
      for (let p = ip[i]; p < ip[i + 1]; p++) {
        const v = xv[p] * f, sb = slot[ix[p]] * k;
        for (let c = 0; c < k; c++) t[c] += v * gW[sb + c];
      }
      if (rg[i] === 1) {
        for (let a = 0; a < k; a++) {
          let ga = 0;
          for (let b = 0; b < k; b++) ga += gram[a * k + b] * t[b];
          num += t[a] * ga;
        }
      }
      for (; e < ne && ER[e] === i; e++) {
        const hb = EL[e] * k;
        let a = 0;
        for (let c = 0; c < k; c++) a += H[hb + c] * t[c];
        const cw = EW[e] * cb;
        num += cw * a * a;
        // a sampled negative's [h; b] term: its expectation, added by the caller
        if (ES[e] === 0) nh += cw * EA[e] * EA[e];
      }
    }
    const curv = this.curv;
    curv.betaW = (den > 0 ? num / (n * den) : 0) + m.config.lambda;
    curv.betaH = (denH > 0 ? nh / (n * denH) : 0) + lamH;
  }
}
