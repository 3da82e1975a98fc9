/**
 * `deno task repro leml --dataset bibtex|delicious [--rank K] [--lambda X] [--l2 true|false]
 * [--iterations 5] [--cg 10]`: batch LEML (squared loss, full labels: alternating minimisation
 * with exact H rows and the CG W step of Algorithm 2).
 *
 * Hyper-parameters not given on the command line are chosen on a seeded 20% validation split of
 * the TRAINING file (the test file is used only for the final evaluation). The validation score
 * is the mean over rows of (P@1 + P@3 + P@5)/3 (steadier than P@1 alone on ~1000 rows), with its
 * standard error. Two rounds:
 * 1. row preprocessing (raw rows or unit-L2 rows) × rank among {0.1, 0.2, 0.4, 0.6}·L (the issue
 *    caps the rank at 0.6·L), at a default λ per preprocessing (10 raw, 1 unit-L2: unit rows make XᵀX
 *    about nnz(x) times smaller). The best preprocessing wins; its rank is the smallest one
 *    whose score is within one standard error of the best (the "one-standard-error rule": a
 *    smaller rank is a smaller, faster model, and a difference below the noise is no reason to
 *    pay for a larger one);
 * 2. λ among ×½, ×1, ×2 of that default at the chosen preprocessing and rank (best score).
 * The chosen model is refit on the whole training file. `trainSeconds` is the final fit only;
 * the selection time is `selectSeconds` and every validation score is listed in `validation`.
 *
 * **`--loss squared|logistic|squared-hinge`** adds the LEML paper's Table 2 (full labels, one
 * loss column, k/L = 0.2/0.4/0.6 or `--fractions`) as `table2`: for each k/L our test P@3 and
 * instance AUC next to the paper's (`paper`), plus P@1/P@5. The paper does not say how it set λ.
 * - `--loss squared` runs exactly the experiment above (same selection, same final model, the
 *   same `metrics`, bit for bit) and then refits the chosen preprocessing and λ at each k/L with
 *   `trainLemlBatch` (a k/L equal to the chosen rank reuses the final model).
 * - `--loss logistic` and `--loss squared-hinge` (alias `sqhinge`) train with
 *   `trainLemlLosses` (`src/models/leml/batch_losses.ts`: alternating majorise-minimise steps,
 *   `--mm-steps` per W and H step, `--cg` CG iterations per W solve; the paper used TRON, see
 *   `docs/deviations.md`). Rows are unit-L2 unless `--l2 false`; λ is `--lambda`, else chosen
 *   among {¼, 1, 4}·(1 unit-L2, 10 raw) on the validation split at the smallest k/L (best score).
 *   `metrics`, `rank` and `modelBytes` are those of the largest k/L; the decision threshold is 0.
 *
 * A flag the chosen protocol does not read is refused: `--fractions` and `--mm-steps` without
 * `--loss`, `--mm-steps` with `--loss squared`, `--rank` with the other two losses; so is a
 * `--rank` above the number of labels L (the rank of W·Hᵀ is at most L).
 *
 * @module
 */
import type { Experiment, ExperimentFlags } from "../types.ts";
import { loadTrainTest, PROPENSITY_FLAGS, timeSeconds, validationSplit } from "../harness.ts";
import { LemlBatch } from "../../../src/models/leml/mod.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";
import { containsSorted } from "../../../src/metrics/relevance.ts";
import { rowView } from "../../../src/data/dataset.ts";
import type { Dataset } from "../../../src/data/dataset.ts";
import type { Estimator } from "../../../src/models/estimator.ts";
import { trainLemlLosses } from "../../../src/models/leml/batch_losses.ts";
import type { LemlLoss } from "../../../src/models/leml/loss.ts";
import { preprocessRows } from "../../../src/data/preprocess.ts";
import type { Progress } from "../../../src/progress/mod.ts";

/**
 * Mean and standard error over the rows of `valid` of (P@1 + P@3 + P@5)/3, in percent (the
 * selection score of the LEML experiments).
 *
 * @example
 * ```ts
 * import { validationScore } from "./leml.ts";
 * const model = { predictTopK: () => ({ labels: Int32Array.of(0), scores: Float32Array.of(1) }) };
 * const valid = {
 *   name: "v", numFeatures: 1, numLabels: 1,
 *   x: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) },
 * };
 * console.log(validationScore(model, valid).mean.toFixed(2)); // "51.11": (1 + 1/3 + 1/5)/3
 * ```
 */
export function validationScore(
  m: Pick<Estimator, "predictTopK">,
  valid: Dataset,
): { mean: number; se: number } {
  const n = valid.x.numRows;
  let sum = 0, sq = 0;
  for (let i = 0; i < n; i++) {
    const labels = valid.y.indices.subarray(valid.y.indptr[i], valid.y.indptr[i + 1]);
    const top = m.predictTopK(rowView(valid.x, i), 5).labels;
    // hits within the first 1, 3 and 5 ranks; a list shorter than 5 counts the rest as misses
    let h1 = 0, h3 = 0, h5 = 0;
    for (let r = 0; r < top.length && r < 5; r++) {
      if (!containsSorted(labels, top[r])) continue;
      if (r < 1) h1++;
      if (r < 3) h3++;
      h5++;
    }
    const v = (h1 + h3 / 3 + h5 / 5) * (100 / 3);
    sum += v;
    sq += v * v;
  }
  const mean = sum / n;
  return { mean, se: Math.sqrt(Math.max(0, sq / n - mean * mean) / Math.max(1, n - 1)) };
}

/** A numeric flag, or undefined when absent. */
function flagNumber(flags: Record<string, string | boolean>, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || !Number.isFinite(n)) {
    throw new TypeError(`leml: --${name} must be a number, got '${v}'`);
  }
  return n;
}

/** The LEML paper's Table 2 (leml-icml2014.txt): test P@3 (%) and average AUC at k/L = 0.2/0.4/0.6. */
const TABLE2: Record<string, Record<LemlLoss, { "P@3": number[]; instanceAUC: number[] }>> = {
  bibtex: {
    squared: { "P@3": [34.16, 36.53, 38.0], instanceAUC: [0.891, 0.9015, 0.904] },
    logistic: { "P@3": [25.65, 28.2, 28.68], instanceAUC: [0.8677, 0.8809, 0.8861] },
    sqhinge: { "P@3": [27.37, 24.81, 23.26], instanceAUC: [0.8541, 0.8467, 0.8505] },
  },
  delicious: {
    squared: { "P@3": [61.2, 61.23, 61.15], instanceAUC: [0.8854, 0.8827, 0.8814] },
    logistic: { "P@3": [53.68, 49.13, 46.76], instanceAUC: [0.8588, 0.8534, 0.8517] },
    sqhinge: { "P@3": [57.27, 52.95, 49.58], instanceAUC: [0.8894, 0.8868, 0.8852] },
  },
};

/** The paper's Table 2 cell (P@3 and AUC) of a data set, loss and k/L, or null. */
function paperCell(
  dataset: string,
  loss: LemlLoss,
  fraction: number,
): { "P@3": number; instanceAUC: number } | null {
  const col = TABLE2[dataset]?.[loss];
  const t = [0.2, 0.4, 0.6].findIndex((f) => Math.abs(f - fraction) < 1e-9);
  return col && t >= 0 ? { "P@3": col["P@3"][t], instanceAUC: col.instanceAUC[t] } : null;
}

/** Parses `--loss` (squared, logistic, squared-hinge or sqhinge), undefined when absent. */
function parseLossFlag(v: string | boolean | undefined): LemlLoss | undefined {
  if (v === undefined) return undefined;
  if (v === "squared" || v === "logistic" || v === "sqhinge") return v;
  if (v === "squared-hinge") return "sqhinge";
  throw new TypeError(`leml: --loss must be squared, logistic or squared-hinge, got '${v}'`);
}

/**
 * Parses `--fractions` (comma-separated k/L values in (0, 1]), in increasing order without
 * repeats (the smallest is where λ is chosen, the largest gives `metrics`); default 0.2,0.4,0.6.
 */
function parseFractions(v: string | boolean | undefined): number[] {
  if (v === undefined) return [0.2, 0.4, 0.6];
  const out = String(v).split(",").map(Number);
  if (out.length === 0 || !out.every((f) => f > 0 && f <= 1)) {
    throw new TypeError(`leml: --fractions must be comma-separated numbers in (0, 1], got '${v}'`);
  }
  return [...new Set(out)].sort((a, b) => a - b);
}

/** One row of `table2`: our test figures at a k/L next to the paper's. */
interface Table2Row {
  rank: number;
  "P@1": number;
  "P@3": number;
  "P@5": number;
  instanceAUC: number;
  trainSeconds: number;
  paper: { "P@3": number; instanceAUC: number } | null;
}

function table2Row(
  dataset: string,
  loss: LemlLoss,
  fraction: number,
  rank: number,
  metrics: Record<string, number>,
  seconds: number,
): Table2Row {
  return {
    rank,
    "P@1": metrics["P@1"],
    "P@3": metrics["P@3"],
    "P@5": metrics["P@5"],
    instanceAUC: metrics.instanceAUC,
    trainSeconds: seconds,
    paper: paperCell(dataset, loss, fraction),
  };
}

/** A LEML estimator holding factors trained by {@linkcode trainLemlLosses}. */
function lossModel(
  x: Dataset["x"],
  y: Dataset["y"],
  o: {
    rank: number;
    lambda: number;
    loss: LemlLoss;
    l2: boolean;
    iterations: number;
    mmSteps: number;
    cgIterations: number;
    seed: number;
    progress?: Progress;
  },
): LemlBatch {
  const m = new LemlBatch({ rank: o.rank, lambda: o.lambda, loss: o.loss, l2Normalize: o.l2 });
  o.progress?.start(o.iterations, `leml ${o.loss} k=${o.rank}`);
  const f = trainLemlLosses(o.l2 ? preprocessRows(x, { l2Normalize: true }) : x, y, {
    rank: o.rank,
    loss: o.loss,
    lambda: o.lambda,
    iterations: o.iterations,
    mmSteps: o.mmSteps,
    cgIterations: o.cgIterations,
    seed: o.seed,
    onIteration: () => o.progress?.tick(1),
  });
  o.progress?.done();
  m.w.load(Float32Array.from(f.W));
  m.h.load(Float32Array.from(f.H));
  m.bias.load(Float32Array.from(f.bias));
  return m;
}

const leml: Experiment = async (ctx) => {
  const loss = parseLossFlag(ctx.flags.loss);
  // a flag the chosen protocol does not read would be printed as if it had been used (or not
  // at all): the ranks of the logistic and squared-hinge tables are --fractions·L, the k/L
  // table and MM steps only exist with --loss
  const unused = loss === undefined
    ? ["fractions", "mm-steps"]
    : loss === "squared"
    ? ["mm-steps"]
    : ["rank"];
  for (const name of unused) {
    if (ctx.flags[name] === undefined) continue;
    const mode = loss === undefined ? "without --loss" : `with --loss ${ctx.flags.loss}`;
    const why = name === "rank"
      ? " (its ranks are --fractions times the number of labels)"
      : name === "mm-steps"
      ? " (MM steps are the logistic and squared-hinge solver's)"
      : " (the k/L table comes with --loss)";
    throw new TypeError(`leml: --${name} does not apply ${mode}${why}`);
  }
  const fractions = parseFractions(ctx.flags.fractions);
  if (loss !== undefined && loss !== "squared") {
    return await lossTable(ctx, loss, fractions);
  }
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const L = train.numLabels;
  const iterations = flagNumber(ctx.flags, "iterations") ?? 5;
  const cgIterations = flagNumber(ctx.flags, "cg") ?? 10;
  if (
    !Number.isInteger(iterations) || iterations < 1 || !Number.isInteger(cgIterations) ||
    cgIterations < 1
  ) {
    throw new TypeError(
      `leml: --iterations and --cg must be positive integers, got ${iterations} and ${cgIterations}`,
    );
  }
  const l2Flag = ctx.flags.l2;
  if (l2Flag !== undefined && l2Flag !== "true" && l2Flag !== "false" && l2Flag !== true) {
    throw new TypeError(`leml: --l2 must be true or false, got '${l2Flag}'`);
  }
  const fixedL2 = l2Flag === undefined ? undefined : l2Flag !== "false";
  const fixedRank = flagNumber(ctx.flags, "rank");
  const fixedLambda = flagNumber(ctx.flags, "lambda");
  if (fixedRank !== undefined && !(Number.isInteger(fixedRank) && fixedRank >= 1)) {
    throw new TypeError(`leml: --rank must be a positive integer`);
  }
  // W·Hᵀ has rank at most L: a larger rank only adds work (rank 1000 on the 6 labels of
  // emotions ran for minutes where the selection's ranks take a second)
  if (fixedRank !== undefined && fixedRank > L) {
    throw new RangeError(
      `leml: --rank ${fixedRank} is above the ${L} labels of --dataset ${ctx.dataset} ` +
        `(the rank of W·Hᵀ is at most the number of labels; the selection tries 0.1–0.6·L)`,
    );
  }
  if (fixedLambda !== undefined && !(fixedLambda >= 0)) {
    throw new TypeError(`leml: --lambda must be >= 0`);
  }
  const base = { iterations, cgIterations, seed: ctx.seed, loss: "squared" as const };
  const defaultLambda = (l2: boolean) => (l2 ? 1 : 10);

  const validation: Record<string, { score: number; se: number }> = {};
  const t0 = performance.now();
  let l2 = fixedL2 ?? false;
  let rank = fixedRank ?? Math.max(1, Math.round(0.6 * L));
  let lambda = fixedLambda ?? defaultLambda(l2);
  if (fixedL2 === undefined || fixedRank === undefined || fixedLambda === undefined) {
    const { fit, valid } = validationSplit(train, 0.2, ctx.seed);
    // round 1: preprocessing × rank at the preprocessing's default λ (or the given λ)
    const l2s = fixedL2 === undefined ? [false, true] : [fixedL2];
    const ranks = fixedRank === undefined
      ? [0.1, 0.2, 0.4, 0.6].map((f) => Math.max(1, Math.round(f * L)))
      : [fixedRank];
    // progress: one tick per ALS iteration of every selection fit (the second look at the
    // ranks reuses round 1's fits; round 2 fits two λ unless --lambda is given)
    let fits = 0;
    ctx.progress.start(
      (l2s.length * new Set(ranks).size + (fixedLambda === undefined ? 2 : 0)) * iterations,
      "leml: select preprocessing, rank, λ (ALS iterations)",
    );
    const score = (l2v: boolean, r: number, lam: number): { score: number; se: number } => {
      const key = `${l2v ? "l2" : "raw"},k=${r},lambda=${lam}`;
      if (validation[key] === undefined) {
        fits++;
        const m = LemlBatch.fit(fit.x, fit.y, {
          ...base,
          rank: r,
          lambda: lam,
          l2Normalize: l2v,
          onIteration: () => ctx.progress.tick(1, { fit: fits, rank: r }),
        });
        const { mean, se } = validationScore(m, valid);
        validation[key] = { score: mean, se };
      }
      return validation[key];
    };
    let best = { score: -1, se: 0 };
    for (const l2v of l2s) {
      for (const r of ranks) {
        const v = score(l2v, r, fixedLambda ?? defaultLambda(l2v));
        if (v.score > best.score) [best, l2, rank] = [v, l2v, r];
      }
    }
    lambda = fixedLambda ?? defaultLambda(l2);
    for (const r of ranks) { // ranks increase: the first within one standard error wins
      const v = score(l2, r, lambda);
      if (v.score >= best.score - best.se) {
        [best, rank] = [v, r];
        break;
      }
    }
    // round 2: λ at the chosen preprocessing and rank
    if (fixedLambda === undefined) {
      for (const lam of [lambda / 2, lambda * 2]) {
        const v = score(l2, rank, lam);
        if (v.score > best.score) [best, lambda] = [v, lam];
      }
    }
    ctx.progress.done();
  }
  const selectSeconds = (performance.now() - t0) / 1000;
  ctx.progress.start(iterations, `leml: final fit k=${rank} λ=${lambda} (ALS iterations)`);
  const { result: model, seconds } = await timeSeconds(() =>
    LemlBatch.fit(train.x, train.y, {
      ...base,
      rank,
      lambda,
      l2Normalize: l2,
      onIteration: () => ctx.progress.tick(1),
    })
  );
  ctx.progress.done();
  const ev = evaluateModel(model, test, { propensities, progress: ctx.progress });
  const file = model.toModelFile({ labelNames, meta: { dataset: ctx.dataset } });
  let table2: Record<string, Table2Row> | undefined;
  if (loss === "squared") {
    table2 = {};
    for (const frac of fractions) {
      const r = Math.max(1, Math.round(frac * L));
      const fitted = r === rank
        ? { result: model, seconds }
        : await timeSeconds(() =>
          LemlBatch.fit(train.x, train.y, { ...base, rank: r, lambda, l2Normalize: l2 })
        );
      const m = r === rank
        ? ev
        : evaluateModel(fitted.result, test, { propensities, macroAuc: false });
      table2[`k/L=${frac}`] = table2Row(ctx.dataset, "squared", frac, r, m.metrics, fitted.seconds);
    }
  }
  return {
    metrics: ev.metrics,
    stdErr: ev.stdErr,
    trainSeconds: seconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: {
      ...(table2 ? { loss: "squared", table2 } : {}),
      rank,
      lambda,
      l2Normalize: l2,
      iterations,
      cgIterations,
      threshold: 0.5,
      selectSeconds,
      validation,
      validationMetric:
        "mean over rows of (P@1 + P@3 + P@5)/3 (score) and its standard error (se), on a 20% split of the training file",
    },
  };
};

/** `--loss logistic|squared-hinge`: the paper's Table 2 column with {@linkcode trainLemlLosses}. */
async function lossTable(
  ctx: Parameters<Experiment>[0],
  loss: LemlLoss,
  fractions: number[],
): ReturnType<Experiment> {
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const L = train.numLabels;
  const iterations = flagNumber(ctx.flags, "iterations") ?? 5;
  const mmSteps = flagNumber(ctx.flags, "mm-steps") ?? 2;
  const cgIterations = flagNumber(ctx.flags, "cg") ?? 10;
  for (
    const [name, v] of [["iterations", iterations], ["mm-steps", mmSteps], ["cg", cgIterations]]
  ) {
    if (!Number.isInteger(v) || (v as number) < 1) {
      throw new TypeError(`leml: --${name} must be a positive integer, got ${v}`);
    }
  }
  const l2Flag = ctx.flags.l2;
  if (l2Flag !== undefined && l2Flag !== "true" && l2Flag !== "false" && l2Flag !== true) {
    throw new TypeError(`leml: --l2 must be true or false, got '${l2Flag}'`);
  }
  const l2 = l2Flag === undefined ? true : l2Flag !== "false";
  const fixedLambda = flagNumber(ctx.flags, "lambda");
  if (fixedLambda !== undefined && !(fixedLambda >= 0)) {
    throw new TypeError(`leml: --lambda must be >= 0`);
  }
  const common = { loss, l2, iterations, mmSteps, cgIterations, seed: ctx.seed };
  const ranks = fractions.map((f) => Math.max(1, Math.round(f * L)));
  const validation: Record<string, { score: number; se: number }> = {};
  const t0 = performance.now();
  let lambda = fixedLambda ?? (l2 ? 1 : 10);
  if (fixedLambda === undefined) {
    const { fit, valid } = validationSplit(train, 0.2, ctx.seed);
    let best = -Infinity;
    const base = lambda;
    ctx.progress.start(3, `leml ${loss}: select λ (fits)`);
    for (const lam of [base / 4, base, base * 4]) {
      const m = lossModel(fit.x, fit.y, { ...common, rank: ranks[0], lambda: lam });
      ctx.progress.tick(1);
      const v = validationScore(m, valid);
      validation[`${l2 ? "l2" : "raw"},k=${ranks[0]},lambda=${lam}`] = { score: v.mean, se: v.se };
      if (v.mean > best) [best, lambda] = [v.mean, lam];
    }
    ctx.progress.done();
  }
  const selectSeconds = (performance.now() - t0) / 1000;
  const table2: Record<string, Table2Row> = {};
  let last: { model: LemlBatch; seconds: number; ev: ReturnType<typeof evaluateModel> } | undefined;
  for (let t = 0; t < fractions.length; t++) {
    const { result: model, seconds } = await timeSeconds(() =>
      lossModel(train.x, train.y, { ...common, rank: ranks[t], lambda, progress: ctx.progress })
    );
    const ev = evaluateModel(model, test, { propensities, progress: ctx.progress });
    table2[`k/L=${fractions[t]}`] = table2Row(
      ctx.dataset,
      loss,
      fractions[t],
      ranks[t],
      ev.metrics,
      seconds,
    );
    last = { model, seconds, ev };
  }
  const file = last!.model.toModelFile({ labelNames, meta: { dataset: ctx.dataset } });
  return {
    metrics: last!.ev.metrics,
    stdErr: last!.ev.stdErr,
    trainSeconds: last!.seconds,
    predictMsPerRow: last!.ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: {
      loss: loss === "sqhinge" ? "squared-hinge" : loss,
      table2,
      rank: ranks[ranks.length - 1],
      lambda,
      l2Normalize: l2,
      iterations,
      mmSteps,
      cgIterations,
      threshold: 0,
      solver:
        "alternating majorise-minimise (src/models/leml/batch_losses.ts); the paper used TRON",
      selectSeconds,
      validation,
      validationMetric:
        "mean over rows of (P@1 + P@3 + P@5)/3 (score) and its standard error (se), on a 20% split of the training file",
    },
  };
}

/**
 * The flags `repro leml` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner refuses
 * any other); it reads `<dataset>.test.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./leml.ts";
 * console.log(FLAGS.flags.includes("loss")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: [
    "loss",
    "fractions",
    "iterations",
    "cg",
    "l2",
    "rank",
    "lambda",
    "mm-steps",
    ...PROPENSITY_FLAGS,
  ],
  test: true,
};

export default leml;
