/**
 * Shared helpers of the repro experiments: loading a dataset's train/test files with the
 * training-set propensities, number flags, a seeded validation split, minibatch training,
 * timing, and prequential evaluation.
 *
 * @module
 */
import {
  batchesOf,
  type Dataset,
  labelCounts,
  loadDataset,
  loadNames,
  splitRows,
} from "../../src/data/dataset.ts";
import type { Batch } from "../../src/data/types.ts";
import { numberFlag as cliNumberFlag } from "../../src/cli/commands/args.ts";
import type { Estimator } from "../../src/models/estimator.ts";
import { evaluateModel } from "../../src/metrics/evaluate.ts";
import { checkModelFileOptions } from "../../src/models/file_options.ts";
import { propensities as propensitiesOf } from "../../src/metrics/propensity.ts";
import type { ExperimentContext, ExperimentResult } from "./types.ts";

export {
  prequential,
  type PrequentialOptions,
  PrequentialP1,
  type PrequentialPoint,
} from "../../src/metrics/prequential.ts";

/**
 * What {@linkcode loadTrainTest} returns.
 *
 * @example
 * ```ts
 * import type { TrainTest } from "./harness.ts";
 * function rows(t: TrainTest): number { return t.train.x.numRows; }
 * console.log(typeof rows); // "function"
 * ```
 */
export interface TrainTest {
  train: Dataset;
  test: Dataset;
  /** Propensities from the TRAINING label counts (A = 0.55, B = 1.5 unless flagged). */
  propensities: Float64Array;
  /** Label names (`<dataset>.labels.txt`, else "0", "1", ...). */
  labelNames: string[];
}

/**
 * A finite number flag of an experiment (`--name VALUE`, in plain decimal: no `0x10`, no
 * blanks), or `fallback` when it is absent (`undefined` without a fallback).
 *
 * @throws {TypeError} when the flag has no value
 * @throws {RangeError} when it is not a finite number in plain decimal
 *
 * @example
 * ```ts
 * import { numberFlag } from "./harness.ts";
 * console.log(numberFlag({ threshold: "0.25" }, "threshold", 0.5), numberFlag({}, "threshold", 0.5)); // 0.25 0.5
 * console.log(numberFlag({}, "k")); // undefined
 * try { numberFlag({ k: "0x10" }, "k"); } catch (e) { console.log((e as Error).message); } // --k must be a number, got '0x10'
 * ```
 */
export function numberFlag(
  flags: Record<string, string | boolean>,
  name: string,
  fallback: number,
): number;
export function numberFlag(
  flags: Record<string, string | boolean>,
  name: string,
): number | undefined;
export function numberFlag(
  flags: Record<string, string | boolean>,
  name: string,
  fallback?: number,
): number | undefined {
  // args.ts's reader: plain decimal, finite; a bare `--name` (true) "needs a value"
  return cliNumberFlag({ values: flags, positionals: [] }, name, fallback);
}

/**
 * A flag holding a positive integer in plain decimal (`--k 30`), or undefined when it is absent:
 * checked before any work, where a model would refuse it only after training (naming its own
 * option, not the flag).
 *
 * @throws {TypeError} when it is not a positive integer (`0`, `1.5`), naming the flag
 * @throws {RangeError} when it is not a finite number in plain decimal (see {@linkcode numberFlag})
 *
 * @example
 * ```ts
 * import { positiveIntFlag } from "./harness.ts";
 * console.log(positiveIntFlag({ k: "30" }, "k"), positiveIntFlag({}, "k")); // 30 undefined
 * try { positiveIntFlag({ k: "0" }, "k"); } catch (e) { console.log((e as Error).message); } // --k must be a positive integer, got '0'
 * ```
 */
export function positiveIntFlag(
  flags: Record<string, string | boolean>,
  name: string,
): number | undefined {
  const v = numberFlag(flags, name);
  if (v !== undefined && !(Number.isSafeInteger(v) && v >= 1)) {
    throw new TypeError(`--${name} must be a positive integer, got '${flags[name]}'`);
  }
  return v;
}

/**
 * Runs `check` (a model's check of its options, e.g. `resolveConfig(options)`) and returns what
 * it returns. When it refuses an option that came from a flag (its message names `option NAME`,
 * and `optionFlags` maps NAME to a flag that was given), the error is thrown again, of the same
 * type, with the flag and its value first: the user typed `--neighbours`, not `svpNeighbours`.
 * Run it before any work, so that the refusal does not wait for the first fit.
 *
 * @throws whatever `check` throws; a TypeError or RangeError naming the flag when the option came
 *   from one
 *
 * @example
 * ```ts
 * import { namingFlags } from "./harness.ts";
 * const check = (o: { svpNeighbours: number }) => {
 *   if (o.svpNeighbours < 1) throw new RangeError(`sleec: option svpNeighbours must be >= 1, got ${o.svpNeighbours}`);
 * };
 * try {
 *   namingFlags({ neighbours: "0" }, { svpNeighbours: "neighbours" }, () => check({ svpNeighbours: 0 }));
 * } catch (e) { console.log((e as Error).message); } // --neighbours 0: sleec: option svpNeighbours must be >= 1, got 0
 * ```
 */
export function namingFlags<T>(
  flags: Record<string, string | boolean>,
  optionFlags: Readonly<Record<string, string>>,
  check: () => T,
): T {
  try {
    return check();
  } catch (e) {
    const refusal = e instanceof TypeError || e instanceof RangeError;
    const option = refusal ? /\boption (\w+)/.exec(e.message)?.[1] : undefined;
    const flag = option !== undefined && Object.hasOwn(optionFlags, option)
      ? optionFlags[option]
      : undefined;
    if (flag === undefined || flags[flag] === undefined) throw e;
    const message = `--${flag} ${flags[flag]}: ${(e as Error).message}`;
    throw e instanceof RangeError
      ? new RangeError(message, { cause: e })
      : new TypeError(message, { cause: e });
  }
}

/**
 * A flag holding comma-separated positive integers in plain decimal (`--k-grid 5,10,20`),
 * without duplicates, or `fallback` when it is absent.
 *
 * @throws {TypeError} when an entry is not a positive integer (`0`, `1.5`, `0x10`, empty) or
 *   the flag has no value
 *
 * @example
 * ```ts
 * import { intList } from "./harness.ts";
 * console.log(intList("5, 10,5", [1], "k-grid"), intList(undefined, [1], "k-grid")); // [ 5, 10 ] [ 1 ]
 * try { intList("5,0x10", [1], "k-grid"); } catch (e) { console.log((e as Error).message); } // --k-grid must be comma-separated positive integers, got '5,0x10'
 * ```
 */
export function intList(
  v: string | boolean | undefined,
  fallback: number[],
  name: string,
): number[] {
  if (v === undefined) return fallback;
  const entries = String(v).split(",").map((s) => s.trim());
  if (
    typeof v !== "string" ||
    entries.some((s) => !/^\+?\d+$/.test(s) || !Number.isSafeInteger(Number(s)) || Number(s) < 1)
  ) {
    throw new TypeError(`--${name} must be comma-separated positive integers, got '${v}'`);
  }
  return [...new Set(entries.map(Number))];
}

/**
 * A flag holding a JSON object (`--config '{"lambda": 0.5}'`), or `{}` when it is absent.
 *
 * @throws {TypeError} naming the experiment and the flag when the value is not JSON, or not an
 *   object (`what` says what it must be)
 *
 * @example
 * ```ts
 * import { jsonObjectFlag } from "./harness.ts";
 * console.log(jsonObjectFlag({ config: '{"k": 5}' }, "config", "demo"), jsonObjectFlag({}, "config", "demo")); // { k: 5 } {}
 * try { jsonObjectFlag({ config: "[1]" }, "config", "demo", "an object of options"); } catch (e) { console.log((e as Error).message); } // demo: --config must be an object of options
 * ```
 */
export function jsonObjectFlag(
  flags: Record<string, string | boolean>,
  name: string,
  experiment: string,
  what = "a JSON object",
): Record<string, unknown> {
  const v = flags[name];
  if (v === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(v));
  } catch (e) {
    throw new TypeError(`${experiment}: --${name} is not JSON: ${(e as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new TypeError(`${experiment}: --${name} must be ${what}`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The flags {@linkcode loadTrainTest} reads (the propensity model's A and B): every experiment
 * that calls it lists them in its `FLAGS`.
 *
 * @example
 * ```ts
 * import { PROPENSITY_FLAGS } from "./harness.ts";
 * console.log(PROPENSITY_FLAGS); // [ "propensity-a", "propensity-b" ]
 * ```
 */
export const PROPENSITY_FLAGS = ["propensity-a", "propensity-b"] as const;

/**
 * Loads `<dataDir>/<dataset>.train.txt` and `.test.txt`, puts both in the same feature and label
 * spaces (the larger of the two), and computes the propensities from the training label counts
 * (flags `--propensity-a`, `--propensity-b` override A = 0.55 and B = 1.5). The label names of
 * `<dataset>.labels.txt`, when there is one, must be one per label, distinct and not empty (a
 * TypeError or RangeError naming the file).
 *
 * @example
 * ```ts
 * import { loadTrainTest } from "./harness.ts";
 * import { Progress } from "../../src/progress/mod.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/toy.train.txt`, "2 2 2\n0 0:1\n0,1 1:1\n");
 * await Deno.writeTextFile(`${dir}/toy.test.txt`, "1 2 2\n1 1:1\n");
 * const ctx = { dataset: "toy", dataDir: dir, seed: 0, flags: {}, progress: Progress.silent() };
 * const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
 * console.log(train.x.numRows, test.x.numRows, propensities.length, labelNames); // 2 1 2 ["0", "1"]
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function loadTrainTest(ctx: ExperimentContext): Promise<TrainTest> {
  const trainRaw = await loadDataset(ctx.dataDir, ctx.dataset, "train");
  const testRaw = await loadDataset(ctx.dataDir, ctx.dataset, "test");
  const numFeatures = Math.max(trainRaw.numFeatures, testRaw.numFeatures);
  const numLabels = Math.max(trainRaw.numLabels, testRaw.numLabels);
  const widen = (ds: Dataset): Dataset => ({
    name: ds.name,
    numFeatures,
    numLabels,
    x: { ...ds.x, numCols: numFeatures },
    y: { ...ds.y, numCols: numLabels },
  });
  const train = widen(trainRaw);
  const test = widen(testRaw);
  const a = numberFlag(ctx.flags, "propensity-a", 0.55);
  const b = numberFlag(ctx.flags, "propensity-b", 1.5);
  const p = propensitiesOf(labelCounts(train.y), Math.max(1, train.x.numRows), a, b);
  let labelNames: string[];
  try {
    labelNames = await loadNames(ctx.dataDir, ctx.dataset, "labels");
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    labelNames = Array.from({ length: numLabels }, (_, l) => String(l));
    return { train, test, propensities: p, labelNames };
  }
  // checked now: the model file written at the end of the run refused them, losing the run
  const file = `${ctx.dataDir}/${ctx.dataset}.labels.txt`;
  if (labelNames.length !== numLabels) {
    throw new TypeError(
      `${file} has ${labelNames.length} label names for the ${numLabels} labels of --dataset ` +
        `${ctx.dataset} (one name a line)`,
    );
  }
  checkModelFileOptions({ labelNames }, file);
  return { train, test, propensities: p, labelNames };
}

/**
 * Seeded split of the training set into a fitting part and a validation part (`fraction` of
 * the rows, default 0.2), for choosing hyper-parameters without touching the test file.
 *
 * @throws {RangeError} when `fraction` is not in (0, 1) or either part would have no row
 *
 * @example
 * ```ts
 * import { validationSplit } from "./harness.ts";
 * const ds = {
 *   name: "t", numFeatures: 1, numLabels: 1,
 *   x: { numRows: 5, numCols: 1, indptr: Int32Array.of(0, 1, 2, 3, 4, 5), indices: new Int32Array(5), values: new Float32Array(5).fill(1) },
 *   y: { numRows: 5, numCols: 1, indptr: new Int32Array(6), indices: new Int32Array(0) },
 * };
 * const { fit, valid } = validationSplit(ds, 0.2, 7);
 * console.log(fit.x.numRows, valid.x.numRows); // 4 1
 * ```
 */
export function validationSplit(
  train: Dataset,
  fraction = 0.2,
  seed = 0,
): { fit: Dataset; valid: Dataset } {
  if (!(fraction > 0 && fraction < 1)) {
    throw new RangeError(`validationSplit: fraction must be in (0, 1), got ${fraction}`);
  }
  const { train: fit, valid } = splitRows(train, fraction, seed);
  // an empty part would score every setting NaN (or 0) and "choose" the first one silently
  if (fit.x.numRows === 0 || valid.x.numRows === 0) {
    throw new RangeError(
      `validationSplit: ${train.x.numRows} training rows cannot give a ${fraction} validation ` +
        `split with rows on both sides (${fit.x.numRows} fit, ${valid.x.numRows} validation): ` +
        `give more rows, or fix the hyper-parameters by their flags`,
    );
  }
  return { fit, valid };
}

/**
 * Runs `fn` and measures its wall-clock time in seconds.
 *
 * @example
 * ```ts
 * import { timeSeconds } from "./harness.ts";
 * const { result, seconds } = await timeSeconds(() => 6 * 7);
 * console.log(result, seconds >= 0); // 42 true
 * ```
 */
export async function timeSeconds<T>(
  fn: () => T | Promise<T>,
): Promise<{ result: T; seconds: number }> {
  const t0 = performance.now();
  const result = await fn();
  return { result, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Feeds a dataset to a streaming model in minibatches of `batchSize` rows (in file order),
 * `epochs` times, and returns the model.
 *
 * @example
 * ```ts
 * import { learnAll } from "./harness.ts";
 * import { PopularityEstimator } from "../../src/models/popularity/mod.ts";
 * const ds = {
 *   name: "t", numFeatures: 1, numLabels: 2,
 *   x: { numRows: 2, numCols: 1, indptr: Int32Array.of(0, 1, 2), indices: new Int32Array(2), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(1, 1) },
 * };
 * const m = learnAll(new PopularityEstimator({ numFeatures: 1, numLabels: 2 }), ds);
 * console.log([...m.predictTopK({ indices: Int32Array.of(0), values: Float32Array.of(1) }, 1).labels]); // [ 1 ]
 * ```
 */
export function learnAll<M extends { learnMany(batch: Batch): void }>(
  model: M,
  ds: Dataset,
  batchSize = 1024,
  epochs = 1,
): M {
  for (let e = 0; e < epochs; e++) for (const b of batchesOf(ds, batchSize)) model.learnMany(b);
  return model;
}

/**
 * The common run of a streaming baseline: `create()`s the model, feeds it the whole training
 * file (minibatches of 1024 rows; construction and training timed as `trainSeconds`) and
 * evaluates it on the test file.
 *
 * @example
 * ```ts
 * import { loadTrainTest, trainAndEvaluate } from "./harness.ts";
 * import { Progress } from "../../src/progress/mod.ts";
 * import { PopularityEstimator } from "../../src/models/popularity/mod.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/toy.train.txt`, "2 2 2\n0 0:1\n0,1 1:1\n");
 * await Deno.writeTextFile(`${dir}/toy.test.txt`, "1 2 2\n0 1:1\n");
 * const ctx = { dataset: "toy", dataDir: dir, seed: 0, flags: {}, progress: Progress.silent() };
 * const data = await loadTrainTest(ctx);
 * const r = await trainAndEvaluate(ctx, data, () =>
 *   new PopularityEstimator({ numFeatures: 2, numLabels: 2 }));
 * console.log(r.metrics["P@1"], r.trainSeconds >= 0); // 100 true
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function trainAndEvaluate<M extends Estimator>(
  ctx: ExperimentContext,
  data: TrainTest,
  create: () => M,
): Promise<{ model: M } & ModelRun> {
  const { result: model, seconds: trainSeconds } = await timeSeconds(() =>
    learnAll(create(), data.train)
  );
  const { metrics, stdErr, predictMsPerRow } = evaluateModel(model, data.test, {
    propensities: data.propensities,
    progress: ctx.progress,
  });
  return { model, metrics, stdErr, trainSeconds, predictMsPerRow };
}

/**
 * One trained and evaluated model: its test metrics, their standard errors when known, and the
 * training and prediction times.
 *
 * @example
 * ```ts
 * import type { ModelRun } from "./harness.ts";
 * const run: ModelRun = { metrics: { "P@1": 50 }, trainSeconds: 1, predictMsPerRow: 0.1 };
 * console.log(run.stdErr); // undefined
 * ```
 */
export interface ModelRun {
  metrics: Record<string, number>;
  stdErr?: Record<string, number>;
  trainSeconds: number;
  predictMsPerRow: number;
}

/**
 * An experiment's result for a model that has a model file: the run's metrics and times,
 * `modelBytes` = the size of `model.toModelFile({ labelNames })`, and `extra`.
 *
 * @example
 * ```ts
 * import { modelFileResult } from "./harness.ts";
 * import { PopularityEstimator } from "../../src/models/popularity/mod.ts";
 * const model = new PopularityEstimator({ numFeatures: 1, numLabels: 2 });
 * const run = { metrics: { "P@1": 50 }, trainSeconds: 1, predictMsPerRow: 0.1 };
 * const r = modelFileResult(model, ["a", "b"], run, { rows: 2 });
 * console.log(r.modelBytes > 0, r.extra); // true { rows: 2 }
 * ```
 */
export function modelFileResult(
  model: Pick<Estimator, "toModelFile">,
  labelNames: string[],
  run: ModelRun,
  extra: Record<string, unknown>,
): ExperimentResult {
  const file = model.toModelFile({ labelNames });
  return {
    metrics: run.metrics,
    ...(run.stdErr ? { stdErr: run.stdErr } : {}),
    trainSeconds: run.trainSeconds,
    predictMsPerRow: run.predictMsPerRow,
    modelBytes: file.byteLength,
    extra,
  };
}

/**
 * Bytes held by a model's state tensors (an in-memory size, for models without a model file).
 *
 * @example
 * ```ts
 * import { stateBytes } from "./harness.ts";
 * console.log(stateBytes({ tensors: { a: new Float32Array(4), b: new Int32Array(1) } })); // 20
 * ```
 */
export function stateBytes(state: { tensors: Record<string, ArrayBufferView> }): number {
  let n = 0;
  for (const t of Object.values(state.tensors)) n += t.byteLength;
  return n;
}
