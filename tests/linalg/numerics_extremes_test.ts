import { admmRegressor } from "../../src/linalg/admm.ts";
import { symmetricEigen } from "../../src/linalg/dense.ts";
import { assert } from "../helpers.ts";

Deno.test("dense numerics: entries near the largest double are decomposed, not called non-finite", () => {
  // (a_ij + a_ji) / 2 overflowed for two entries near 1.8e308 although both and their mean are finite
  const big = 1.7e308;
  const { values } = symmetricEigen(Float64Array.of(big, 0, 0, big / 2), 2);
  const sorted = Array.from(values).sort((x, y) => y - x);
  assert(
    Math.abs(sorted[0] / big - 1) < 1e-12 && Math.abs(sorted[1] / (big / 2) - 1) < 1e-12,
    `${sorted}`,
  );
  const one = symmetricEigen(Float64Array.of(big), 1);
  assert(
    one.values[0] === big && Math.abs(one.vectors[0]) === 1,
    JSON.stringify(Array.from(one.values)),
  );
});

Deno.test("admm numerics: a subnormal Z is regressed, not refused for a μ the caller never set", () => {
  // Z is solved as Z/s with μ/s; for Z near 5e-324, μ/s overflowed to Infinity and the recursive
  // call refused it: "lambda, rho and mu must be finite, got 1, 0.1 and Infinity"
  const x = {
    numRows: 2,
    numCols: 1,
    indptr: Int32Array.of(0, 1, 2),
    indices: Int32Array.of(0, 0),
    values: Float32Array.of(1, 2),
  };
  const z = Float64Array.of(5e-324, 1e-323);
  const r = admmRegressor(x, z, 1, { mu: 1 });
  for (const v of [...r.v, ...r.xv]) {
    assert(Number.isFinite(v) && Math.abs(v) <= 1e-323, `${r.v} ${r.xv}`);
  }
  // and with μ = 0 the same Z still gives the ridge answer's sign and scale (V ≥ 0, tiny)
  const r0 = admmRegressor(x, z, 1, { mu: 0, lambda: 1e-9, iterations: 30 });
  assert(r0.v[0] >= 0 && r0.v[0] <= 1e-323, `${r0.v}`);
});
