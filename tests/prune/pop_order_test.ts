// POP's label ranking at the boundary: a label count that is not a finite number >= 0 is a
// RangeError naming the label (a NaN made the impact NaN, which the impact order sorted
// anywhere), and the label order given to applyPop and labelOptimization must hold each label
// once (a label out of range was ignored by the cut's mask and a repeated one counted twice, so
// fewer labels were cut than asked, silently).
import { applyPop, labelImpact, labelOptimization, pop } from "../../src/prune/pop.ts";
import { assertEquals, assertThrowsMsg } from "../helpers.ts";

const weights = () => ({
  numFeatures: 3,
  numLabels: 3,
  labelPtr: Int32Array.of(0, 3, 6, 9),
  featIdx: Int32Array.of(0, 1, 2, 0, 1, 2, 0, 1, 2),
  values: Float32Array.of(1, -1, 0.5, -1, 1, 0.5, 0.25, 0.5, 1),
});
const rows = {
  x: {
    numRows: 3,
    numCols: 3,
    indptr: Int32Array.of(0, 1, 2, 3),
    indices: Int32Array.of(0, 1, 2),
    values: Float32Array.of(1, 1, 1),
  },
  y: { numRows: 3, numCols: 3, indptr: Int32Array.of(0, 1, 2, 3), indices: Int32Array.of(0, 1, 2) },
};
const props = Float64Array.of(0.5, 0.5, 0.5);

Deno.test("labelImpact: a label count that is not a finite number >= 0 is refused, naming the label", async () => {
  assertEquals([...labelImpact([4, 0, 1], props)], [8, 0, 2]);
  for (const bad of [NaN, -1, Infinity]) {
    await assertThrowsMsg(
      () => labelImpact([4, bad, 1], props),
      RangeError,
      `labelImpact: count of label 1 is ${bad}, not a finite number >= 0`,
    );
    await assertThrowsMsg(
      () => pop(weights(), rows, [4, bad, 1], props, { delta: 1 }),
      RangeError,
      "count of label 1",
    );
  }
});

Deno.test("applyPop, labelOptimization: a label order that is not each label once is refused", async () => {
  // a valid order cuts the first labels to δ = 1 weight: all 3 here
  assertEquals(applyPop(weights(), Int32Array.of(2, 0, 1), 3, { delta: 1 }).labelPtr, [0, 1, 2, 3]);
  for (const order of [Int32Array.of(5, -1, 0), Int32Array.of(0, 0, 1), Int32Array.of(2, 1, 3)]) {
    await assertThrowsMsg(
      () => applyPop(weights(), order, 3, { delta: 1 }),
      RangeError,
      "applyPop: label order entry",
    );
    await assertThrowsMsg(
      () => labelOptimization(weights(), rows, props, order, { delta: 1 }),
      RangeError,
      "must hold each label of [0, 3) once",
    );
  }
});
