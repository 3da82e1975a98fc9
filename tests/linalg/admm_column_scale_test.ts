// ADMM's ridge solves at each column's own scale, and far-off warm starts dropped, not refused.
import { admmRegressor, ridgeCg } from "../../src/linalg/admm.ts";
import { assert } from "../helpers.ts";

// two points on one feature, x = 1 and x = 2
const x = {
  numRows: 2,
  numCols: 1,
  indptr: Int32Array.of(0, 1, 2),
  indices: Int32Array.of(0, 0),
  values: Float32Array.of(1, 2),
};

Deno.test("admm: a column of Z far smaller than another is regressed, not left at 0", () => {
  // Z's columns are s₀·(1, 2) and s₁·(1, 2): with a tiny ridge, V ≈ (s₀, s₁)
  for (const [s0, s1] of [[1e200, 1], [1, 1e-170]]) {
    const z = Float64Array.of(s0, s1, 2 * s0, 2 * s1);
    const { v } = admmRegressor(x, z, 2, { lambda: 1e-9, mu: 0, iterations: 30 });
    assert(Math.abs(v[0] - s0) <= 1e-5 * s0, `scales ${s0}, ${s1}: v[0] = ${v[0]}`);
    assert(Math.abs(v[1] - s1) <= 1e-5 * s1, `scales ${s0}, ${s1}: v[1] = ${v[1]}`);
  }
});

Deno.test("admm: ridgeCg solves a column of Q at its own scale", () => {
  // (XᵀX + 1) v = q with XᵀX = 5: v = q / 6 in each column
  const v = new Float64Array(2);
  ridgeCg(x, 1, 1, Float64Array.of(12, 6e-170), 2, v, 10, 1e-12);
  assert(Math.abs(v[0] - 2) <= 1e-10, `v[0] = ${v[0]}`);
  assert(Math.abs(v[1] - 1e-170) <= 1e-10 * 1e-170, `v[1] = ${v[1]}`);
});

Deno.test("admm: a far-off warm start for a tiny Z starts from 0, not refused as Infinity", () => {
  // V = 1e200 divided by Z's scale 1e-160 overflows
  const z = Float64Array.of(1e-160, 2e-160);
  const { v } = admmRegressor(x, z, 1, {
    lambda: 1e-9,
    mu: 0,
    iterations: 30,
    init: Float64Array.of(1e200),
  });
  assert(Math.abs(v[0] - 1e-160) <= 1e-5 * 1e-160, `v[0] = ${v[0]}`);
});
