/**
 * The options of the NDJSON event parser ({@linkcode NdjsonOptions}: key modes, vocabularies,
 * hashing, text, bounds) and their resolved, validated form ({@linkcode NdjsonSettings}) that
 * the parser's parts share.
 *
 * @module
 */
import { Vocabulary } from "./vocabulary.ts";
import { FeatureHasher } from "./hashing.ts";
import type { HashingOptions } from "./hashing.ts";
import { type TextSettings, textSettingsError } from "../../sdk/internal.ts";
import { booleanOption, checkOptionKeys, numberOption, shown } from "./option_check.ts";

/**
 * How NDJSON feature keys are read.
 *
 * @example
 * ```ts
 * import type { FeatureKeys } from "./ndjson_options.ts";
 * const k: FeatureKeys = "name";
 * console.log(k); // "name"
 * ```
 */
export type FeatureKeys = "index" | "name";

/**
 * Options of {@linkcode NdjsonParser}.
 *
 * @example
 * ```ts
 * import type { NdjsonOptions } from "./ndjson_options.ts";
 * const o: NdjsonOptions = { featureKeys: "name", growLabels: false };
 * console.log(o.featureKeys); // "name"
 * ```
 */
export interface NdjsonOptions {
  /**
   * `"index"` (default): keys are non-negative integers; `"name"`: names. With hashing every key
   * is hashed as written, whichever mode is given.
   */
  featureKeys?: FeatureKeys;
  /** `"name"` (default): labels go through the label vocabulary; `"index"`: label indices. */
  labelKeys?: "name" | "index";
  /**
   * Feature-name vocabulary to use and grow (default: a new one): named features only
   * (`featureKeys: "name"`, no hashing). The parser keeps one given in another mode as
   * `parser.features`, unused (a caller may hand the same vocabulary whatever the mode);
   * `readExamples` refuses it there.
   */
  features?: Vocabulary;
  /** Label-name vocabulary to use and grow (default: a new one): named labels only. */
  labels?: Vocabulary;
  /**
   * Add new feature names (default true); when false unknown feature names are dropped. Named
   * features only (`featureKeys: "name"`, no hashing): a TypeError otherwise.
   */
  growFeatures?: boolean;
  /**
   * Add new label names (default true); when false an unknown label is an error. Named labels
   * only (`labelKeys: "name"`): a TypeError otherwise.
   */
  growLabels?: boolean;
  /** Hash feature keys into a fixed dimension instead of indexing them. */
  hashing?: HashingOptions;
  /**
   * Exclusive bound on index keys (`featureKeys: "index"`, no hashing); default none. A
   * TypeError with named or hashed features.
   */
  numFeatures?: number;
  /** Exclusive bound on label indices (`labelKeys: "index"`; a TypeError with named labels); default none. */
  numLabels?: number;
  /**
   * Tokenize the `text` field with these settings (`sdk/tokenizer.ts`) into named features
   * (needs `featureKeys: "name"` or hashing). Without it `text` is an unknown field.
   */
  text?: TextSettings;
  /** Reject fields other than id/features/labels/negatives/text (default false: ignored, counted). */
  strictFields?: boolean;
  /** Longest feature name, label name or id (default 1024). */
  maxNameLength?: number;
  /** Most features in one event (default unbounded). */
  maxFeaturesPerEvent?: number;
}

/**
 * The keys of {@linkcode NdjsonOptions} (what the NDJSON parser accepts; `readExamples` hands
 * these on to it).
 *
 * @example
 * ```ts
 * import { NDJSON_OPTION_KEYS } from "./ndjson_options.ts";
 * console.log(NDJSON_OPTION_KEYS.includes("growLabels")); // true
 * ```
 */
export const NDJSON_OPTION_KEYS: readonly (keyof NdjsonOptions)[] = [
  "featureKeys",
  "labelKeys",
  "features",
  "labels",
  "growFeatures",
  "growLabels",
  "hashing",
  "numFeatures",
  "numLabels",
  "text",
  "strictFields",
  "maxNameLength",
  "maxFeaturesPerEvent",
];

/**
 * Why an option of `options` (an object whose key modes are valid) means nothing in the key
 * modes it gives — `option growFeatures applies to named features only (featureKeys "name"); this
 * input has indexed features` — or `undefined` when each one given is used: the feature
 * vocabulary and `growFeatures` need named features without hashing, `numFeatures` indexed
 * features without hashing, `labels` and `growLabels` named labels, `numLabels` indexed labels.
 * With `shared` (the parser's own check) a `features` vocabulary in another mode is let
 * through: a caller such as the learning service hands its vocabulary whatever the mode. O(1).
 *
 * @example
 * ```ts
 * import { unusedNdjsonOption } from "./ndjson_options.ts";
 * import { Vocabulary } from "./vocabulary.ts";
 * console.log(unusedNdjsonOption({ features: new Vocabulary() }, false));
 * // option features applies to named features only (featureKeys "name"); this input has indexed features
 * console.log(unusedNdjsonOption({ features: new Vocabulary() }, true)); // undefined
 * console.log(unusedNdjsonOption({ labelKeys: "index", numLabels: 5 }, false)); // undefined
 * ```
 */
export function unusedNdjsonOption(options: NdjsonOptions, shared: boolean): string | undefined {
  const given = (k: keyof NdjsonOptions) => options[k] !== undefined;
  const hashed = !!options.hashing;
  const namedFeatures = (options.featureKeys ?? "index") === "name";
  const namedLabels = (options.labelKeys ?? "name") === "name";
  const featureMode = hashed
    ? "with hashing, feature keys are hashed, not looked up or bounded"
    : namedFeatures
    ? "this input has named features"
    : "this input has indexed features";
  for (const k of ["features", "growFeatures"] as const) {
    if (!given(k) || (!hashed && namedFeatures) || (shared && k === "features")) continue;
    return `option ${k} applies to named features only (featureKeys "name"); ${featureMode}`;
  }
  if (given("numFeatures") && (namedFeatures || hashed)) {
    return `option numFeatures applies to indexed features only (featureKeys "index"); ${featureMode}`;
  }
  for (const k of ["labels", "growLabels"] as const) {
    if (given(k) && !namedLabels) {
      return `option ${k} applies to named labels only (labelKeys "name"); this input has indexed labels`;
    }
  }
  if (given("numLabels") && namedLabels) {
    return `option numLabels applies to indexed labels only (labelKeys "index"); this input has named labels`;
  }
  return undefined;
}

/** Exclusive bound on indices (int32): 2^31 admits every index. */
const MAX_INDEX_BOUND = 2 ** 31;

/**
 * {@linkcode NdjsonOptions} with the defaults filled in and checked (see
 * {@linkcode resolveNdjsonOptions}); bounds without a limit are `Infinity`.
 *
 * @example
 * ```ts
 * import { type NdjsonSettings, resolveNdjsonOptions } from "./ndjson_options.ts";
 * const s: NdjsonSettings = resolveNdjsonOptions({ featureKeys: "name" });
 * console.log(s.labelKeys, s.maxNameLength, s.numFeatures); // name 1024 Infinity
 * ```
 */
export interface NdjsonSettings {
  /** Feature key mode. */
  readonly featureKeys: FeatureKeys;
  /** Label key mode. */
  readonly labelKeys: "name" | "index";
  /** Feature-name vocabulary. */
  readonly features: Vocabulary;
  /** Label-name vocabulary. */
  readonly labels: Vocabulary;
  /** Add new feature names. */
  readonly growFeatures: boolean;
  /** Add new label names. */
  readonly growLabels: boolean;
  /** The hasher, when hashing. */
  readonly hasher: FeatureHasher | undefined;
  /** Exclusive bound on index keys. */
  readonly numFeatures: number;
  /** Exclusive bound on label indices. */
  readonly numLabels: number;
  /** Reject unknown fields. */
  readonly strictFields: boolean;
  /** The tokenizer settings of `text` fields (a copy), when text is read. */
  readonly text: TextSettings | undefined;
  /** Longest feature name, label name or id. */
  readonly maxNameLength: number;
  /** Most features in one event. */
  readonly maxFeaturesPerEvent: number;
}

/**
 * Checks `options` and fills in the defaults. Throws a TypeError naming an unknown key, a bad
 * key mode or text setting (or text without named feature keys), a value of the wrong type or
 * an option the key modes leave unused ({@linkcode unusedNdjsonOption}, `shared`), and a
 * RangeError naming a bound out of range (index bounds are integers in [0, 2^31], the name and
 * feature limits integers in [1, 2^31 − 1]).
 *
 * @example
 * ```ts
 * import { resolveNdjsonOptions } from "./ndjson_options.ts";
 * console.log(resolveNdjsonOptions({ hashing: { dim: 16 } }).hasher?.dim); // 16
 * try {
 *   resolveNdjsonOptions({ text: {} });
 * } catch (e) {
 *   console.log((e as Error).message); // ndjson: text needs named feature keys (featureKeys "name" or hashing)
 * }
 * ```
 */
export function resolveNdjsonOptions(options: NdjsonOptions = {}): NdjsonSettings {
  const where = "ndjson";
  checkOptionKeys(where, options, NDJSON_OPTION_KEYS);
  const featureKeys = options.featureKeys ?? "index";
  if (featureKeys !== "index" && featureKeys !== "name") {
    throw new TypeError(
      `ndjson: featureKeys must be "index" or "name", got '${featureKeys}'`,
    );
  }
  const labelKeys = options.labelKeys ?? "name";
  if (labelKeys !== "index" && labelKeys !== "name") {
    throw new TypeError(`ndjson: labelKeys must be "index" or "name", got '${labelKeys}'`);
  }
  for (const key of ["features", "labels"] as const) {
    const v = options[key];
    if (v !== undefined && !(v instanceof Vocabulary)) {
      throw new TypeError(`${where}: option ${key} must be a Vocabulary, got ${shown(v)}`);
    }
  }
  const features = options.features ?? new Vocabulary();
  const labels = options.labels ?? new Vocabulary();
  const growFeatures = booleanOption(where, "growFeatures", options.growFeatures, true);
  const growLabels = booleanOption(where, "growLabels", options.growLabels, true);
  const hasher = options.hashing ? new FeatureHasher(options.hashing) : undefined;
  const bound = (name: "numFeatures" | "numLabels") =>
    numberOption(where, name, options[name], Infinity, 0, MAX_INDEX_BOUND, true);
  const numFeatures = bound("numFeatures");
  const numLabels = bound("numLabels");
  const unused = unusedNdjsonOption(options, true);
  if (unused !== undefined) throw new TypeError(`${where}: ${unused}`);
  const strictFields = booleanOption(where, "strictFields", options.strictFields, false);
  const limit = (name: "maxNameLength" | "maxFeaturesPerEvent", fallback: number) =>
    numberOption(where, name, options[name], fallback, 1, 2 ** 31 - 1, true);
  let text: TextSettings | undefined;
  if (options.text !== undefined) {
    const bad = textSettingsError(options.text);
    if (bad !== undefined) throw new TypeError(`ndjson: text: ${bad}`);
    if (!hasher && featureKeys !== "name") {
      throw new TypeError(
        `ndjson: text needs named feature keys (featureKeys "name" or hashing)`,
      );
    }
    text = { ...options.text };
  }
  return {
    featureKeys,
    labelKeys,
    features,
    labels,
    growFeatures,
    growLabels,
    hasher,
    numFeatures,
    numLabels,
    strictFields,
    text,
    maxNameLength: limit("maxNameLength", 1024),
    maxFeaturesPerEvent: limit("maxFeaturesPerEvent", Infinity),
  };
}
