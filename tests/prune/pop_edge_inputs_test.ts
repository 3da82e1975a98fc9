// POP on degenerate inputs: validation rows without any label gave PSP@k = 0 for every cut, so
// every cut was "within ε" and the search cut all labels but one, silently; a NaN weight made
// the top-δ comparator inconsistent, so a smaller weight was kept over a larger one.
import { keepTopDelta, labelOptimization, pop, thresholdWeights } from "../../src/prune/pop.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";

/** L labels over L features: label l's large weight is on feature l, a small one elsewhere. */
function diagonal(L: number) {
  const labelPtr = new Int32Array(L + 1), featIdx: number[] = [], values: number[] = [];
  for (let l = 0; l < L; l++) {
    for (let j = 0; j < L; j++) {
      featIdx.push(j);
      values.push(j === l ? 1 : 0.01);
    }
    labelPtr[l + 1] = featIdx.length;
  }
  return {
    numFeatures: L,
    numLabels: L,
    labelPtr,
    featIdx: Int32Array.from(featIdx),
    values: Float32Array.from(values),
  };
}

/** One row per label l: feature l, label l. */
function rowsOf(L: number, labelled = true) {
  const ptr = Int32Array.from({ length: L + 1 }, (_, i) => i);
  return {
    x: {
      numRows: L,
      numCols: L,
      indptr: ptr,
      indices: ptr.slice(0, L),
      values: new Float32Array(L).fill(1),
    },
    y: labelled
      ? { numRows: L, numCols: L, indptr: ptr, indices: ptr.slice(0, L) }
      : { numRows: L, numCols: L, indptr: new Int32Array(L + 1), indices: new Int32Array(0) },
  };
}

Deno.test("labelOptimization: validation rows without any label are refused", async () => {
  const w = diagonal(3), props = new Float64Array(3).fill(0.5);
  await assertThrowsMsg(
    () => labelOptimization(w, rowsOf(3, false), props, Int32Array.of(0, 1, 2), { delta: 1 }),
    RangeError,
    "POP: the 3 validation rows hold no label in [0, 3)",
  );
  await assertThrowsMsg(
    () => pop(w, rowsOf(3, false), [1, 1, 1], props, { delta: 1 }),
    RangeError,
    "PSP@k is 0 whatever is pruned",
  );
});

Deno.test("keepTopDelta, thresholdWeights: a NaN weight ranks below every magnitude", () => {
  for (const vals of [[0.3, 0.1, NaN, 0.5], [NaN, 0.5, 0.3], [0.1, NaN, 0.5, 0.3]]) {
    const n = vals.length;
    const w = {
      numFeatures: n,
      numLabels: 1,
      labelPtr: Int32Array.of(0, n),
      featIdx: Int32Array.from({ length: n }, (_, i) => i),
      values: Float32Array.from(vals),
    };
    // the two largest, 0.5 and 0.3, in feature order
    const top = keepTopDelta(w, Uint8Array.of(1), 2);
    assertEquals([...top.featIdx], [vals.indexOf(0.5), vals.indexOf(0.3)].sort(), `${vals}`);
    assertEquals([...thresholdWeights(w, 1, 1).values], [0.5], `${vals}`);
    assert(!keepTopDelta(w, Uint8Array.of(1), n - 1).values.some(Number.isNaN), `${vals}`);
  }
});

Deno.test("labelOptimization cuts every label when even that keeps PSP@k within ε (m = L)", () => {
  // one label, its weights far more than δ = 1: keeping only the largest still ranks it first
  const w = {
    numFeatures: 3,
    numLabels: 1,
    labelPtr: Int32Array.of(0, 3),
    featIdx: Int32Array.of(0, 1, 2),
    values: Float32Array.of(2, 0.1, 0.05),
  };
  const v = {
    x: {
      numRows: 2,
      numCols: 3,
      indptr: Int32Array.of(0, 2, 3),
      indices: Int32Array.of(0, 1, 2),
      values: Float32Array.of(1, 1, 1),
    },
    y: { numRows: 2, numCols: 1, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 0) },
  };
  const r = labelOptimization(w, v, Float64Array.of(0.5), Int32Array.of(0), { delta: 1 });
  assertEquals(r.numPrunedLabels, 1);
  assertEquals([...r.model.values], [2]);
});
