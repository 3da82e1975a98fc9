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
