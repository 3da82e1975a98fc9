/**
 * `deno task repro ova --dataset D [--learningRate R] [--hardNegatives H] [--negatives N]
 * [--replay R --replayRatio Q] [--epochs E]`: the sparse one-vs-all learner, one streaming pass
 * over the training file in file order (minibatches of 1024 rows), evaluated on the test file.
 * Every flag named after a setting of the learner (src/models/ova/config.ts) is passed to it.
 * Without `--replay`, replay (none, or 10,000 rows at `--replayRatio`, default 1) is chosen on a
 * seeded 20% validation split of the training file (score: mean of P@1, P@3, P@5); the test file
 * is read only for the final evaluation. `trainCpuSeconds` is the process's CPU time of the final
 * pass; `selectSeconds` the selection's wall time.
 *
 * @module
 */
import process from "node:process";
import type { Experiment, ExperimentFlags } from "../types.ts";
import {
  learnAll,
  loadTrainTest,
  modelFileResult,
  numberFlag,
  PROPENSITY_FLAGS,
  timeSeconds,
  validationSplit,
} from "../harness.ts";
import { validationScore } from "./leml.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";
import { batchesOf } from "../../../src/data/dataset.ts";
import { OVA_OPTION_NAMES, OvaEstimator } from "../../../src/models/ova/mod.ts";

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

const ova: Experiment = async (ctx) => {
  const epochs = numberFlag(ctx.flags, "epochs", 1);
  if (!Number.isInteger(epochs) || epochs < 1) {
    throw new RangeError(`ova: --epochs must be an integer >= 1, got '${ctx.flags.epochs}'`);
  }
  const data = await loadTrainTest(ctx);
  const { train, test, labelNames } = data;
  const options: Record<string, unknown> = { seed: ctx.seed };
  for (const name of OVA_OPTION_NAMES) {
    const v = ctx.flags[name];
    if (v === undefined || name === "seed") continue;
    options[name] = v === "true"
      ? true
      : v === "false"
      ? false
      : typeof v === "string" && !Number.isFinite(Number(v))
      ? v // a word ("Logistic" too): the learner names the setting and its values
      : numberFlag(ctx.flags, name);
  }
  const validation: Record<string, number> = {};
  const t0 = performance.now();
  if (options.replay === undefined) {
    const { fit, valid } = validationSplit(train, 0.2, ctx.seed);
    let best = -1;
    // a --replayRatio is the ratio of the replay candidate (it was replaced by 1, unseen)
    const replayRatio = options.replayRatio ?? 1;
    for (const replay of [{ replay: 0 }, { replay: 10000, replayRatio }]) {
      const m = new OvaEstimator({ ...options, ...replay, numFeatures: train.numFeatures });
      ctx.progress.start(fit.x.numRows * epochs, `ova: validating replay ${replay.replay}`);
      for (let e = 0; e < epochs; e++) {
        for (const b of batchesOf(fit, 1024)) {
          m.learnMany(b);
          ctx.progress.tick(b.x.numRows);
        }
      }
      ctx.progress.done();
      const score = validationScore(m, valid).mean;
      validation[`replay=${replay.replay}`] = score;
      if (score > best) {
        best = score;
        Object.assign(options, replay);
      }
    }
  }
  const selectSeconds = (performance.now() - t0) / 1000;
  const cpu0 = cpuSeconds();
  const { result: model, seconds: trainSeconds } = await timeSeconds(() =>
    learnAll(
      new OvaEstimator({
        ...options,
        numFeatures: train.numFeatures,
        numLabels: train.numLabels,
      }),
      train,
      1024,
      epochs,
    )
  );
  const trainCpuSeconds = cpuSeconds() - cpu0;
  const { metrics, stdErr, predictMsPerRow } = evaluateModel(model, test, {
    propensities: data.propensities,
    progress: ctx.progress,
  });
  return modelFileResult(model, labelNames, { metrics, stdErr, trainSeconds, predictMsPerRow }, {
    ...model.config,
    epochs,
    validation,
    selectSeconds,
    trainCpuSeconds,
    eventsPerSecond: train.x.numRows * epochs / trainSeconds,
    stats: model.stats,
    trainRows: train.x.numRows,
    testRows: test.x.numRows,
  });
};

/**
 * The flags `repro ova` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner refuses
 * any other): the learner's settings (`OVA_OPTION_NAMES` but `seed`, which is `--seed`), `--epochs`
 * and the propensity flags; it reads `<dataset>.test.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./ova.ts";
 * console.log(FLAGS.flags.includes("loss")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: [...OVA_OPTION_NAMES.filter((n) => n !== "seed"), "epochs", ...PROPENSITY_FLAGS],
  test: true,
};

export default ova;
