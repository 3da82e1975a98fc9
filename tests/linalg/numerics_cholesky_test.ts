import { choleskyFactor, choleskyFactorShifted, choleskySolve } from "../../src/linalg/cholesky.ts";
import { assert, messageOf } from "../helpers.ts";

/** max |(L Lᵀ)_ij − (a + δI)_ij| over the lower triangle. */
function reconstructionError(a: Float64Array, l: Float64Array, n: number, delta: number): number {
  let worst = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let p = 0; p < n; p++) s += l[i * n + p] * l[j * n + p];
      worst = Math.max(worst, Math.abs(s - a[i * n + j] - (i === j ? delta : 0)));
    }
  }
  return worst;
}

Deno.test("cholesky numerics: a PSD matrix with a subnormal diagonal is factored (no endless loop)", () => {
  // δ₀ = 1e-8 · 1e-320 underflows to 0; 0 · 100 stayed 0 and the shift loop never ended
  const a = Float64Array.of(1e-320, 0, 0, 0);
  const l = new Float64Array(4);
  const delta = choleskyFactorShifted(a, 2, l);
  assert(delta > 0 && delta <= 1e-2 * 1e-320, `shift ${delta}`);
  for (const v of l) assert(Number.isFinite(v), `factor ${Array.from(l)}`);
  assert(l[3] > 0, `the zero pivot got the shift: ${Array.from(l)}`);
});

Deno.test("cholesky numerics: the documented last shift, 1e-2 times the largest diagonal, is tried", () => {
  // pivots 3 + δ and −0.029 + δ: only δ = 1e-2 · 3 = 0.03 factors it; rounding left the
  // accumulated δ (3e-8 · 100³) just above 1e-2 · 3 and the loop stopped before trying it
  const a = Float64Array.of(3, 0, 0, -0.029);
  const l = new Float64Array(4);
  const delta = choleskyFactorShifted(a, 2, l);
  assert(Math.abs(delta - 0.03) < 1e-12, `shift ${delta}`);
  assert(reconstructionError(a, l, 2, delta) < 1e-12, "L Lᵀ = a + δI");
  // one step further (only 0.3 would do) is still refused
  const msg = messageOf(() => choleskyFactorShifted(Float64Array.of(3, 0, 0, -0.29), 2, l));
  assert(/not positive semi-definite/.test(msg), msg);
});

Deno.test("cholesky numerics: small hand cases and random SPD systems against the definition", () => {
  // [[4, 2], [2, 5]] = L Lᵀ with L = [[2, 0], [1, 2]]
  const l = choleskyFactor(Float64Array.of(4, 2, 2, 5), 2);
  assert(Array.from(l).join() === "2,0,1,2", Array.from(l).join());
  let seed = 7;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
  for (const n of [1, 3, 8]) {
    const b = Float64Array.from({ length: n * n }, rnd);
    const a = new Float64Array(n * n); // BᵀB + I
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let s = i === j ? 1 : 0;
        for (let p = 0; p < n; p++) s += b[p * n + i] * b[p * n + j];
        a[i * n + j] = s;
      }
    }
    const f = choleskyFactor(a, n);
    assert(reconstructionError(a, f, n, 0) < 1e-12, `n = ${n}`);
    const rhs = Float64Array.from({ length: n }, rnd);
    const x = choleskySolve(f, n, rhs);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += a[i * n + j] * x[j];
      assert(Math.abs(s - rhs[i]) < 1e-12, `A x = b at row ${i}, n = ${n}`);
    }
  }
});

Deno.test("cholesky numerics: an output array too short is named, not reported as an indefinite matrix", () => {
  const msg = messageOf(() => choleskyFactor(Float64Array.of(4, 0, 0, 4), 2, new Float64Array(2)));
  assert(/choleskyFactor: out has 2 < 4 entries/.test(msg), msg);
});
