/**
 * The gradient of one minibatch step of streaming LEML's local update mode (squared loss), whose
 * cost does not grow with the number of labels L:
 * O((nnz(X_b) + nnz(Y_b))·k + (b + |T|)·k²) for a batch of b rows touching the label set T.
 *
 * With U = X_b W (b×k), C = Σ_i u_i u_iᵀ and s = Σ_i u_i over the batch's fully observed rows:
 * - **u part, exact.** ∂/∂u_i of the full squared loss over all L labels is
 *   G u_i + Hᵀb − Σ_{l∈y_i} h_l, with G = HᵀH and Hᵀb from the {@linkcode GramCache} (kept up to
 *   date incrementally, not rebuilt per batch): the W gradient equals the full mode's.
 * - **H part, on the touched labels only.** T = the batch's positive labels (and the observed
 *   labels of masked rows) plus `negatives` labels per fully observed row drawn from a
 *   {@linkcode LabelPool} of recent positives (about by frequency; uniform over L while the pool
 *   is empty). A touched label l gets its exact batch gradient
 *   c_l·(C h_l + b_l s + b·λ h_l) − Σ_{i∋l} u_i (batch mean, plus the entries of masked rows),
 *   the rows of the other labels get none (they and their optimiser moments stay put). The
 *   catch-up weight c_l = min(t − t_l, `catchUp`), with t_l the step l was last touched, stands
 *   in for the all-row ("negative") gradient the label missed while untouched (the lazy
 *   regularisation trick): without it a label touched only when it is a positive would see its
 *   positives' pull at full strength but the other rows' push only in those steps, and its
 *   scores would inflate. At the first step (every c_l = 1), the touched rows' gradient equals
 *   the full mode's exactly.
 *
 * @module
 */
import type { BinaryCsr } from "../../data/types.ts";
import type { SmallRng } from "../../random/mod.ts";
import { addGram, addMatVec, type GramCache, mirrorUpper } from "./gram_cache.ts";
import type { LabelPool } from "./label_pool.ts";

/**
 * What one local step reads (the scratch U and gU of the caller, the model's factors).
 *
 * @example
 * ```ts
 * import type { LocalStepInput } from "./local_step.ts";
 * const pick = (i: LocalStepInput) => i.negatives;
 * console.log(typeof pick); // "function"
 * ```
 */
export interface LocalStepInput {
  /** Labels of the batch rows. */
  y: BinaryCsr;
  /** Observed-label mask of masked rows (as in a `Batch`). */
  observed?: BinaryCsr;
  /** 1 where a row of a masked batch is fully observed. */
  fullyObserved?: Uint8Array;
  /** Rows of the batch. */
  n: number;
  /** Rank k. */
  k: number;
  /** Latent rows U = X_b W (n×k). */
  U: Float64Array;
  /** Receives ∂/∂U (n×k; zero on entry). */
  gU: Float64Array;
  /** Label factors (L×k) and biases. */
  H: Float32Array;
  bias: Float32Array;
  /** Number of labels L. */
  L: number;
  /** The cached HᵀH and Hᵀb. */
  gram: GramCache;
  /** Sampled negatives per fully observed row. */
  negatives: number;
  /** Source of the sampled negatives. */
  pool: LabelPool;
  rng: SmallRng;
  /** Step at which each label was last touched (or created). */
  lastTouch: Int32Array;
  /** The step about to be taken (1-based). */
  step: number;
  /** Cap of the catch-up weight (1: none). */
  catchUp: number;
  /** λ. */
  lambda: number;
  /** Learn the bias (else its gradient is 0). */
  useBias: boolean;
}

/**
 * The local step's gradient and its scratch (sized by the batch and the touched labels, never
 * by L, except one slot index per label).
 *
 * @example
 * ```ts
 * import { LocalStep } from "./local_step.ts";
 * import { GramCache } from "./gram_cache.ts";
 * import { LabelPool } from "./label_pool.ts";
 * import { SmallRng } from "../../random/mod.ts";
 * const H = Float32Array.of(1, 0, 0, 1, 1, 1), bias = new Float32Array(3);
 * const gram = new GramCache(2);
 * gram.recompute(H, bias, 3);
 * const s = new LocalStep();
 * const nh = s.gradient({
 *   y: { numRows: 1, numCols: 3, indptr: Int32Array.of(0, 1), indices: Int32Array.of(2) },
 *   n: 1, k: 2, U: Float64Array.of(1, 0), gU: new Float64Array(2), H, bias, L: 3, gram,
 *   negatives: 0, pool: new LabelPool(4), rng: new SmallRng(0), lastTouch: new Int32Array(3),
 *   step: 1, catchUp: 1, lambda: 0, useBias: true,
 * });
 * console.log(nh, s.rows[0], [...s.gH.subarray(0, 2)]); // 1 2 [ 0, 1 ]
 * s.release(nh);
 * ```
 */
export class LocalStep {
  /** Touched label of each slot. */
  rows = new Int32Array(0);
  /** Gradient rows of the touched labels (slot order, k wide). */
  gH = new Float64Array(0);
  /** Bias gradient of the touched labels. */
  gb = new Float64Array(0);
  /** The largest catch-up weight of the last gradient's touched labels (1 when none). */
  maxWeight = 1;
  /** Slot of each label (−1: untouched); reset by {@linkcode release}. */
  #slot = new Int32Array(0);
  #C = new Float64Array(0);
  #s = new Float64Array(0);
  #fullRows = new Int32Array(0);
  #weight = new Float64Array(0);

  /** Grows the per-label slot index to `L` labels. */
  #ensure(L: number, k: number, n: number): void {
    if (this.#slot.length < L) {
      const next = new Int32Array(Math.max(L, 2 * this.#slot.length)).fill(-1);
      next.set(this.#slot);
      this.#slot = next;
    }
    if (this.#C.length !== k * k) {
      this.#C = new Float64Array(k * k);
      this.#s = new Float64Array(k);
    }
    if (this.#fullRows.length < n) this.#fullRows = new Int32Array(2 * n);
  }

  #touch(l: number, nh: number, k: number): number {
    if (this.#slot[l] >= 0) return nh;
    if (this.rows.length <= nh) {
      const cap = Math.max(64, 2 * this.rows.length);
      const rows = new Int32Array(cap), gH = new Float64Array(cap * k);
      const gb = new Float64Array(cap), w = new Float64Array(cap);
      rows.set(this.rows);
      gH.set(this.gH);
      gb.set(this.gb);
      w.set(this.#weight);
      this.rows = rows;
      this.gH = gH;
      this.gb = gb;
      this.#weight = w;
    }
    this.#slot[l] = nh;
    this.rows[nh] = l;
    this.gH.fill(0, nh * k, nh * k + k);
    this.gb[nh] = 0;
    return nh + 1;
  }

  /**
   * Slot of label `l` in the last gradient (−1: untouched).
   *
   * @example
   * ```ts
   * import { LocalStep } from "./local_step.ts";
   * console.log(new LocalStep().slotOf(3)); // -1
   * ```
   */
  slotOf(l: number): number {
    return l < this.#slot.length ? this.#slot[l] : -1;
  }

  /**
   * Writes ∂/∂U into `input.gU` and the touched labels' gradients (batch mean, with λ) into
   * `rows`, `gH`, `gb`; returns the number of touched labels. Call {@linkcode release} after
   * using them.
   */
  gradient(input: LocalStepInput): number {
    const { y, observed, fullyObserved: full, n, k, U, gU, H, bias, L } = input;
    this.#ensure(L, k, n);
    const slot = this.#slot, fullRows = this.#fullRows;
    const isFull = (i: number) => !observed || (full !== undefined && full[i] === 1);
    let nFull = 0;
    for (let i = 0; i < n; i++) if (isFull(i)) fullRows[nFull++] = i;
    // ---- the touched labels: positives, observed labels of masked rows, sampled negatives ----
    let nh = 0;
    for (let i = 0; i < n; i++) {
      for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) nh = this.#touch(y.indices[p], nh, k);
      if (!isFull(i)) {
        const o = observed!;
        for (let p = o.indptr[i]; p < o.indptr[i + 1]; p++) nh = this.#touch(o.indices[p], nh, k);
      }
    }
    if (L > 0) {
      for (let q = 0; q < nFull; q++) {
        for (let t = 0; t < input.negatives; t++) {
          let l = input.pool.sample(input.rng);
          if (l < 0 || l >= L) l = input.rng.nextInt(L);
          nh = this.#touch(l, nh, k);
        }
      }
    }
    const weight = this.#weight;
    let maxWeight = 1;
    for (let q = 0; q < nh; q++) {
      weight[q] = Math.min(Math.max(1, input.step - input.lastTouch[this.rows[q]]), input.catchUp);
      if (weight[q] > maxWeight) maxWeight = weight[q];
    }
    this.maxWeight = maxWeight;
    // ---- fully observed rows: C = Σ u uᵀ, s = Σ u; touched rows c_l(C h_l + b_l s) ----
    const gH = this.gH, gb = this.gb;
    if (nFull > 0) {
      const C = this.#C, s = this.#s;
      C.fill(0);
      s.fill(0);
      addGram(U, fullRows, nFull, k, undefined, C, s);
      mirrorUpper(C, k);
      for (let q = 0; q < nh; q++) {
        const l = this.rows[q], hb = l * k, bl = bias[l], w = weight[q], sb = q * k;
        addMatVec(C, k, H, hb, bl, s, gH, sb);
        let hs = 0;
        for (let a = 0; a < k; a++) hs += H[hb + a] * s[a];
        gb[q] += hs + nFull * bl;
        if (w !== 1) {
          for (let a = 0; a < k; a++) gH[sb + a] *= w;
          gb[q] *= w;
        }
      }
      // ∂/∂u_i = G u_i + Hᵀb − Σ_{l∈y_i} h_l; positives pull their rows
      for (let q = 0; q < nFull; q++) {
        const i = fullRows[q], ub = i * k;
        input.gram.addGradU(U, ub, gU, ub);
        for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) {
          const l = y.indices[p], hb = l * k, sl = slot[l] * k;
          for (let c = 0; c < k; c++) {
            gU[ub + c] -= H[hb + c];
            gH[sl + c] -= U[ub + c];
          }
          gb[slot[l]] -= 1;
        }
      }
    }
    // ---- masked rows: exactly their observed entries ----
    for (let i = 0; i < n; i++) {
      if (isFull(i)) continue;
      const o = observed!, ub = i * k;
      let p = y.indptr[i], r = o.indptr[i];
      const p1 = y.indptr[i + 1], r1 = o.indptr[i + 1];
      while (p < p1 || r < r1) {
        const ly = p < p1 ? y.indices[p] : Infinity, lo = r < r1 ? o.indices[r] : Infinity;
        let l: number, target: number;
        if (ly <= lo) {
          l = ly;
          target = 1;
          p++;
          if (ly === lo) r++;
        } else {
          l = lo;
          target = 0;
          r++;
        }
        const hb = l * k, sl = slot[l];
        let z = bias[l];
        for (let c = 0; c < k; c++) z += U[ub + c] * H[hb + c];
        const d = z - target;
        if (d === 0) continue;
        for (let c = 0; c < k; c++) {
          gU[ub + c] += d * H[hb + c];
          gH[sl * k + c] += d * U[ub + c];
        }
        gb[sl] += d;
      }
    }
    // ---- batch mean and λ (caught up like the all-row term) ----
    const inv = 1 / n, lam = input.lambda;
    for (let q = 0; q < nh; q++) {
      const hb = this.rows[q] * k, sb = q * k, wl = lam * weight[q];
      for (let c = 0; c < k; c++) gH[sb + c] = gH[sb + c] * inv + wl * H[hb + c];
      gb[q] = input.useBias ? gb[q] * inv : 0;
    }
    return nh;
  }

  /**
   * Clears the slot index of the `nh` touched labels (O(nh)).
   *
   * @example
   * ```ts
   * import { LocalStep } from "./local_step.ts";
   * new LocalStep().release(0);
   * console.log("ok"); // ok
   * ```
   */
  release(nh: number): void {
    for (let q = 0; q < nh; q++) this.#slot[this.rows[q]] = -1;
  }
}
