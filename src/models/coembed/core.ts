/**
 * The CoEmbed objective and its alternating Adam updates (objectives (4)/(7), Algorithm 1 and
 * updates (9) of the paper), vectorised over minibatches of rows.
 *
 * With X̂ = UVᵀ, S = PQᵀ, E = GHᵀ and a per-label bias b (an addition: it does not change any
 * ranking of a label's scores, it only calibrates the 0 threshold), the score of row i and label
 * j is z_ij = f(x̂_i)·Q P_jᵀ + G_i·H_j + b_j with f(x̂) = x̂ (ColEmbed-L) or φ(x̂) (ColEmbed-NL,
 * random Fourier features). The objective is
 *
 *   F = Σ_i [ ‖Ω_i ∘ (x_i − x̂_i)‖² + λ Σ_j Γ_ij log(1 + exp(−s_ij z_ij))
 *             + λ_X/2 ‖U_i‖² + λ_E/2 ‖G_i‖² ]
 *       + λ_X/2 ‖V‖² + λ_S/2 (‖P‖² + ‖Q‖²) + λ_E/2 ‖H‖²
 *
 * with s_ij = +1 for a positive entry (Γ = α) and −1 for an unlabeled one (Γ = 1 − α).
 * Per-row factors (U_i, G_i) are updated by Adam steps with the global factors fixed ("fold-in");
 * global factors (V, P, Q, H, b) by Adam steps on minibatch gradients with the rows fixed.
 *
 * Why one file of more than 500 lines: it is the one objective, and its gradient code shares the
 * class's scratch buffers and cached products (V's random-feature map, the classifier products)
 * across the row and global steps; splitting it would pass those around. The fit loops
 * (fit.ts, learner.ts), the predictor (predictor.ts) and the random features (../../linalg/rff.ts)
 * stand alone.
 *
 * @module
 */
import { cosSinInto, RandomFourierFeatures, seededNormals } from "../../linalg/rff.ts";
import { adamUpdate, adamUpdateRows } from "../../optim/adam.ts";
import { FLOAT32_MAX } from "../../optim/limits.ts"; // the model file's tensors are float32
import type { CoEmbedConfig } from "./config.ts";
import { type PredictorTensors, scoreOverflow, solveRidge } from "./predictor.ts";

/**
 * A block of B dense rows: values `x` `[B, D]`, observed-entry mask `[B, D]` (1 = observed) and
 * positive label flags `y` `[B, L]` (1 = positive, 0 = unlabeled).
 *
 * @example
 * ```ts
 * import type { RowBlock } from "./core.ts";
 * const b: RowBlock = { rows: 1, numFeatures: 2, numLabels: 1, x: Float64Array.of(1, 0),
 *   mask: Uint8Array.of(1, 0), y: Uint8Array.of(1) };
 * console.log(b.rows);
 * ```
 */
export interface RowBlock {
  rows: number;
  numFeatures: number;
  numLabels: number;
  x: Float64Array;
  mask: Uint8Array;
  y: Uint8Array;
}

/** Names of the global tensors, in a fixed order. */
export const GLOBAL_NAMES = ["V", "P", "Q", "H", "b"] as const;
/** One of {@linkcode GLOBAL_NAMES}. */
export type GlobalName = typeof GLOBAL_NAMES[number];

/**
 * Gradients of the global factors (same shapes as the factors).
 *
 * @example
 * ```ts
 * import type { GlobalGrads } from "./core.ts";
 * const g: GlobalGrads = { V: new Float64Array(0), P: new Float64Array(0), Q: new Float64Array(0),
 *   H: new Float64Array(0), b: new Float64Array(0) };
 * console.log(Object.keys(g).length); // 5
 * ```
 */
export type GlobalGrads = Record<GlobalName, Float64Array>;

const TAGS: Record<GlobalName, number> = { V: 101, P: 102, Q: 103, H: 104, b: 105 };

function grown(a: Float64Array, length: number): Float64Array<ArrayBuffer> {
  if (a.length >= length) return a as Float64Array<ArrayBuffer>;
  const b = new Float64Array(length);
  b.set(a);
  return b;
}

/**
 * Global state of a CoEmbed model: factors V `[D, kX]`, P `[L, kS]`, Q `[F, kS]`, H `[L, kE]`,
 * bias b `[L]`, their Adam moments, the RFF map (NL) and the step counter.
 *
 * @example
 * ```ts
 * import { CoEmbedCore } from "./core.ts";
 * import { resolveConfig } from "./config.ts";
 * const core = new CoEmbedCore(resolveConfig({ variant: "L" }), 4, 2);
 * console.log(core.numFeatures, core.numLabels, core.V.length); // 4 2 40
 * ```
 */
export class CoEmbedCore {
  readonly config: CoEmbedConfig;
  numFeatures = 0;
  numLabels = 0;
  /** Global Adam step counter. */
  step = 0;
  V = new Float64Array(0);
  P = new Float64Array(0);
  Q = new Float64Array(0);
  H = new Float64Array(0);
  b = new Float64Array(0);
  /** Adam first moments of the globals. */
  readonly m: GlobalGrads;
  /** Adam second moments of the globals. */
  readonly v: GlobalGrads;
  /** Random Fourier features (NL only). */
  readonly rff: RandomFourierFeatures | undefined;
  /** Cached Vᵀ W `[kX, K]` (NL), valid while `vwStale` is false. */
  private vw = new Float64Array(0);
  private vwStale = true;
  private predictorCache: PredictorTensors | undefined;
  // Work buffers, sized for (D, F, K, L).
  private xh = new Float64Array(0);
  private gx = new Float64Array(0);
  private h = new Float64Array(0);
  private gh = new Float64Array(0);
  private a = new Float64Array(0);
  private ga = new Float64Array(0);
  private tv: Float64Array;
  private gt: Float64Array;
  private gz = new Float64Array(0);
  private gau = new Float64Array(0);
  /** Per-row gradient outputs of {@linkcode rowPass}. */
  readonly rowGradU: Float64Array;
  /** Per-row gradient outputs of {@linkcode rowPass}. */
  readonly rowGradG: Float64Array;
  private grads: GlobalGrads;
  private rowIndex = new Int32Array(1);

  constructor(config: CoEmbedConfig, numFeatures: number, numLabels: number) {
    this.config = config;
    const empty = () => ({
      V: new Float64Array(0),
      P: new Float64Array(0),
      Q: new Float64Array(0),
      H: new Float64Array(0),
      b: new Float64Array(0),
    });
    this.m = empty();
    this.v = empty();
    this.grads = empty();
    this.rff = config.variant === "NL"
      ? new RandomFourierFeatures(0, config.numRff, config.gamma, config.seed)
      : undefined;
    this.tv = new Float64Array(config.rankS);
    this.gt = new Float64Array(config.rankS);
    this.rowGradU = new Float64Array(config.rankX);
    this.rowGradG = new Float64Array(config.rankE);
    this.grow(numFeatures, numLabels);
  }

  /** Width F of the classifier's input: D (L) or 2K (NL). */
  get classifierDim(): number {
    return this.rff ? this.rff.outputDim : this.numFeatures;
  }

  private initRows(name: GlobalName, arr: Float64Array, from: number, to: number, cols: number) {
    // Math.imul: exact low 32 bits; the float product rounded the tags away for a seed past
    // 2^53 / 31, so that V, P, Q and H started from the same normals
    const seed = (Math.imul(this.config.seed, 31) + TAGS[name]) | 0;
    for (let r = from; r < to; r++) {
      seededNormals(seed, r, arr, r * cols, cols);
      for (let i = r * cols; i < (r + 1) * cols; i++) arr[i] *= this.config.initScale;
    }
  }

  /**
   * Grows the feature and label spaces (new factor rows are seeded random; never shrinks). A
   * size that cannot be allocated is a RangeError naming it, the core as it was.
   */
  grow(numFeatures: number, numLabels: number): void {
    const D = Math.max(this.numFeatures, numFeatures), L = Math.max(this.numLabels, numLabels);
    const F1 = this.rff ? this.rff.outputDim : D;
    const kS = this.config.rankS;
    if (
      D === this.numFeatures && L === this.numLabels && this.Q.length === F1 * kS &&
      this.xh.length === D
    ) return;
    // every array is replaced, none written in place: on a failed allocation the old ones go back
    const fields = { ...this, m: { ...this.m }, v: { ...this.v }, grads: { ...this.grads } };
    const rff = this.rff && { W: this.rff.W, numInputs: this.rff.numInputs };
    try {
      this.#growArrays(D, L);
    } catch (e) {
      Object.assign(this, fields);
      if (this.rff && rff) Object.assign(this.rff, rff);
      throw new RangeError(
        `coembed: cannot grow the model to ${D} features and ${L} labels: ${(e as Error).message}`,
      );
    }
  }

  #growArrays(D: number, L: number): void {
    const { rankX: kX, rankS: kS, rankE: kE } = this.config;
    const D0 = this.numFeatures, L0 = this.numLabels;
    if (this.rff) this.rff.grow(D);
    this.numFeatures = D;
    this.numLabels = L;
    const F = this.classifierDim;
    const sizes: Record<GlobalName, [number, number, number]> = {
      V: [D0, D, kX],
      P: [L0, L, kS],
      Q: [this.Q.length / kS, F, kS],
      H: [L0, L, kE],
      b: [L0, L, 1],
    };
    for (const name of GLOBAL_NAMES) {
      const [from, to, cols] = sizes[name];
      const arr = grown(this[name], to * cols);
      if (name !== "b") this.initRows(name, arr, from, to, cols);
      this[name] = arr;
      this.m[name] = grown(this.m[name], to * cols);
      this.v[name] = grown(this.v[name], to * cols);
      this.grads[name] = new Float64Array(to * cols);
    }
    this.xh = new Float64Array(D);
    this.gx = new Float64Array(D);
    this.h = new Float64Array(F);
    this.gh = new Float64Array(F);
    this.gz = new Float64Array(L);
    if (this.rff) {
      const K = this.rff.numRff;
      this.a = new Float64Array(K);
      this.ga = new Float64Array(K);
      this.gau = new Float64Array(K * kX);
    }
    this.changed();
  }

  /**
   * Saves what learning changes in the core (the sizes, the globals and their Adam moments, the
   * step count, the random features' directions) and returns the function that puts all of it
   * back exactly: how a learner refuses a batch that diverged midway (./learner.ts). Costs a copy
   * of the globals and their moments, about one global Adam step's memory traffic; arrays that
   * growing replaces are kept by reference, not copied.
   *
   * @example
   * ```ts
   * import { CoEmbedCore } from "./core.ts";
   * import { resolveConfig } from "./config.ts";
   * const core = new CoEmbedCore(resolveConfig({ variant: "L" }), 2, 1);
   * const restore = core.save(), v0 = core.V[0];
   * core.V[0] = NaN;
   * core.grow(5, 3);
   * restore();
   * console.log(core.V[0] === v0, core.numFeatures, core.numLabels); // true 2 1
   * ```
   */
  save(): () => void {
    const fields = { ...this, m: { ...this.m }, v: { ...this.v }, grads: { ...this.grads } };
    const rff = this.rff && { W: this.rff.W, numInputs: this.rff.numInputs };
    const copies: [Float64Array, Float64Array][] = [];
    for (const name of GLOBAL_NAMES) {
      for (const a of [this[name], this.m[name], this.v[name]]) copies.push([a, a.slice()]);
    }
    // the predictor tensors of the saved globals (new arrays, never written in place): the
    // same object back, so that what was built on them (a label index) still holds
    const predictor = this.predictorCache;
    return () => {
      for (const [a, copy] of copies) a.set(copy);
      Object.assign(this, fields);
      if (this.rff && rff) Object.assign(this.rff, rff);
      this.changed();
      this.predictorCache = predictor;
    };
  }

  /**
   * The first global factor entry that the model file's float32 tensors cannot hold (not
   * finite, or beyond float32's largest value), as "V[3] = NaN"; undefined when there is none.
   * One pass over the globals.
   *
   * @example
   * ```ts
   * import { CoEmbedCore } from "./core.ts";
   * import { resolveConfig } from "./config.ts";
   * const core = new CoEmbedCore(resolveConfig({ variant: "L" }), 2, 1);
   * console.log(core.unstorableFactor()); // undefined
   * core.P[1] = 1e39;
   * console.log(core.unstorableFactor()); // P[1] = 1e+39
   * ```
   */
  unstorableFactor(): string | undefined {
    for (const name of GLOBAL_NAMES) {
      const a = this[name];
      for (let i = 0; i < a.length; i++) {
        // !(|x| <= max) is also true for NaN
        if (!(Math.abs(a[i]) <= FLOAT32_MAX)) return `${name}[${i}] = ${a[i]}`;
      }
    }
    return undefined;
  }

  /**
   * The first problem that makes the inductive predictor unable to answer every finite row
   * finitely, as {@linkcode unstorableFactor} does for the factors: a factor beyond float32, or
   * a label whose scores can reach beyond float32's largest value (./predictor.ts
   * `worstScore`, "label 3 can score ±1.2e+45"): factors each within float32 can still give
   * ±Infinity scores (a learningRate near 1e20 makes P, Q and V near 1e20). Undefined when there
   * is none. One pass over the globals.
   *
   * @example
   * ```ts
   * import { CoEmbedCore } from "./core.ts";
   * import { resolveConfig } from "./config.ts";
   * const core = new CoEmbedCore(resolveConfig({ variant: "L", rankS: 1 }), 2, 2);
   * console.log(core.unservableModel()); // undefined
   * core.P[1] = 1e20;
   * console.log(core.unservableModel()); // label 1 can score ±1.00e+50
   * ```
   */
  unservableModel(): string | undefined {
    return this.unstorableFactor() ?? this.overflowingScores();
  }

  /**
   * The score half of {@linkcode unservableModel} (./predictor.ts `scoreOverflow`): for factors
   * already known to be within float32.
   *
   * @example
   * ```ts
   * import { CoEmbedCore } from "./core.ts";
   * import { resolveConfig } from "./config.ts";
   * const core = new CoEmbedCore(resolveConfig({ variant: "L", rankS: 1 }), 2, 2);
   * core.P[0] = 1e10;
   * console.log(core.overflowingScores()); // label 0 can score ±1.00e+40
   * ```
   */
  overflowingScores(): string | undefined {
    const c = this.config;
    return scoreOverflow(c.variant, this.numLabels, c.rankS, this.P, this.Q, this.b);
  }

  /** Marks the globals as changed (invalidates caches). */
  changed(): void {
    this.vwStale = true;
    this.predictorCache = undefined;
  }

  private ensureVw(): void {
    if (!this.rff || !this.vwStale) return;
    const K = this.rff.numRff, kX = this.config.rankX, D = this.numFeatures;
    const W = this.rff.W, V = this.V;
    const vw = this.vw.length === kX * K ? this.vw : new Float64Array(kX * K);
    vw.fill(0);
    // vw[k, q] = Σ_d V[d, k] W[d, q], summed over d in increasing order (bit-identical to one
    // d at a time), eight rows of W per pass with the partial sum in a register: one load and
    // store of vw per eight terms instead of per term (bibtex, K = 700: 8.8 → 3.5 ms).
    let d = 0;
    for (; d + 8 <= D; d += 8) {
      const w0 = d * K;
      for (let k = 0; k < kX; k++) {
        const o = d * kX + k;
        const a0 = V[o], a1 = V[o + kX], a2 = V[o + 2 * kX], a3 = V[o + 3 * kX];
        const a4 = V[o + 4 * kX], a5 = V[o + 5 * kX], a6 = V[o + 6 * kX], a7 = V[o + 7 * kX];
        const base = k * K;
        for (let q = 0; q < K; q++) {
          const p = w0 + q;
          let acc = vw[base + q];
          acc += a0 * W[p];
          acc += a1 * W[p + K];
          acc += a2 * W[p + 2 * K];
          acc += a3 * W[p + 3 * K];
          acc += a4 * W[p + 4 * K];
          acc += a5 * W[p + 5 * K];
          acc += a6 * W[p + 6 * K];
          acc += a7 * W[p + 7 * K];
          vw[base + q] = acc;
        }
      }
    }
    for (; d < D; d++) {
      for (let k = 0; k < kX; k++) {
        const v = V[d * kX + k];
        const base = k * K, wb = d * K;
        for (let q = 0; q < K; q++) vw[base + q] += v * W[wb + q];
      }
    }
    this.vw = vw;
    this.vwStale = false;
  }

  /**
   * Initial U_i of a row by ridge regression on its observed entries (labels ignored):
   * U_i = argmin ‖Ω_i ∘ (x_i − U_i Vᵀ)‖² + λ_X‖U_i‖².
   */
  ridgeFoldIn(block: RowBlock, i: number, U: Float64Array, uo: number): void {
    this.#foldIn(block, i, U, uo, {});
  }

  /**
   * {@linkcode ridgeFoldIn} of several rows of a block (all of them by default), U_i written at
   * `i · rankX`. The normal equations' matrix λ_X I + Σ_d V_dᵀV_d over a row's observed
   * features is the same for every row observing all of them (absent = "zero": every row), so
   * it is summed once per call for those rows, in the same order: the result is bit-identical
   * to folding the rows in one by one, and such a row costs O(nnz·k + k³) instead of O(D·k²).
   */
  ridgeFoldInRows(block: RowBlock, U: Float64Array, rows?: ArrayLike<number>): void {
    const kX = this.config.rankX, shared: { full?: Float64Array } = {};
    const n = rows ? rows.length : block.rows;
    for (let t = 0; t < n; t++) {
      const i = rows ? rows[t] : t;
      this.#foldIn(block, i, U, i * kX, shared);
    }
  }

  /** One fold-in; `shared.full` caches the matrix of a row observing every feature. */
  #foldIn(
    block: RowBlock,
    i: number,
    U: Float64Array,
    uo: number,
    shared: { full?: Float64Array },
  ): void {
    const kX = this.config.rankX, V = this.V;
    const Dm = Math.min(this.numFeatures, block.numFeatures);
    const A = new Float64Array(kX * kX), r = new Float64Array(kX);
    const xo = i * block.numFeatures, mask = block.mask, x = block.x;
    let all = true;
    for (let d = 0; d < Dm; d++) {
      if (mask[xo + d] === 0) {
        all = false;
        break;
      }
    }
    if (all && shared.full !== undefined) {
      A.set(shared.full);
      // x_d = 0 would add ±0 to r: skipping it leaves every bit of r as it was
      for (let d = 0; d < Dm; d++) {
        const xd = x[xo + d];
        if (xd === 0) continue;
        const vb = d * kX;
        for (let k = 0; k < kX; k++) r[k] += V[vb + k] * xd;
      }
    } else {
      const lam = Math.max(this.config.lambdaX, 1e-8);
      for (let k = 0; k < kX; k++) A[k * kX + k] = lam;
      for (let d = 0; d < Dm; d++) {
        if (mask[xo + d] === 0) continue;
        const xd = x[xo + d], vb = d * kX;
        for (let k = 0; k < kX; k++) {
          r[k] += V[vb + k] * xd;
          for (let l = 0; l <= k; l++) A[k * kX + l] += V[vb + k] * V[vb + l];
        }
      }
      if (all) shared.full = A.slice();
    }
    for (let k = 0; k < kX; k++) for (let l = k + 1; l < kX; l++) A[k * kX + l] = A[l * kX + k];
    try {
      solveRidge(A, r, kX);
    } catch (e) {
      throw this.#foldInError(i, e);
    }
    U.set(r, uo);
  }

  /**
   * The error of a fold-in whose λ_X I + V_OᵀV_O did not factor even with the larger ridge of
   * `solveRidge` (./predictor.ts, which answers when λ_X alone is lost to rounding beside
   * enormous features): that only happens when V holds values that are not finite or whose
   * squares overflow (training diverged), which the error names with the settings to change.
   */
  #foldInError(row: number, cause: unknown): Error {
    let big = 0, bad = Number.NaN, badAt = -1;
    for (let e = 0; e < this.V.length; e++) {
      const v = this.V[e];
      if (!Number.isFinite(v) && badAt < 0) bad = v, badAt = e;
      else if (Math.abs(v) > big) big = Math.abs(v);
    }
    const what = badAt >= 0
      ? `V holds ${bad} (feature ${Math.floor(badAt / this.config.rankX)})`
      : `the largest |V| is ${big.toPrecision(3)}`;
    return new RangeError(
      `coembed: the fold-in of row ${row} failed, ${what}: the factors diverged or the ` +
        `features are too large for lambdaX = ${this.config.lambdaX}; lower learningRate ` +
        `(${this.config.learningRate}) or initScale (${this.config.initScale}), or scale the ` +
        `features (e.g. L2-normalise the rows)`,
      { cause },
    );
  }

  /**
   * Forward/backward pass of one row. Returns the row's share of the objective (data terms plus
   * λ_X/2‖U_i‖² + λ_E/2‖G_i‖²). With `rowGrads`, writes ∂/∂U_i and ∂/∂G_i into
   * {@linkcode rowGradU}/{@linkcode rowGradG}; with `globalWeight > 0`, accumulates
   * `globalWeight ×` the row's data gradient of the globals into the gradient buffers
   * (call {@linkcode finishGlobalGrads} after the last row).
   */
  rowPass(
    block: RowBlock,
    i: number,
    U: Float64Array,
    uo: number,
    G: Float64Array,
    go: number,
    rowGrads: boolean,
    globalWeight: number,
  ): number {
    const c = this.config, kX = c.rankX, kS = c.rankS, kE = c.rankE;
    const D = this.numFeatures, L = this.numLabels, F = this.classifierDim;
    const V = this.V, P = this.P, Q = this.Q, H = this.H, bias = this.b;
    const xh = this.xh, gx = this.gx, tv = this.tv, gt = this.gt, gz = this.gz, gh = this.gh;
    const BD = block.numFeatures, BL = block.numLabels;
    const xo = i * BD, yo = i * BL;
    const glob = globalWeight > 0;
    const gr = this.grads;
    let loss = 0;
    // x̂_i = U_i Vᵀ (four features at a time: independent sums, each over k in increasing
    // order as one at a time), then the reconstruction residual.
    let d0 = 0;
    for (; d0 + 4 <= D; d0 += 4) {
      const vb = d0 * kX;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let k = 0; k < kX; k++) {
        const u = U[uo + k];
        s0 += u * V[vb + k];
        s1 += u * V[vb + kX + k];
        s2 += u * V[vb + 2 * kX + k];
        s3 += u * V[vb + 3 * kX + k];
      }
      xh[d0] = s0;
      xh[d0 + 1] = s1;
      xh[d0 + 2] = s2;
      xh[d0 + 3] = s3;
    }
    for (; d0 < D; d0++) {
      let s = 0;
      const vb = d0 * kX;
      for (let k = 0; k < kX; k++) s += U[uo + k] * V[vb + k];
      xh[d0] = s;
    }
    for (let d = 0; d < D; d++) {
      const s = xh[d];
      if (d < BD && block.mask[xo + d] !== 0) {
        const r = s - block.x[xo + d];
        loss += r * r;
        gx[d] = 2 * r;
      } else {
        gx[d] = 0;
      }
    }
    // Classifier input h.
    let h: Float64Array;
    const rff = this.rff;
    if (rff) {
      this.ensureVw();
      const K = rff.numRff, vw = this.vw, a = this.a;
      a.fill(0);
      for (let k = 0; k < kX; k++) {
        const u = U[uo + k];
        const base = k * K;
        for (let q = 0; q < K; q++) a[q] += u * vw[base + q];
      }
      h = this.h;
      cosSinInto(a, K, h, rff.scale);
    } else {
      h = xh;
    }
    // t = h Q.
    tv.fill(0);
    for (let f = 0; f < F; f++) {
      const hf = h[f];
      if (hf === 0) continue;
      const qb = f * kS;
      for (let s = 0; s < kS; s++) tv[s] += hf * Q[qb + s];
    }
    // Scores, weighted logistic loss and ∂/∂z.
    const lam = c.lambda, alpha = c.alpha;
    gt.fill(0);
    const gG = this.rowGradG;
    if (rowGrads) gG.fill(0);
    for (let j = 0; j < L; j++) {
      const pb = j * kS, hb = j * kE;
      let z = bias[j];
      for (let s = 0; s < kS; s++) z += tv[s] * P[pb + s];
      for (let e = 0; e < kE; e++) z += G[go + e] * H[hb + e];
      const pos = j < BL && block.y[yo + j] !== 0;
      const sgn = pos ? 1 : -1, w = lam * (pos ? alpha : 1 - alpha);
      const m = -sgn * z; // loss term softplus(m)
      loss += w * (m > 0 ? m + Math.log1p(Math.exp(-m)) : Math.log1p(Math.exp(m)));
      const sig = m > 0 ? 1 / (1 + Math.exp(-m)) : Math.exp(m) / (1 + Math.exp(m));
      const g = -sgn * w * sig;
      gz[j] = g;
      if (g === 0) continue;
      for (let s = 0; s < kS; s++) gt[s] += g * P[pb + s];
      if (rowGrads) { for (let e = 0; e < kE; e++) gG[e] += g * H[hb + e]; }
      if (glob) {
        const gw = g * globalWeight;
        gr.b[j] += gw;
        for (let s = 0; s < kS; s++) gr.P[pb + s] += gw * tv[s];
        for (let e = 0; e < kE; e++) gr.H[hb + e] += gw * G[go + e];
      }
    }
    // gh = Q gt (four rows of Q at a time: independent sums, each over s in increasing order),
    // and ∂/∂Q.
    let f0 = 0;
    for (; f0 + 4 <= F; f0 += 4) {
      const qb = f0 * kS;
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (let s = 0; s < kS; s++) {
        const g = gt[s];
        a0 += Q[qb + s] * g;
        a1 += Q[qb + kS + s] * g;
        a2 += Q[qb + 2 * kS + s] * g;
        a3 += Q[qb + 3 * kS + s] * g;
      }
      gh[f0] = a0;
      gh[f0 + 1] = a1;
      gh[f0 + 2] = a2;
      gh[f0 + 3] = a3;
    }
    for (; f0 < F; f0++) {
      const qb = f0 * kS;
      let s2 = 0;
      for (let s = 0; s < kS; s++) s2 += Q[qb + s] * gt[s];
      gh[f0] = s2;
    }
    if (glob) {
      for (let f = 0; f < F; f++) {
        const hf = h[f] * globalWeight;
        if (hf === 0) continue;
        const qb = f * kS;
        for (let s = 0; s < kS; s++) gr.Q[qb + s] += hf * gt[s];
      }
    }
    const gU = this.rowGradU;
    if (rff) {
      const K = rff.numRff, ga = this.ga, vw = this.vw;
      const h2 = this.h;
      // ∂φ_cos/∂a = −sc·sin a = −h[K+q], ∂φ_sin/∂a = sc·cos a = h[q].
      for (let q = 0; q < K; q++) ga[q] = h2[q] * gh[K + q] - h2[K + q] * gh[q];
      if (rowGrads) {
        // gU[k] = ga · vw[k] (two k per pass: independent sums, each over q in order)
        let k = 0;
        for (; k + 2 <= kX; k += 2) {
          let s0 = 0, s1 = 0;
          const b0 = k * K;
          for (let q = 0; q < K; q++) {
            const g = ga[q];
            s0 += g * vw[b0 + q];
            s1 += g * vw[b0 + K + q];
          }
          gU[k] = s0;
          gU[k + 1] = s1;
        }
        for (; k < kX; k++) {
          let s = 0;
          const base = k * K;
          for (let q = 0; q < K; q++) s += ga[q] * vw[base + q];
          gU[k] = s;
        }
      }
      if (glob) {
        const gau = this.gau;
        for (let q = 0; q < K; q++) {
          const g = ga[q] * globalWeight;
          if (g === 0) continue;
          const base = q * kX;
          for (let k = 0; k < kX; k++) gau[base + k] += g * U[uo + k];
        }
      }
    } else {
      for (let d = 0; d < D; d++) gx[d] += gh[d];
      if (rowGrads) gU.fill(0);
    }
    // Reconstruction part (and the linear classifier part for L) of ∂/∂U_i and ∂/∂V.
    for (let d = 0; d < D; d++) {
      const g = gx[d];
      if (g === 0) continue;
      const vb = d * kX;
      if (rowGrads) { for (let k = 0; k < kX; k++) gU[k] += g * V[vb + k]; }
      if (glob) {
        const gw = g * globalWeight;
        for (let k = 0; k < kX; k++) gr.V[vb + k] += gw * U[uo + k];
      }
    }
    // Row regularisers.
    let ru = 0, rg = 0;
    for (let k = 0; k < kX; k++) ru += U[uo + k] * U[uo + k];
    for (let e = 0; e < kE; e++) rg += G[go + e] * G[go + e];
    loss += 0.5 * c.lambdaX * ru + 0.5 * c.lambdaE * rg;
    if (rowGrads) {
      for (let k = 0; k < kX; k++) gU[k] += c.lambdaX * U[uo + k];
      for (let e = 0; e < kE; e++) gG[e] += c.lambdaE * G[go + e];
    }
    return loss;
  }

  /** Zeroes the global gradient buffers. */
  startGlobalGrads(): GlobalGrads {
    for (const name of GLOBAL_NAMES) this.grads[name].fill(0);
    this.gau.fill(0);
    return this.grads;
  }

  /**
   * Completes the global gradients: folds the RFF accumulator into ∂/∂V and adds
   * `regWeight ×` the gradient of the global regularisers. Returns the regulariser value × weight.
   */
  finishGlobalGrads(regWeight: number): number {
    const c = this.config, gr = this.grads;
    if (this.rff) {
      // ∂V[d, k] += Σ_q W[d, q] gau[q, k], summed over q in increasing order straight onto
      // ∂V[d, k] (bit-identical to one term at a time), four (then two, then one) k at a time
      // with the sums in registers (bibtex, K = 700: 11.5 → 4.0 ms).
      const K = this.rff.numRff, kX = c.rankX, W = this.rff.W, gau = this.gau, gV = gr.V;
      for (let d = 0; d < this.numFeatures; d++) {
        const wb = d * K, vb = d * kX;
        let k = 0;
        for (; k + 4 <= kX; k += 4) {
          let a0 = gV[vb + k], a1 = gV[vb + k + 1], a2 = gV[vb + k + 2], a3 = gV[vb + k + 3];
          for (let q = 0; q < K; q++) {
            const w = W[wb + q], gb = q * kX + k;
            a0 += w * gau[gb];
            a1 += w * gau[gb + 1];
            a2 += w * gau[gb + 2];
            a3 += w * gau[gb + 3];
          }
          gV[vb + k] = a0;
          gV[vb + k + 1] = a1;
          gV[vb + k + 2] = a2;
          gV[vb + k + 3] = a3;
        }
        for (; k + 2 <= kX; k += 2) {
          let a0 = gV[vb + k], a1 = gV[vb + k + 1];
          for (let q = 0; q < K; q++) {
            const w = W[wb + q], gb = q * kX + k;
            a0 += w * gau[gb];
            a1 += w * gau[gb + 1];
          }
          gV[vb + k] = a0;
          gV[vb + k + 1] = a1;
        }
        for (; k < kX; k++) {
          let a0 = gV[vb + k];
          for (let q = 0; q < K; q++) a0 += W[wb + q] * gau[q * kX + k];
          gV[vb + k] = a0;
        }
      }
    }
    let reg = 0;
    const add = (name: GlobalName, lam: number) => {
      const p = this[name], g = gr[name];
      let s = 0;
      for (let i = 0; i < p.length; i++) {
        s += p[i] * p[i];
        g[i] += regWeight * lam * p[i];
      }
      reg += 0.5 * lam * s;
    };
    add("V", c.lambdaX);
    add("P", c.lambdaS);
    add("Q", c.lambdaS);
    add("H", c.lambdaE);
    return reg * regWeight;
  }

  /** Exact global regulariser value. */
  globalRegulariser(): number {
    const c = this.config;
    const sq = (a: Float64Array) => {
      let s = 0;
      for (let i = 0; i < a.length; i++) s += a[i] * a[i];
      return s;
    };
    return 0.5 * (c.lambdaX * sq(this.V) + c.lambdaS * (sq(this.P) + sq(this.Q)) +
      c.lambdaE * sq(this.H));
  }

  /**
   * One global Adam step on the rows of `block` with factors U `[B, kX]`, G `[B, kE]` fixed:
   * gradient = mean over the block rows + regulariser / `numRowsRef`.
   */
  globalStep(
    block: RowBlock,
    U: Float64Array,
    G: Float64Array,
    numRowsRef: number,
    rows?: ArrayLike<number>,
  ): void {
    const B = rows ? rows.length : block.rows;
    if (B === 0) return;
    const kX = this.config.rankX, kE = this.config.rankE;
    this.startGlobalGrads();
    for (let n = 0; n < B; n++) {
      const i = rows ? rows[n] : n;
      this.rowPass(block, i, U, i * kX, G, i * kE, false, 1 / B);
    }
    this.finishGlobalGrads(1 / Math.max(numRowsRef, B));
    this.step++;
    const lr = this.config.learningRate;
    for (const name of GLOBAL_NAMES) {
      adamUpdate(this[name], this.m[name], this.v[name], this.grads[name], this.step, { lr });
    }
    this.changed();
  }

  /**
   * `steps` Adam steps on every row's (U_i, G_i) of `block` (or of `rows`) with the globals
   * fixed. Moments `mU`, `vU`, `mG`, `vG` and step counts `tRow` are per row (same row offsets
   * as U and G).
   */
  rowSteps(
    block: RowBlock,
    U: Float64Array,
    G: Float64Array,
    mom: { mU: Float64Array; vU: Float64Array; mG: Float64Array; vG: Float64Array },
    tRow: Int32Array,
    steps: number,
    rows?: ArrayLike<number>,
  ): void {
    const kX = this.config.rankX, kE = this.config.rankE;
    const opt = { lr: this.config.rowLearningRate }, row = this.rowIndex;
    const B = rows ? rows.length : block.rows;
    for (let n = 0; n < B; n++) {
      const i = rows ? rows[n] : n;
      const uo = i * kX, go = i * kE;
      row[0] = i;
      for (let s = 0; s < steps; s++) {
        this.rowPass(block, i, U, uo, G, go, true, 0);
        const t = ++tRow[i];
        adamUpdateRows(U, mom.mU, mom.vU, this.rowGradU, row, 1, kX, t, opt);
        adamUpdateRows(G, mom.mG, mom.vG, this.rowGradG, row, 1, kE, t, opt);
      }
    }
  }

  /** Label scores of training row i from its factors (transductive), written into `out`. */
  rowScores(block: RowBlock, i: number, U: Float64Array, G: Float64Array, out: Float64Array) {
    const kX = this.config.rankX, kE = this.config.rankE;
    this.rowPass(block, i, U, i * kX, G, i * kE, false, 0);
    // rowPass leaves tv = h Q; recompute z.
    const L = this.numLabels, kS = this.config.rankS, P = this.P, H = this.H;
    for (let j = 0; j < L; j++) {
      let z = this.b[j];
      for (let s = 0; s < kS; s++) z += this.tv[s] * P[j * kS + s];
      for (let e = 0; e < kE; e++) z += G[i * kE + e] * H[j * kE + e];
      out[j] = z;
    }
    return out;
  }

  /** Float32 predictor tensors (cached until the globals change). */
  predictorTensors(): PredictorTensors {
    if (this.predictorCache) return this.predictorCache;
    const c = this.config;
    const t: PredictorTensors = {
      variant: c.variant,
      numFeatures: this.numFeatures,
      numLabels: this.numLabels,
      rankS: c.rankS,
      rankX: c.rankX,
      numRff: this.rff ? this.rff.numRff : 0,
      lambdaX: c.lambdaX,
      absent: c.absent,
      input: c.inductiveInput,
      Q: Float32Array.from(this.Q),
      P: Float32Array.from(this.P),
      bias: Float32Array.from(this.b),
      V: Float32Array.from(this.V),
    };
    if (this.rff) t.W = Float32Array.from(this.rff.W);
    this.predictorCache = t;
    return t;
  }
}
