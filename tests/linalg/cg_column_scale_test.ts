// Column CG at each column's own scale, far-off warm starts from 0, and its sizes checked.
import { conjugateGradient, conjugateGradientColumns } from "../../src/linalg/cg.ts";
import { assert } from "../helpers.ts";

// Two independent diagonal systems per row: column c of row i is scaled by d[i][c].
const diagonalColumns = (d: number[][], cols: number) => (v: Float64Array, out: Float64Array) => {
  for (let i = 0; i < d.length; i++) {
    for (let c = 0; c < cols; c++) out[i * cols + c] = d[i][c] * v[i * cols + c];
  }
};

Deno.test("cg columns: a column far smaller than another is solved, not left at 0", () => {
  const d = [[2, 4], [3, 5]];
  // column 0 of order 1e200 (solved scaled) next to an ordinary column 1, and an ordinary
  // column 0 next to a column 1 of order 1e-170: both columns must be solved
  for (const [s0, s1] of [[1e200, 1], [1, 1e-170], [1e140, 1e-170]]) {
    const xTrue = Float64Array.of(1 * s0, -2 * s1, 3 * s0, 0.5 * s1);
    const b = new Float64Array(4);
    diagonalColumns(d, 2)(xTrue, b);
    const x = new Float64Array(4);
    const r = conjugateGradientColumns(diagonalColumns(d, 2), b, x, 2, 2, { tolerance: 1e-12 });
    for (let e = 0; e < 4; e++) {
      assert(
        Math.abs(x[e] - xTrue[e]) <= 1e-10 * Math.abs(xTrue[e]),
        `scales ${s0}, ${s1}: x[${e}] = ${x[e]}, expected ${xTrue[e]}`,
      );
    }
    assert(r.relativeResidual <= 1e-12, `scales ${s0}, ${s1}: residual ${r.relativeResidual}`);
  }
});

Deno.test("cg columns: a warm start is scaled with its own column", () => {
  const d = [[2, 4]];
  const b = Float64Array.of(2e200, 4);
  // column 1 starts at its solution 1: it needs no step and must stay there
  const x = Float64Array.of(0, 1);
  conjugateGradientColumns(diagonalColumns(d, 2), b, x, 1, 2, { tolerance: 1e-12 });
  assert(Math.abs(x[0] - 1e200) <= 1e-10 * 1e200, `x[0] = ${x[0]}`);
  assert(Math.abs(x[1] - 1) <= 1e-12, `x[1] = ${x[1]}`);
});

Deno.test("cg: a far-off start for a tiny b starts from 0, not refused as Infinity", () => {
  const d = [[2], [4]];
  const apply = diagonalColumns(d, 1);
  const b = Float64Array.of(2e-160, 4e-160); // solution (1e-160, 1e-160)
  // x / 1e-160 overflows for x = 1e200, which conjugateGradient then refused as "x[0] is Infinity"
  const x1 = Float64Array.of(1e200, 0);
  conjugateGradient(apply, b, x1, { tolerance: 1e-12 });
  const x2 = Float64Array.of(1e200, 0);
  conjugateGradientColumns(apply, b, x2, 2, 1, { tolerance: 1e-12 });
  for (const x of [x1, x2]) {
    for (let i = 0; i < 2; i++) {
      assert(Math.abs(x[i] - 1e-160) <= 1e-12 * 1e-160, `x[${i}] = ${x[i]}`);
    }
  }
});

Deno.test("cg columns: negative or fractional sizes are refused with the function named", () => {
  const id = (v: Float64Array, out: Float64Array) => out.set(v);
  // (-1)·(-2) = 2 matched b's length: the error came from deep inside, naming no function
  for (const [rows, cols] of [[-1, -2], [4, 0.5]]) {
    let message = "";
    try {
      conjugateGradientColumns(id, new Float64Array(2), new Float64Array(2), rows, cols);
    } catch (e) {
      assert(e instanceof RangeError, `${rows} × ${cols}: ${e}`);
      message = e.message;
    }
    assert(message.startsWith("conjugateGradientColumns:"), `${rows} × ${cols}: "${message}"`);
  }
});
