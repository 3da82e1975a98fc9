// pruneModel's reason reads as a sentence whatever the kind: "the pruned weights (…)" of a
// linear-sparse model "are not smaller", as "the pruned product W·Hᵀ (…)" of a linear-lowrank
// one "is not smaller".
import { pruneModel } from "../../src/prune/prune_model.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { assert } from "../helpers.ts";

Deno.test("pruneModel: a linear-sparse file that cannot shrink says its pruned weights are not smaller", () => {
  // two labels, each with two large weights (nothing to cut at δ = 2 or to threshold): the
  // pruned file adds its POP metadata and is larger
  const w = {
    numFeatures: 2,
    numLabels: 2,
    labelPtr: Int32Array.of(0, 2, 4),
    featIdx: Int32Array.of(0, 1, 0, 1),
    values: Float32Array.of(1, -1, -1, 1),
  };
  const input = encodeModelFile(linearSparseContent(w, { weightType: "f16", indexType: "u16" }));
  const rows = {
    x: {
      numRows: 2,
      numCols: 2,
      indptr: Int32Array.of(0, 1, 2),
      indices: Int32Array.of(0, 1),
      values: Float32Array.of(1, 1),
    },
    y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
  };
  const p = propensities([1, 1], 2);
  const r = pruneModel(decodeModelFile(input), rows, [1, 1], p, { delta: 2 }, input);
  assert(!r.pruned && r.prunedBytes >= r.originalBytes, r.reason);
  assert(/^not pruned: the pruned weights \(.*\) are not smaller than/.test(r.reason), r.reason);
});
