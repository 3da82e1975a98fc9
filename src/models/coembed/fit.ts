/**
 * Batch (transductive) CoEmbed: Algorithm 1 over a fixed set of rows. Each epoch visits the rows
 * in a seeded random order in minibatches; per minibatch, the rows' (U_i, G_i) are set with the
 * globals fixed — by default refolded from their observed features, labels unused (`rowUpdate`
 * "fold-in"), or, as in the paper, by Adam steps on the whole objective, kept across epochs
 * ("joint") — then the globals (V, P, Q, H, bias) take Adam steps with the rows fixed: the same
 * updates as the streaming estimator.
 *
 * @module
 */
import { checkRow } from "../query_check.ts";
import type { BinaryCsr, CsrMatrix, SparseVector } from "../../data/types.ts";
import { blockFromCsr } from "./blocks.ts";
import type { CoEmbedConfig } from "./config.ts";
import { checkedConfig, MAX_STEPS } from "./settings.ts";
import { defineSettings, type ModelSettings } from "../settings.ts";
import { CoEmbedCore, type RowBlock } from "./core.ts";
import { RandomFeaturesPredictor } from "./predictor.ts";
import { checkSpectralSize, spectralInit } from "./spectral.ts";
import { SmallRng } from "../../random/mod.ts";

/**
 * Training data of a batch fit.
 *
 * @example
 * ```ts
 * import type { CoEmbedData } from "./fit.ts";
 * const d: CoEmbedData = {
 *   x: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) },
 * };
 * console.log(d.x.numRows);
 * ```
 */
export interface CoEmbedData {
  /** Feature values (entries absent from `x` are 0 if observed). */
  x: CsrMatrix;
  /** Observed positive labels; every other entry is unlabeled. */
  y: BinaryCsr;
  /**
   * Explicit mask of the observed feature entries. Without it, `absent` of the config decides
   * ("zero": all observed; "missing": the entries present in `x`).
   */
  observed?: BinaryCsr;
}

/**
 * Options of {@linkcode fitCoEmbed} besides the model's hyper-parameters.
 *
 * @example
 * ```ts
 * import type { FitOptions } from "./fit.ts";
 * const o: FitOptions = { epochs: 5, batchSize: 32 };
 * console.log(o.epochs);
 * ```
 */
export interface FitOptions {
  /** Passes over the rows (default 30). */
  epochs?: number;
  /** Minibatch size (default 64). */
  batchSize?: number;
  /**
   * Initial V: "spectral" (default) takes the top k_X eigenvectors of the Gram matrix of the
   * observed entries (zero-filled, each feature rescaled by 1/its observed fraction), scaled by
   * the square roots of the singular values; "random" keeps the seeded random V. "spectral"
   * refuses more than 4096 rows of more than 4096 features (./spectral.ts `MAX_SPECTRAL_SIZE`).
   */
  init?: "spectral" | "random";
  /**
   * How a minibatch's row factors (U_i, G_i) are set before its global steps (see
   * {@linkcode RowUpdate}; default "fold-in").
   */
  rowUpdate?: RowUpdate;
  /** Called after each epoch (e.g. to report progress or track the objective). */
  onEpoch?: (epoch: number, fit: CoEmbedFit) => void;
}

/**
 * How the batch fit sets the row factors (U_i, G_i) of a minibatch before its global steps.
 *
 * - "fold-in" (default): U_i is the ridge fit of the row's observed features under the current V
 *   (labels not used) and G_i = 0, at every visit: exactly the input the inductive predictor
 *   computes for a new row and the streaming learner trains on, so the classifier (S, and V
 *   through it) is trained on the same kind of input it is applied to. E = GHᵀ then plays no
 *   part (G = 0), and the label loss reaches X̂ = UVᵀ through V only.
 * - "joint": the paper's Algorithm 1: (U_i, G_i) are kept across epochs and take
 *   `config.rowSteps` Adam steps on the whole objective, labels included. A training row's U_i
 *   and G_i then carry its own (weak) labels, which a test row's fold-in cannot: measured on
 *   validation splits, inductive macro-AUC 0.01 to 0.08 lower (docs/deviations.md, C3).
 *
 * @example
 * ```ts
 * import type { RowUpdate } from "./fit.ts";
 * const r: RowUpdate = "joint";
 * console.log(r); // joint
 * ```
 */
export type RowUpdate = "fold-in" | "joint";

/**
 * A fitted batch model: the global factors plus each training row's U_i and G_i.
 *
 * @example
 * ```ts
 * import { fitCoEmbed } from "./fit.ts";
 * const fit = fitCoEmbed({
 *   x: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
 * }, { variant: "L", rankX: 2 }, { epochs: 2 });
 * console.log(fit.transductiveScores().length); // 4
 * ```
 */
export class CoEmbedFit {
  readonly core: CoEmbedCore;
  readonly block: RowBlock;
  /** Row factors `[N, kX]`. */
  readonly U: Float64Array;
  /** Row residual factors `[N, kE]`. */
  readonly G: Float64Array;
  /** Adam state of the row factors. */
  readonly rowMoments: { mU: Float64Array; vU: Float64Array; mG: Float64Array; vG: Float64Array };
  /** Adam step counts of the rows. */
  readonly rowSteps: Int32Array;
  /** Epochs run so far. */
  epochs = 0;

  /** How {@linkcode runEpoch} sets the row factors by default (see {@linkcode RowUpdate}). */
  readonly rowUpdate: RowUpdate;

  constructor(core: CoEmbedCore, block: RowBlock, rowUpdate: RowUpdate = "fold-in") {
    this.core = core;
    this.block = block;
    this.rowUpdate = rowUpdate;
    const N = block.rows, kX = core.config.rankX, kE = core.config.rankE;
    this.U = new Float64Array(N * kX);
    this.G = new Float64Array(N * kE);
    this.rowMoments = {
      mU: new Float64Array(N * kX),
      vU: new Float64Array(N * kX),
      mG: new Float64Array(N * kE),
      vG: new Float64Array(N * kE),
    };
    this.rowSteps = new Int32Array(N);
    core.ridgeFoldInRows(block, this.U);
  }

  /** Number of training rows. */
  get numRows(): number {
    return this.block.rows;
  }

  /**
   * Runs one epoch of alternating updates over the rows (seeded order). By default the rows are
   * set as {@linkcode rowUpdate} says: "fold-in" refolds each minibatch's rows and takes no row
   * step; "joint" keeps their factors and takes `config.rowSteps` row steps. Options (e.g. the
   * streaming learner's consolidation, ./learner.ts) override that: `rowSteps` row steps;
   * `refold`: each row of a minibatch enters afresh, as a stream row does (U_i the ridge fit of
   * its observed features under the current V, G_i = 0, fresh Adam moments), instead of
   * keeping its factors.
   *
   * @throws {RangeError} when `batchSize` is not an integer >= 1 or `options.rowSteps` not an
   * integer in [0, `MAX_STEPS`] (./settings.ts)
   */
  runEpoch(batchSize: number, options: { rowSteps?: number; refold?: boolean } = {}): void {
    // a batchSize of 0 or -1 looped forever, NaN took no step, 2.5 visited rows twice
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`CoEmbedFit.runEpoch: batchSize ${batchSize} must be an integer >= 1`);
    }
    const steps = options.rowSteps;
    if (steps !== undefined && !(Number.isInteger(steps) && steps >= 0 && steps <= MAX_STEPS)) {
      throw new RangeError(
        `CoEmbedFit.runEpoch: rowSteps ${steps} must be an integer in [0, ${MAX_STEPS}]`,
      );
    }
    const core = this.core, c = core.config, N = this.numRows;
    const order = new Int32Array(N);
    for (let i = 0; i < N; i++) order[i] = i;
    // Math.imul: the product's low 32 bits (what SmallRng keeps) even for a seed past 2^53 / 7919
    // (1.1e12, e.g. a timestamp), where the float product rounded the epoch away: every epoch
    // visited the rows in the same order
    const rng = new SmallRng(Math.imul(c.seed, 7919) + this.epochs + 1);
    for (let i = N - 1; i > 0; i--) {
      const j = Math.floor(rng.next() * (i + 1));
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    const foldIn = this.rowUpdate === "fold-in";
    const rowSteps = options.rowSteps ?? (foldIn ? 0 : c.rowSteps);
    const refold = options.refold ?? foldIn;
    for (let s = 0; s < N; s += batchSize) {
      const rows = order.subarray(s, Math.min(N, s + batchSize));
      if (refold) this.refold(rows);
      core.rowSteps(this.block, this.U, this.G, this.rowMoments, this.rowSteps, rowSteps, rows);
      for (let g = 0; g < c.globalSteps; g++) {
        core.globalStep(this.block, this.U, this.G, N, rows);
      }
    }
    this.epochs++;
  }

  /**
   * Folds every row in afresh under the current globals (U_i the ridge fit of its observed
   * features, G_i = 0, row Adam state reset). `fitCoEmbed` calls it after the last epoch of a
   * "fold-in" fit, so that the transductive scores and X̂ use the final V.
   */
  refoldAll(): void {
    this.refold(Int32Array.from({ length: this.numRows }, (_, i) => i));
  }

  /** Folds `rows` in afresh: ridge U_i under the current V, G_i = 0, Adam state reset. */
  private refold(rows: ArrayLike<number>): void {
    const kX = this.core.config.rankX, kE = this.core.config.rankE, mom = this.rowMoments;
    this.core.ridgeFoldInRows(this.block, this.U, rows);
    for (let n = 0; n < rows.length; n++) {
      const i = rows[n];
      for (const a of [this.G, mom.mG, mom.vG]) a.fill(0, i * kE, (i + 1) * kE);
      for (const a of [mom.mU, mom.vU]) a.fill(0, i * kX, (i + 1) * kX);
      this.rowSteps[i] = 0;
    }
  }

  /** The exact objective F (all rows plus the global regularisers). */
  objective(): number {
    const core = this.core, kX = core.config.rankX, kE = core.config.rankE;
    let f = core.globalRegulariser();
    for (let i = 0; i < this.numRows; i++) {
      f += core.rowPass(this.block, i, this.U, i * kX, this.G, i * kE, false, 0);
    }
    return f;
  }

  /** Transductive label scores `[N, L]` (row-major) of the training rows: f(x̂_i)Sᵀ + E_i + b. */
  transductiveScores(): Float32Array {
    const core = this.core, N = this.numRows, L = core.numLabels;
    const out = new Float32Array(N * L), row = new Float64Array(L);
    for (let i = 0; i < N; i++) {
      core.rowScores(this.block, i, this.U, this.G, row);
      for (let j = 0; j < L; j++) out[i * L + j] = row[j];
    }
    return out;
  }

  /** Reconstructed features X̂ = UVᵀ `[N, D]` (row-major). */
  reconstructedFeatures(): Float64Array {
    const core = this.core, N = this.numRows, D = core.numFeatures, kX = core.config.rankX;
    const out = new Float64Array(N * D), U = this.U, V = core.V;
    for (let i = 0; i < N; i++) {
      for (let d = 0; d < D; d++) {
        let s = 0;
        for (let k = 0; k < kX; k++) s += U[i * kX + k] * V[d * kX + k];
        out[i * D + d] = s;
      }
    }
    return out;
  }

  /**
   * The inductive predictor of the current globals (a float32 snapshot; see ./predictor.ts).
   * `CoEmbedEstimator.fromFit` turns a fit into a streaming estimator.
   */
  predictor(): RandomFeaturesPredictor {
    return new RandomFeaturesPredictor(this.core.predictorTensors());
  }

  /** Inductive scores of a new row with the current globals. */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "CoEmbed.predictScores");
    return this.predictor().scores(x.indices, x.values, out);
  }
}

/**
 * The declared options of {@linkcode fitCoEmbed} (every {@linkcode FitOptions} key but the
 * `onEpoch` callback), with defaults and ranges: an unknown key or a bad value is an error
 * naming it.
 *
 * @example
 * ```ts
 * import { FIT_SETTINGS } from "./fit.ts";
 * console.log(FIT_SETTINGS.resolve({ epochs: 5 })); // { epochs: 5, batchSize: 64, init: "spectral", rowUpdate: "fold-in" }
 * ```
 */
export const FIT_SETTINGS: ModelSettings<Omit<FitOptions, "onEpoch">> = defineSettings<
  Omit<FitOptions, "onEpoch">
>("fitCoEmbed", {
  epochs: { kind: "int", default: 30, min: 0, max: 1 << 20, doc: "Passes over the rows." },
  batchSize: { kind: "int", default: 64, min: 1, max: 1 << 20, doc: "Minibatch size." },
  init: {
    kind: "enum",
    values: ["spectral", "random"],
    default: "spectral",
    doc: "Initial V: spectral (top eigenvectors of the observed Gram matrix) or random.",
  },
  rowUpdate: {
    kind: "enum",
    values: ["fold-in", "joint"],
    default: "fold-in",
    doc: "How a minibatch's row factors are set before its global steps.",
  },
});

/**
 * Fits CoEmbed on a fixed data set (transductive and inductive outputs).
 *
 * @throws {RangeError} on bad settings or data, or when the fit diverges (a global factor not
 * finite after an epoch, or a row's fold-in failing on them), naming the settings to lower.
 *
 * @example
 * ```ts
 * import { fitCoEmbed } from "./fit.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const y = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) };
 * const fit = fitCoEmbed({ x, y }, { variant: "NL", numRff: 16, seed: 1 }, { epochs: 3 });
 * console.log(fit.reconstructedFeatures().length); // 4
 * ```
 */
export function fitCoEmbed(
  data: CoEmbedData,
  config: Partial<CoEmbedConfig> | Record<string, unknown> = {},
  options: FitOptions = {},
): CoEmbedFit {
  const c = checkedConfig(config as Record<string, unknown>);
  const { onEpoch, ...settings } = options;
  if (onEpoch !== undefined && typeof onEpoch !== "function") {
    throw new TypeError(`fitCoEmbed: option onEpoch must be a function`);
  }
  const { epochs, batchSize, init, rowUpdate } = FIT_SETTINGS.resolve(settings) as Required<
    Omit<FitOptions, "onEpoch">
  >;
  // the sizes the core is allocated with (2.5 labels gave "the fit diverged ... lower
  // learningRate", 2.5 features an "Invalid array length")
  for (const part of ["x", "y"] as const) {
    const n = data[part].numCols;
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new RangeError(`fitCoEmbed: data.${part}.numCols must be an integer >= 0, got ${n}`);
    }
  }
  if (init === "spectral") checkSpectralSize(data.x.numRows, data.x.numCols, "fitCoEmbed");
  const core = new CoEmbedCore(c, data.x.numCols, data.y.numCols);
  const block = blockFromCsr(
    data.x,
    data.y,
    core.numFeatures,
    core.numLabels,
    c.absent,
    data.observed,
    undefined,
    "fitCoEmbed",
  );
  if (init === "spectral") spectralInit(core, block);
  const fit = new CoEmbedFit(core, block, rowUpdate);
  for (let e = 0; e < epochs; e++) {
    fit.runEpoch(batchSize);
    checkFiniteFactors(core, e);
    onEpoch?.(e, fit);
  }
  if (rowUpdate === "fold-in" && epochs > 0) fit.refoldAll();
  return fit;
}

/**
 * Throws a RangeError naming the epoch, the factor and the step-size settings when a global
 * factor of `core` holds a value that is not finite or that the float32 model cannot hold (the
 * fit diverged: its scores would be NaN, or its predictor's fold-in would fail).
 */
function checkFiniteFactors(core: CoEmbedCore, epoch: number): void {
  const bad = core.unstorableFactor();
  const c = core.config;
  if (bad === undefined) {
    // factors within float32 whose scores are not (the streaming learner refuses them too)
    const unservable = core.overflowingScores();
    if (unservable === undefined) return;
    throw new RangeError(
      `fitCoEmbed: the fit diverged in epoch ${epoch}: ${unservable}, beyond float32; lower ` +
        `learningRate (${c.learningRate}) or initScale (${c.initScale}), or scale the features`,
    );
  }
  const name = bad.slice(0, bad.indexOf("[")), value = bad.split(" = ")[1];
  throw new RangeError(
    `fitCoEmbed: the fit diverged in epoch ${epoch}: factor ${name} holds ${value}; lower ` +
      `learningRate (${c.learningRate}) or initScale (${c.initScale}), or scale the features`,
  );
}
