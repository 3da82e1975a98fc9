import { conjugateGradient } from "../../src/linalg/cg.ts";
import { SmallRng } from "../../src/models/leml/rng.ts";

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

Deno.test("cg: converges on a random SPD system and respects warm starts", () => {
  const n = 30, rng = new SmallRng(4);
  const b = Float64Array.from({ length: n * n }, () => rng.next() - 0.5);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = i === j ? 1 : 0;
      for (let p = 0; p < n; p++) s += b[p * n + i] * b[p * n + j];
      a[i * n + j] = s;
    }
  }
  const apply = (v: Float64Array, out: Float64Array) => {
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += a[i * n + j] * v[j];
      out[i] = s;
    }
  };
  const xTrue = Float64Array.from({ length: n }, () => rng.next());
  const rhs = new Float64Array(n);
  apply(xTrue, rhs);
  const x = new Float64Array(n);
  const r = conjugateGradient(apply, rhs, x, { tolerance: 1e-12, maxIterations: 200 });
  assert(r.relativeResidual < 1e-10, `residual ${r.relativeResidual}`);
  for (let i = 0; i < n; i++) assert(Math.abs(x[i] - xTrue[i]) < 1e-8, `x[${i}]`);
  // warm start at the solution: no iteration needed
  const again = conjugateGradient(apply, rhs, x, { tolerance: 1e-8 });
  assert(again.iterations === 0, `warm start used ${again.iterations} iterations`);
  // the iteration cap is honoured
  const capped = conjugateGradient(apply, rhs, new Float64Array(n), {
    maxIterations: 2,
    tolerance: 0,
  });
  assert(capped.iterations === 2, `cap: ${capped.iterations}`);
});
