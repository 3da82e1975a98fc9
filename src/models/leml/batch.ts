/**
 * Batch LEML by alternating minimisation (Yu et al. 2014, Section 3) of
 * Σ_{(i,l)∈Ω} ℓ(y_il, x_iᵀW h_l + b_l) + λ/2(‖W‖² + ‖H‖²)  (the bias b is not regularised):
 *
 * - **H step**: every label row [h_l; b_l] solved exactly from a (k+1)×(k+1) system: one shared
 *   Gram matrix for the squared loss with full labels (cost O(n·k² + nnz(Y)·k + L·k³)), a
 *   per-label Gram over its observed rows for missing labels (O(|Ω|·k²)), a few damped Newton
 *   steps on the same small systems for the logistic and squared hinge losses.
 * - **W step**: conjugate gradient on the Newton system with Hessian-vector products.
 *   Squared loss, full labels (Algorithm 2): the system XᵀX W (HᵀH) + λW = Xᵀ(YH − 1bᵀH) is
 *   rotated into the eigenbasis P of the k×k matrix HᵀH (W' = WP), where the Hessian-vector
 *   product is Xᵀ(X S)Λ + λS: O(nnz(X)·k) per CG iteration, never touching n×L.
 *   General loss or missing labels (Algorithm 1): gradient Xᵀ D + λW and Hessian-vector product
 *   Xᵀ A + λS with D, A accumulated over Ω only: O((nnz(X) + |Ω|)·k) per CG iteration; Newton
 *   steps with a backtracking line search for the non-quadratic losses.
 *
 * Departures from the paper (exact H rows instead of CG, damped Newton-CG instead of TRON, an
 * unregularised per-label bias, the full-label logistic / squared-hinge trainer in
 * `batch_losses.ts`), their reasons and measured effects: docs/deviations.md, "LEML".
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../../data/types.ts";
import { columnSquares } from "./rotated_w_step.ts";
import { defineSettings } from "../settings.ts";
import { checkTrainingSet } from "../training_check.ts";
import {
  LEML_BATCH_SETTINGS,
  LEML_BATCH_SOLVER_KEYS,
  type LemlBatchSolverSettings,
} from "./settings.ts";
import { hashUniform } from "../../random/mod.ts";
import { buildOmega, type Omega } from "./omega.ts";
import {
  type BatchProblem,
  hStepGeneral,
  hStepGram,
  objectiveOf,
  wStepGeneral,
  wStepGram,
} from "./batch_steps.ts";

/**
 * Options of {@linkcode trainLemlBatch}.
 *
 * @example
 * ```ts
 * import type { LemlBatchOptions } from "./batch.ts";
 * const o: LemlBatchOptions = { rank: 8, lambda: 1, iterations: 5 };
 * console.log(o.rank); // 8
 * ```
 */
export interface LemlBatchOptions extends LemlBatchSolverSettings {
  /** Rank k. */
  rank: number;
  /** Observed entries per row (positives are always observed); absent: all observed. */
  observed?: BinaryCsr;
  /** With `observed`: 1 where a row is fully observed. */
  fullyObserved?: Uint8Array;
  /** Warm start (sizes may be smaller than the data's: missing rows are initialised). */
  init?: { W: ArrayLike<number>; H: ArrayLike<number>; bias: ArrayLike<number> };
  /** Compute the objective after every iteration (costs one extra pass; default false). */
  trackObjective?: boolean;
  /** Called after every iteration. */
  onIteration?: (iteration: number, objective: number | undefined) => void;
}

/**
 * Learned factors: W (D×k), H (L×k), bias (L), row-major float64.
 *
 * @example
 * ```ts
 * import type { LemlFactors } from "./batch.ts";
 * function rankOf(f: LemlFactors): number { return f.rank; }
 * console.log(typeof rankOf); // "function"
 * ```
 */
export interface LemlFactors {
  rank: number;
  numFeatures: number;
  numLabels: number;
  W: Float64Array;
  H: Float64Array;
  bias: Float64Array;
  /** Objective after each iteration (when tracked). */
  objective: number[];
  /** CG iterations used in total. */
  cgIterations: number;
}

/** The keys of {@linkcode LemlBatchOptions} that are not declared settings. */
const OTHER_KEYS = ["observed", "fullyObserved", "init", "trackObjective", "onIteration"];

/**
 * The solver settings of {@linkcode trainLemlBatch}: those of the batch estimator
 * ({@linkcode LEML_BATCH_SETTINGS}) that the solver takes ({@linkcode LEML_BATCH_SOLVER_KEYS}),
 * with the same defaults and ranges.
 */
const TRAIN_SETTINGS = defineSettings<Record<string, unknown>>(
  "trainLemlBatch",
  Object.fromEntries(LEML_BATCH_SOLVER_KEYS.map((key) => [key, LEML_BATCH_SETTINGS.specs[key]])),
);

/**
 * Checks the options (unknown keys, ranges: {@linkcode TRAIN_SETTINGS}; strings are parsed) and
 * the training set; returns the options with the settings parsed.
 */
function checkedInputs(x: CsrMatrix, y: BinaryCsr, o: LemlBatchOptions): LemlBatchOptions {
  const given = o as unknown as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  for (const key of Object.keys(given)) {
    if (given[key] === undefined || OTHER_KEYS.includes(key)) continue;
    if (!TRAIN_SETTINGS.names.includes(key)) {
      throw new TypeError(
        `trainLemlBatch: unknown option "${key}" (known: ${
          [...TRAIN_SETTINGS.names, ...OTHER_KEYS].join(", ")
        })`,
      );
    }
    settings[key] = given[key];
  }
  if (settings.rank === undefined) {
    throw new RangeError(`trainLemlBatch: option rank is required (an integer in [1, 4096])`);
  }
  const parsed = { ...o, ...TRAIN_SETTINGS.parse(settings) } as LemlBatchOptions;
  if (o.trackObjective !== undefined && typeof o.trackObjective !== "boolean") {
    throw new TypeError(
      `trainLemlBatch: option trackObjective must be true or false, got ${o.trackObjective}`,
    );
  }
  if (o.onIteration !== undefined && typeof o.onIteration !== "function") {
    throw new TypeError(`trainLemlBatch: option onIteration must be a function`);
  }
  checkTrainingSet(x, y, "trainLemlBatch", {
    observed: o.observed,
    fullyObserved: o.fullyObserved,
  });
  return parsed;
}

/**
 * Trains LEML by alternating minimisation (see the module doc).
 *
 * @example
 * ```ts
 * import { trainLemlBatch } from "./batch.ts";
 * // two rows, two features, two labels: feature j ↔ label j
 * const f = trainLemlBatch(
 *   { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 *   { rank: 2, lambda: 0.01, bias: false },
 * );
 * const z00 = f.W[0] * f.H[0] + f.W[1] * f.H[1], z01 = f.W[0] * f.H[2] + f.W[1] * f.H[3];
 * console.log(z00 > 0.9, Math.abs(z01) < 0.1); // true true
 * ```
 */
export function trainLemlBatch(
  x: CsrMatrix,
  y: BinaryCsr,
  options: LemlBatchOptions,
): LemlFactors {
  options = checkedInputs(x, y, options);
  const prob = newProblem(x, y, options);
  initialFactors(prob, options);
  const gramPath = prob.omega === undefined;
  const iterations = options.iterations ?? 10;
  const objective: number[] = [];
  let cgTotal = 0;
  for (let it = 0; it < iterations; it++) {
    cgTotal += gramPath ? wStepGram(prob) : wStepGeneral(prob);
    if (gramPath) hStepGram(prob);
    else hStepGeneral(prob);
    const f = options.trackObjective ? objectiveOf(prob) : undefined;
    if (f !== undefined) objective.push(f);
    options.onIteration?.(it + 1, f);
  }
  const { k, D, L, W, H, bias } = prob;
  return { rank: k, numFeatures: D, numLabels: L, W, H, bias, objective, cgIterations: cgTotal };
}

/** The settings with their defaults, zero factors and the scratch of the steps. */
function newProblem(x: CsrMatrix, y: BinaryCsr, options: LemlBatchOptions): BatchProblem {
  const k = options.rank, n = x.numRows, D = x.numCols, L = y.numCols;
  const loss = options.loss ?? "squared";
  const useBias = options.bias ?? true;
  const gramPath = loss === "squared" && !options.observed;
  const omega: Omega | undefined = gramPath
    ? undefined
    : buildOmega(y, L, options.observed, options.fullyObserved);
  const k1 = useBias ? k + 1 : k;
  return {
    x,
    y,
    k,
    n,
    D,
    L,
    lambda: options.lambda ?? 1,
    loss,
    useBias,
    newtonSteps: options.newtonSteps ?? 2,
    cgOpts: {
      maxIterations: options.cgIterations ?? 30,
      tolerance: options.cgTolerance ?? 1e-4,
    },
    omega,
    W: new Float64Array(D * k),
    H: new Float64Array(L * k),
    bias: new Float64Array(L),
    U: new Float64Array(n * k),
    V: new Float64Array(n * k),
    k1,
    A: new Float64Array(k1 * k1),
    Lf: new Float64Array(k1 * k1),
    rhs: new Float64Array(k1),
    theta: new Float64Array(k1),
    // squared column norms of X (Jacobi preconditioner of the W step)
    colSq: columnSquares(x),
    curv: omega ? new Float64Array(omega.label.length) : new Float64Array(0),
  };
}

/**
 * The initial factors: the warm start's rows where given; H rows from a seeded hash, the bias
 * from the observed label frequency (squared loss with a bias) for the rest; W rows zero.
 */
function initialFactors(prob: BatchProblem, options: LemlBatchOptions): void {
  const { y, k, n, L, D, loss, useBias, omega, W, H, bias } = prob;
  const seed = options.seed ?? 0;
  const init = options.init;
  const w0 = init ? Math.min(init.W.length, D * k) : 0;
  for (let a = 0; a < w0; a++) W[a] = init!.W[a];
  const h0 = init ? Math.min(init.H.length, L * k) : 0;
  for (let a = 0; a < h0; a++) H[a] = init!.H[a];
  const sc = 1 / Math.sqrt(k);
  for (let a = h0; a < L * k; a++) H[a] = sc * hashUniform(seed, Math.floor(a / k), a % k);
  const b0 = init ? Math.min(init.bias.length, L) : 0;
  for (let l = 0; l < b0; l++) bias[l] = init!.bias[l];
  if (useBias && loss === "squared" && b0 < L) {
    // start from the observed label frequency
    const cnt = new Float64Array(L), tot = new Float64Array(L);
    if (omega) {
      for (let e = 0; e < omega.label.length; e++) {
        tot[omega.label[e]]++;
        cnt[omega.label[e]] += omega.target[e];
      }
    } else {
      for (let p = 0; p < y.indptr[n]; p++) cnt[y.indices[p]]++;
      tot.fill(n);
    }
    for (let l = b0; l < L; l++) bias[l] = tot[l] > 0 ? cnt[l] / tot[l] : 0;
  }
}
