/**
 * The rules the service's option checks share (in the style of `src/data/option_check.ts`):
 * each module of the service checks its own options object where it enters
 * (`RedisStreamSource.connect`, `createApp`, `ReplicaIndexer`, `LearnerThread.open`; the learner's
 * and `LearningService.open`'s in `service_options.ts`) with these. A value of the wrong type is
 * a `TypeError` naming the function, the option and what it takes.
 *
 * @module
 */
import { isPlainObject, shown } from "../data/option_check.ts";

/**
 * The longest delay a timer keeps (2^31 − 1 ms, about 24.8 days); a longer one fires at once.
 *
 * @example
 * ```ts
 * import { MAX_TIMER_MS } from "./option_rules.ts";
 * console.log(MAX_TIMER_MS / 86_400_000 > 24); // true
 * ```
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The largest 32-bit signed integer: the bound of the service's sizes and counts.
 *
 * @example
 * ```ts
 * import { MAX_INT32 } from "./option_rules.ts";
 * console.log(MAX_INT32); // 2147483647
 * ```
 */
export const MAX_INT32 = 2 ** 31 - 1;

/**
 * Throws the TypeError of a value that is not what option `name` takes.
 *
 * @example
 * ```ts
 * import { wrongType } from "./option_rules.ts";
 * try {
 *   wrongType("demo", "token", "a non-empty string", 42);
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option token must be a non-empty string, got 42
 * }
 * ```
 */
export function wrongType(where: string, name: string, what: string, value: unknown): never {
  throw new TypeError(`${where}: option ${name} must be ${what}, got ${shown(value)}`);
}

/**
 * Nothing when `value` is undefined or `ok`; else the TypeError naming `what` it must be.
 *
 * @example
 * ```ts
 * import { typed } from "./option_rules.ts";
 * const v: unknown = 3;
 * typed("demo", "limits", undefined, "an object", false); // fine: not given
 * try {
 *   typed("demo", "limits", v, "an object", typeof v === "object");
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option limits must be an object, got 3
 * }
 * ```
 */
export function typed(where: string, name: string, value: unknown, what: string, ok: boolean) {
  if (value !== undefined && !ok) wrongType(where, name, what, value);
}

/**
 * A non-empty string, or undefined unless `required`.
 *
 * @example
 * ```ts
 * import { stringOption } from "./option_rules.ts";
 * stringOption("demo", "key", "events"); // fine
 * try {
 *   stringOption("demo", "url", undefined, true);
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option url must be a non-empty string, got undefined
 * }
 * ```
 */
export function stringOption(where: string, name: string, value: unknown, required = false) {
  if (required && value === undefined) wrongType(where, name, "a non-empty string", value);
  typed(where, name, value, "a non-empty string", typeof value === "string" && value !== "");
}

/**
 * A function, or undefined.
 *
 * @example
 * ```ts
 * import { functionOption } from "./option_rules.ts";
 * functionOption("demo", "log", console.log); // fine
 * try {
 *   functionOption("demo", "log", "console");
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option log must be a function, got "console"
 * }
 * ```
 */
export function functionOption(where: string, name: string, value: unknown): void {
  typed(where, name, value, "a function", typeof value === "function");
}

/**
 * A model factory (an object with `create`), required.
 *
 * @example
 * ```ts
 * import { factoryOption } from "./option_rules.ts";
 * factoryOption("demo", { create: () => ({}) }); // fine
 * try {
 *   factoryOption("demo", "leml");
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option factory must be a model factory (e.g. factories.leml), got "leml"
 * }
 * ```
 */
export function factoryOption(where: string, value: unknown): void {
  if (!isPlainObject(value) || typeof value.create !== "function") {
    wrongType(where, "factory", "a model factory (e.g. factories.leml)", value);
  }
}
