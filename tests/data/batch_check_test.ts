import { checkBatch } from "../../src/data/batch_check.ts";
import { oneRowBatch } from "../../src/data/one_row_batch.ts";
import type { Batch } from "../../src/data/types.ts";
import { assert } from "../helpers.ts";

const batch = (xi: number[][], y: number[][], extra: Partial<Batch> = {}): Batch => {
  const ptr = (rows: number[][]) =>
    Int32Array.from([0, ...rows.map((_, i) => rows.slice(0, i + 1).flat().length)]);
  return {
    x: {
      numRows: xi.length,
      numCols: 3,
      indptr: ptr(xi),
      indices: Int32Array.from(xi.flat()),
      values: new Float32Array(xi.flat().length).fill(1),
    },
    y: { numRows: y.length, numCols: 2, indptr: ptr(y), indices: Int32Array.from(y.flat()) },
    ...extra,
  };
};
const message = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    assert(e instanceof RangeError, `${e} is not a RangeError`);
    return e.message;
  }
  return "";
};

Deno.test("checkBatch: the sizes a batch needs, at least the declared ones", () => {
  const [d, l] = checkBatch(batch([[0, 7], []], [[1], [0, 4]]), "t");
  assert(d === 8 && l === 5, `${d} ${l}`);
  const [d2, l2] = checkBatch(batch([[0]], [[]]), "t");
  assert(d2 === 3 && l2 === 2, `declared sizes: ${d2} ${l2}`);
  const observed = {
    numRows: 1,
    numCols: 2,
    indptr: Int32Array.of(0, 2),
    indices: Int32Array.of(1, 9),
  };
  assert(checkBatch(batch([[0]], [[1]], { observed }), "t")[1] === 10, "observed labels count");
});

Deno.test("checkBatch: each fault named by the caller, the part, the row (and its event) and the entry", () => {
  const cases: [Batch, string][] = [
    [
      batch([[0], [2, 1]], [[0], [1]]),
      "t: row 1 of x: feature indices are not strictly increasing (1 after 2)",
    ],
    [
      batch([[0, 0]], [[0]]),
      "t: row 0 of x: feature indices are not strictly increasing (0 after 0)",
    ],
    [batch([[-4]], [[0]]), "t: row 0 of x: feature index -4 is negative"],
    [
      batch([[0], [1]], [[0], [1, 1]]),
      "t: row 1 of y: label indices are not strictly increasing (1 after 1)",
    ],
    [batch([[0]], [[-1]]), "t: row 0 of y: label index -1 is negative"],
    [batch([[0], [1]], [[0]]), "t: x has 2 rows but y has 1"],
    [
      batch([[0]], [[0]], { fullyObserved: Uint8Array.of(1, 1) }),
      "t: fullyObserved has 2 entries, x has 1 rows",
    ],
    [batch([[0], [1]], [[0], [0]], { ids: ["a", "b"] }), ""],
  ];
  const bad = batch([[0], [1]], [[0], [0]], { ids: ["a", "b"] });
  (bad.x.values as Float32Array)[1] = Infinity;
  cases.push([bad, "t: row 1 (event b) of x: non-finite value at feature 1 (Infinity)"]);
  const short = batch([[0, 1]], [[0]]);
  cases.push([
    { ...short, x: { ...short.x, values: Float32Array.of(1) } },
    "t: x has 2 entries but 1 values",
  ]);
  cases.push([
    { ...short, x: { ...short.x, indptr: Int32Array.of(0, 3) } },
    "t: x.indptr is not a valid row pointer for 1 rows",
  ]);
  for (const [b, want] of cases) {
    const got = message(() => checkBatch(b, "t"));
    assert(got === want, `expected "${want}", got "${got}"`);
  }
});

Deno.test("oneRowBatch: labels sorted and kept once, features as given, sizes from the indices", () => {
  const x = { indices: Int32Array.of(1, 6), values: Float32Array.of(0.5, 2) };
  const y = [5, 0, 5, 2];
  const b = oneRowBatch(x, y, "t");
  assert(
    b.y.indices.join() === "0,2,5" && b.y.numCols === 6 && b.x.numCols === 7,
    JSON.stringify(b.y),
  );
  assert(b.x.indices === x.indices && b.x.values === x.values, "the row is passed as it is");
  assert(y.join() === "5,0,5,2", "the labels given were changed");
  assert(checkBatch(b, "t")[0] === 7, "a one-row batch passes the check");
  for (const l of [1.5, -1, NaN, 2 ** 31]) {
    assert(
      message(() => oneRowBatch(x, [0, l], "t")) === `t: label ${l} is not a non-negative integer`,
      `${l}`,
    );
  }
  // a label given as a string said `label 3 is not a non-negative integer`, as if 3 were refused
  {
    let e: unknown;
    try {
      oneRowBatch(x, [0, "3" as unknown as number], "t");
    } catch (err) {
      e = err;
    }
    assert(e instanceof TypeError, String(e));
    assert(
      (e as Error).message === 't: y[1] must be a label index (a number), got "3" (a string)',
      (e as Error).message,
    );
  }
  // a bare label number would be read as no labels at all
  for (const [y, what] of [[3, "number"], [null, "null"], [{}, "an object without a length"]]) {
    let err: unknown;
    try {
      oneRowBatch(x, y as never, "t");
    } catch (e) {
      err = e;
    }
    assert(
      err instanceof TypeError &&
        err.message === `t: y must be an array of label indices, got ${what}`,
      `${what}: ${err}`,
    );
  }
  assert(oneRowBatch(x, Uint16Array.of(3), "t").y.indices.join() === "3", "typed arrays are fine");
});
