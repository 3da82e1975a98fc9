import { svp, type SymSparse } from "../../src/linalg/svp.ts";
import { Rng } from "../../src/random/mod.ts";
import { assert, messageOf } from "../helpers.ts";

/** A planted rank-r PSD matrix M* = Z* Z*ᵀ (n × n) and a symmetric observation pattern. */
function planted(n: number, r: number, density: number, seed: number) {
  const rng = new Rng(seed);
  const zStar = new Float64Array(n * r);
  for (let i = 0; i < n * r; i++) zStar[i] = rng.normal();
  const m = (i: number, j: number) => {
    let s = 0;
    for (let a = 0; a < r; a++) s += zStar[i * r + a] * zStar[j * r + a];
    return s;
  };
  const observed: boolean[][] = Array.from({ length: n }, () => new Array(n).fill(false));
  for (let i = 0; i < n; i++) {
    observed[i][i] = true;
    for (let j = i + 1; j < n; j++) {
      if (rng.next() < density) observed[i][j] = observed[j][i] = true;
    }
  }
  const indptr = new Int32Array(n + 1);
  const idx: number[] = [], val: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (!observed[i][j]) continue;
      idx.push(j);
      val.push(m(i, j));
    }
    indptr[i + 1] = idx.length;
  }
  const g: SymSparse = { n, indptr, indices: Int32Array.from(idx), values: Float64Array.from(val) };
  return { g, m, observed, zStar };
}

function relativeError(
  z: Float64Array,
  rank: number,
  n: number,
  m: (i: number, j: number) => number,
  which: (i: number, j: number) => boolean,
): number {
  let num = 0, den = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (!which(i, j)) continue;
      let s = 0;
      for (let a = 0; a < rank; a++) s += z[i * rank + a] * z[j * rank + a];
      num += (s - m(i, j)) ** 2;
      den += m(i, j) ** 2;
    }
  }
  return Math.sqrt(num / den);
}

Deno.test("svp: completes a planted low-rank PSD matrix from 35% of its entries", () => {
  const n = 80, r = 3;
  const { g, m, observed } = planted(n, r, 0.35, 11);
  const res = svp(g, r, { iterations: 300, eta: 1.5, tol: 0, oversample: 4 });
  assert(res.residual < 1e-6, `residual on Ω ${res.residual}`);
  const unobserved = relativeError(res.embedding, res.rank, n, m, (i, j) => !observed[i][j]);
  assert(unobserved < 1e-5, `relative error on the unobserved entries ${unobserved}`);
  // the eigenvalues are those of M*
  for (let a = 1; a < r; a++) assert(res.values[a - 1] >= res.values[a], "values decrease");
});

Deno.test("svp: from the planted embedding it stops at once; from a perturbed one it converges", () => {
  const n = 60, r = 2;
  const { g, m, zStar } = planted(n, r, 0.4, 3);
  const exact = svp(g, r, { init: zStar, initRank: r });
  assert(exact.iterations === 0 && exact.residual < 1e-12, `${exact.iterations} ${exact.residual}`);
  const rng = new Rng(8);
  const noisy = zStar.map((v) => v + 0.3 * rng.normal());
  const cold = svp(g, r, { iterations: 8, tol: 0, oversample: 4 });
  const warm = svp(g, r, { iterations: 8, tol: 0, oversample: 4, init: noisy, initRank: r });
  const all = () => true;
  const eWarm = relativeError(warm.embedding, r, n, m, all);
  const eCold = relativeError(cold.embedding, r, n, m, all);
  assert(eWarm < eCold, `warm start ${eWarm} not better than cold ${eCold} after 8 iterations`);
});

Deno.test("svp: the projection keeps M PSD (negative directions are dropped)", () => {
  // G = -I on the diagonal only: the best PSD approximation is M = 0
  const n = 5;
  const g: SymSparse = {
    n,
    indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
    indices: Int32Array.from({ length: n }, (_, i) => i),
    values: new Float64Array(n).fill(-1),
  };
  const res = svp(g, 2, { iterations: 5 });
  assert(res.values.every((v) => v === 0), `values ${res.values}`);
  assert(res.embedding.every((v) => v === 0), "embedding is zero");
  assert(Math.abs(res.residual - 1) < 1e-12, `residual ${res.residual}`);
});

Deno.test("svp: bad input is rejected with the reason", () => {
  const g: SymSparse = {
    n: 2,
    indptr: Int32Array.of(0, 1, 2),
    indices: Int32Array.of(0, 5),
    values: Float64Array.of(1, 1),
  };
  assert(
    messageOf(() => svp(g, 1)).includes("row 1 has column 5 outside [0, 2)"),
    messageOf(() => svp(g, 1)),
  );
  const ok = { ...g, indices: Int32Array.of(0, 1) };
  assert(messageOf(() => svp(ok, 0)).includes("rank must be a positive integer"), "rank");
  assert(
    messageOf(() => svp(ok, 1, { init: new Float64Array(3), initRank: 1 })).includes(
      "init has 3 values",
    ),
    "init size",
  );
});
