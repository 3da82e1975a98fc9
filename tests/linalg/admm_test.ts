import { admmRegressor, csrTimesDense, ridgeCg } from "../../src/linalg/admm.ts";
import { choleskyFactor, choleskySolve } from "../../src/linalg/cholesky.ts";
import { Rng } from "../../src/random/mod.ts";
import type { CsrMatrix } from "../../src/data/types.ts";
import { assert } from "../helpers.ts";

function randomSparse(n: number, d: number, density: number, seed: number): CsrMatrix {
  const rng = new Rng(seed);
  const indptr = new Int32Array(n + 1);
  const idx: number[] = [], val: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      if (rng.next() < density) {
        idx.push(j);
        val.push(rng.next() * 2 - 1);
      }
    }
    indptr[i + 1] = idx.length;
  }
  return {
    numRows: n,
    numCols: d,
    indptr,
    indices: Int32Array.from(idx),
    values: Float32Array.from(val),
  };
}

/** Dense XᵀX + λI and XᵀZ, solved by Cholesky: the ridge solution. */
function directRidge(x: CsrMatrix, z: Float64Array, k: number, lambda: number): Float64Array {
  const d = x.numCols;
  const a = new Float64Array(d * d);
  const b = new Float64Array(d * k);
  for (let i = 0; i < x.numRows; i++) {
    for (let e = x.indptr[i]; e < x.indptr[i + 1]; e++) {
      const j = x.indices[e], w = x.values[e];
      for (let f = x.indptr[i]; f < x.indptr[i + 1]; f++) {
        a[j * d + x.indices[f]] += w * x.values[f];
      }
      for (let c = 0; c < k; c++) b[j * k + c] += w * z[i * k + c];
    }
  }
  for (let j = 0; j < d; j++) a[j * d + j] += lambda;
  const l = choleskyFactor(a, d);
  const v = new Float64Array(d * k);
  const col = new Float64Array(d);
  for (let c = 0; c < k; c++) {
    for (let j = 0; j < d; j++) col[j] = b[j * k + c];
    const sol = choleskySolve(l, d, col);
    for (let j = 0; j < d; j++) v[j * k + c] = sol[j];
  }
  return v;
}

function objective(
  x: CsrMatrix,
  z: Float64Array,
  v: Float64Array,
  k: number,
  lambda: number,
  mu: number,
): number {
  const xv = new Float64Array(x.numRows * k);
  csrTimesDense(x, v, k, xv);
  let f = 0;
  for (let i = 0; i < xv.length; i++) f += 0.5 * (z[i] - xv[i]) ** 2 + mu * Math.abs(xv[i]);
  for (let i = 0; i < v.length; i++) f += 0.5 * lambda * v[i] * v[i];
  return f;
}

Deno.test("admm: with mu = 0 it converges to the direct ridge solution", () => {
  const n = 40, d = 12, k = 3, lambda = 0.5;
  const x = randomSparse(n, d, 0.3, 1);
  const rng = new Rng(2);
  const z = Float64Array.from({ length: n * k }, () => rng.normal());
  const direct = directRidge(x, z, k, lambda);
  const { v } = admmRegressor(x, z, k, {
    lambda,
    mu: 0,
    rho: 0.1,
    iterations: 30,
    cgIterations: 200,
    cgTol: 1e-13,
  });
  let err = 0, norm = 0;
  for (let i = 0; i < v.length; i++) {
    err += (v[i] - direct[i]) ** 2;
    norm += direct[i] ** 2;
  }
  assert(Math.sqrt(err / norm) < 1e-10, `relative difference ${Math.sqrt(err / norm)}`);
});

Deno.test("admm: with mu > 0 it matches a direct 1-D minimisation of the objective", () => {
  // one feature, one embedding dimension: f(v) = Σ ½(z_i − x_i v)² + ½λv² + μ Σ|x_i v|
  const x: CsrMatrix = {
    numRows: 5,
    numCols: 1,
    indptr: Int32Array.of(0, 1, 2, 3, 4, 5),
    indices: new Int32Array(5),
    values: Float32Array.of(1, 2, -1, 0.5, 3),
  };
  const z = Float64Array.of(1.5, 2.5, -0.5, 1, 2);
  const lambda = 0.3, mu = 0.4;
  const f = (v: number) => objective(x, z, Float64Array.of(v), 1, lambda, mu);
  // golden-section search on the convex 1-D objective
  let lo = -10, hi = 10;
  const phi = (Math.sqrt(5) - 1) / 2;
  for (let it = 0; it < 200; it++) {
    const a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
    if (f(a) < f(b)) hi = b;
    else lo = a;
  }
  const best = (lo + hi) / 2;
  const { v } = admmRegressor(x, z, 1, { lambda, mu, rho: 1, iterations: 500, cgTol: 1e-14 });
  assert(Math.abs(v[0] - best) < 1e-6, `ADMM ${v[0]} vs direct ${best}`);
});

Deno.test("admm: the L1 solution is optimal (no random perturbation lowers the objective)", () => {
  const n = 30, d = 8, k = 2, lambda = 0.2, mu = 0.3;
  const x = randomSparse(n, d, 0.4, 5);
  const rng = new Rng(6);
  const z = Float64Array.from({ length: n * k }, () => rng.normal());
  const { v } = admmRegressor(x, z, k, {
    lambda,
    mu,
    rho: 1,
    iterations: 2000,
    cgIterations: 100,
    cgTol: 1e-14,
  });
  const f0 = objective(x, z, v, k, lambda, mu);
  for (let t = 0; t < 200; t++) {
    const scale = 10 ** -(1 + (t % 4));
    const w = v.map((a) => a + scale * rng.normal());
    const f1 = objective(x, z, w, k, lambda, mu);
    assert(f1 >= f0 - 1e-7 * Math.abs(f0), `perturbation ${t} lowers the objective: ${f1} < ${f0}`);
  }
  // and the L1 term matters: the ridge solution is worse for this objective
  const ridge = directRidge(x, z, k, lambda);
  assert(
    objective(x, z, ridge, k, lambda, mu) > f0,
    "the ridge solution is not optimal for mu > 0",
  );
});

Deno.test("admm: ridgeCg solves (c XᵀX + λI) V = Q", () => {
  const x = randomSparse(20, 6, 0.5, 9);
  const rng = new Rng(10);
  const q = Float64Array.from({ length: 6 * 2 }, () => rng.normal());
  const v = new Float64Array(12);
  ridgeCg(x, 2, 0.7, q, 2, v, 100, 1e-14);
  // residual check: 2 Xᵀ(XV) + 0.7 V = Q
  const xv = new Float64Array(20 * 2), back = new Float64Array(12);
  csrTimesDense(x, v, 2, xv);
  for (let i = 0; i < 20; i++) {
    for (let e = x.indptr[i]; e < x.indptr[i + 1]; e++) {
      for (let c = 0; c < 2; c++) back[x.indices[e] * 2 + c] += x.values[e] * xv[i * 2 + c];
    }
  }
  for (let i = 0; i < 12; i++) {
    const lhs = 2 * back[i] + 0.7 * v[i];
    assert(Math.abs(lhs - q[i]) < 1e-9, `row ${i}: ${lhs} vs ${q[i]}`);
  }
});

Deno.test("admm: mis-sized inputs are rejected", () => {
  const x = randomSparse(3, 2, 1, 1);
  let msg = "";
  try {
    admmRegressor(x, new Float64Array(5), 2);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("Z has 5 values, expected 3 x 2"), msg);
});
