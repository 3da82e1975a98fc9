/**
 * Boundary checks of the learning service's options objects, for a program that embeds the
 * service instead of running `tagstream serve` (whose flags are checked in
 * `src/cli/commands/serve.ts`): {@linkcode StreamLearner.create}'s `LearnerOptions`,
 * `LearningService.open`'s `ServiceOptions` (with its Redis source and growth limits),
 * `createApp`'s `AppOptions`, `LearnerThread.open`'s options and the replica's
 * `ReplicaIndexOptions`. In the style of `src/data/option_check.ts`: an unknown key is a
 * `TypeError` naming the known keys; a value of the wrong type (the string "false" for a
 * boolean, "32" for a number) a `TypeError`, one out of range (NaN, Infinity, a fraction for a
 * count, a delay longer than a timer takes) a `RangeError`, both naming the function, the
 * option and what is allowed. Every check is O(number of keys); nothing is allocated.
 *
 * @module
 */
import {
  booleanOption,
  checkOptionKeys,
  isPlainObject,
  numberOption,
  oneOfOption,
  pickOptions,
  shown,
} from "../data/option_check.ts";
import type { LearnerOptions } from "./learner_types.ts";
import type { ServiceOptions } from "./service_types.ts";
import type { RedisSourceOptions } from "./redis_source.ts";
import type { AppOptions } from "./http_app.ts";
import type { ReplicaIndexOptions } from "./replica_index.ts";
import type { LearnerThreadOptions } from "./learner_thread.ts";

/** The longest delay a timer keeps (2^31 − 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
const INT32 = 2 ** 31 - 1;
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
const REDIS_KEYS = [
  "url",
  "key",
  "group",
  "consumer",
  "count",
  "blockMs",
  "deadLetterKey",
  "caFile",
  "claimIdleMs",
] as const satisfies readonly (keyof RedisSourceOptions)[];
const APP_KEYS = [
  "service",
  "token",
  "publicRead",
  "maxBodyBytes",
  "maxPredictBytes",
  "maxPredictRows",
  "maxK",
  "bodyTimeoutMs",
  "maxInFlight",
  "extraMetrics",
] as const satisfies readonly (keyof AppOptions)[];
const INDEX_KEYS = [
  "minLabels",
  "minIntervalMs",
  "enabled",
  "worker",
  "workerUrl",
] as const satisfies readonly (keyof ReplicaIndexOptions)[];
const THREAD_KEYS = [
  "workerUrl",
  "init",
  "factory",
  "onFailure",
  "labelIndex",
] as const satisfies readonly (keyof LearnerThreadOptions)[];

/** Throws the TypeError of a value that is not what `name` takes. */
function wrongType(where: string, name: string, what: string, value: unknown): never {
  throw new TypeError(`${where}: option ${name} must be ${what}, got ${shown(value)}`);
}

/** `value` when it is undefined or passes `ok`, else the TypeError naming `what`. */
function typed(where: string, name: string, value: unknown, what: string, ok: boolean): void {
  if (value !== undefined && !ok) wrongType(where, name, what, value);
}

function stringOption(where: string, name: string, value: unknown, required = false): void {
  if (required && value === undefined) wrongType(where, name, "a non-empty string", value);
  typed(where, name, value, "a non-empty string", typeof value === "string" && value !== "");
}

function functionOption(where: string, name: string, value: unknown): void {
  typed(where, name, value, "a function", typeof value === "function");
}

function factoryOption(where: string, value: unknown): void {
  if (!isPlainObject(value) || typeof value.create !== "function") {
    wrongType(where, "factory", "a model factory (e.g. factories.leml)", value);
  }
}

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
 * Checks a Redis source's options ({@linkcode RedisSourceOptions}) and returns them.
 *
 * @throws {TypeError} for a non-object, an unknown key, a missing `url` or a value of the wrong type
 * @throws {RangeError} for a count or delay out of range (`blockMs` and `claimIdleMs` in
 * [0, 2^31 − 1] ms)
 *
 * @example
 * ```ts
 * import { checkRedisOptions } from "./service_options.ts";
 * try {
 *   checkRedisOptions("demo", { url: "redis://127.0.0.1:6379", kye: "events" });
 * } catch (e) {
 *   console.log((e as Error).message.startsWith('demo: unknown option "kye"')); // true
 * }
 * ```
 */
export function checkRedisOptions(where: string, options: unknown): RedisSourceOptions {
  const o = checkOptionKeys(where, options as RedisSourceOptions, REDIS_KEYS);
  stringOption(where, "url", o.url, true);
  for (const k of ["key", "group", "consumer", "caFile"] as const) stringOption(where, k, o[k]);
  typed(where, "deadLetterKey", o.deadLetterKey, "a string", typeof o.deadLetterKey === "string");
  numberOption(where, "count", o.count, 512, 1, 1 << 20, true);
  numberOption(where, "blockMs", o.blockMs, 100, 0, MAX_TIMER_MS, true);
  numberOption(where, "claimIdleMs", o.claimIdleMs, 60000, 0, MAX_TIMER_MS, true);
  return o;
}

/**
 * Checks the options of `LearningService.open` ({@linkcode ServiceOptions}, the learner's
 * included) before anything is opened, and returns them.
 *
 * @throws {TypeError} for a non-object, an unknown key, a missing `factory` or `stateDir`, or a
 * value of the wrong type (e.g. `repair: "false"`)
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
  numberOption(where, "checkpointEvery", o.checkpointEvery, 5000, 1, SAFE, true);
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
  typed(where, "growth", o.growth, "an object", isPlainObject(o.growth));
  const growth = checkOptionKeys(`${where}: growth`, o.growth, GROWTH_KEYS);
  for (const k of GROWTH_KEYS as (keyof typeof growth)[]) {
    numberOption(where, `growth.${k}`, growth[k], 1, 1, INT32, true);
  }
  return o;
}

/**
 * Checks the options of `createApp` ({@linkcode AppOptions}) and returns them.
 *
 * @throws {TypeError} for a non-object, an unknown key, a missing `service` or a value of the
 * wrong type (e.g. `publicRead: "false"`, which would let reads through without the token)
 * @throws {RangeError} for a size or count that is not an integer ≥ 1, or a `bodyTimeoutMs`
 * outside (0, 2^31 − 1]
 *
 * @example
 * ```ts
 * import { checkAppOptions } from "./service_options.ts";
 * try {
 *   checkAppOptions({ service: {}, maxInFlight: NaN });
 * } catch (e) {
 *   console.log((e as Error).message); // createApp: option maxInFlight must be an integer in [1, 2147483647], got NaN
 * }
 * ```
 */
export function checkAppOptions(options: unknown): AppOptions {
  const where = "createApp";
  const o = checkOptionKeys(where, options as AppOptions, APP_KEYS);
  if (!isPlainObject(o.service)) {
    wrongType(where, "service", "a LearningService or a LearnerThread", o.service);
  }
  stringOption(where, "token", o.token);
  booleanOption(where, "publicRead", o.publicRead, false);
  for (
    const k of ["maxBodyBytes", "maxPredictBytes", "maxPredictRows", "maxK", "maxInFlight"] as const
  ) {
    numberOption(where, k, o[k], 1, 1, INT32, true);
  }
  numberOption(where, "bodyTimeoutMs", o.bodyTimeoutMs, 30000, 1e-3, MAX_TIMER_MS);
  functionOption(where, "extraMetrics", o.extraMetrics);
  return o;
}

/**
 * Checks the replica's label-index options ({@linkcode ReplicaIndexOptions}) and returns them
 * (an empty object for undefined).
 *
 * @throws {TypeError} for a non-object, an unknown key or a value of the wrong type (e.g.
 * `enabled: "false"`)
 * @throws {RangeError} for `minLabels` outside [0, 2^31 − 1] or `minIntervalMs` outside
 * [0, 2^31 − 1] ms
 *
 * @example
 * ```ts
 * import { checkIndexOptions } from "./service_options.ts";
 * try {
 *   checkIndexOptions("demo", { enabled: "false" });
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option enabled must be true or false, got "false"
 * }
 * ```
 */
export function checkIndexOptions(where: string, options: unknown): ReplicaIndexOptions {
  const o = checkOptionKeys(where, options as ReplicaIndexOptions, INDEX_KEYS);
  numberOption(where, "minLabels", o.minLabels, 4096, 0, INT32, true);
  numberOption(where, "minIntervalMs", o.minIntervalMs, 1000, 0, MAX_TIMER_MS);
  booleanOption(where, "enabled", o.enabled, true);
  booleanOption(where, "worker", o.worker, true);
  typed(where, "workerUrl", o.workerUrl, "a URL", o.workerUrl instanceof URL);
  return o;
}

/**
 * Checks the options of `LearnerThread.open` ({@linkcode LearnerThreadOptions}, its
 * `labelIndex` included) before the worker starts, and returns them.
 *
 * @throws {TypeError} for a non-object, an unknown key, a missing `workerUrl` or `factory`, or a
 * value of the wrong type
 * @throws {RangeError} for a `labelIndex` value out of range
 *
 * @example
 * ```ts
 * import { factory } from "../models/leml/mod.ts";
 * import { checkThreadOptions } from "./service_options.ts";
 * try {
 *   checkThreadOptions({ workerUrl: "./w.ts", init: [], factory, labelIndex: { minLabel: 9 } });
 * } catch (e) {
 *   console.log((e as Error).message.startsWith('LearnerThread.open: labelIndex: unknown option "minLabel"')); // true
 * }
 * ```
 */
export function checkThreadOptions(options: unknown): LearnerThreadOptions {
  const where = "LearnerThread.open";
  const o = checkOptionKeys(where, options as LearnerThreadOptions, THREAD_KEYS);
  const url = o.workerUrl;
  if (!(url instanceof URL) && (typeof url !== "string" || url === "")) {
    wrongType(where, "workerUrl", "a URL or a non-empty string", url);
  }
  factoryOption(where, o.factory);
  functionOption(where, "onFailure", o.onFailure);
  typed(where, "labelIndex", o.labelIndex, "an object", isPlainObject(o.labelIndex));
  checkIndexOptions(`${where}: labelIndex`, o.labelIndex);
  return o;
}
