/**
 * Export of a {@linkcode KnnModel} as a `knn-embedding` model file (see docs/model-format.md):
 * centroids, per-cluster V, embedded points (f32, or f16 / per-row i8 when quantised) and the
 * points' label lists.
 *
 * @module
 */
import { encodeModelFile } from "../../format/model_file.ts";
import { float32ToFloat16, quantizeInt8 } from "../../format/quantize.ts";
import type { ModelFileContent, Tensor } from "../../format/types.ts";
import type { ModelFileOptions } from "../estimator.ts";
import type { KnnModel } from "./predictor.ts";

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
  let pointTensor: Tensor = { dtype: "f32", shape: [P, r], data: points };
  if (options.quantize === "f16") {
    pointTensor = { dtype: "f16", shape: [P, r], data: float32ToFloat16(points) };
  } else if (options.quantize === "i8" && P > 0) {
    const q = quantizeInt8(points, P);
    pointTensor = { dtype: "i8", shape: [P, r], data: q.data, scale: q.scale };
  }
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
  if (options.labelNames) content.labelNames = [...options.labelNames];
  if (options.meta) content.meta = { ...options.meta };
  if (options.featureNames) {
    content.featureSpace = { type: "vocabulary", names: [...options.featureNames] };
  }
  if (options.preprocess) {
    content.preprocess = {
      tfidf: options.preprocess.tfidf,
      l2Normalize: options.preprocess.l2Normalize,
    };
    if (options.preprocess.tfidf && options.preprocess.idf) {
      content.tensors.idf = { dtype: "f32", shape: [D], data: options.preprocess.idf };
    }
  }
  return content;
}

/**
 * Encodes a kNN-embedding model as a model file.
 *
 * @example
 * ```ts
 * import { encodeKnnModel } from "./model_file.ts";
 * const bytes = encodeKnnModel({ numFeatures: 1, numLabels: 1, rank: 1, numLearners: 1, k: 1, weighted: true, clusters: [] });
 * console.log(bytes.length > 0); // true
 * ```
 */
export function encodeKnnModel(model: KnnModel, options: ModelFileOptions = {}): Uint8Array {
  return encodeModelFile(knnModelContent(model, options));
}
