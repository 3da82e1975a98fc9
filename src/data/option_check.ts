/**
 * Boundary checks of the data layer's option objects (readers' helpers, the synthetic generator,
 * hashing, TF-IDF, minibatching) and of POP's, in the style of the models' typed settings: an
 * options argument that is not an object, or a key that is not an option, is a `TypeError`
 * (`FeatureHasher: unknown option "sigend" (known: dim, seed, signed)`); a value of the wrong
 * type is a `TypeError` and one out of range a `RangeError`, both naming the function, the
 * option and what is allowed (`Minibatcher: option batchSize must be an integer in [1, 16777216],
 * got 0`). Every check is O(1) (the key check is one pass over the given keys). The value
 * formatter {@linkcode shown} is also the models' (`src/models/settings.ts`).
 *
 * @module
 */

/**
 * Checks that `options` is an object (or undefined) whose keys with a defined value are all in
 * `known`; returns it (an empty object for undefined).
 *
 * @throws {TypeError} for a non-object or an unknown key, naming `where` and the known keys
 *
 * @example
 * ```ts
 * import { checkOptionKeys } from "./option_check.ts";
 * console.log(checkOptionKeys("demo", { rows: 3 }, ["rows", "seed"])); // { rows: 3 }
 * try {
 *   checkOptionKeys("demo", { row: 3 }, ["rows", "seed"]);
 * } catch (e) {
 *   console.log((e as Error).message); // demo: unknown option "row" (known: rows, seed)
 * }
 * ```
 */
export function checkOptionKeys<T extends object>(
  where: string,
  options: T | undefined,
  known: readonly string[],
): T {
  if (options === undefined) return {} as T;
  if (!isPlainObject(options)) {
    throw new TypeError(`${where}: options must be an object, got ${shown(options)}`);
  }
  for (const key of Object.keys(options)) {
    if ((options as Record<string, unknown>)[key] !== undefined && !known.includes(key)) {
      // a key list joined from several option sets may hold a key twice: name it once
      const names = [...new Set(known)].join(", ");
      throw new TypeError(`${where}: unknown option "${key}" (known: ${names})`);
    }
  }
  return options;
}

/**
 * Checks a number option in `[min, max]` and returns it (`fallback` when undefined): a finite
 * number, or with `integer` an integer.
 *
 * @throws {TypeError} for a value that is not a number (e.g. the string "0.3")
 * @throws {RangeError} for NaN, ±Infinity, a number out of range, or a fraction for an integer
 *
 * @example
 * ```ts
 * import { numberOption } from "./option_check.ts";
 * console.log(numberOption("demo", "rows", undefined, 10, 0, 100, true)); // 10
 * try {
 *   numberOption("demo", "rows", 1.5, 10, 0, 100, true);
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option rows must be an integer in [0, 100], got 1.5
 * }
 * ```
 */
export function numberOption(
  where: string,
  name: string,
  value: unknown,
  fallback: number,
  min: number,
  max: number,
  integer = false,
): number {
  if (value === undefined) return fallback;
  const ok = typeof value === "number" && value >= min && value <= max &&
    (integer ? Number.isInteger(value) : Number.isFinite(value));
  if (ok) return value;
  const what = `${integer ? "an integer" : "a finite number"} in [${min}, ${max}]`;
  const Err = typeof value === "number" ? RangeError : TypeError;
  throw new Err(`${where}: option ${name} must be ${what}, got ${shown(value)}`);
}

/**
 * Checks a boolean option and returns it (`fallback` when undefined).
 *
 * @throws {TypeError} for a value that is not a boolean (e.g. the string "false")
 *
 * @example
 * ```ts
 * import { booleanOption } from "./option_check.ts";
 * console.log(booleanOption("demo", "fit", undefined, true)); // true
 * try {
 *   booleanOption("demo", "fit", "false", true);
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option fit must be true or false, got "false"
 * }
 * ```
 */
export function booleanOption(
  where: string,
  name: string,
  value: unknown,
  fallback: boolean,
): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") wrongType(where, name, "true or false", value);
  return value;
}

/**
 * Checks a string option against its allowed values and returns it (`fallback` when undefined).
 *
 * @throws {TypeError} for any other value, naming `where`, the option and the allowed values
 *
 * @example
 * ```ts
 * import { oneOfOption } from "./option_check.ts";
 * console.log(oneOfOption("demo", "mode", undefined, "auto", ["auto", "none"])); // auto
 * try {
 *   oneOfOption("demo", "mode", "nope", "auto", ["auto", "none"]);
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option mode must be "auto" or "none", got "nope"
 * }
 * ```
 */
export function oneOfOption<T extends string>(
  where: string,
  name: string,
  value: unknown,
  fallback: T,
  allowed: readonly T[],
): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly unknown[]).includes(value)) return value as T;
  const quoted = allowed.map((a) => `"${a}"`);
  const what = quoted.length > 1
    ? `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`
    : quoted[0];
  wrongType(where, name, what, value);
}

/**
 * The entries of `options` whose key is in `keys` (for handing one part of a combined options
 * object to the function that owns those keys). One pass over `keys`.
 *
 * @example
 * ```ts
 * import { pickOptions } from "./option_check.ts";
 * console.log(pickOptions({ name: "a", l2: true }, ["name"])); // { name: "a" }
 * ```
 */
export function pickOptions<T extends object, K extends keyof T>(
  options: T,
  keys: readonly K[],
): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) if (options[k] !== undefined) out[k] = options[k];
  return out;
}

/**
 * A value as shown in error messages: strings quoted, objects as JSON, anything else as
 * `String` gives it.
 *
 * @example
 * ```ts
 * import { shown } from "./option_check.ts";
 * console.log(shown("0.3"), shown({ a: 1 }), shown(NaN)); // "0.3" {"a":1} NaN
 * ```
 */
export function shown(v: unknown): string {
  if (typeof v === "string") return `"${v}"`;
  if (typeof v === "object" && v !== null) {
    try {
      return JSON.stringify(v);
    } catch {
      return String(v);
    }
  }
  return String(v);
}

/**
 * Whether `v` is an object that can hold options or fields: not null, not an array.
 *
 * @example
 * ```ts
 * import { isPlainObject } from "./option_check.ts";
 * console.log(isPlainObject({ a: 1 }), isPlainObject([1]), isPlainObject(null)); // true false false
 * ```
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Throws the TypeError of a value that is not what option `name` takes.
 *
 * @example
 * ```ts
 * import { wrongType } from "./option_check.ts";
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
 * import { typed } from "./option_check.ts";
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
 * import { stringOption } from "./option_check.ts";
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
 * import { functionOption } from "./option_check.ts";
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
