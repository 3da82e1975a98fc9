/**
 * `deno task repro sleec-stream --dataset bibtex|delicious [--k N] [--neighbours N] [--lr A]
 * [--reservoir R] [--refresh-every R] [--first-refresh F] [--clusters C] [--learners T]
 * [--batch B]`: streaming SLEEC, one pass over the training file in file order.
 *
 * Test-then-train: every minibatch (default 32 rows) is scored (top 1) before the estimator
 * learns it, giving `prequentialP@1`. The estimator refreshes its SVP embedding after
 * `--first-refresh` rows (default 64), then 2×, 4×, … up to every `--refresh-every` rows
 * (default 2000), and once more on request at the end of the stream before the test file is
 * scored (`finalRefresh`; the test P@1 without it is reported as `P@1BeforeFinalRefresh`).
 * Memory is bounded by `--reservoir` rows per cluster (default 6000).
 *
 * Only k is validated (unless `--k` fixes it; not with `--k-grid`): the same one-pass stream is
 * run on a seeded 80% of the TRAINING file (in file order) and every k in `--k-grid` (default
 * 5,10,15,20,30,50,70,100) is scored on the other 20% by the mean of P@1, P@3 and P@5. The other
 * hyper-parameters are the estimator's defaults (n̄ = 100, one cluster, one learner) unless
 * flagged.
 *
 * The flags are checked before any work: a value the estimator refuses is an error naming the flag.
 *
 * `trainSeconds` is the whole pass (learning, refreshes and the prequential predictions) plus
 * the final refresh.
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
  prequential,
  PROPENSITY_FLAGS,
  timeSeconds,
  validationSplit,
} from "../harness.ts";
import { batchesOf } from "../../../src/data/dataset.ts";
import type { Dataset } from "../../../src/data/dataset.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";
import { SleecModel, SleecStream, type SleecStreamOptions } from "../../../src/models/sleec/mod.ts";
import { resolveConfig } from "../../../src/models/sleec/config.ts";

const sleecStream: Experiment = async (ctx) => {
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const f = ctx.flags;
  const opts: SleecStreamOptions = {
    seed: ctx.seed,
    numFeatures: train.numFeatures,
    numLabels: train.numLabels,
  };
  const flagKeys = [
    ["neighbours", "svpNeighbours"],
    ["lr", "learningRate"],
    ["reservoir", "reservoirSize"],
    ["refresh-every", "refreshEvery"],
    ["first-refresh", "firstRefresh"],
    ["clusters", "numClusters"],
    ["learners", "numLearners"],
    ["rank", "rank"],
  ] as const;
  for (const [flag, key] of flagKeys) {
    const v = numberFlag(f, flag);
    if (v !== undefined) opts[key] = v;
  }
  const batch = positiveIntFlag(f, "batch") ?? 32;
  const stream = (ds: Dataset, k: number) => {
    const m = new SleecStream({ ...opts, k });
    const pre = prequential(m, batchesOf(ds, batch), {
      progress: ctx.progress,
      totalRows: ds.x.numRows,
    });
    return { m, pre };
  };

  if (f.k !== undefined && f["k-grid"] !== undefined) {
    throw new TypeError("sleec-stream: give --k or --k-grid, not both");
  }
  const fixedK = positiveIntFlag(f, "k");
  const kGrid = fixedK !== undefined
    ? [fixedK]
    : intList(f["k-grid"], [5, 10, 15, 20, 30, 50, 70, 100], "k-grid");
  // the estimator's checks, now and naming the flags (they came at the first fit, as options)
  const optionFlags = Object.fromEntries(flagKeys.map(([flag, key]) => [key, flag]));
  const kFlag = f.k !== undefined ? "k" : "k-grid";
  namingFlags(
    f,
    { ...optionFlags, k: kFlag },
    () => resolveConfig({ ...opts, k: Math.max(...kGrid) }),
  );
  const validation: Record<string, number> = {};
  let k = kGrid[0];
  const t0 = performance.now();
  if (kGrid.length > 1) {
    const { fit, valid } = validationSplit(train, 0.2, ctx.seed);
    const { m } = stream(fit, kGrid[0]);
    m.refresh();
    const knn = new SleecModel(m.knnModel());
    let best = -Infinity;
    for (const kk of kGrid) {
      const r = evaluateModel(knn.withPrediction(kk), valid, { propensities, macroAuc: false });
      const score = (r.metrics["P@1"] + r.metrics["P@3"] + r.metrics["P@5"]) / 3;
      validation[`k=${kk}`] = Math.round(score * 100) / 100;
      if (score > best) {
        best = score;
        k = kk;
      }
    }
  }
  const selectSeconds = (performance.now() - t0) / 1000;

  const { result, seconds } = await timeSeconds(() => stream(train, k));
  const { m, pre } = result;
  const beforeFinal = evaluateModel(m, test, { propensities, macroAuc: false }).metrics["P@1"];
  const { seconds: finalSeconds } = await timeSeconds(() => m.refresh());
  const ev = evaluateModel(m, test, { propensities, progress: ctx.progress });
  const file = m.toModelFile({ labelNames, meta: { dataset: ctx.dataset } });
  return {
    metrics: { ...ev.metrics, "prequentialP@1": pre.p1, "P@1BeforeFinalRefresh": beforeFinal },
    stdErr: ev.stdErr,
    trainSeconds: seconds + finalSeconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: {
      k,
      svpNeighbours: m.config.svpNeighbours,
      rank: m.config.rank,
      learningRate: m.config.learningRate,
      reservoirSize: m.config.reservoirSize,
      refreshEvery: m.config.refreshEvery,
      firstRefresh: m.config.firstRefresh,
      numClusters: m.config.numClusters,
      numLearners: m.config.numLearners,
      batch,
      refreshes: m.refreshes,
      storedRows: m.storedRows,
      finalRefresh: true,
      finalRefreshSeconds: finalSeconds,
      selectSeconds,
      ...(Object.keys(validation).length > 0
        ? { validationMeanP135: validation, selection: "mean of P@1,P@3,P@5 on 20% of train" }
        : {}),
    },
  };
};

/**
 * The flags `repro sleec-stream` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner
 * refuses any other); it reads `<dataset>.test.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./sleec-stream.ts";
 * console.log(FLAGS.flags.includes("neighbours")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: [
    "neighbours",
    "lr",
    "reservoir",
    "refresh-every",
    "first-refresh",
    "clusters",
    "learners",
    "rank",
    "batch",
    "k",
    "k-grid",
    ...PROPENSITY_FLAGS,
  ],
  test: true,
};

export default sleecStream;
