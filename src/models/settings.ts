/**
 * Typed model settings: each model declares its hyper-parameters once (name, kind, default,
 * range or allowed values, one line of documentation) with {@linkcode defineSettings}, and
 * validates the options it is given against that declaration where they enter (the factory's
 * `create`, the constructors, checkpoint restore). An unknown key or a bad value is an error
 * naming the model, the key and what is allowed:
 *
 * - `leml: unknown option "rnak" (known: seed, rank, …)` (TypeError);
 * - `leml: option rank must be an integer in [1, 4096], got 0` (RangeError; a value of the wrong
 *   type, e.g. an object for a number, is a TypeError).
 *
 * Values may arrive as strings (`--option rank=16` on the command line): a string is parsed by
 * the declared kind ("16" → 16, "true" → true), so the command line, the service flags and code
 * all go through the same check.
 *
 * @example
 * ```ts
 * import { defineSettings } from "./settings.ts";
 * interface Toy { rank: number; loss: "squared" | "logistic" }
 * const TOY = defineSettings<Toy>("toy", {
 *   rank: { kind: "int", default: 8, min: 1, max: 64, doc: "Rank." },
 *   loss: { kind: "enum", values: ["squared", "logistic"], default: "squared", doc: "Loss." },
 * });
 * console.log(TOY.resolve({ rank: "16" })); // { rank: 16, loss: "squared" }
 * console.log(TOY.parse({ loss: "logistic" })); // { loss: "logistic" }
 * try { TOY.resolve({ rnak: 16 }); } catch (e) { console.log((e as Error).message); }
 * // toy: unknown option "rnak" (known: rank, loss)
 * ```
 *
 * @module
 */
import { shown } from "../data/option_check.ts";

/** A setting's value: a number, a boolean or one of a few strings. */
export type SettingValue = number | boolean | string;

/**
 * A default that depends on the settings declared before it (e.g. a learning rate that depends
 * on the optimiser); `undefined` leaves the setting out of the resolved object.
 *
 * @example
 * ```ts
 * import type { DerivedDefault } from "./settings.ts";
 * const lrDefault: DerivedDefault = (s) => s.optimizer === "adam" ? 0.01 : 0.05;
 * console.log(lrDefault({ optimizer: "sgd" })); // 0.05
 * ```
 */
export type DerivedDefault = (
  resolved: Readonly<Record<string, SettingValue | undefined>>,
) => SettingValue | undefined;

/**
 * The declaration of one setting.
 *
 * - `kind`: "number" (finite), "int" (a safe integer), "boolean" or "enum" (one of `values`);
 * - `default`: a value, a {@linkcode DerivedDefault}, or absent (the setting is then left out
 *   of the resolved object unless given);
 * - `min` / `max`: inclusive bounds of "number" and "int" (`minExclusive`: `min` itself is
 *   not allowed);
 * - `doc`: one line for help texts.
 *
 * @example
 * ```ts
 * import type { SettingSpec } from "./settings.ts";
 * const rank: SettingSpec = { kind: "int", default: 32, min: 1, max: 4096, doc: "Rank k." };
 * console.log(rank.kind); // int
 * ```
 */
export interface SettingSpec {
  /** How values are checked and how strings are parsed. */
  readonly kind: "number" | "int" | "boolean" | "enum";
  /** The default value, or a function of the settings declared before it. */
  readonly default?: SettingValue | DerivedDefault;
  /** Smallest allowed value ("number", "int"). */
  readonly min?: number;
  /** Largest allowed value ("number", "int"). */
  readonly max?: number;
  /** `min` itself is not allowed ("number"). */
  readonly minExclusive?: boolean;
  /** Allowed values ("enum"). */
  readonly values?: readonly string[];
  /**
   * When the model uses the setting at all (Adam's β1 only with the Adam optimiser): given where
   * it is not used, `checkUsed` refuses it.
   */
  readonly usedWhen?: SettingCondition;
  /** One line of documentation. */
  readonly doc: string;
}

/**
 * A condition on a model's other settings (see {@linkcode SettingSpec.usedWhen}): a test on the
 * resolved settings, and its words for errors and help texts.
 *
 * @example
 * ```ts
 * import { whenIs } from "./settings.ts";
 * const adam = whenIs("optimizer", "adam");
 * console.log(adam.text, adam.test({ optimizer: "sgd" })); // optimizer is adam false
 * ```
 */
export interface SettingCondition {
  /** Whether the setting is used, given every resolved setting. */
  readonly test: (resolved: Readonly<Record<string, SettingValue | undefined>>) => boolean;
  /** The condition in words ("optimizer is adam"). */
  readonly text: string;
}

/**
 * The condition "setting `key` is one of `values`".
 *
 * @example
 * ```ts
 * import { whenIs } from "./settings.ts";
 * const c = whenIs("loss", "logistic", "sqhinge");
 * console.log(c.text, c.test({ loss: "squared" })); // loss is logistic or sqhinge false
 * ```
 */
export function whenIs(key: string, ...values: readonly SettingValue[]): SettingCondition {
  return {
    test: (s) => values.includes(s[key] as SettingValue),
    text: `${key} is ${values.join(" or ")}`,
  };
}

/**
 * The condition "setting `key` is above 0" (a reservoir that exists, say).
 *
 * @example
 * ```ts
 * import { whenPositive } from "./settings.ts";
 * const c = whenPositive("replay");
 * console.log(c.text, c.test({ replay: 0 })); // replay > 0 false
 * ```
 */
export function whenPositive(key: string): SettingCondition {
  return { test: (s) => (s[key] as number) > 0, text: `${key} > 0` };
}

/**
 * The declarations of a settings type `T`: one {@linkcode SettingSpec} per key, in the order
 * they are resolved (a derived default sees the keys declared before it).
 *
 * @example
 * ```ts
 * import type { SettingSpecs } from "./settings.ts";
 * const specs: SettingSpecs<{ k: number }> = { k: { kind: "int", default: 10, min: 1, doc: "Neighbours." } };
 * console.log(Object.keys(specs)); // [ "k" ]
 * ```
 */
export type SettingSpecs<T> = { readonly [K in keyof T & string]-?: SettingSpec };

/**
 * A model's declared settings (see {@linkcode defineSettings}).
 *
 * @example
 * ```ts
 * import { defineSettings, type ModelSettings } from "./settings.ts";
 * const s: ModelSettings<{ k: number }> = defineSettings<{ k: number }>("toy", {
 *   k: { kind: "int", default: 10, min: 1, doc: "Neighbours." },
 * });
 * console.log(s.model, s.names); // toy [ "k" ]
 * ```
 */
export interface ModelSettings<T> {
  /** The model's name, as used in error messages ("leml"). */
  readonly model: string;
  /** The declarations, by key. */
  readonly specs: SettingSpecs<T>;
  /** The keys, in declaration order. */
  readonly names: readonly string[];
  /**
   * Validates `options` (strings are parsed by the declared kind) and fills the defaults.
   * Keys whose value is `undefined` count as not given.
   *
   * @throws {TypeError} for options that are not an object (null, an array), an unknown key or
   * a value of the wrong type
   * @throws {RangeError} for a value out of range, not an integer, not one of the allowed
   * values, or a string that does not parse
   */
  resolve(options?: Readonly<Record<string, unknown>>): T;
  /**
   * Validates `options` like {@linkcode ModelSettings.resolve} but returns only the keys given
   * (parsed), without defaults: for a model that fills its own defaults later.
   *
   * @throws {TypeError} for an unknown key or a value of the wrong type
   * @throws {RangeError} for a value out of range or not allowed
   */
  parse(options?: Readonly<Record<string, unknown>>): Partial<T>;
  /**
   * Refuses a setting given at a value other than its default where the model would not use it,
   * as its {@linkcode SettingSpec.usedWhen} says (β1 = 0.5 given with the SGD optimiser), after
   * checking `options` as {@linkcode ModelSettings.resolve} does. What a factory's `create` calls
   * on the options a user gave; a saved state's configuration, which records every setting, is
   * not checked this way.
   *
   * @throws {TypeError} naming the setting and when it is used; as `resolve` otherwise
   */
  checkUsed(options?: Readonly<Record<string, unknown>>): void;
  /** Help text: one line per setting with its kind, range and default. */
  help(): string;
}

/**
 * Declares a model's settings (see the module documentation).
 *
 * @param model the model name used in error messages
 * @param specs one declaration per key, in resolution order
 *
 * @example
 * ```ts
 * import { defineSettings } from "./settings.ts";
 * const KNN = defineSettings<{ k: number; threshold: number }>("knn", {
 *   k: { kind: "int", default: 10, min: 1, max: 1 << 20, doc: "Neighbours." },
 *   threshold: { kind: "number", default: 0.5, doc: "Vote share of a predicted label." },
 * });
 * console.log(KNN.resolve({ k: 3 })); // { k: 3, threshold: 0.5 }
 * try { KNN.resolve({ k: 0 }); } catch (e) { console.log((e as Error).message); }
 * // knn: option k must be an integer in [1, 1048576], got 0
 * ```
 */
export function defineSettings<T>(model: string, specs: SettingSpecs<T>): ModelSettings<T> {
  const all = specs as unknown as Readonly<Record<string, SettingSpec>>;
  const names = Object.freeze(Object.keys(all));
  for (const name of names) checkSpec(model, name, all[name]);
  const checkKeys = (options: Readonly<Record<string, unknown>>): void => {
    if (options === null || typeof options !== "object" || Array.isArray(options)) {
      throw new TypeError(
        `${model}: the options must be an object, got ${
          Array.isArray(options) ? "an array" : String(options)
        }`,
      );
    }
    for (const key of Object.keys(options)) {
      if (options[key] !== undefined && !Object.hasOwn(all, key)) {
        throw new TypeError(`${model}: unknown option "${key}" (known: ${names.join(", ")})`);
      }
    }
  };
  const resolve = (options: Readonly<Record<string, unknown>> = {}): T => {
    checkKeys(options);
    const out: Record<string, SettingValue | undefined> = {};
    for (const name of names) {
      const spec = all[name], given = options[name];
      const v = given !== undefined
        ? parseSetting(model, name, spec, given)
        : typeof spec.default === "function"
        ? spec.default(out)
        : spec.default;
      if (v !== undefined) out[name] = v;
    }
    return out as T;
  };
  return Object.freeze({
    model,
    specs,
    names,
    resolve,
    parse(options: Readonly<Record<string, unknown>> = {}): Partial<T> {
      checkKeys(options);
      const out: Record<string, SettingValue> = {};
      for (const name of names) {
        if (options[name] !== undefined) {
          out[name] = parseSetting(model, name, all[name], options[name]);
        }
      }
      return out as Partial<T>;
    },
    checkUsed(options: Readonly<Record<string, unknown>> = {}): void {
      const resolved = resolve(options) as Record<string, SettingValue | undefined>;
      for (const name of names) {
        const when = all[name].usedWhen;
        if (when === undefined || options[name] === undefined || when.test(resolved)) continue;
        // its default given explicitly (every setting spelled out, as `resolve` gives them) is
        // what the model records anyway: only another value is a setting that does nothing
        const dflt = (resolve({ ...options, [name]: undefined }) as typeof resolved)[name];
        if (resolved[name] !== dflt) {
          throw new TypeError(
            `${model}: option ${name} = ${resolved[name]} would do nothing: it applies only ` +
              `when ${when.text}`,
          );
        }
      }
    },
    help(): string {
      const width = Math.max(0, ...names.map((n) => n.length));
      return names.map((n) => {
        const s = all[n];
        const d = s.default === undefined
          ? ""
          : typeof s.default === "function"
          ? "; default: derived"
          : `; default ${String(s.default)}`;
        const used = s.usedWhen ? ` Used when ${s.usedWhen.text}.` : "";
        return `${n.padEnd(width)}  ${describeAllowed(s)}${d}. ${s.doc}${used}`;
      }).join("\n");
    },
  });
}

/**
 * The declarations of the initial sizes every model takes (`numFeatures`, `numLabels`:
 * integers in [0, 2³¹ − 1], default 0), to spread into a model's specs.
 *
 * @example
 * ```ts
 * import { defineSettings, SIZE_SPECS } from "./settings.ts";
 * const S = defineSettings<{ k: number; numFeatures: number; numLabels: number }>("toy", {
 *   k: { kind: "int", default: 1, min: 1, doc: "Neighbours." },
 *   ...SIZE_SPECS,
 * });
 * console.log(S.resolve({ numLabels: "3" })); // { k: 1, numFeatures: 0, numLabels: 3 }
 * ```
 */
export const SIZE_SPECS: {
  readonly numFeatures: SettingSpec;
  readonly numLabels: SettingSpec;
} = Object.freeze({
  numFeatures: {
    kind: "int",
    default: 0,
    min: 0,
    max: 2 ** 31 - 1,
    doc: "Initial feature-space size (the model grows with the data).",
  },
  numLabels: {
    kind: "int",
    default: 0,
    min: 0,
    max: 2 ** 31 - 1,
    doc: "Initial label-space size (the model grows with the data).",
  },
});

/**
 * The declaration of the seed every model takes: an integer in [0, 2³² − 1], default 0. Every
 * random draw of the models keeps only a seed's low 32 bits, so a seed outside the range would
 * silently be the same model as one inside it (−1 the same as 4294967295, 2³² the same as 0):
 * it is refused instead, by every model with the same words. Spread it with the model's own
 * doc line.
 *
 * @example
 * ```ts
 * import { defineSettings, SEED_SPEC } from "./settings.ts";
 * const S = defineSettings<{ seed: number }>("toy", {
 *   seed: { ...SEED_SPEC, doc: "Seed of the initial factors." },
 * });
 * try { S.resolve({ seed: -1 }); } catch (e) { console.log((e as Error).message); }
 * // toy: option seed must be an integer in [0, 4294967295], got -1
 * ```
 */
export const SEED_SPEC: SettingSpec = Object.freeze({
  kind: "int",
  default: 0,
  min: 0,
  max: 2 ** 32 - 1,
  doc: "Seed of every random draw.",
});

/**
 * Checks one value against its declaration and returns it typed (a string parsed by the
 * declared kind). Errors name the model, the key and what is allowed.
 *
 * @throws {TypeError} for a value of the wrong type
 * @throws {RangeError} for a value out of range or not allowed, or a string that does not parse
 *
 * @example
 * ```ts
 * import { parseSetting } from "./settings.ts";
 * const spec = { kind: "boolean", doc: "Learn a bias." } as const;
 * console.log(parseSetting("leml", "bias", spec, "false")); // false
 * ```
 */
export function parseSetting(
  model: string,
  name: string,
  spec: SettingSpec,
  value: unknown,
): SettingValue {
  const bad = (Err: new (message: string) => Error) =>
    new Err(`${model}: option ${name} must be ${describeAllowed(spec)}, got ${shown(value)}`);
  switch (spec.kind) {
    case "boolean":
      if (typeof value === "boolean") return value;
      if (value === "true" || value === "false") return value === "true";
      throw bad(TypeError);
    case "enum":
      if (typeof value === "string" && spec.values!.includes(value)) return value;
      throw bad(RangeError);
    case "number":
    case "int": {
      let v: number;
      if (typeof value === "number") v = value;
      else if (typeof value === "string" && DECIMAL.test(value.trim())) v = Number(value);
      else if (typeof value === "string") throw bad(RangeError);
      else throw bad(TypeError);
      const int = spec.kind === "int";
      if (
        !Number.isFinite(v) || (int && !Number.isSafeInteger(v)) ||
        (spec.min !== undefined && (spec.minExclusive ? v <= spec.min : v < spec.min)) ||
        (spec.max !== undefined && v > spec.max)
      ) {
        throw bad(RangeError);
      }
      return v;
    }
  }
}

/**
 * What a declaration allows, in words: "an integer in [1, 4096]", "a finite number > 0",
 * "one of adam, sgd", "true or false".
 *
 * @example
 * ```ts
 * import { describeAllowed } from "./settings.ts";
 * console.log(describeAllowed({ kind: "number", min: 0, minExclusive: true, doc: "" })); // a finite number > 0
 * ```
 */
export function describeAllowed(spec: SettingSpec): string {
  switch (spec.kind) {
    case "boolean":
      return "true or false";
    case "enum":
      return `one of ${spec.values!.join(", ")}`;
    case "number":
    case "int": {
      const what = spec.kind === "int" ? "an integer" : "a finite number";
      const { min, max } = spec;
      if (min !== undefined && max !== undefined) {
        return `${what} in ${spec.minExclusive ? "(" : "["}${min}, ${max}]`;
      }
      if (min !== undefined) return `${what} ${spec.minExclusive ? ">" : ">="} ${min}`;
      if (max !== undefined) return `${what} <= ${max}`;
      return what;
    }
  }
}

/** A decimal number as text: "16", "-0.5", ".5", "1e-3" (not hex, "Infinity" or ""). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function checkSpec(model: string, name: string, s: SettingSpec): void {
  const fail = (why: string) => {
    throw new TypeError(`defineSettings(${model}): setting ${name} ${why}`);
  };
  if (s.kind === "enum" && (!s.values || s.values.length === 0)) fail("needs values");
  if (s.kind !== "enum" && s.values !== undefined) fail("has values but is not an enum");
  if ((s.kind === "boolean" || s.kind === "enum") && (s.min ?? s.max) !== undefined) {
    fail("has a range but is not a number");
  }
  if (s.default !== undefined && typeof s.default !== "function") {
    parseSetting(model, name, s, s.default);
  }
}
