// POP's storage: float16 (the default) of a weight past ±65504 was rounded to ±Infinity, and the
// file (and the validation PSP@k measured on it) silently held an infinite weight; now it is a
// RangeError naming the weight and the way out (--weights f32), and f32 storage keeps it. u16
// label indices for too many labels name the way out (--index i32) too.
import { pruneModel } from "../../src/prune/prune_model.ts";
import { popCurve } from "../../src/prune/curve.ts";
import { resolveStorage, storedWeights } from "../../src/prune/storage.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { assertEquals, assertThrowsMsg } from "../helpers.ts";

// 2 labels over 4 features; label 0's weight on feature 1 is 70000
const w = {
  numFeatures: 4,
  numLabels: 2,
  labelPtr: Int32Array.of(0, 4, 8),
  featIdx: Int32Array.of(0, 1, 2, 3, 0, 1, 2, 3),
  values: Float32Array.of(0.01, 70000, 0.02, 0.03, 1, 0.01, 0.02, 0.03),
};
const rows = {
  x: {
    numRows: 2,
    numCols: 4,
    indptr: Int32Array.of(0, 1, 2),
    indices: Int32Array.of(1, 0),
    values: Float32Array.of(1, 1),
  },
  y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
};
const props = Float64Array.of(0.5, 0.5);

Deno.test("storedWeights: a finite weight float16 cannot hold is refused, naming it", async () => {
  await assertThrowsMsg(
    () => storedWeights(w, "f16"),
    RangeError,
    "POP storage: weight 70000 of label 0 (feature 1) is beyond the float16 range ±65504",
  );
  assertEquals(storedWeights(w, "f32").values[1], 70000);
  // 65504 is the largest float16; an infinite weight stays what it was
  const edge = { ...w, values: Float32Array.of(65504, -65504, Infinity, 0, 1, 0, 0, 0) };
  // as text: JSON (assertEquals) writes Infinity, -Infinity and NaN alike as null
  assertEquals([...storedWeights(edge, "f16").values.subarray(0, 3)].map(String), [
    "65504",
    "-65504",
    "Infinity",
  ]);
});

Deno.test("pruneModel and popCurve refuse to store a weight as Infinity in float16", async () => {
  const content = linearSparseContent(w);
  await assertThrowsMsg(
    () => pruneModel(content, rows, [1, 1], props, { delta: 1, lambda: 0.01 }),
    RangeError,
    "--weights f32",
  );
  const r = pruneModel(content, rows, [1, 1], props, { delta: 1, lambda: 0.01, weightType: "f32" });
  assertEquals(r.weights.values.includes(70000), true);
  assertEquals(r.weights.values.some((v) => !Number.isFinite(v)), false);
  await assertThrowsMsg(
    () => popCurve(w, rows, [1, 1], props, { epsilons: [0], lambdas: [0], delta: 1, ks: [1] }),
    RangeError,
    "weight 70000 of label 0",
  );
});

Deno.test("resolveStorage: u16 indices for more than 65536 labels name the limit and --index i32", async () => {
  assertEquals(resolveStorage({ indexType: "u16" }, 65536).indexType, "u16");
  assertEquals(resolveStorage({}, 65537).indexType, "i32");
  await assertThrowsMsg(
    () => resolveStorage({ indexType: "u16" }, 65537),
    RangeError,
    'u16 label indices need numLabels <= 65536, got 65537: store i32 indices (indexType "i32", --index i32)',
  );
});
