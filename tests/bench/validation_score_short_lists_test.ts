/**
 * `validationScore` (bench/repro/experiments/leml.ts, the selection score of `repro leml`,
 * `leml-stream` and `ova`) when a model's top-k list is shorter than 5: P@3 and P@5 must count
 * the hits it has (divided by 3 and 5), not drop them.
 */
import { assert } from "../helpers.ts";
import { validationScore } from "../../bench/repro/experiments/leml.ts";

function assertAlmostEquals(actual: number, expected: number, tol: number): void {
  assert(Math.abs(actual - expected) <= tol, `expected ${expected}, got ${actual}`);
}

function rows(labels: number[][]) {
  const indptr = new Int32Array(labels.length + 1);
  labels.forEach((l, i) => (indptr[i + 1] = indptr[i] + l.length));
  return {
    name: "v",
    numFeatures: 1,
    numLabels: 3,
    x: {
      numRows: labels.length,
      numCols: 1,
      indptr: Int32Array.from({ length: labels.length + 1 }, (_, i) => i),
      indices: new Int32Array(labels.length),
      values: new Float32Array(labels.length).fill(1),
    },
    y: { numRows: labels.length, numCols: 3, indptr, indices: Int32Array.from(labels.flat()) },
  };
}

Deno.test("validationScore counts the hits of a top list shorter than 5 at P@3 and P@5", () => {
  // a model that can only rank one label (e.g. a label space of 1)
  const model = { predictTopK: () => ({ labels: Int32Array.of(0), scores: Float32Array.of(1) }) };
  // P@1 = 100, P@3 = 100/3, P@5 = 100/5 by the definition
  const expected = (100 + 100 / 3 + 100 / 5) / 3;
  const r = validationScore(model, rows([[0]]));
  assertAlmostEquals(r.mean, expected, 1e-9);
});

Deno.test("validationScore of two rows with a two-label top list", () => {
  const model = {
    predictTopK: () => ({ labels: Int32Array.of(1, 0), scores: Float32Array.of(2, 1) }),
  };
  // row 0, truth {0, 2}: P@1 0, P@3 1/3, P@5 1/5; row 1, truth {1}: P@1 1, P@3 1/3, P@5 1/5
  const a = (0 + 100 / 3 + 100 / 5) / 3, b = (100 + 100 / 3 + 100 / 5) / 3;
  const r = validationScore(model, rows([[0, 2], [1]]));
  assertAlmostEquals(r.mean, (a + b) / 2, 1e-9);
  // standard error of a mean of two values: |a − b| / 2
  assertAlmostEquals(r.se, Math.abs(a - b) / 2, 1e-9);
});
