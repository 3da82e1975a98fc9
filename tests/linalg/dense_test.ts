import { gram, matMul, symmetricEigen } from "../../src/linalg/dense.ts";
import { assert } from "../helpers.ts";

Deno.test("dense: gram equals AᵀA computed with matMul", () => {
  const a = Float64Array.of(1, 2, 3, -1, 0.5, 2);
  const at = Float64Array.of(1, -1, 2, 0.5, 3, 2); // Aᵀ (3×2) of the 2×3 A
  const g = gram(a, 2, 3);
  const ref = matMul(at, a, 3, 2, 3);
  for (let i = 0; i < 9; i++) {
    assert(Math.abs(g[i] - ref[i]) < 1e-12, `entry ${i}: ${g[i]} vs ${ref[i]}`);
  }
});

Deno.test("dense: symmetricEigen reconstructs the matrix", () => {
  const n = 3, a = Float64Array.of(4, 1, 0.5, 1, 3, -1, 0.5, -1, 2);
  const { values, vectors } = symmetricEigen(a, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0; c < n; c++) s += vectors[i * n + c] * values[c] * vectors[j * n + c];
      assert(Math.abs(s - a[i * n + j]) < 1e-10, `(${i},${j}) ${s} vs ${a[i * n + j]}`);
    }
  }
});
