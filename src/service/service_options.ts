/**
 * Boundary checks of the learner's and the service's options objects, for a program that embeds
 * the service instead of running `tagstream serve` (whose flags are checked in
 * `src/cli/commands/serve.ts`): {@linkcode StreamLearner.create}'s `LearnerOptions` and
 * `LearningService.open`'s `ServiceOptions` (with its Redis source, checked by
 * `checkRedisOptions` in `redis_source.ts`, and growth limits). The other modules check their own
 * (`createApp` in `http_app.ts`, the replica's index in `replica_index.ts`, `LearnerThread.open`
 * in `learner_thread.ts`) with the same rules (`option_rules.ts`). In the style of
 * `src/data/option_check.ts`: an unknown key is a `TypeError` naming the known keys; a value of
 * the wrong type (the string "false" for a boolean, "32" for a number) a `TypeError`, one out of
 * range (NaN, Infinity, a fraction for a count, a delay longer than a timer takes) a
 * `RangeError`, both naming the function, the option and what is allowed. Every check is
 * O(number of keys); nothing is allocated.
 *
 * @module
 */
import {
  booleanOption,
  checkOptionKeys,
  functionOption,
  isPlainObject,
  numberOption,
  oneOfOption,
  pickOptions,
  stringOption,
  typed,
} from "../data/option_check.ts";
import type { LearnerOptions } from "./learner_types.ts";
import type { ServiceOptions } from "./service_types.ts";
import { checkRedisOptions } from "./redis_source.ts";
import { factoryOption, MAX_INT32 as INT32, MAX_TIMER_MS } from "./option_rules.ts";

const SAFE = Number.MAX_SAFE_INTEGER;

/** The keys of `LearnerOptions` (also the learner's part of `ServiceOptions`). */
export const LEARNER_OPTION_KEYS = [
  "batchSize",
  "windowSize",
  "limits",
  "modelOptions",
  "labelNames",
  "featureNames",
  "dedupWindow",
] as const satisfies readonly (keyof LearnerOptions)[];

const LIMIT_KEYS = [
  "featureKeys",
  "hashing",
  "maxFeatures",
  "maxLabels",
  "maxLineBytes",
  "maxNameLength",
  "text",
  "strictFields",
];
const GROWTH_KEYS = ["maxFeatures", "maxLabels", "maxFeatureGrowth", "maxNewLabels"];
const SERVICE_KEYS = [
  ...LEARNER_OPTION_KEYS,
  "factory",
  "stateDir",
  "checkpointEvery",
  "checkpointSeconds",
  "publishEvery",
  "publishMinSeconds",
  "flushMs",
  "redis",
  "file",
  "followFile",
  "wal",
  "buildModel",
  "validationEvents",
  "log",
  "repair",
  "growth",
  "retryAfterSeconds",
] as const satisfies readonly (keyof ServiceOptions)[];
/**
 * Checks a {@linkcode LearnerOptions} object (the learner's options, or the learner's part of
 * the service's) and returns it. `labelNames` and `featureNames` are checked by the
 * vocabularies, `modelOptions`' entries by the model's settings and `limits.hashing` and
 * `limits.text` by the hasher and the tokenizer.
 *
 * @throws {TypeError} for a non-object, an unknown key (also in `limits`) or a value of the wrong type
 * @throws {RangeError} for a value out of range (batchSize in [1, 2^16], windowSize in
 * [1, 2^24], dedupWindow in [0, 2^28], the limits in [1, 2^31 − 1])
 *
 * @example
 * ```ts
 * import { checkLearnerOptions } from "./service_options.ts";
 * console.log(checkLearnerOptions("demo", { batchSize: 8 })); // { batchSize: 8 }
 * try {
 *   checkLearnerOptions("demo", { windowSize: 1e12 });
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option windowSize must be an integer in [1, 16777216], got 1000000000000
 * }
 * ```
 */
export function checkLearnerOptions(where: string, options: unknown): LearnerOptions {
  const o = checkOptionKeys(where, options as LearnerOptions, LEARNER_OPTION_KEYS);
  numberOption(where, "batchSize", o.batchSize, 32, 1, 1 << 16, true);
  numberOption(where, "windowSize", o.windowSize, 1000, 1, 1 << 24, true);
  numberOption(where, "dedupWindow", o.dedupWindow, 0, 0, 2 ** 28, true);
  typed(where, "modelOptions", o.modelOptions, "an object", isPlainObject(o.modelOptions));
  typed(where, "limits", o.limits, "an object", isPlainObject(o.limits));
  const limits = checkOptionKeys(`${where}: limits`, o.limits, LIMIT_KEYS);
  oneOfOption(where, "limits.featureKeys", limits.featureKeys, "index", ["index", "name"]);
  for (const k of ["maxFeatures", "maxLabels", "maxLineBytes", "maxNameLength"] as const) {
    numberOption(where, `limits.${k}`, limits[k], 1, 1, INT32, true);
  }
  booleanOption(where, "limits.strictFields", limits.strictFields, false);
  typed(where, "limits.hashing", limits.hashing, "an object", isPlainObject(limits.hashing));
  typed(where, "limits.text", limits.text, "an object", isPlainObject(limits.text));
  return o;
}

/**
 * Checks the options of `LearningService.open` ({@linkcode ServiceOptions}, the learner's
 * included) before anything is opened, and returns them.
 *
 * `checkpointEvery: 0` turns checkpoints off (for a state directory nobody resumes from): it
 * needs `wal: false` and no `redis`.
 *
 * @throws {TypeError} for a non-object, an unknown key, a missing `factory` or `stateDir`, a
 * value of the wrong type (e.g. `repair: "false"`), or `checkpointEvery: 0` with the
 * write-ahead log or Redis
 * @throws {RangeError} for a value out of range, e.g. `checkpointSeconds: Infinity` (a delay
 * must fit a timer: at most 2^31 − 1 ms)
 *
 * @example
 * ```ts
 * import { factory } from "../models/popularity/mod.ts";
 * import { checkServiceOptions } from "./service_options.ts";
 * try {
 *   checkServiceOptions({ factory, stateDir: "/tmp/s", checkpointEvry: 10 });
 * } catch (e) {
 *   console.log((e as Error).message.startsWith('LearningService.open: unknown option "checkpointEvry"')); // true
 * }
 * ```
 */
export function checkServiceOptions(options: unknown): ServiceOptions {
  const where = "LearningService.open";
  const o = checkOptionKeys(where, options as ServiceOptions, SERVICE_KEYS);
  checkLearnerOptions(where, pickOptions(o, LEARNER_OPTION_KEYS));
  factoryOption(where, o.factory);
  stringOption(where, "stateDir", o.stateDir, true);
  stringOption(where, "file", o.file);
  numberOption(where, "checkpointEvery", o.checkpointEvery, 5000, 0, SAFE, true);
  numberOption(where, "checkpointSeconds", o.checkpointSeconds, 5, 0, MAX_TIMER_MS / 1000);
  numberOption(where, "publishEvery", o.publishEvery, 5000, 0, SAFE, true);
  numberOption(where, "publishMinSeconds", o.publishMinSeconds, 10, 0, SAFE);
  numberOption(where, "flushMs", o.flushMs, 200, 0, MAX_TIMER_MS);
  numberOption(where, "validationEvents", o.validationEvents, 0, 0, 1 << 20, true);
  numberOption(where, "retryAfterSeconds", o.retryAfterSeconds, 2, 0, INT32, true);
  for (const k of ["followFile", "wal", "repair"] as const) booleanOption(where, k, o[k], false);
  functionOption(where, "log", o.log);
  typed(
    where,
    "buildModel",
    o.buildModel,
    "a ModelBuilder ({ build })",
    isPlainObject(o.buildModel) && typeof o.buildModel.build === "function",
  );
  typed(where, "redis", o.redis, "an object with a url", isPlainObject(o.redis));
  if (o.redis !== undefined) checkRedisOptions(`${where}: redis`, o.redis);
  if (o.checkpointEvery === 0) {
    // checkpoints release the write-ahead log and acknowledge the Redis entries they cover
    const needs = o.wal !== false
      ? `wal: false (checkpoints release the write-ahead log), got wal: ${
        o.wal ?? "true (the default)"
      }`
      : o.redis !== undefined
      ? "no redis (checkpoints acknowledge its entries)"
      : undefined;
    if (needs !== undefined) {
      throw new TypeError(`${where}: option checkpointEvery 0 (no checkpoints) needs ${needs}`);
    }
  }
  typed(where, "growth", o.growth, "an object", isPlainObject(o.growth));
  const growth = checkOptionKeys(`${where}: growth`, o.growth, GROWTH_KEYS);
  for (const k of GROWTH_KEYS as (keyof typeof growth)[]) {
    numberOption(where, `growth.${k}`, growth[k], 1, 1, INT32, true);
  }
  return o;
}
