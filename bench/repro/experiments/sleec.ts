/**
 * `deno task repro sleec --dataset bibtex|delicious [--k N] [--neighbours N] [--learners T]
 * [--clusters C] [--rank R] [--lambda L] [--mu M] [--weighted true|false] [--splits S]`: batch
 * SLEEC (Algorithm 1, one learner per clustering seed; Algorithm 2 for prediction).
 *
 * As in the paper, the k of the kNN prediction and the number n̄ of SVP neighbours are
 * validated, and so is the number of clusters C between 1 and the paper's ⌊n/6000⌋ (n = rows of
 * the training file) when they differ, and whether neighbours are weighted by their similarity
 * or counted (the paper's "empirical label distribution"). Unless `--k`/`--neighbours`/
 * `--clusters`/`--weighted` fix them (a fixed `--k` or `--neighbours` refuses its grid flag),
 * the trainer is fitted on a seeded 80% of the TRAINING file for each C and each n̄ in
 * `--neighbours-grid` (default 100,250,500), and every k in `--k-grid`
 * (default 5,10,15,20,30,50,70,100) with both weightings is scored on the other 20% by the mean
 * of P@1, P@3 and P@5. This is repeated on `--splits` (default 3) independent seeded splits and
 * the scores are averaged (one 20% split of bibtex has ~980 rows, so its P@1 has a standard
 * error of ~1.5 points, larger than the differences between settings); ties go to the earlier
 * grid entry. The model is then refitted on the whole training file; the test file is read only
 * for the final evaluation. Embedding dimension 100, one learner unless flagged.
 *
 * The flags are checked before any work: a value the trainer refuses is an error naming the flag.
 *
 * `trainSeconds` is the final fit; the selection time is `selectSeconds`. `modelBytes` is the
 * `knn-embedding` model file (float32 points); `modelBytesI8` the same with 8-bit points.
 *
 * @module
 */
import type { Experiment, ExperimentFlags } from "../types.ts";
import {
  intList,
  loadTrainTest,
  namingFlags,
  numberFlag,
  positiveIntFlag,
  PROPENSITY_FLAGS,
  timeSeconds,
  validationSplit,
} from "../harness.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";
import { type SleecConfig, trainSleec } from "../../../src/models/sleec/mod.ts";
import { resolveConfig } from "../../../src/models/sleec/config.ts";

/** The flag each SLEEC option comes from. */
const OPTION_FLAGS = {
  numLearners: "learners",
  numClusters: "clusters",
  rank: "rank",
  lambda: "lambda",
  mu: "mu",
} as const;

const sleec: Experiment = async (ctx) => {
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const f = ctx.flags;
  const base: Partial<SleecConfig> = {
    seed: ctx.seed,
    numLearners: numberFlag(f, "learners") ?? 1,
  };
  const paperClusters = Math.max(1, Math.floor(train.x.numRows / 6000));
  const fixedC = positiveIntFlag(f, "clusters");
  const cGrid = fixedC !== undefined ? [fixedC] : [...new Set([1, paperClusters])];
  for (const [flag, key] of [["rank", "rank"], ["lambda", "lambda"], ["mu", "mu"]] as const) {
    const v = numberFlag(f, flag);
    if (v !== undefined) base[key] = v;
  }
  const fixedK = positiveIntFlag(f, "k");
  const fixedN = positiveIntFlag(f, "neighbours");
  for (const [one, grid] of [["k", "k-grid"], ["neighbours", "neighbours-grid"]]) {
    if (f[one] !== undefined && f[grid] !== undefined) {
      throw new TypeError(`sleec: give --${one} or --${grid}, not both`);
    }
  }
  const kGrid = fixedK !== undefined
    ? [fixedK]
    : intList(f["k-grid"], [5, 10, 15, 20, 30, 50, 70, 100], "k-grid");
  const nGrid = fixedN !== undefined
    ? [fixedN]
    : intList(f["neighbours-grid"], [100, 250, 500], "neighbours-grid");
  // a bare `--weighted` is true (it was refused as "must be true or false, got 'true'")
  const wFlag = f["weighted"] === true ? "true" : f["weighted"];
  if (wFlag !== undefined && wFlag !== "true" && wFlag !== "false") {
    throw new TypeError(`--weighted must be true or false, got '${wFlag}'`);
  }
  const wGrid = wFlag !== undefined ? [wFlag === "true"] : [true, false];
  const splits = numberFlag(f, "splits") ?? 3;
  if (!Number.isInteger(splits) || splits < 1) {
    throw new TypeError(`--splits must be a positive integer, got ${splits}`);
  }
  // the trainer's checks, now and naming the flags (they came at the first fit, as options)
  // (the largest of each grid: the option checks are ranges)
  const optionFlags = {
    ...OPTION_FLAGS,
    k: f.k !== undefined ? "k" : "k-grid",
    svpNeighbours: f.neighbours !== undefined ? "neighbours" : "neighbours-grid",
  };
  namingFlags(f, optionFlags, () =>
    resolveConfig({
      ...base,
      numClusters: Math.max(...cGrid),
      svpNeighbours: Math.max(...nGrid),
      k: Math.max(...kGrid),
    }));
  // summed validation score of every (C, n̄, k, weighting), in grid order
  const sums = new Map<string, { score: number; c: number; n: number; k: number; w: boolean }>();
  const t0 = performance.now();
  if (kGrid.length > 1 || nGrid.length > 1 || cGrid.length > 1 || wGrid.length > 1) {
    // progress: one tick per fit on a split and per scored (k, weighting)
    ctx.progress.start(
      splits * cGrid.length * nGrid.length * (1 + kGrid.length * wGrid.length),
      "sleec: select C, n̄, k, weighting (fits + scorings)",
    );
    for (let s = 0; s < splits; s++) {
      const { fit, valid } = validationSplit(train, 0.2, ctx.seed + s);
      for (const c of cGrid) {
        for (const n of nGrid) {
          const m = trainSleec(fit.x, fit.y, {
            ...base,
            seed: ctx.seed + s,
            numClusters: c,
            svpNeighbours: n,
          }, (e) => ctx.progress.tick(0, { split: s + 1, C: c, n, rows: e.rows }));
          ctx.progress.tick(1, { split: s + 1, C: c, n });
          for (const kk of kGrid) {
            for (const w of wGrid) {
              const r = evaluateModel(m.withPrediction(kk, w), valid, {
                propensities,
                macroAuc: false,
              });
              const score = (r.metrics["P@1"] + r.metrics["P@3"] + r.metrics["P@5"]) / 3;
              const key = `C=${c},n=${n},k=${kk},${w ? "weighted" : "counts"}`;
              const e = sums.get(key) ?? { score: 0, c, n, k: kk, w };
              e.score += score;
              sums.set(key, e);
              ctx.progress.tick(1, { split: s + 1, C: c, n });
            }
          }
        }
      }
    }
    ctx.progress.done();
  }
  const validation: Record<string, number> = {};
  let k = kGrid[0], neighbours = nGrid[0], clusters = cGrid[0], weighted = wGrid[0];
  let best = -Infinity;
  for (const [key, e] of sums) {
    validation[key] = Math.round((e.score / splits) * 100) / 100;
    if (e.score > best) {
      best = e.score;
      k = e.k;
      neighbours = e.n;
      clusters = e.c;
      weighted = e.w;
    }
  }
  const selectSeconds = (performance.now() - t0) / 1000;
  const cfg: Partial<SleecConfig> = {
    ...base,
    numClusters: clusters,
    svpNeighbours: neighbours,
    k,
    weighted,
  };
  ctx.progress.start(undefined, "train clusters");
  const { result: model, seconds } = await timeSeconds(() =>
    trainSleec(train.x, train.y, cfg, (e) => ctx.progress.tick(1, { rows: e.rows }))
  );
  ctx.progress.done();
  const ev = evaluateModel(model, test, { propensities, progress: ctx.progress });
  const meta = { dataset: ctx.dataset };
  const file = model.toModelFile({ labelNames, meta });
  const fileI8 = model.toModelFile({ labelNames, meta, quantize: "i8" });
  return {
    metrics: ev.metrics,
    stdErr: ev.stdErr,
    trainSeconds: seconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: {
      k,
      weighted,
      svpNeighbours: neighbours,
      rank: model.knn.rank,
      numLearners: model.knn.numLearners,
      numClusters: clusters,
      paperClusters,
      modelBytesI8: fileI8.byteLength,
      selectSeconds,
      ...(Object.keys(validation).length > 0
        ? {
          validationMeanP135: validation,
          selection: `mean of P@1,P@3,P@5 on 20% of train, averaged over ${splits} seeded splits`,
        }
        : {}),
    },
  };
};

/**
 * The flags `repro sleec` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner
 * refuses any other); it reads `<dataset>.test.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./sleec.ts";
 * console.log(FLAGS.flags.includes("learners")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: [
    "learners",
    "clusters",
    "rank",
    "lambda",
    "mu",
    "k",
    "neighbours",
    "k-grid",
    "neighbours-grid",
    "weighted",
    "splits",
    ...PROPENSITY_FLAGS,
  ],
  test: true,
};

export default sleec;
