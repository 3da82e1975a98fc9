/**
 * The optimiser of streaming LEML ({@linkcode LemlOptimizer}): lazy (row-sparse) Adam or SGD on
 * the W rows a step touches, the H rows and biases that received a gradient, with the learning
 * rate `lr` for W and `lrH` for H and the bias; the Adam moments grow with the model and are
 * part of its state.
 *
 * @module
 */
import { adamUpdateRows } from "../../optim/adam.ts";
import { sgdRate, sgdUpdateRows } from "../../optim/sgd.ts";
import { GrowableRows } from "./lowrank.ts";
import type { LemlStreamConfig } from "./settings.ts";
import type { StepCurvature } from "./step_cap.ts";

/**
 * One optimiser step's rows: the parameters, their gradients by slot and the rows of the slots.
 *
 * @example
 * ```ts
 * import type { RowUpdate } from "./optimizer.ts";
 * const u: RowUpdate = { param: new Float32Array(4), grad: new Float64Array(2), rows: Int32Array.of(1), count: 1 };
 * console.log(u.count); // 1
 * ```
 */
export interface RowUpdate {
  /** The parameter matrix (rows × width). */
  param: Float32Array;
  /** Gradient rows, by slot. */
  grad: Float64Array;
  /** The row of each slot. */
  rows: Int32Array;
  /** Number of slots. */
  count: number;
}

/**
 * Lazy Adam (default) or SGD for W, H and the bias of a streaming LEML model.
 *
 * @example
 * ```ts
 * import { LemlOptimizer } from "./optimizer.ts";
 * import { resolveLemlStreamOptions } from "./settings.ts";
 * const { config } = resolveLemlStreamOptions({ rank: 1, optimizer: "sgd", lr: 0.5 });
 * const opt = new LemlOptimizer(config);
 * const W = Float32Array.of(1, 1), none = { param: new Float32Array(0), grad: new Float64Array(0), rows: new Int32Array(0), count: 0 };
 * opt.update(1, { param: W, grad: Float64Array.of(2), rows: Int32Array.of(1), count: 1 }, none, none);
 * console.log(W); // Float32Array(2) [ 1, 0 ]
 * ```
 */
export class LemlOptimizer {
  /** Adam moments of W (empty with SGD). */
  readonly mW: GrowableRows;
  /** Adam second moments of W. */
  readonly vW: GrowableRows;
  /** Adam moments of H. */
  readonly mH: GrowableRows;
  /** Adam second moments of H. */
  readonly vH: GrowableRows;
  /** Adam moments of the bias. */
  readonly mb: GrowableRows;
  /** Adam second moments of the bias. */
  readonly vb: GrowableRows;
  readonly #config: Readonly<LemlStreamConfig>;

  /** @param config the model's settings (optimiser, learning rates, decay, bias). */
  constructor(config: Readonly<LemlStreamConfig>) {
    const k = config.rank;
    this.#config = config;
    this.mW = new GrowableRows(k, 0);
    this.vW = new GrowableRows(k, 0);
    this.mH = new GrowableRows(k, 0);
    this.vH = new GrowableRows(k, 0);
    this.mb = new GrowableRows(1, 0);
    this.vb = new GrowableRows(1, 0);
  }

  /** Whether the optimiser keeps moments (Adam). */
  get adam(): boolean {
    return this.#config.optimizer === "adam";
  }

  /**
   * Grows the moments of W to `numFeatures` rows (Adam only; never shrinks).
   *
   * @example
   * ```ts
   * import { LemlOptimizer } from "./optimizer.ts";
   * import { resolveLemlStreamOptions } from "./settings.ts";
   * const opt = new LemlOptimizer(resolveLemlStreamOptions({ rank: 2 }).config);
   * opt.growFeatures(3);
   * console.log(opt.mW.rows); // 3
   * ```
   */
  growFeatures(numFeatures: number): void {
    if (!this.adam) return;
    this.mW.resize(numFeatures);
    this.vW.resize(numFeatures);
  }

  /**
   * Grows the moments of H and the bias to `numLabels` rows (Adam only; never shrinks).
   *
   * @example
   * ```ts
   * import { LemlOptimizer } from "./optimizer.ts";
   * import { resolveLemlStreamOptions } from "./settings.ts";
   * const opt = new LemlOptimizer(resolveLemlStreamOptions({ rank: 2 }).config);
   * opt.growLabels(4);
   * console.log(opt.mH.rows, opt.vb.rows); // 4 4
   * ```
   */
  growLabels(numLabels: number): void {
    if (!this.adam) return;
    this.mH.resize(numLabels);
    this.vH.resize(numLabels);
    this.mb.resize(numLabels);
    this.vb.resize(numLabels);
  }

  /**
   * Step `t` (1-based) on the touched rows of W (`w`), H (`h`) and the bias (`b`, same rows as
   * `h`; left alone without a bias). With SGD, `cap` (the curvatures along the step,
   * ./step_cap.ts) cuts the W step and the H and bias step of a batch it measured (rows above
   * unit norm, or settings above the defaults: `unitRowsNeedCap`) to the minimum along each
   * when lr·β > 2 (a factor of exactly 1 otherwise).
   */
  update(t: number, w: RowUpdate, h: RowUpdate, b: RowUpdate, cap?: StepCurvature): void {
    const cfg = this.#config, k = cfg.rank, useBias = cfg.bias;
    if (cfg.optimizer === "adam") {
      const ow = { lr: cfg.lr }, oh = { lr: cfg.lrH };
      adamUpdateRows(w.param, this.mW.data, this.vW.data, w.grad, w.rows, w.count, k, t, ow);
      adamUpdateRows(h.param, this.mH.data, this.vH.data, h.grad, h.rows, h.count, k, t, oh);
      if (useBias) {
        adamUpdateRows(b.param, this.mb.data, this.vb.data, b.grad, b.rows, b.count, 1, t, oh);
      }
    } else {
      let lw = sgdRate(cfg.lr, cfg.lrDecay, t), lh = sgdRate(cfg.lrH, cfg.lrDecay, t);
      if (cap?.active) {
        // normalised-LMS style cap on raw rows: docs/deviations.md (LEML streaming)
        lw *= cap.scaleW(lw);
        lh *= cap.scaleH(lh);
      }
      sgdUpdateRows(w.param, w.grad, w.rows, w.count, k, lw);
      sgdUpdateRows(h.param, h.grad, h.rows, h.count, k, lh);
      if (useBias) sgdUpdateRows(b.param, b.grad, b.rows, b.count, 1, lh);
    }
  }
}
