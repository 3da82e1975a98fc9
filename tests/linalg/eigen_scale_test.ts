// Orthonormal blocks and top eigenpairs when columns differ in length by many orders of magnitude.
import { orthonormalizeBlock, topEigen } from "../../src/linalg/eigen.ts";
import { svp } from "../../src/linalg/svp.ts";
import { assert } from "../helpers.ts";

/** Largest deviation of QᵀQ from the identity (Q row-major n × b). */
function orthonormalityError(q: Float64Array, n: number, b: number): number {
  let worst = 0;
  for (let c = 0; c < b; c++) {
    for (let d = 0; d < b; d++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += q[i * b + c] * q[i * b + d];
      worst = Math.max(worst, Math.abs(s - (c === d ? 1 : 0)));
    }
  }
  return worst;
}

Deno.test("eigen: a rank-deficient operator of norm 1e12 and more has its top eigenpairs", () => {
  // s · 𝟏𝟏ᵀ on R^6: one eigenvalue 6s, the others 0 (the power steps' block is dependent)
  const n = 6;
  for (const s of [1, 1e12, 1e13, 1e20]) {
    const op = {
      n,
      apply: (q: Float64Array, b: number, out: Float64Array) => {
        for (let c = 0; c < b; c++) {
          let t = 0;
          for (let i = 0; i < n; i++) t += q[i * b + c];
          for (let i = 0; i < n; i++) out[i * b + c] = s * t;
        }
      },
    };
    const r = topEigen(op, 2, { oversample: 2, iterations: 4 });
    assert(Math.abs(r.values[0] - 6 * s) <= 1e-9 * 6 * s, `s = ${s}: λ₀ = ${r.values[0]}`);
    assert(Math.abs(r.values[1]) <= 1e-9 * 6 * s, `s = ${s}: λ₁ = ${r.values[1]}`);
    assert(orthonormalityError(r.vectors, n, 2) < 1e-9, `s = ${s}: vectors not orthonormal`);
  }
});

Deno.test("eigen: a zero, dependent or short column next to a far longer one is orthonormalised", () => {
  const cases: [string, number[]][] = [
    // rows of 3 × 2 blocks
    ["zero next to 1e13", [1e13, 0, 0, 0, 0, 0]],
    ["duplicates at 1e12", [1e12, 1e12, 1e12, 1e12, 0, 0]],
    ["orthogonal, 1 next to 1e13", [1, 0, 0, 1e13, 0, 0]],
  ];
  for (const [name, rows] of cases) {
    const q = Float64Array.from(rows);
    orthonormalizeBlock(q, 3, 2, 1);
    assert(orthonormalityError(q, 3, 2) < 1e-9, `${name}: not orthonormal`);
  }
  // the span of two independent columns is kept: e₁ and e₂ (third row zero)
  const q = Float64Array.of(1, 0, 0, 1e13, 0, 0);
  orthonormalizeBlock(q, 3, 2, 1);
  assert(Math.abs(q[4]) < 1e-12 && Math.abs(q[5]) < 1e-12, `span left (e₁, e₂): ${q}`);
});

Deno.test("svp: a rank-1 G of order 1e12 is completed as one of order 1", () => {
  const v = [1, 2, 3, 4], n = 4;
  for (const s of [1, 1e12]) {
    const indptr = [0], indices: number[] = [], values: number[] = [];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        indices.push(j);
        values.push(s * v[i] * v[j]);
      }
      indptr.push(indices.length);
    }
    const r = svp({
      n,
      indptr: Int32Array.from(indptr),
      indices: Int32Array.from(indices),
      values: Float64Array.from(values),
    }, 2);
    assert(r.residual < 1e-9, `s = ${s}: residual ${r.residual}`);
    assert(Math.abs(r.values[0] - 30 * s) <= 1e-9 * 30 * s, `s = ${s}: λ₀ = ${r.values[0]}`);
  }
});

Deno.test("svp: a far-off warm start for a tiny G is dropped, not refused as Infinity", () => {
  const g = {
    n: 1,
    indptr: Int32Array.of(0, 1),
    indices: Int32Array.of(0),
    values: Float64Array.of(4e-200),
  };
  // Z₀ = 1e250 divided by √(G's scale) = 2e-100 overflows
  const r = svp(g, 1, { init: Float64Array.of(1e250), initRank: 1 });
  assert(Math.abs(r.embedding[0] ** 2 - 4e-200) <= 1e-9 * 4e-200, `Z = ${r.embedding[0]}`);
});
