import { conjugateGradient, conjugateGradientColumns } from "../../src/linalg/cg.ts";
import { SmallRng } from "../../src/random/mod.ts";
import { assert } from "../helpers.ts";

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

Deno.test("cg columns: each column solves its own system, with and without Jacobi", () => {
  // column c of the 25×4 unknown solves (s_c·BᵀB + D + 0.1 I) x_c = b_c: different operators
  // per column, rows scaled very differently (a bad case for unpreconditioned CG)
  const rows = 25, cols = 4, rng = new SmallRng(11);
  const B = Float64Array.from({ length: rows * rows }, () => rng.next() - 0.5);
  const rowScale = Float64Array.from({ length: rows }, (_, i) => 1 + 50 * (i % 5));
  const colScale = Float64Array.of(0.5, 1, 4, 0);
  const apply = (v: Float64Array, out: Float64Array) => {
    for (let c = 0; c < cols; c++) {
      for (let i = 0; i < rows; i++) {
        let s = (rowScale[i] + 0.1) * v[i * cols + c];
        for (let j = 0; j < rows; j++) {
          let g = 0;
          for (let p = 0; p < rows; p++) g += B[p * rows + i] * B[p * rows + j];
          s += colScale[c] * g * v[j * cols + c];
        }
        out[i * cols + c] = s;
      }
    }
  };
  const xTrue = Float64Array.from({ length: rows * cols }, () => rng.next() - 0.5);
  const b = new Float64Array(rows * cols);
  apply(xTrue, b);
  const diagonal = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    let g = 0;
    for (let p = 0; p < rows; p++) g += B[p * rows + i] ** 2;
    for (let c = 0; c < cols; c++) diagonal[i * cols + c] = rowScale[i] + 0.1 + colScale[c] * g;
  }
  for (const opts of [{}, { diagonal }]) {
    const x = new Float64Array(rows * cols);
    const r = conjugateGradientColumns(apply, b, x, rows, cols, {
      ...opts,
      tolerance: 1e-12,
      maxIterations: 200,
    });
    assert(r.relativeResidual < 1e-10, `residual ${r.relativeResidual}`);
    for (let a = 0; a < x.length; a++) {
      assert(Math.abs(x[a] - xTrue[a]) < 1e-8, `x[${a}] = ${x[a]}, expected ${xTrue[a]}`);
    }
  }
  // Jacobi needs fewer iterations here; a zero right-hand side column gives a zero column
  const plain = conjugateGradientColumns(apply, b, new Float64Array(rows * cols), rows, cols, {
    tolerance: 1e-8,
  });
  const jacobi = conjugateGradientColumns(apply, b, new Float64Array(rows * cols), rows, cols, {
    tolerance: 1e-8,
    diagonal,
  });
  assert(jacobi.iterations < plain.iterations, `${jacobi.iterations} vs ${plain.iterations}`);
  const b0 = b.slice();
  for (let i = 0; i < rows; i++) b0[i * cols + 1] = 0;
  const x0 = new Float64Array(rows * cols).fill(3);
  conjugateGradientColumns(apply, b0, x0, rows, cols, { tolerance: 1e-10 });
  for (let i = 0; i < rows; i++) assert(x0[i * cols + 1] === 0, "zero column not zeroed");
});

Deno.test("cg columns: rejects mismatched sizes with the function named", () => {
  let msg = "";
  try {
    conjugateGradientColumns(() => {}, new Float64Array(6), new Float64Array(5), 2, 3);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(/conjugateGradientColumns: b and x must have 2×3 entries/.test(msg), msg);
});
