/**
 * A learner's share of rows and features is ⌈fraction · n⌉ of the fraction as written: a product
 * that floating point rounds a few ulps past an integer (0.07 · 100 = 7.000000000000001) does not
 * draw one more.
 */
import { learnerView } from "../../../src/models/sleec/learner_view.ts";
import { assertEquals } from "../../helpers.ts";

function rows(n: number, numCols: number) {
  return {
    numRows: n,
    numCols,
    indptr: Int32Array.from({ length: n + 1 }, (_, i) => i * numCols),
    indices: Int32Array.from({ length: n * numCols }, (_, e) => e % numCols),
    values: new Float32Array(n * numCols).fill(1),
  };
}

Deno.test("learnerView: rowFraction 0.07, 0.55 and 0.28 of 100 rows keep 7, 55 and 28 rows", () => {
  const x = rows(100, 1);
  assertEquals(learnerView(x, 0.07, 1, { seed: 1 }).rows.length, 7);
  assertEquals(learnerView(x, 0.55, 1, { seed: 1 }).rows.length, 55);
  assertEquals(learnerView(x, 0.28, 1, { seed: 1 }).rows.length, 28);
  assertEquals(learnerView(x, 0.075, 1, { seed: 1 }).rows.length, 8, "7.5 rounds up");
  assertEquals(learnerView(x, 1e-9, 1, { seed: 1 }).rows.length, 1, "at least one row");
});

Deno.test("learnerView: featureFraction 0.07 of 100 features keeps 7 of them in each row", () => {
  const v = learnerView(rows(3, 100), 1, 0.07, { seed: 2 }).x;
  for (let i = 0; i < 3; i++) assertEquals(v.indptr[i + 1] - v.indptr[i], 7, `row ${i}`);
});
