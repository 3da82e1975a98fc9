import { choleskyFactor, choleskySolve } from "../../src/linalg/cholesky.ts";
import { SmallRng } from "../../src/random/mod.ts";
import { assert } from "../helpers.ts";

Deno.test("cholesky: solves random SPD systems", () => {
  const rng = new SmallRng(1);
  for (const n of [1, 3, 17]) {
    const b = Float64Array.from({ length: n * n }, () => rng.next() - 0.5);
    const a = new Float64Array(n * n); // BᵀB + 0.1 I
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let s = i === j ? 0.1 : 0;
        for (let p = 0; p < n; p++) s += b[p * n + i] * b[p * n + j];
        a[i * n + j] = s;
      }
    }
    const xTrue = Float64Array.from({ length: n }, () => rng.next());
    const rhs = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) rhs[i] += a[i * n + j] * xTrue[j];
    const x = choleskySolve(choleskyFactor(a, n), n, rhs);
    for (let i = 0; i < n; i++) {
      assert(Math.abs(x[i] - xTrue[i]) < 1e-8, `n=${n}: x[${i}] ${x[i]} vs ${xTrue[i]}`);
    }
  }
});

Deno.test("cholesky: rejects an indefinite matrix", () => {
  let msg = "";
  try {
    choleskyFactor(Float64Array.of(1, 2, 2, 1), 2);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(/not positive definite/.test(msg), msg);
});
