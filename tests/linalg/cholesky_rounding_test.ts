// The shifted Cholesky factor when rounding leaves a zero pivot slightly positive.
import { choleskyFactorShifted, choleskySolve } from "../../src/linalg/cholesky.ts";
import { assert } from "../helpers.ts";

Deno.test("cholesky: a singular matrix whose zero pivot rounds slightly positive still gets the minimum-norm solve", () => {
  // a = v vᵀ, v = (u, x): rank 1. For these v, rounding leaves the second pivot x² − (ux/u)² at
  // about +1e-17 instead of 0, and the plain factor solved a·s = a·(1, 1) far from the
  // minimum-norm solution v (v·(1, 1))/‖v‖²
  for (const [u, x] of [[0.7, 1 / 5], [0.7, 1 / 10], [3, 1 / 11], [0.7, 1 / 21]]) {
    const a = Float64Array.of(u * u, u * x, u * x, x * x);
    const l = new Float64Array(4);
    const delta = choleskyFactorShifted(a, 2, l);
    const b = Float64Array.of(u * (u + x), x * (u + x));
    const s = choleskySolve(l, 2, b);
    const c = (u + x) / (u * u + x * x), best = [u * c, x * c];
    const err = Math.hypot(s[0] - best[0], s[1] - best[1]) / Math.hypot(best[0], best[1]);
    assert(err < 1e-6, `v = (${u}, ${x}): δ = ${delta}, solution ${s} is ${err} from ${best}`);
  }
});

Deno.test("cholesky: an SPD matrix, even ill-conditioned, is factored without a shift", () => {
  // condition number about 1e10: far above rounding, so the factor is choleskyFactor's
  const a = Float64Array.of(1, 0.5, 0.5, 0.25 + 1e-10);
  const l = new Float64Array(4);
  assert(choleskyFactorShifted(a, 2, l) === 0, "shifted an SPD matrix");
});
