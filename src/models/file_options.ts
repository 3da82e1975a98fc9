/**
 * The part of every model's `toModelFile` that does not depend on the model: label names, the
 * feature space (vocabulary names or hashing parameters, and the tokenizer settings of a model
 * that reads text), metadata and preprocessing (with its
 * `idf` tensor), checked against the content's sizes.
 *
 * @module
 */
import type { FeatureSpace, ModelFileContent } from "../format/types.ts";
import { textSettingsError } from "../../sdk/internal.ts";
import type { ModelFileOptions } from "./estimator.ts";
import { Vocabulary, VocabularyError } from "../data/vocabulary.ts";
import { parseSetting, type SettingSpec } from "./settings.ts";
import { shown } from "../data/option_check.ts";

/** The keys of {@linkcode ModelFileOptions}. */
const FILE_OPTION_NAMES = [
  "labelNames",
  "featureNames",
  "featureSpace",
  "quantize",
  "meta",
  "preprocess",
] as const;

/** The types of {@linkcode FeatureSpace}. */
const SPACE_TYPES: readonly string[] = ["index", "vocabulary", "hashing"];

/** The declaration of `quantize` (checked like a model setting). */
const QUANTIZE: SettingSpec = {
  kind: "enum",
  values: ["f32", "f16", "i8"],
  doc: "Storage of the float tensors.",
};

/**
 * Checks the options a model's `toModelFile` is given, before any work: an object whose keys
 * are those of {@linkcode ModelFileOptions} (a TypeError names an unknown key), `quantize` one
 * of f32, f16, i8 (a RangeError), `labelNames` and `featureNames` arrays of strings (TypeErrors)
 * without a repeated name, and no empty label name (RangeErrors), `meta` and `preprocess`
 * objects (TypeErrors naming the option), `featureSpace` an object of a known type whose
 * vocabulary repeats no name, `preprocess.tfidf`/`l2Normalize` booleans and `preprocess.idf` a
 * Float32Array of finite values. Sizes are checked later, against the
 * content ({@linkcode applyModelFileOptions}).
 *
 * @param where names the caller in errors, e.g. "leml.toModelFile"
 *
 * @example
 * ```ts
 * import { checkModelFileOptions } from "./file_options.ts";
 * checkModelFileOptions({ quantize: "f16", labelNames: ["a"] }, "demo"); // fine
 * try { checkModelFileOptions({ quantise: "f16" }, "demo"); } catch (e) { console.log((e as Error).message); }
 * // demo: unknown option "quantise" (known: labelNames, featureNames, featureSpace, quantize, meta, preprocess)
 * try { checkModelFileOptions({ labelNames: ["a", "b", "a"] }, "demo"); } catch (e) { console.log((e as Error).message); }
 * // demo: option labelNames repeats "a" (labelNames[0] and [2])
 * ```
 */
export function checkModelFileOptions(options: unknown, where: string): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`${where}: the options must be an object, got ${String(options)}`);
  }
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (o[key] !== undefined && !(FILE_OPTION_NAMES as readonly string[]).includes(key)) {
      throw new TypeError(
        `${where}: unknown option "${key}" (known: ${FILE_OPTION_NAMES.join(", ")})`,
      );
    }
  }
  if (o.quantize !== undefined) parseSetting(where, "quantize", QUANTIZE, o.quantize);
  for (const key of ["meta", "preprocess", "featureSpace"]) {
    const v = o[key];
    if (v !== undefined && (typeof v !== "object" || v === null || Array.isArray(v))) {
      throw new TypeError(`${where}: option ${key} must be an object, got ${String(v)}`);
    }
  }
  // a space of another type would be left out of the file (read as plain column indices)
  const space = o.featureSpace as { type?: unknown; names?: unknown } | undefined;
  if (space !== undefined && !SPACE_TYPES.includes(space.type as string)) {
    throw new TypeError(
      `${where}: option featureSpace.type must be one of ${SPACE_TYPES.join(", ")}, got ${
        shown(space.type)
      }`,
    );
  }
  const pre = o.preprocess as Record<string, unknown> | undefined;
  for (const flag of ["tfidf", "l2Normalize"]) {
    const v = pre?.[flag];
    if (v !== undefined && typeof v !== "boolean") {
      throw new TypeError(
        `${where}: option preprocess.${flag} must be true or false, got ${shown(v)}`,
      );
    }
  }
  if (pre?.idf !== undefined) {
    if (!(pre.idf instanceof Float32Array)) {
      throw new TypeError(`${where}: option preprocess.idf must be a Float32Array`);
    }
    const bad = pre.idf.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) {
      throw new RangeError(
        `${where}: option preprocess.idf[${bad}] = ${pre.idf[bad]} is not finite`,
      );
    }
  }
  // a vocabulary given as featureSpace names its columns like featureNames
  const vocabulary = space?.type === "vocabulary" ? space.names : undefined;
  for (
    const [key, names] of [
      ["labelNames", o.labelNames],
      ["featureNames", o.featureNames],
      ["featureSpace.names", vocabulary],
    ] as const
  ) {
    if (names === undefined) continue;
    if (!Array.isArray(names)) {
      throw new TypeError(
        `${where}: option ${key} must be an array of strings, got ${typeof names}`,
      );
    }
    const bad = names.findIndex((n) => typeof n !== "string");
    if (bad >= 0) {
      throw new TypeError(
        `${where}: option ${key} must be an array of strings, but ${key}[${bad}] is ${typeof names[
          bad
        ]}`,
      );
    }
    // a name stands for one column: a reader maps names to columns (the SDK's vocabulary,
    // the /predict protocol's label names), and a repeated one would stand for two
    try {
      new Vocabulary(names);
    } catch (e) {
      if (!(e instanceof VocabularyError && e.reason === "duplicate")) throw e;
      throw new RangeError(
        `${where}: option ${key} repeats ${
          JSON.stringify(e.entry)
        } (${key}[${e.firstPosition}] and [${e.position}])`,
      );
    }
    const empty = key === "labelNames" ? names.indexOf("") : -1;
    if (empty >= 0) throw new RangeError(`${where}: option labelNames[${empty}] is empty`);
  }
}

/**
 * Writes the shared {@linkcode ModelFileOptions} into `content` (in place; returns it).
 *
 * @param where names the caller in errors, e.g. "leml.toModelFile"
 * @throws {RangeError} when the label or feature names do not match the content's sizes, the
 * hashing dimension is below `numFeatures`, or `tfidf` comes without an `idf` of length
 * `numFeatures`; {TypeError} when the tokenizer settings (`featureSpace.text`) are invalid or
 * given with an index space
 * @throws {TypeError} when both `featureNames` and `featureSpace` are given
 *
 * @example
 * ```ts
 * import { applyModelFileOptions } from "./file_options.ts";
 * const c = applyModelFileOptions(
 *   { kind: "linear-sparse", numFeatures: 4, numLabels: 1, params: {}, tensors: {} },
 *   { labelNames: ["spam"], featureSpace: { type: "hashing", dim: 4, seed: 7 }, preprocess: { l2Normalize: true } },
 *   "example",
 * );
 * console.log(c.labelNames, c.featureSpace?.type, c.preprocess); // [ "spam" ] hashing { l2Normalize: true }
 * ```
 */
export function applyModelFileOptions(
  content: ModelFileContent,
  options: ModelFileOptions,
  where: string,
): ModelFileContent {
  const D = content.numFeatures, L = content.numLabels;
  if (options.labelNames) {
    if (options.labelNames.length !== L) {
      throw new RangeError(`${where}: ${options.labelNames.length} label names for ${L} labels`);
    }
    content.labelNames = [...options.labelNames];
  }
  if (options.featureNames && options.featureSpace) {
    throw new TypeError(`${where}: give featureNames or featureSpace, not both`);
  }
  const space: FeatureSpace | undefined = options.featureNames
    ? { type: "vocabulary", names: [...options.featureNames] }
    : options.featureSpace;
  if (space) content.featureSpace = checkedSpace(space, D, where);
  if (options.meta) content.meta = { ...content.meta, ...options.meta };
  const pre = options.preprocess;
  if (pre && (pre.tfidf || pre.l2Normalize)) {
    content.preprocess = {};
    if (pre.tfidf) {
      if (!pre.idf || pre.idf.length !== D) {
        throw new RangeError(
          `${where}: preprocess.tfidf needs an idf of length ${D}, got ${
            pre.idf?.length ?? "none"
          }`,
        );
      }
      content.preprocess.tfidf = true;
      content.tensors.idf = { dtype: "f32", shape: [D], data: pre.idf.slice() };
    }
    if (pre.l2Normalize) content.preprocess.l2Normalize = true;
  }
  return content;
}

function checkedSpace(space: FeatureSpace, D: number, where: string): FeatureSpace {
  const t = (space as { text?: unknown }).text;
  if (t !== undefined) {
    const bad = space.type === "index"
      ? "needs a vocabulary or hashing space"
      : textSettingsError(t);
    if (bad !== undefined) throw new TypeError(`${where}: featureSpace.text ${bad}`);
  }
  const text = space.type !== "index" && space.text ? { text: { ...space.text } } : {};
  switch (space.type) {
    case "index":
      return { type: "index" };
    case "vocabulary":
      if (space.names.length !== D) {
        throw new RangeError(`${where}: ${space.names.length} feature names for ${D} features`);
      }
      return { type: "vocabulary", names: [...space.names], ...text };
    case "hashing":
      // a model grows to the largest column it has seen, so it may be narrower than the hash
      if (space.dim < D) {
        throw new RangeError(`${where}: hashing dimension ${space.dim} below ${D} features`);
      }
      return space.signed
        ? { type: "hashing", dim: space.dim, seed: space.seed, signed: true, ...text }
        : { type: "hashing", dim: space.dim, seed: space.seed, ...text };
  }
}
