/**
 * The registry of the model kinds the SDK serves: kind name → scorer factory. The reader
 * rejects other kinds as `unsupported`; `loadModel` builds the scorer.
 *
 * @module
 */
import { knnEmbedding } from "./knn_embedding.ts";
import { linearLowrank } from "./linear_lowrank.ts";
import { linearSparse } from "./linear_sparse.ts";
import { randomFeatures } from "./random_features.ts";
import type { KindFactory } from "./types.ts";

/**
 * Scorer factories by model kind.
 *
 * @example
 * ```ts
 * import { KINDS } from "./mod.ts";
 * console.log(Object.keys(KINDS)); // [ "linear-sparse", "linear-lowrank", "knn-embedding", "random-features" ]
 * ```
 */
export const KINDS: Readonly<Record<string, KindFactory>> = {
  "linear-sparse": linearSparse,
  "linear-lowrank": linearLowrank,
  "knn-embedding": knnEmbedding,
  "random-features": randomFeatures,
};
