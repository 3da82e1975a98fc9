/**
 * The rules the service's option checks share beside those of `src/data/option_check.ts`:
 * each module of the service checks its own options object where it enters
 * (`RedisStreamSource.connect`, `createApp`, `ReplicaIndexer`, `LearnerThread.open`; the learner's
 * and `LearningService.open`'s in `service_options.ts`) with these. A value of the wrong type is
 * a `TypeError` naming the function, the option and what it takes.
 *
 * @module
 */
import { isPlainObject, wrongType } from "../data/option_check.ts";

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
