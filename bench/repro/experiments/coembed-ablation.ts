/**
 * `deno task repro coembed-ablation --dataset yeast|scene [--taus 0.3,0.5,0.8] [--repeats N]
 * [--variants a,b,...] [--epochs N] [--extra JSON]`: why CoEmbed-NL wins or loses against the plain baseline,
 * measured on VALIDATION splits of the training file only (the test file is never read).
 *
 * Per τ and repeat r (seed 1000·--seed + 500 + r): the training file is split 80/20 at random
 * into fit and validation rows; the paper's masks (60% of the feature entries, a fraction τ of
 * the positive labels turned unlabeled) are applied to the fit rows only; every variant is fit
 * on the same masked rows and scored on the validation rows with their complete features
 * against their true labels, exactly as `repro coembed` scores its test rows. The baseline is
 * `repro coembed`'s (logistic binary relevance on mean-imputed features).
 *
 * Prints one JSON line per (variant, τ) as it goes — `validationMacroAUC` (the inductive
 * predictor's input projected through V, the default), `validationRawMacroAUC` (the raw row),
 * `baselineMacroAUC`, `gainOverBaseline`, `gainOverReference` (the variant minus `reference`,
 * paired on the same splits), their standard deviations and per-repeat values — then the usual
 * single result object whose `extra.rows` holds every line.
 *
 * Variants ({@linkcode ABLATIONS}): `reference` is the model as `repro coembed` runs it; each
 * other one changes one thing: the paper's joint row update (with its λ_E and with E
 * suppressed), α as the paper prints it and unweighted, γ as the paper's "RBF variance 0.1"
 * read both ways and the median rule ×2 and ×½, the ranks, λ, the epochs, no RFE (ColEmbed-L),
 * and the one-pass streaming learner (file order, which is sorted by label on scene; a random
 * order; smaller minibatches; tail averaging; steps on reservoir samples only — emulated here
 * with the learner's parts, not a learner option; no global step before the warm start; and,
 * as a diagnostic only, V started from all fit rows; consolidation over the reservoir). `--extra '{"name": {"what": "...", "config": {...}}}'`
 * adds variants ({@linkcode Ablation} objects) to those named by `--variants` (default: all).
 *
 * @module
 */
import { loadDataset } from "../../../src/data/dataset.ts";
import { rowsOf } from "../../../src/data/dataset.ts";
import { Rng } from "../../../src/random/mod.ts";
import type { Batch, BinaryCsr, CsrMatrix } from "../../../src/data/types.ts";
import { blockFromCsr } from "../../../src/models/coembed/blocks.ts";
import { spectralInit } from "../../../src/models/coembed/spectral.ts";
import { resolveConfig } from "../../../src/models/coembed/config.ts";
import { fitCoEmbed, type RowUpdate } from "../../../src/models/coembed/fit.ts";
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import { RandomFeaturesPredictor } from "../../../src/models/coembed/predictor.ts";
import type { Experiment, ExperimentContext, ExperimentFlags, ExperimentResult } from "../types.ts";
import { jsonObjectFlag } from "../harness.ts";
import {
  type Dense,
  macroAuc,
  maskRows,
  medianGamma,
  REPRO_CONFIG,
  rowsTruth,
  toDense,
  trainBaseline,
  TUNED,
} from "./coembed.ts";

/**
 * One ablation: config overrides over `repro coembed`'s settings, the batch fit's row update
 * and epochs, a γ rule, or the streaming learner instead of the batch fit.
 *
 * @example
 * ```ts
 * import type { Ablation } from "./coembed-ablation.ts";
 * const a: Ablation = { what: "α = 0.5", config: { alpha: 0.5 } };
 * console.log(a.what);
 * ```
 */
export interface Ablation {
  /** What the variant changes, in words. */
  what: string;
  /** CoEmbed config overrides. */
  config?: Record<string, unknown>;
  /** Row update of the batch fit (default: `repro coembed`'s). */
  rowUpdate?: RowUpdate;
  /** Epochs of the batch fit (default: `repro coembed`'s for the dataset). */
  epochs?: number;
  /** γ: a number, or the median rule times this factor (default: the median rule). */
  gamma?: number;
  gammaTimesMedian?: number;
  /** Train the streaming learner in one pass instead of the batch fit. */
  stream?: boolean;
  /** Streaming: the fit rows in a seeded random order instead of file order. */
  shuffle?: boolean;
  /**
   * Streaming: predict with the mean of the globals after each minibatch of the last fraction
   * `tailAverage` of the pass (tail averaging) instead of the last globals.
   */
  tailAverage?: number;
  /** Streaming: rows per `learnMany` call (default 64). */
  streamBatch?: number;
  /** Streaming: every step on a fresh reservoir sample, the new rows added first. */
  replayOnly?: boolean;
  /**
   * Streaming: no global step before the warm start (the first rows only fill the reservoir;
   * they are learned through replay afterwards).
   */
  deferUntilWarm?: boolean;
  /**
   * Streaming, diagnostic only (not a one-pass learner): V starts from the spectral
   * initialisation on ALL the fit rows, as the batch fit's does.
   */
  oracleV?: boolean;
}

/**
 * The ablation grid, by name. `reference` is `repro coembed`'s model.
 *
 * @example
 * ```ts
 * import { ABLATIONS } from "./coembed-ablation.ts";
 * console.log(ABLATIONS.reference.what.length > 0, "joint" in ABLATIONS); // true true
 * ```
 */
export const ABLATIONS: Record<string, Ablation> = {
  reference: { what: "repro coembed's model (fold-in rows, α 0.8, median γ, ranks 10)" },
  joint: {
    what: "the paper's joint row update (U_i, G_i by Adam on the whole objective), λ_E = 0.1",
    rowUpdate: "joint",
    config: { lambdaE: 0.1 },
  },
  "joint-lambdaE100": {
    what: "joint row update with E suppressed (λ_E = 100)",
    rowUpdate: "joint",
    config: { lambdaE: 100 },
  },
  "alpha0.2": { what: "α = 0.2 as printed in the paper's Section 5.1", config: { alpha: 0.2 } },
  "alpha0.5": { what: "α = 0.5 (positives and unlabeled weigh the same)", config: { alpha: 0.5 } },
  "gamma5": { what: "γ = 5: kernel variance σ² = 0.1 (γ = 1/(2σ²))", gamma: 5 },
  "gamma0.05": { what: "γ = 0.05: Fourier directions of variance 2γ = 0.1", gamma: 0.05 },
  "gamma2xMedian": { what: "γ = 2 × the median rule", gammaTimesMedian: 2 },
  "gammaHalfMedian": { what: "γ = ½ × the median rule", gammaTimesMedian: 0.5 },
  rank5: { what: "k_X = k_S = k_E = 5", config: { rankX: 5, rankS: 5, rankE: 5 } },
  rank20: { what: "k_X = k_S = k_E = 20", config: { rankX: 20, rankS: 20, rankE: 20 } },
  lambda1: { what: "λ = 1", config: { lambda: 1 } },
  lambda10: { what: "λ = 10", config: { lambda: 10 } },
  epochs30: { what: "30 epochs", epochs: 30 },
  epochs100: { what: "100 epochs", epochs: 100 },
  colembedL: { what: "no random features (ColEmbed-L)", config: { variant: "L" } },
  stream: { what: "the streaming learner, one pass in file order", stream: true },
  streamShuffled: {
    what: "the streaming learner, one pass in a random order",
    stream: true,
    shuffle: true,
  },
  streamBatch32: {
    what: "the streaming learner, minibatches of 32 rows",
    stream: true,
    streamBatch: 32,
  },
  streamTailAverage: {
    what: "the streaming learner, predicting with the mean globals of the last half of the pass",
    stream: true,
    tailAverage: 0.5,
  },
  streamReplayOnly: {
    what: "a stream step on reservoir samples only, the new rows added to the reservoir first",
    stream: true,
    replayOnly: true,
  },
  streamDefer: {
    what: "the streaming learner, no global step before the warm start",
    stream: true,
    deferUntilWarm: true,
  },
  streamOracleV: {
    what: "diagnostic: the streaming learner with V initialised on all fit rows",
    stream: true,
    oracleV: true,
  },
  streamConsolidate10: {
    what: "the streaming learner, then 10 consolidation epochs over its reservoir",
    stream: true,
    config: { consolidateEpochs: 10 },
  },
};

/** The fields of an {@linkcode Ablation}, the only ones an `--extra` variant may set. */
const ABLATION_KEYS = [
  "what",
  "config",
  "rowUpdate",
  "epochs",
  "gamma",
  "gammaTimesMedian",
  "stream",
  "shuffle",
  "tailAverage",
  "streamBatch",
  "replayOnly",
  "deferUntilWarm",
  "oracleV",
];

/**
 * A stream step where the new rows join the reservoir FIRST and every one of the `streamSteps`
 * global steps is taken on a fresh uniform sample of (1 + replayRatio)·B kept rows: SGD on the
 * rows seen so far, without the burst of steps on the newest rows.
 */
function replayOnlyStep(est: CoEmbedLearner, batch: Batch): void {
  const core = est.core, c = core.config, B = batch.x.numRows;
  est.reservoir.addRows(batch);
  est.rowsSeen += B;
  if (!est.warmStarted && est.reservoir.size >= c.warmStart) {
    const all = est.reservoir.rows();
    spectralInit(core, blockFromCsr(all.x, all.y, core.numFeatures, core.numLabels, "missing"));
    core.m.V.fill(0);
    core.v.V.fill(0);
    est.warmStarted = true;
  }
  for (let s = 0; s < c.streamSteps; s++) {
    const rows = est.reservoir.sample(Math.round((1 + c.replayRatio) * B));
    const block = blockFromCsr(rows.x, rows.y, core.numFeatures, core.numLabels, "missing");
    const U = new Float64Array(block.rows * c.rankX), G = new Float64Array(block.rows * c.rankE);
    core.ridgeFoldInRows(block, U);
    core.globalStep(block, U, G, est.rowsSeen);
  }
}

/** The rows `order` of CSR features and labels, in that order. */
function pickRows(
  data: { x: CsrMatrix; y: BinaryCsr },
  order: Int32Array,
): { x: CsrMatrix; y: BinaryCsr } {
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (const r of order) {
    for (let p = data.x.indptr[r]; p < data.x.indptr[r + 1]; p++) {
      xi.push(data.x.indices[p]);
      xv.push(data.x.values[p]);
    }
    xp.push(xi.length);
    for (let p = data.y.indptr[r]; p < data.y.indptr[r + 1]; p++) yi.push(data.y.indices[p]);
    yp.push(yi.length);
  }
  return {
    x: {
      numRows: order.length,
      numCols: data.x.numCols,
      indptr: Int32Array.from(xp),
      indices: Int32Array.from(xi),
      values: Float32Array.from(xv),
    },
    y: {
      numRows: order.length,
      numCols: data.y.numCols,
      indptr: Int32Array.from(yp),
      indices: Int32Array.from(yi),
    },
  };
}

function meanStd(a: number[]): { mean: number; std: number } {
  const mean = a.reduce((s, v) => s + v, 0) / a.length;
  const std = Math.sqrt(a.reduce((s, v) => s + (v - mean) * (v - mean), 0) / a.length);
  return { mean, std };
}

/** Validation macro-AUC of a scorer over complete rows. */
function scoreRows(
  dense: Dense,
  rows: Int32Array,
  score: (idx: Int32Array, x: Float32Array, out: Float32Array) => void,
): number {
  const { D, L } = dense;
  const idx = Int32Array.from({ length: D }, (_, d) => d), xv = new Float32Array(D);
  const out = new Float32Array(L), scores = new Float32Array(rows.length * L);
  for (let i = 0; i < rows.length; i++) {
    for (let d = 0; d < D; d++) xv[d] = dense.x[rows[i] * D + d];
    score(idx, xv, out);
    scores.set(out, i * L);
  }
  return macroAuc(scores, rowsTruth(dense, rows), rows.length, L);
}

const experiment: Experiment = async (ctx: ExperimentContext): Promise<ExperimentResult> => {
  const flags = ctx.flags;
  const tauList = String(flags.taus ?? "0.3,0.5,0.8").split(",").map((t) => t.trim());
  const taus = tauList.map((t) => (t === "" ? NaN : Number(t)));
  taus.forEach((t, i) => {
    if (!(t >= 0 && t < 1)) {
      throw new RangeError(`coembed-ablation: --taus entry '${tauList[i]}' not in [0, 1)`);
    }
  });
  // a bare `--repeats` or `--epochs` (true) has no value: Number(true) would read it as 1
  const repeats = typeof flags.repeats === "boolean" ? NaN : Number(flags.repeats ?? 3);
  if (!Number.isInteger(repeats) || repeats < 1) {
    throw new RangeError(`coembed-ablation: --repeats ${flags.repeats} is not an integer >= 1`);
  }
  // --extra '{"name": {Ablation}, ...}': further variants, run after the named ones
  const extra = jsonObjectFlag(
    flags,
    "extra",
    "coembed-ablation",
    "an object of named variants",
  ) as Record<string, Ablation>;
  // an entry that is not an Ablation (a number, a typo'd key) would run as `reference`
  for (const [n, a] of Object.entries(extra)) {
    const bad = typeof a !== "object" || a === null || Array.isArray(a)
      ? "is not an object"
      : Object.keys(a).filter((k) => !ABLATION_KEYS.includes(k)).map((k) => `has no field ${k}`)[0];
    if (bad) {
      throw new TypeError(
        `coembed-ablation: --extra variant ${n} ${bad} (fields: ${ABLATION_KEYS.join(", ")})`,
      );
    }
  }
  const grid: Record<string, Ablation> = { ...ABLATIONS, ...extra };
  // each variant once: a repeated name ran twice into the same rows, pairing the second run's
  // values with the next repeat's baseline
  const names = [
    ...new Set(
      flags.variants === undefined
        ? Object.keys(ABLATIONS)
        : String(flags.variants).split(",").filter((n) => n !== ""),
    ),
  ];
  for (const n of Object.keys(extra)) if (!names.includes(n)) names.push(n);
  if (!names.includes("reference")) names.unshift("reference");
  for (const n of names) {
    // own names only: "toString" or "constructor" are not variants
    if (!Object.hasOwn(grid, n)) {
      throw new RangeError(
        `coembed-ablation: unknown variant ${n} (known: ${Object.keys(ABLATIONS).join(", ")})`,
      );
    }
  }
  const tuned = TUNED[ctx.dataset] ?? {};
  const baseEpochs = flags.epochs === undefined
    ? tuned.epochs ?? 30
    : typeof flags.epochs === "boolean"
    ? NaN
    : Number(flags.epochs);
  if (!Number.isInteger(baseEpochs) || baseEpochs < 1) {
    throw new RangeError(`coembed-ablation: --epochs ${flags.epochs} is not an integer >= 1`);
  }
  const dense = toDense(await loadDataset(ctx.dataDir, ctx.dataset, "train"));
  const { N, D, L } = dense;
  const rows: Record<string, unknown>[] = [];
  let fits = 0, fitSeconds = 0;
  ctx.progress.start(taus.length * repeats, `coembed-ablation ${ctx.dataset}`);
  for (const tau of taus) {
    const res: Record<string, { auc: number[]; raw: number[]; seconds: number[] }> = {};
    const base: number[] = [];
    for (let r = 0; r < repeats; r++) {
      const seed = ctx.seed * 1000 + 500 + r;
      const rng = new Rng(seed + 1);
      const perm = Int32Array.from({ length: N }, (_, i) => i);
      rng.shuffle(perm);
      const nFit = Math.round(0.8 * N);
      const fitRows = perm.slice(0, nFit).sort(), valRows = perm.slice(nFit).sort();
      const masked = maskRows(dense, fitRows, tau, rng);
      const median = medianGamma(masked, dense, fitRows, new Rng(seed + 2));
      const baseline = trainBaseline(masked, dense, fitRows);
      const bo = new Float64Array(L), bx = new Float64Array(D);
      base.push(scoreRows(dense, valRows, (_idx, x, out) => {
        bx.set(x);
        baseline(bx, bo);
        out.set(bo);
      }));
      for (const name of names) {
        const a = grid[name];
        const gamma = a.gamma ?? median * (a.gammaTimesMedian ?? 1);
        const config = resolveConfig({
          ...REPRO_CONFIG,
          streamSteps: tuned.streamSteps ?? REPRO_CONFIG.streamSteps,
          replayRatio: tuned.replayRatio ?? REPRO_CONFIG.replayRatio,
          warmStart: tuned.warmStart ?? REPRO_CONFIG.warmStart,
          ...a.config,
          gamma,
          seed,
        });
        const t0 = performance.now();
        let predictor: RandomFeaturesPredictor;
        if (a.stream) {
          const est = CoEmbedLearner.create({ ...config, absent: "missing" }, D, L);
          let data = masked.data;
          if (a.shuffle) {
            const order = Int32Array.from({ length: nFit }, (_, i) => i);
            new Rng(seed + 3).shuffle(order);
            data = pickRows(masked.data, order);
          }
          const sb = a.streamBatch ?? 64;
          if (a.oracleV) {
            const c = est.core;
            spectralInit(c, blockFromCsr(data.x, data.y, D, L, "missing"));
            c.m.V.fill(0);
            c.v.V.fill(0);
            est.warmStarted = true;
          }
          const avg: Record<string, Float64Array> = {};
          let nAvg = 0;
          for (let s = 0; s < nFit; s += sb) {
            const batch = rowsOf(data, s, Math.min(nFit, s + sb));
            const w = est.config.warmStart, n = batch.x.numRows;
            if (a.deferUntilWarm && !est.warmStarted && est.reservoir.size + n < w) {
              est.reservoir.addRows(batch); // learned later, through replay
              est.rowsSeen += n;
            } else if (a.replayOnly) replayOnlyStep(est, batch);
            else est.learnMany(batch);
            if (a.tailAverage && s >= nFit * (1 - a.tailAverage)) {
              nAvg++;
              for (const g of ["V", "P", "Q", "H", "b"] as const) {
                const cur = est.core[g], acc = avg[g] ??= new Float64Array(cur.length);
                for (let i = 0; i < cur.length; i++) acc[i] += (cur[i] - acc[i]) / nAvg;
              }
            }
          }
          if (nAvg > 0) {
            for (const g of ["V", "P", "Q", "H", "b"] as const) est.core[g].set(avg[g]);
            est.core.changed();
          }
          // config.consolidateEpochs > 0: epochs over the bounded reservoir after the pass
          est.consolidate();
          predictor = new RandomFeaturesPredictor(est.core.predictorTensors());
        } else {
          const fit = fitCoEmbed(masked.data, config, {
            epochs: a.epochs ?? baseEpochs,
            rowUpdate: a.rowUpdate ?? "fold-in",
          });
          predictor = fit.predictor();
        }
        const seconds = (performance.now() - t0) / 1000;
        fits++;
        fitSeconds += seconds;
        const t = predictor.t;
        const projected = new RandomFeaturesPredictor({ ...t, input: "projected" });
        const raw = new RandomFeaturesPredictor({ ...t, input: "raw" });
        const e = res[name] ??= { auc: [], raw: [], seconds: [] };
        e.auc.push(scoreRows(dense, valRows, (i, x, o) => projected.scores(i, x, o)));
        e.raw.push(scoreRows(dense, valRows, (i, x, o) => raw.scores(i, x, o)));
        e.seconds.push(seconds);
      }
      ctx.progress.tick(1);
    }
    const b = meanStd(base);
    for (const name of names) {
      const e = res[name], m = meanStd(e.auc);
      const gain = meanStd(e.auc.map((v, r) => v - base[r]));
      const vsRef = meanStd(e.auc.map((v, r) => v - res.reference.auc[r]));
      const row = {
        dataset: ctx.dataset,
        tau,
        variant: name,
        what: grid[name].what,
        repeats,
        validationMacroAUC: m.mean,
        validationRawMacroAUC: meanStd(e.raw).mean,
        baselineMacroAUC: b.mean,
        gainOverBaseline: gain.mean,
        gainOverReference: vsRef.mean,
        std: {
          validationMacroAUC: m.std,
          gainOverBaseline: gain.std,
          gainOverReference: vsRef.std,
        },
        perRepeat: e.auc,
        baselinePerRepeat: base,
        fitSeconds: meanStd(e.seconds).mean,
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
  ctx.progress.done();
  const metrics: Record<string, number> = {};
  for (const row of rows) {
    metrics[`${row.variant}@${row.tau}`] = row.validationMacroAUC as number;
  }
  return {
    metrics,
    trainSeconds: fits ? fitSeconds / fits : 0,
    predictMsPerRow: 0,
    modelBytes: 0,
    extra: {
      data: `${ctx.dataset}.train.txt only: 80% fit / 20% validation (the test file is not read)`,
      epochs: baseEpochs,
      taus,
      repeats,
      seeds: `${ctx.seed * 1000 + 500}..${ctx.seed * 1000 + 500 + repeats - 1}`,
      rows,
    },
  };
};

/**
 * The flags `repro coembed-ablation` accepts besides `--dataset`, `--data-dir` and `--seed` (the
 * runner refuses any other); it reads only `<dataset>.train.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./coembed-ablation.ts";
 * console.log(FLAGS.flags.includes("taus")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = { flags: ["taus", "repeats", "extra", "variants", "epochs"] };

export default experiment;
