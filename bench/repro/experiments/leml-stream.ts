/**
 * `deno task repro leml-stream --dataset bibtex|delicious [--rank K] [--lr X] [--lrH X]
 * [--batch B] [--l2 true|false] [--lambda 1e-4] [--replay-steps S] [--replay R]
 * [--replay-ratio Q] [--update full|local]`: ONE pass of the streaming LEML estimator (Adam, squared loss, Gram
 * identity, optional bounded replay) over the training file in file order, test-then-train
 * (`prequentialP@1`: every row is scored before the model learns its minibatch), then the test
 * metrics.
 *
 * Settings not given on the command line are chosen on a seeded 20% validation split of the
 * TRAINING file (one pass over the other 80% in file order, scored on the 20%; the test file is
 * only used for the final evaluation), with the validation score of `leml.ts` (mean over rows of
 * (P@1 + P@3 + P@5)/3 and its standard error), in three rounds:
 * 1. row preprocessing (raw or unit-L2) × rank among {32, 64, 96} (at most 0.6·L, as for the batch
 *    model; 96 at most because a minibatch costs O(L·k²) for the Gram terms) at lr 0.005,
 *    lrH 0.003, minibatch 16; the best preprocessing wins and its smallest rank within one
 *    standard error of the best (as in `leml.ts`);
 * 2. Adam's learning rates lr (W) ∈ {0.002, 0.005, 0.01, 0.02} × lrH (H, bias) ∈ {0.0003, 0.001,
 *    0.003, 0.01} × minibatch ∈ {16, 32} at that rank;
 * 3. experience replay (a seeded reservoir of at most R = 2000 earlier rows, Algorithm R; every
 *    minibatch learned in S optimiser steps, each on the new rows plus Q = 1 times as many rows
 *    drawn from the reservoir): S ∈ {2, 4} × lr ∈ {0.002, 0.005, 0.01}, against the best
 *    setting without replay (S = 1). The cheapest setting (fewest rows processed per new row,
 *    S·(1 + Q)) whose score is within one standard error of the best wins (the
 *    one-standard-error rule, as for the rank): replay multiplies the learning time by about
 *    S·(1 + Q), so it must earn its place on validation. Memory stays bounded by R rows whatever
 *    the length of the stream (bench/leml_memory.ts).
 * `--update local` runs the whole protocol with the local update mode (a step's cost does not
 * grow with L: the touched label rows only, the all-label Gram term from a cached HᵀH, and a
 * periodic closed-form refresh on a reservoir of R rows, see src/models/leml/stream.ts): without
 * replay steps the reservoir still keeps R rows, for the refresh only (replay ratio 0). The JSON
 * then reports `refresh` (count and milliseconds of the final pass's refreshes).
 * The flags are checked before any work: a value the estimator refuses is an error naming the flag,
 * and so is `--replay-ratio` (or, but with `--update local`, `--replay`) with `--replay-steps 1`,
 * which replays nothing.
 * `trainSeconds` is the time spent in `learnMany` during the final pass (the test-then-train
 * predictions are not counted; `passSeconds` includes them); `selectSeconds` the selection.
 *
 * @module
 */
import type { Experiment, ExperimentFlags } from "../types.ts";
import {
  loadTrainTest,
  namingFlags,
  prequential,
  PROPENSITY_FLAGS,
  validationSplit,
} from "../harness.ts";
import { batchesOf, type Dataset } from "../../../src/data/dataset.ts";
import type { Batch } from "../../../src/data/types.ts";
import type { Estimator } from "../../../src/models/estimator.ts";
import { LemlStream, type LemlStreamOptions } from "../../../src/models/leml/mod.ts";
import { resolveLemlStreamOptions } from "../../../src/models/leml/settings.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";
import { validationScore } from "./leml.ts";

/** The flag each estimator option comes from. */
const OPTION_FLAGS = {
  rank: "rank",
  lr: "lr",
  lrH: "lrH",
  lambda: "lambda",
  replay: "replay",
  replayRatio: "replay-ratio",
  replaySteps: "replay-steps",
} as const;

/** A numeric flag, or undefined when absent. */
function flagNumber(flags: Record<string, string | boolean>, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || !Number.isFinite(n) || n <= 0) {
    throw new TypeError(`leml-stream: --${name} must be a positive number, got '${v}'`);
  }
  return n;
}

interface Setting {
  rank: number;
  lr: number;
  lrH: number;
  batch: number;
  l2Normalize: boolean;
  /** Reservoir capacity (0: no replay). */
  replay: number;
  replayRatio: number;
  replaySteps: number;
}

/** Rows processed per new row (the learning cost relative to a plain pass). */
function cost(s: Setting): number {
  return s.replay > 0 ? s.replaySteps * (1 + s.replayRatio) : 1;
}

/**
 * The estimator's options of a setting: in the local update mode a setting without replay steps
 * still keeps a reservoir of `replayCap` rows, for the refresh only (replay ratio 0).
 */
function modelOptions(
  s: Setting,
  lambda: number,
  seed: number,
  update: "full" | "local",
  replayCap: number,
): LemlStreamOptions {
  const { batch: _b, ...opts } = s;
  if (update === "full") return { ...opts, lambda, seed };
  const reservoir = s.replay > 0 ? {} : { replay: replayCap, replayRatio: 0, replaySteps: 1 };
  return { ...opts, ...reservoir, lambda, seed, update };
}

/** One pass over `ds` in order; the model and the seconds spent learning. */
function onePass(
  ds: Dataset,
  s: Setting,
  options: LemlStreamOptions,
): LemlStream {
  const m = new LemlStream(options);
  for (const b of batchesOf(ds, s.batch)) m.learnMany(b);
  return m;
}

const lemlStream: Experiment = async (ctx) => {
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const L = train.numLabels;
  const lambdaFlag = ctx.flags.lambda;
  // a bare `--lambda` (true) has no value: Number(true) would silently read it as 1
  const lambda = lambdaFlag === undefined ? 1e-4 : Number(lambdaFlag);
  if (typeof lambdaFlag === "boolean" || !(lambda >= 0)) {
    throw new TypeError(`leml-stream: --lambda must be a number >= 0, got '${lambdaFlag}'`);
  }
  const l2Flag = ctx.flags.l2;
  if (l2Flag !== undefined && l2Flag !== "true" && l2Flag !== "false" && l2Flag !== true) {
    throw new TypeError(`leml-stream: --l2 must be true or false, got '${l2Flag}'`);
  }
  const fixed = {
    rank: flagNumber(ctx.flags, "rank"),
    lr: flagNumber(ctx.flags, "lr"),
    lrH: flagNumber(ctx.flags, "lrH"),
    batch: flagNumber(ctx.flags, "batch"),
    l2Normalize: l2Flag === undefined ? undefined : l2Flag !== "false",
    replaySteps: flagNumber(ctx.flags, "replay-steps"),
  };
  // whole numbers, checked now: a --replay is only used from the third round of the selection
  for (const name of ["rank", "batch", "replay-steps", "replay"]) {
    const v = flagNumber(ctx.flags, name);
    if (v !== undefined && !Number.isSafeInteger(v)) {
      throw new TypeError(
        `leml-stream: --${name} must be a positive integer, got '${ctx.flags[name]}'`,
      );
    }
  }
  const replayCap = flagNumber(ctx.flags, "replay") ?? 2000;
  const update = ctx.flags.update ?? "full";
  if (update !== "full" && update !== "local") {
    throw new TypeError(`leml-stream: --update must be full or local, got '${update}'`);
  }
  const replayRatio = flagNumber(ctx.flags, "replay-ratio") ?? 1;
  // with --replay-steps 1 nothing is replayed: a replay flag would be printed as if it had been
  // used (--update local still keeps --replay rows, for its refresh, at ratio 0)
  if (fixed.replaySteps === 1) {
    for (const name of update === "local" ? ["replay-ratio"] : ["replay", "replay-ratio"]) {
      if (ctx.flags[name] === undefined) continue;
      throw new TypeError(
        `leml-stream: --${name} does not apply with --replay-steps 1 (no replay` +
          `${update === "local" ? "; the local refresh's reservoir has ratio 0" : ""})`,
      );
    }
  }
  const cap = Math.max(1, Math.round(0.6 * L));
  let best: Setting = {
    rank: fixed.rank ?? Math.min(64, cap),
    lr: fixed.lr ?? 0.005,
    lrH: fixed.lrH ?? 0.003,
    batch: fixed.batch ?? 16,
    l2Normalize: fixed.l2Normalize ?? false,
    replay: (fixed.replaySteps ?? 1) > 1 ? replayCap : 0,
    replayRatio,
    replaySteps: fixed.replaySteps ?? 1,
  };
  // the estimator's checks, now and naming the flags (they came at the first fit, as options);
  // a setting with replay steps, as the selection's third round tries, unless there is none
  const replayed = fixed.replaySteps === 1
    ? best
    : { ...best, replay: replayCap, replaySteps: fixed.replaySteps ?? 4 };
  namingFlags(ctx.flags, OPTION_FLAGS, () =>
    resolveLemlStreamOptions({
      ...modelOptions(replayed, lambda, ctx.seed, update, replayCap),
    } as Record<string, unknown>));
  const validation: Record<string, { score: number; se: number }> = {};
  const t0 = performance.now();
  if (Object.values(fixed).some((v) => v === undefined)) {
    const { fit, valid } = validationSplit(train, 0.2, ctx.seed);
    const score = (s: Setting) => {
      const key = `${
        s.l2Normalize ? "l2" : "raw"
      },k=${s.rank},lr=${s.lr},lrH=${s.lrH},b=${s.batch}${
        s.replay > 0 ? `,replay=${s.replay}x${s.replayRatio}x${s.replaySteps}` : ""
      }`;
      if (validation[key] === undefined) {
        const model = onePass(fit, s, modelOptions(s, lambda, ctx.seed, update, replayCap));
        const { mean, se } = validationScore(model, valid);
        validation[key] = { score: mean, se };
      }
      return validation[key];
    };
    // round 1: preprocessing × rank
    const ranks = fixed.rank !== undefined
      ? [fixed.rank]
      : [...new Set([32, 64, 96].map((r) => Math.min(r, cap)))];
    const l2s = fixed.l2Normalize !== undefined ? [fixed.l2Normalize] : [false, true];
    let top = { score: -1, se: 0 };
    for (const l2Normalize of l2s) {
      for (const rank of ranks) {
        const s = { ...best, rank, l2Normalize };
        const v = score(s);
        if (v.score > top.score) [top, best] = [v, s];
      }
    }
    for (const rank of ranks) { // the smallest rank within one standard error of the best
      const s = { ...best, rank };
      const v = score(s);
      if (v.score >= top.score - top.se) {
        [top, best] = [v, s];
        break;
      }
    }
    // round 2: learning rates × minibatch size
    const lrs = fixed.lr !== undefined ? [fixed.lr] : [0.002, 0.005, 0.01, 0.02];
    const lrHs = fixed.lrH !== undefined ? [fixed.lrH] : [0.0003, 0.001, 0.003, 0.01];
    const batches = fixed.batch !== undefined ? [fixed.batch] : [16, 32];
    const base = best;
    for (const lr of lrs) {
      for (const lrH of lrHs) {
        for (const batch of batches) {
          const s = { ...base, lr, lrH, batch };
          const v = score(s);
          if (v.score > top.score) [top, best] = [v, s];
        }
      }
    }
    // round 3: replay steps × lr at that lrH and minibatch; the cheapest within one SE wins
    if (fixed.replaySteps === undefined) {
      const cands: Setting[] = [best];
      const rlrs = fixed.lr !== undefined ? [fixed.lr] : [0.002, 0.005, 0.01];
      for (const replaySteps of [2, 4]) {
        for (const lr of rlrs) {
          cands.push({ ...best, lr, replay: replayCap, replayRatio, replaySteps });
        }
      }
      const scored = cands.map((s) => ({ s, v: score(s) }));
      const winner = scored.reduce((a, b) => (b.v.score > a.v.score ? b : a));
      const ok = scored.filter((c) => c.v.score >= winner.v.score - winner.v.se);
      best = ok.reduce((a, b) => (cost(b.s) < cost(a.s) ? b : a)).s;
    }
  }
  const selectSeconds = (performance.now() - t0) / 1000;

  // the final pass over the whole training file, test-then-train
  const { batch } = best;
  const model = new LemlStream(modelOptions(best, lambda, ctx.seed, update, replayCap));
  let learnSeconds = 0;
  const timed: Estimator = {
    kind: model.kind,
    get numFeatures() {
      return model.numFeatures;
    },
    get numLabels() {
      return model.numLabels;
    },
    learnMany(b: Batch) {
      const s = performance.now();
      model.learnMany(b);
      learnSeconds += (performance.now() - s) / 1000;
    },
    learnOne: (x, y) => model.learnOne(x, y),
    predictTopK: (x, k) => model.predictTopK(x, k),
    predictScores: (x, out) => model.predictScores(x, out),
    toModelFile: (o) => model.toModelFile(o),
    toState: () => model.toState(),
  };
  const p0 = performance.now();
  const preq = prequential(timed, batchesOf(train, batch));
  const passSeconds = (performance.now() - p0) / 1000;
  const ev = evaluateModel(model, test, { propensities, progress: ctx.progress });
  const file = model.toModelFile({ labelNames, meta: { dataset: ctx.dataset } });
  return {
    metrics: { ...ev.metrics, "prequentialP@1": preq.p1 },
    stdErr: ev.stdErr,
    trainSeconds: learnSeconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: {
      ...best,
      lambda,
      update,
      ...(update === "local" ? { refresh: model.refreshStats } : {}),
      optimizer: "adam",
      threshold: 0.5,
      passes: 1,
      passSeconds,
      selectSeconds,
      validation,
    },
  };
};

/**
 * The flags `repro leml-stream` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner
 * refuses any other); it reads `<dataset>.test.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./leml-stream.ts";
 * console.log(FLAGS.flags.includes("lambda")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: [
    "lambda",
    "l2",
    "rank",
    "lr",
    "lrH",
    "batch",
    "replay-steps",
    "replay",
    "replay-ratio",
    "update",
    ...PROPENSITY_FLAGS,
  ],
  test: true,
};

export default lemlStream;
