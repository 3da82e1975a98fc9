/**
 * Review s28 (src/linalg/eigen.ts, the subspace iteration SLEEC's SVP runs): `topEigen` refused
 * an `init` block whose length is not a multiple of n only when it held at least n values; a
 * shorter one was dropped without a word and the iteration started from random columns.
 */
import { topEigen } from "../../src/linalg/eigen.ts";
import { assertBadInput } from "../helpers.ts";

const diag = [5, 3, 1, 0.5];
const op = {
  n: 4,
  apply: (q: Float64Array, b: number, out: Float64Array) => {
    for (let i = 0; i < 4; i++) for (let c = 0; c < b; c++) out[i * b + c] = diag[i] * q[i * b + c];
  },
};

Deno.test("s28 topEigen: an init whose length is not a multiple of n is refused, short or long", () => {
  for (const length of [1, 3, 5, 7]) {
    assertBadInput([[
      () => topEigen(op, 1, { oversample: 1, init: new Float64Array(length).fill(1) }),
      new RegExp(`topEigen: init has ${length} values, not a multiple of n = 4`),
    ]]);
  }
  // whole columns (and no column) are taken
  for (const length of [0, 4, 8]) {
    topEigen(op, 1, { oversample: 1, init: new Float64Array(length).fill(1) });
  }
});
