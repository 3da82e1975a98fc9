/**
 * Export of a {@linkcode KnnModel} as a `knn-embedding` model file (see docs/model-format.md),
 * and the way back.
 *
 * Layout (C clusters over all learners, D = numFeatures, r = rank, P points in total):
 *
 * - params: `rank` (r), `k` (neighbours), `weighted` (boolean), `numLearners`,
 *   `numClusters` (C); `votePower` (π of the weighted vote) only when not 1 (format version 4).
 * - `centroids` f32 [C, D]: unit-norm cluster centroids, row-major.
 * - `clusterLearner` i32 [C]: the learner of each cluster, in [0, numLearners).
 * - `V` f32 [C·D, r]: cluster c's regressor is rows c·D … c·D + D − 1 (row j = feature j).
 * - `pointPtr` i32 [C + 1]: cluster c owns points pointPtr[c] … pointPtr[c + 1] − 1.
 * - `points` [P, r]: unit-norm embedded training points XV, row-major; f32, or f16 / i8
 *   (per-row scales) when quantised; quantised values are used as decoded (not re-normalised).
 * - `labelPtr` i32 [P + 1], `labels` i32 [labelPtr[P]]: point p's labels are
 *   labels[labelPtr[p]] … labels[labelPtr[p + 1] − 1] (increasing).
 * - optional `idf` f32 [D] when the preprocessing records TF-IDF.
 * - optional neighbour index (`knnCentroids`, `knnLists`, `knnPtr`, `knnOrder`, param
 *   `knnProbes`): added by {@linkcode encodeKnnModel} (./knn_index.ts), not by
 *   {@linkcode knnModelContent} (whose content is also the replica state).
 *
 * Within a learner, clusters are tried in file order (so "ties: the smaller cluster index" in
 * {@linkcode KnnPredictor} means the smaller index in this file), and points of a cluster in
 * `pointPtr` order. The scoring rule is the one documented in `./predictor.ts`.
 *
 * @module
 */
import { encodeModelFile } from "../../format/model_file.ts";
import { dequantize, quantizedTensor } from "../../format/quantize.ts";
import type { ModelFileContent, Tensor } from "../../format/types.ts";
import type { ModelFileOptions } from "../estimator.ts";
import type { KnnCluster, KnnModel } from "./predictor.ts";
import { applyModelFileOptions } from "../file_options.ts";
import { withKnnIndex } from "./knn_index.ts";
import { SLEEC_SETTINGS } from "./config.ts";

/**
 * The model-file content of a kNN-embedding model. Quantisation (`f16`, `i8`) applies to the
 * embedded points only; V and the centroids stay f32.
 *
 * @example
 * ```ts
 * import { knnModelContent } from "./model_file.ts";
 * const c = knnModelContent({ numFeatures: 1, numLabels: 1, rank: 1, numLearners: 1, k: 1, weighted: true, clusters: [] });
 * console.log(c.kind, c.tensors.pointPtr.shape); // knn-embedding [ 1 ]
 * ```
 */
export function knnModelContent(
  model: KnnModel,
  options: ModelFileOptions = {},
): ModelFileContent {
  const { numFeatures: D, rank: r } = model;
  const C = model.clusters.length;
  const centroids = new Float32Array(C * D);
  const clusterLearner = new Int32Array(C);
  const v = new Float32Array(C * D * r);
  const pointPtr = new Int32Array(C + 1);
  model.clusters.forEach((cl, c) => {
    centroids.set(cl.centroid.subarray(0, D), c * D);
    clusterLearner[c] = cl.learner;
    v.set(cl.v.subarray(0, D * r), c * D * r);
    pointPtr[c + 1] = pointPtr[c] + cl.numPoints;
  });
  const P = pointPtr[C];
  const points = new Float32Array(P * r);
  const labelPtr = new Int32Array(P + 1);
  let p = 0;
  for (const cl of model.clusters) {
    points.set(cl.points.subarray(0, cl.numPoints * r), p * r);
    for (let i = 0; i < cl.numPoints; i++) {
      labelPtr[p + i + 1] = labelPtr[p + i] + cl.labels[i].length;
    }
    p += cl.numPoints;
  }
  const labels = new Int32Array(labelPtr[P]);
  p = 0;
  for (const cl of model.clusters) {
    for (let i = 0; i < cl.numPoints; i++) labels.set(cl.labels[i], labelPtr[p + i]);
    p += cl.numPoints;
  }
  // f16, or i8 with a scale per point (no points: f32)
  const q = options.quantize === "f16" || (options.quantize === "i8" && P > 0)
    ? options.quantize
    : "f32";
  const pointTensor = quantizedTensor(points, [P, r], q);
  const content: ModelFileContent = {
    kind: "knn-embedding",
    numFeatures: D,
    numLabels: model.numLabels,
    params: {
      rank: r,
      k: model.k,
      weighted: model.weighted,
      numLearners: model.numLearners,
      numClusters: C,
      // the paper's vote (1) is not written, so such files keep their format version
      ...(model.votePower !== undefined && model.votePower !== 1
        ? { votePower: model.votePower }
        : {}),
    },
    tensors: {
      centroids: { dtype: "f32", shape: [C, D], data: centroids },
      clusterLearner: { dtype: "i32", shape: [C], data: clusterLearner },
      V: { dtype: "f32", shape: [C * D, r], data: v },
      pointPtr: { dtype: "i32", shape: [C + 1], data: pointPtr },
      points: pointTensor,
      labelPtr: { dtype: "i32", shape: [P + 1], data: labelPtr },
      labels: { dtype: "i32", shape: [labels.length], data: labels },
    },
  };
  return applyModelFileOptions(content, options, "sleec.toModelFile");
}

/**
 * Encodes a kNN-embedding model as a model file, with the neighbour index of
 * {@linkcode withKnnIndex} (default options: only when a cluster holds 1024 points or more).
 *
 * @example
 * ```ts
 * import { encodeKnnModel } from "./model_file.ts";
 * const bytes = encodeKnnModel({ numFeatures: 1, numLabels: 1, rank: 1, numLearners: 1, k: 1, weighted: true, clusters: [] });
 * console.log(bytes.length > 0); // true
 * ```
 */
export function encodeKnnModel(model: KnnModel, options: ModelFileOptions = {}): Uint8Array {
  return encodeModelFile(withKnnIndex(knnModelContent(model, options)));
}

function intParam(content: ModelFileContent, name: string, min: number, max = Infinity): number {
  const v = content.params[name];
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new RangeError(
      `knn-embedding model: param "${name}" must be an integer ${
        max < Infinity ? `in [${min}, ${max}], got ${v}` : `>= ${min}`
      }`,
    );
  }
  return v;
}

function tensorOf(content: ModelFileContent, name: string, length: number): Tensor {
  const t = content.tensors[name];
  if (t === undefined) throw new TypeError(`knn-embedding model: missing tensor "${name}"`);
  if (t.data.length !== length) {
    throw new RangeError(
      `knn-embedding model: tensor "${name}" has ${t.data.length} values, expected ${length}`,
    );
  }
  return t;
}

function int32Of(content: ModelFileContent, name: string, length: number): Int32Array {
  const t = tensorOf(content, name, length);
  if (!(t.data instanceof Int32Array)) {
    throw new TypeError(`knn-embedding model: tensor "${name}" must be i32, got ${t.dtype}`);
  }
  return t.data;
}

/**
 * Rebuilds the {@linkcode KnnModel} of decoded `knn-embedding` content (e.g. from
 * `decodeModelFile`); quantised points are dequantised. Arrays are views into the content where
 * possible.
 *
 * @throws {TypeError | RangeError} when the content is not a consistent `knn-embedding` model
 *   (naming the tensor or parameter).
 *
 * @example
 * ```ts
 * import { knnModelContent, knnModelFromContent } from "./model_file.ts";
 * const m = knnModelFromContent(knnModelContent({
 *   numFeatures: 1, numLabels: 2, rank: 1, numLearners: 1, k: 1, weighted: true,
 *   clusters: [{ learner: 0, centroid: Float32Array.of(1), v: Float32Array.of(2), numPoints: 1,
 *     points: Float32Array.of(1), labels: [Int32Array.of(1)] }],
 * }));
 * console.log(m.clusters[0].labels[0]); // Int32Array(1) [ 1 ]
 * ```
 */
export function knnModelFromContent(content: ModelFileContent): KnnModel {
  if (content.kind !== "knn-embedding") {
    throw new TypeError(`knnModelFromContent: kind is "${content.kind}", not "knn-embedding"`);
  }
  const D = content.numFeatures, L = content.numLabels;
  // at most SLEEC's largest rank (as the SDK): the predictor's scratch is sized by it, also
  // without points (rank 2^27 reserved gigabytes)
  const r = intParam(content, "rank", 1, SLEEC_SETTINGS.specs.rank.max);
  const k = intParam(content, "k", 1);
  const numLearners = intParam(content, "numLearners", 1);
  const C = intParam(content, "numClusters", 0);
  const weighted = content.params.weighted;
  if (typeof weighted !== "boolean") {
    throw new TypeError(`knn-embedding model: param "weighted" must be a boolean`);
  }
  const centroids = dequantize(tensorOf(content, "centroids", C * D));
  const v = dequantize(tensorOf(content, "V", C * D * r));
  const clusterLearner = int32Of(content, "clusterLearner", C);
  const pointPtr = int32Of(content, "pointPtr", C + 1);
  const P = pointPtr[C];
  for (let c = 0; c < C; c++) {
    if (!(pointPtr[c] <= pointPtr[c + 1]) || pointPtr[0] !== 0) {
      throw new RangeError(`knn-embedding model: pointPtr is not non-decreasing from 0 at ${c}`);
    }
    if (!(clusterLearner[c] >= 0 && clusterLearner[c] < numLearners)) {
      throw new RangeError(
        `knn-embedding model: cluster ${c} has learner ${
          clusterLearner[c]
        } outside [0, ${numLearners})`,
      );
    }
  }
  const points = dequantize(tensorOf(content, "points", P * r));
  // (a NaN similarity beats nothing and nothing beats it: the neighbours found depended on the
  // order the points were visited in, and the SDK's indexed search visits them in another)
  for (let e = 0; e < points.length; e++) {
    if (!Number.isFinite(points[e])) {
      throw new RangeError(
        `knn-embedding model: tensor "points" holds ${points[e]} at point ${
          Math.floor(e / r)
        }, coordinate ${e % r}: the points must be finite`,
      );
    }
  }
  const labelPtr = int32Of(content, "labelPtr", P + 1);
  const labels = int32Of(content, "labels", labelPtr[P]);
  // (a first offset below 0 gave point 0 the labels of a slice from the end of the tensor)
  if (labelPtr[0] !== 0) {
    throw new RangeError(`knn-embedding model: labelPtr starts at ${labelPtr[0]}, not 0`);
  }
  for (let p = 0; p < P; p++) {
    if (!(labelPtr[p] <= labelPtr[p + 1])) {
      throw new RangeError(`knn-embedding model: labelPtr decreases at point ${p}`);
    }
  }
  for (let e = 0; e < labels.length; e++) {
    if (!(labels[e] >= 0 && labels[e] < L)) {
      throw new RangeError(`knn-embedding model: label ${labels[e]} outside [0, ${L})`);
    }
  }
  const clusters: KnnCluster[] = [];
  for (let c = 0; c < C; c++) {
    const p0 = pointPtr[c], p1 = pointPtr[c + 1];
    const lists: Int32Array[] = [];
    for (let p = p0; p < p1; p++) lists.push(labels.subarray(labelPtr[p], labelPtr[p + 1]));
    clusters.push({
      learner: clusterLearner[c],
      centroid: centroids.subarray(c * D, (c + 1) * D),
      v: v.subarray(c * D * r, (c + 1) * D * r),
      numPoints: p1 - p0,
      points: points.subarray(p0 * r, p1 * r),
      labels: lists,
    });
  }
  const votePower = content.params.votePower;
  if (
    votePower !== undefined &&
    !(typeof votePower === "number" && Number.isInteger(votePower) && votePower >= 1)
  ) {
    throw new RangeError(`knn-embedding model: param "votePower" must be a positive integer`);
  }
  return {
    numFeatures: D,
    numLabels: L,
    rank: r,
    numLearners,
    k,
    weighted,
    clusters,
    ...(votePower !== undefined && votePower !== 1 ? { votePower } : {}),
  };
}
