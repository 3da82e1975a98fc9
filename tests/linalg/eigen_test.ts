import { EigenvalueDecomposition, Matrix } from "ml-matrix";
import {
  orthonormalizeBlock,
  rayleighRitz,
  sortedSymmetricEigen,
  type SymOperator,
  topEigen,
} from "../../src/linalg/eigen.ts";
import { Rng } from "../../src/random/mod.ts";
import { assert } from "../helpers.ts";

/** A random symmetric n×n matrix (row-major) with a prescribed spectrum (some negative). */
function randomSymmetric(n: number, spectrum: number[], seed: number): Float64Array {
  const rng = new Rng(seed);
  const q = new Float64Array(n * n);
  for (let i = 0; i < n * n; i++) q[i] = rng.next() - 0.5;
  orthonormalizeBlock(q, n, n, seed);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0; c < n; c++) s += q[i * n + c] * spectrum[c] * q[j * n + c];
      a[i * n + j] = s;
    }
  }
  return a;
}

function denseOperator(a: Float64Array, n: number): SymOperator {
  return {
    n,
    apply(q, b, out) {
      out.fill(0, 0, n * b);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const aij = a[i * n + j];
          for (let c = 0; c < b; c++) out[i * b + c] += aij * q[j * b + c];
        }
      }
    },
  };
}

function mlMatrixEigen(a: Float64Array, n: number): { values: number[]; vectors: Matrix } {
  const rows = Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * n, (i + 1) * n)));
  const evd = new EigenvalueDecomposition(new Matrix(rows), { assumeSymmetric: true });
  return { values: evd.realEigenvalues, vectors: evd.eigenvectorMatrix };
}

Deno.test("eigen: topEigen matches ml-matrix on small symmetric matrices (values and vectors)", () => {
  for (const [n, seed] of [[12, 1], [30, 2], [45, 3]]) {
    const rng = new Rng(100 + seed);
    const spectrum = Array.from({ length: n }, () => 4 * rng.next() - 1); // mixed signs
    spectrum[0] = 9;
    spectrum[1] = 7.5;
    spectrum[2] = 6;
    spectrum[3] = -8; // a large negative eigenvalue competes in magnitude
    const a = randomSymmetric(n, spectrum, seed);
    const k = 3;
    const got = topEigen(denseOperator(a, n), k, { oversample: 6, iterations: 200, seed });
    const ref = mlMatrixEigen(a, n);
    const order = ref.values.map((v, i) => [v, i]).sort((x, y) => y[0] - x[0]);
    for (let c = 0; c < k; c++) {
      const [val, idx] = order[c];
      assert(Math.abs(got.values[c] - val) < 1e-8, `n=${n} value ${c}: ${got.values[c]} vs ${val}`);
      let dot = 0;
      for (let i = 0; i < n; i++) dot += got.vectors[i * k + c] * ref.vectors.get(i, idx);
      assert(Math.abs(Math.abs(dot) - 1) < 1e-6, `n=${n} vector ${c}: |cos| = ${Math.abs(dot)}`);
    }
  }
});

Deno.test("eigen: a warm start from the previous image converges in one step on an exact subspace", () => {
  const n = 20, k = 2;
  const spectrum = Array.from({ length: n }, (_, i) => (i < 2 ? 10 - i : 0.01 * i));
  const a = randomSymmetric(n, spectrum, 5);
  const op = denseOperator(a, n);
  const first = topEigen(op, k, { oversample: 2, iterations: 60 });
  const again = topEigen(op, k, { oversample: 2, iterations: 1, init: first.image });
  for (let c = 0; c < k; c++) {
    assert(Math.abs(again.values[c] - spectrum[c]) < 1e-9, `value ${c}: ${again.values[c]}`);
  }
});

Deno.test("eigen: sortedSymmetricEigen sorts decreasing and reconstructs the matrix", () => {
  const n = 6;
  const a = randomSymmetric(n, [3, -1, 0.5, 2, -4, 1], 9);
  const { values, vectors } = sortedSymmetricEigen(a, n);
  for (let c = 1; c < n; c++) assert(values[c - 1] >= values[c], `not sorted at ${c}`);
  assert(Math.abs(values[0] - 3) < 1e-10 && Math.abs(values[n - 1] + 4) < 1e-10, "spectrum");
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0; c < n; c++) s += vectors[i * n + c] * values[c] * vectors[j * n + c];
      assert(Math.abs(s - a[i * n + j]) < 1e-10, `(${i},${j}): ${s} vs ${a[i * n + j]}`);
    }
  }
});

Deno.test("eigen: orthonormalizeBlock handles zero, duplicate and nearly dependent columns", () => {
  const n = 10, b = 5;
  const rng = new Rng(4);
  const q = new Float64Array(n * b);
  for (let i = 0; i < n; i++) {
    const v = rng.next() - 0.5, w = rng.next() - 0.5;
    q[i * b + 0] = v;
    q[i * b + 1] = v; // duplicate of column 0
    q[i * b + 2] = 0; // zero column
    q[i * b + 3] = w;
    q[i * b + 4] = v + 1e-13 * w; // dependent to rounding
  }
  const col0 = Array.from({ length: n }, (_, i) => q[i * b]);
  orthonormalizeBlock(q, n, b, 7);
  for (let c = 0; c < b; c++) {
    for (let d = 0; d < b; d++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += q[i * b + c] * q[i * b + d];
      assert(Math.abs(s - (c === d ? 1 : 0)) < 1e-10, `QᵀQ(${c},${d}) = ${s}`);
    }
  }
  // the first column keeps its direction
  let dot = 0, norm = 0;
  for (let i = 0; i < n; i++) {
    dot += q[i * b] * col0[i];
    norm += col0[i] * col0[i];
  }
  assert(Math.abs(dot / Math.sqrt(norm) - 1) < 1e-10, "column 0 changed direction");
});

Deno.test("eigen: rayleighRitz is exact when the block spans an invariant subspace", () => {
  const n = 3, b = 2;
  // A = diag(5, 2, 1); block spans e1, e2 (rotated)
  const s = Math.SQRT1_2;
  const q = Float64Array.of(s, s, s, -s, 0, 0);
  const y = Float64Array.of(5 * s, 5 * s, 2 * s, -2 * s, 0, 0);
  const { values, vectors } = rayleighRitz(q, y, n, b, 2);
  assert(Math.abs(values[0] - 5) < 1e-12 && Math.abs(values[1] - 2) < 1e-12, `${values}`);
  assert(Math.abs(Math.abs(vectors[0]) - 1) < 1e-12, "first Ritz vector is e1");
});

Deno.test("eigen: errors name the problem", () => {
  const op = denseOperator(new Float64Array(4), 2);
  let msg = "";
  try {
    topEigen(op, 3);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("topEigen: k must be an integer in [1, 2]"), msg);
  try {
    orthonormalizeBlock(new Float64Array(6), 2, 3);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("3 columns exceed dimension 2"), msg);
});
