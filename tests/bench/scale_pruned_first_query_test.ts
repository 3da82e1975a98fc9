// The scale benchmark's pruned export scores the unpruned and the pruned file through the SDK;
// the pruned file has no biasOrder, so the SDK sorts its biases on its first query (0.59 s at 10⁶
// labels), which the per-row figure spread over the rows: 6.6 ms a row for the pruned file
// against 1.5 for the unpruned one over 200 rows. The first query is now reported apart.
import { compareFiles, prunedExport } from "../../bench/scale/prune_export.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { assert, assertEquals } from "../helpers.ts";

const L = 3000, D = 50;

/** Two weights a label (features l % 25 and 25 + l % 17), every bias a different negative. */
function weights() {
  const labelPtr = new Int32Array(L + 1);
  const featIdx = new Int32Array(2 * L), values = new Float32Array(2 * L);
  for (let l = 0; l < L; l++) {
    featIdx[2 * l] = l % 25;
    featIdx[2 * l + 1] = 25 + (l % 17);
    values[2 * l] = ((l % 7) + 1) / 10;
    values[2 * l + 1] = ((l % 13) - 6.5) / 10;
    labelPtr[l + 1] = 2 * l + 2;
  }
  const bias = Float32Array.from({ length: L }, (_, l) => -1 - l / L);
  return { numFeatures: D, numLabels: L, labelPtr, featIdx, values, bias };
}

const rows = Array.from({ length: 6 }, (_, i) => ({
  x: { indices: Int32Array.of(i, i + 10, i + 20), values: Float32Array.of(1, 0.5, 0.25) },
  labels: Int32Array.of(i, i + 10),
}));
const props = new Float64Array(L).fill(0.5);

Deno.test("compareFiles times each file's first query apart and still scores every row once", () => {
  const w = weights();
  const withOrder = encodeModelFile(linearSparseContent(w));
  const withoutOrder = encodeModelFile(linearSparseContent(w, { biasOrder: false }));
  const c = compareFiles(withOrder, withoutOrder, rows, props, 100, 60);
  assertEquals(c.rows, rows.length);
  assert(
    typeof c.firstQueryMsA === "number" && c.firstQueryMsA >= 0,
    `firstQueryMsA ${c.firstQueryMsA}`,
  );
  assert(
    typeof c.firstQueryMsB === "number" && c.firstQueryMsB >= 0,
    `firstQueryMsB ${c.firstQueryMsB}`,
  );
  // the same model either way: the warm-up query is not counted in the metrics
  assertEquals(c.a, c.b);
});

Deno.test("prunedExport reports the SDK's first query of both files beside the per-row times", () => {
  const w = weights();
  const unpruned = encodeModelFile(linearSparseContent(w));
  const r = prunedExport(w, unpruned, rows, props, {
    maxBytes: Math.floor(unpruned.length * 0.4),
    delta: 1,
    evalRows: 100,
    evalBudgetSeconds: 60,
  });
  assert(r.needed && r.weights < r.weightsBefore, JSON.stringify(r));
  assertEquals(r.evalRows, rows.length);
  for (const key of ["sdkFirstQueryMsUnpruned", "sdkFirstQueryMsPruned"] as const) {
    assert(typeof r[key] === "number" && r[key] >= 0, `${key}: ${r[key]}`);
  }
});
