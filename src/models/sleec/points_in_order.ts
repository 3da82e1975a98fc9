/**
 * A `knn-embedding` model file content with its points stored in a given order: point e of the
 * result is point `order[e]` of the input, with its labels. The neighbour index
 * (./knn_index.ts) stores each cluster's points list by list this way, so that a list is one
 * block of the `points` tensor, which the SDK reads in place (sdk/kinds/knn_index.ts).
 *
 * @module
 */
import type { ModelFileContent, Tensor } from "../../format/types.ts";

/**
 * `content` with tensor `points` (any dtype; an i8 tensor's per-row scales move with their rows),
 * `labelPtr` and `labels` permuted by `order` (a permutation of the P points that keeps every
 * point within its cluster, as `pointPtr` is left as it is). The input is not modified.
 *
 * @throws {RangeError} when `order` is not a permutation of the points within their clusters.
 *
 * @example
 * ```ts
 * import { pointsInOrder } from "./points_in_order.ts";
 * const c = pointsInOrder({
 *   kind: "knn-embedding", numFeatures: 1, numLabels: 2, params: { rank: 1 },
 *   tensors: {
 *     pointPtr: { dtype: "i32", shape: [2], data: Int32Array.of(0, 2) },
 *     points: { dtype: "f32", shape: [2, 1], data: Float32Array.of(0.5, -1) },
 *     labelPtr: { dtype: "i32", shape: [3], data: Int32Array.of(0, 1, 3) },
 *     labels: { dtype: "i32", shape: [3], data: Int32Array.of(1, 0, 1) },
 *   },
 * }, Int32Array.of(1, 0));
 * console.log(c.tensors.points.data, c.tensors.labelPtr.data, c.tensors.labels.data);
 * // Float32Array(2) [ -1, 0.5 ] Int32Array(3) [ 0, 2, 3 ] Int32Array(3) [ 0, 1, 1 ]
 * ```
 */
export function pointsInOrder(content: ModelFileContent, order: Int32Array): ModelFileContent {
  const t = content.tensors, pointPtr = t.pointPtr.data as Int32Array, C = pointPtr.length - 1;
  const P = pointPtr[C], r = content.params.rank as number;
  const labelPtr = t.labelPtr.data as Int32Array, labels = t.labels.data as Int32Array;
  const seen = new Uint8Array(P);
  if (order.length !== P) {
    throw new RangeError(`pointsInOrder: order has ${order.length} entries for ${P} points`);
  }
  for (let c = 0; c < C; c++) {
    for (let e = pointPtr[c]; e < pointPtr[c + 1]; e++) {
      const p = order[e];
      if (!(p >= pointPtr[c] && p < pointPtr[c + 1]) || seen[p]++) {
        throw new RangeError(
          `pointsInOrder: order[${e}] = ${p} is not an unused point of cluster ${c}`,
        );
      }
    }
  }
  // rows of r elements of whatever type the tensor stores (f32, f16 bits, i8)
  const old = t.points, src = old.data as Float32Array, data = src.slice();
  for (let e = 0; e < P; e++) data.set(src.subarray(order[e] * r, order[e] * r + r), e * r);
  const points: Tensor = { ...old, data: data as Tensor["data"] };
  const scale = old.scale;
  if (scale instanceof Float32Array) points.scale = Float32Array.from(order, (p) => scale[p]);
  const ptr = new Int32Array(P + 1), out = new Int32Array(labels.length);
  for (let e = 0; e < P; e++) {
    const p = order[e];
    out.set(labels.subarray(labelPtr[p], labelPtr[p + 1]), ptr[e]);
    ptr[e + 1] = ptr[e] + labelPtr[p + 1] - labelPtr[p];
  }
  return {
    ...content,
    tensors: {
      ...t,
      points,
      labelPtr: { ...t.labelPtr, data: ptr },
      labels: { ...t.labels, data: out },
    },
  };
}
