/**
 * `pointsInOrder` (src/models/sleec/points_in_order.ts): the points of a `knn-embedding` content
 * reordered with their labels and i8 scales, the input untouched, and an order that is not a
 * permutation within the clusters refused with a `RangeError` naming the entry.
 *
 * @module
 */
import { pointsInOrder } from "../../../src/models/sleec/points_in_order.ts";
import { knnModelContent } from "../../../src/models/sleec/model_file.ts";
import { dequantize } from "../../../src/format/quantize.ts";
import { assert, assertEquals } from "../../helpers.ts";

const r = 2;
// two clusters of 3 and 2 points; point p has coordinates (p, -p) scaled and labels [p] or []
const content = (quantize?: "i8") =>
  knnModelContent({
    numFeatures: 1,
    numLabels: 5,
    rank: r,
    numLearners: 1,
    k: 2,
    weighted: true,
    clusters: [[0, 1, 2], [3, 4]].map((ps) => ({
      learner: 0,
      centroid: Float32Array.of(1),
      v: Float32Array.of(1, 0),
      numPoints: ps.length,
      points: Float32Array.from(ps.flatMap((p) => [(p + 1) / 8, -(p + 1) / 16])),
      labels: ps.map((p) => p === 1 ? Int32Array.of() : Int32Array.of(p, 4)),
    })),
  }, quantize ? { quantize } : {});

Deno.test("pointsInOrder moves each point with its labels (and i8 scale); the input stays", () => {
  const order = Int32Array.of(2, 0, 1, 4, 3);
  for (const quantize of [undefined, "i8"] as const) {
    const c = content(quantize), before = dequantize(c.tensors.points).slice();
    const labelsBefore = String(c.tensors.labels.data);
    const out = pointsInOrder(c, order), pts = dequantize(out.tensors.points);
    const lp = out.tensors.labelPtr.data as Int32Array, lab = out.tensors.labels.data as Int32Array;
    const oldLp = c.tensors.labelPtr.data as Int32Array,
      oldLab = c.tensors.labels.data as Int32Array;
    order.forEach((p, e) => {
      assertEquals([...pts.subarray(e * r, e * r + r)], [...before.subarray(p * r, p * r + r)]);
      assertEquals([...lab.subarray(lp[e], lp[e + 1])], [
        ...oldLab.subarray(oldLp[p], oldLp[p + 1]),
      ]);
    });
    assertEquals(out.tensors.points.dtype, quantize ?? "f32");
    if (quantize) assert(out.tensors.points.scale instanceof Float32Array, "per-row scales");
    assertEquals([...dequantize(c.tensors.points)], [...before], "input points unchanged");
    assertEquals(String(c.tensors.labels.data), labelsBefore, "input labels unchanged");
  }
});

Deno.test("pointsInOrder refuses an order that is not a permutation within the clusters", () => {
  const c = content();
  const cases: [Int32Array, string][] = [
    [Int32Array.of(0, 1, 2, 3), "order has 4 entries for 5 points"],
    [Int32Array.of(0, 1, 3, 2, 4), "order[2] = 3 is not an unused point of cluster 0"],
    [Int32Array.of(0, 0, 2, 3, 4), "order[1] = 0 is not an unused point of cluster 0"],
    [Int32Array.of(0, 1, 2, 3, -1), "order[4] = -1 is not an unused point of cluster 1"],
  ];
  for (const [order, message] of cases) {
    let error: unknown;
    try {
      pointsInOrder(c, order);
    } catch (e) {
      error = e;
    }
    assert(error instanceof RangeError && error.message.includes(message), `${error}`);
  }
});
