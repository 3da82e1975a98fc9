/**
 * Degenerate and extreme inputs of the linear algebra: each either gives the right answer or a
 * RangeError naming the input and its limit, never NaN, an endless loop or an error from deep
 * inside ml-matrix.
 */
import type { CsrMatrix } from "../../src/data/types.ts";
import { admmRegressor } from "../../src/linalg/admm.ts";
import { conjugateGradient, conjugateGradientColumns } from "../../src/linalg/cg.ts";
import { choleskyFactor, choleskyFactorShifted, choleskySolve } from "../../src/linalg/cholesky.ts";
import { symmetricEigen } from "../../src/linalg/dense.ts";
import { orthonormalizeBlock, topEigen } from "../../src/linalg/eigen.ts";
import { sphericalKMeans } from "../../src/linalg/kmeans.ts";
import { withLabelIndex } from "../../src/linalg/mips_index.ts";
import { MAX_GAMMA, RandomFourierFeatures } from "../../src/linalg/rff.ts";
import { svp, type SymSparse } from "../../src/linalg/svp.ts";
import { assert, assertBadInput } from "../helpers.ts";

const close = (a: number, b: number, rel = 1e-9) =>
  Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));
const allFinite = (a: ArrayLike<number>) => Array.from(a).every(Number.isFinite);

/** A full symmetric sparse matrix from a dense one (every entry stored). */
function fullSparse(rows: number[][]): SymSparse {
  const n = rows.length;
  return {
    n,
    indptr: Int32Array.from({ length: n + 1 }, (_, i) => i * n),
    indices: Int32Array.from({ length: n * n }, (_, e) => e % n),
    values: Float64Array.from(rows.flat()),
  };
}

/** Rows of x as a CSR matrix with every column stored. */
function denseCsr(rows: number[][]): CsrMatrix {
  const n = rows.length, d = rows[0]?.length ?? 0;
  return {
    numRows: n,
    numCols: d,
    indptr: Int32Array.from({ length: n + 1 }, (_, i) => i * d),
    indices: Int32Array.from({ length: n * d }, (_, e) => e % d),
    values: Float32Array.from(rows.flat()),
  };
}

Deno.test("cholesky: a singular PSD matrix factors with the smallest shift (minimum-norm solve)", () => {
  // the Gram matrix of the row [1, 1]: rank 1
  const a = Float64Array.of(1, 1, 1, 1), l = new Float64Array(4);
  assertBadInput([[() => choleskyFactor(a, 2), /not positive definite/]]);
  const delta = choleskyFactorShifted(a, 2, l);
  assert(delta > 0 && delta <= 1e-7, `shift ${delta}`);
  // a x = [2, 2] (in the range): the minimum-norm solution is (1, 1)
  const x = choleskySolve(l, 2, Float64Array.of(2, 2));
  assert(close(x[0], 1, 1e-6) && close(x[1], 1, 1e-6), `x ${x}`);
  // a regular matrix factors unshifted, bit for bit as choleskyFactor
  const spd = Float64Array.of(4, 2, 2, 5);
  assert(choleskyFactorShifted(spd, 2, l) === 0, "shifted an SPD matrix");
  assert(l.every((v, i) => v === choleskyFactor(spd, 2)[i]), "factor differs");
  // the zero matrix: the solution of 0·x = 0 is 0
  assert(choleskyFactorShifted(new Float64Array(4), 2, l) > 0, "zero matrix");
  assert(choleskySolve(l, 2, new Float64Array(2)).every((v) => v === 0), "zero solve");
  assertBadInput([
    [() => choleskyFactorShifted(Float64Array.of(1, 0, 0, -1), 2, l), /not positive semi-definite/],
    [() => choleskyFactorShifted(Float64Array.of(NaN, 0, 0, 1), 2, l), /entry \(0, 0\).*NaN/],
    [() => choleskyFactorShifted(a, 2, a), /out must not be the input/],
  ]);
});

Deno.test("cholesky: an infinite pivot or a size that is not an integer is a RangeError", () => {
  assertBadInput([
    [() => choleskyFactor(Float64Array.of(Infinity, 0, 0, 1), 2), /pivot 0 = Infinity/],
    [() => choleskyFactor(Float64Array.of(1, 0, 0, Infinity), 2), /pivot 1 = Infinity/],
    [() => choleskyFactor(new Float64Array(4), 1.5), /size must be an integer >= 0, got 1.5/],
  ]);
  assert(choleskyFactor(new Float64Array(0), 0).length === 0, "n = 0");
});

Deno.test("dense: symmetricEigen names a NaN entry, takes n = 0 and huge or tiny scales", () => {
  assertBadInput([
    [() => symmetricEigen(Float64Array.of(NaN, 0, 0, 1), 2), /entries \(0, 0\) = NaN/],
    [() => symmetricEigen(Float64Array.of(1, 2, 3), 2), /3 < 2 x 2 entries/],
  ]);
  assert(symmetricEigen(new Float64Array(0), 0).values.length === 0, "n = 0");
  const n = 6,
    base = Float64Array.from({ length: n * n }, (_, e) => {
      const i = Math.floor(e / n), j = e % n;
      return i === j ? i + 2 : 1 / (1 + i + j);
    });
  const ref = Array.from(symmetricEigen(base, n).values).sort((p, q) => p - q);
  for (const s of [1e200, 1e-200]) {
    const { values, vectors } = symmetricEigen(base.map((v) => v * s), n);
    assert(allFinite(values) && allFinite(vectors), `scale ${s}: not finite`);
    const got = Array.from(values).sort((p, q) => p - q);
    got.forEach((v, i) => assert(close(v, ref[i] * s, 1e-9), `scale ${s}: ${v} vs ${ref[i] * s}`));
  }
});

Deno.test("eigen: a block of huge or tiny entries keeps its span; a NaN operator is named", () => {
  for (const s of [1e200, 1e-200]) {
    // columns (1, 1, 0)·s and (1, 0, 0)·s span the plane z = 0
    const q = Float64Array.of(s, s, s, 0, 0, 0);
    orthonormalizeBlock(q, 3, 2);
    assert(allFinite(q), `scale ${s}: ${q}`);
    assert(q[4] === 0 && q[5] === 0, `scale ${s}: left the plane: ${q}`);
    assert(close(q[0] * q[0] + q[2] * q[2], 1, 1e-12), `scale ${s}: column 0 not unit`);
  }
  const diag = [5e200, 3e200, 1e200, 1];
  const huge = {
    n: 4,
    apply: (q: Float64Array, b: number, out: Float64Array) => {
      for (let i = 0; i < 4; i++) {
        for (let c = 0; c < b; c++) out[i * b + c] = diag[i] * q[i * b + c];
      }
    },
  };
  const { values } = topEigen(huge, 2, { oversample: 2, iterations: 30 });
  assert(close(values[0], 5e200, 1e-6) && close(values[1], 3e200, 1e-6), `values ${values}`);
  const nan = {
    n: 3,
    apply: (_q: Float64Array, b: number, out: Float64Array) => out.fill(NaN, 0, 3 * b),
  };
  const zero = {
    n: 3,
    apply: (_q: Float64Array, b: number, out: Float64Array) => out.fill(0, 0, 3 * b),
  };
  assertBadInput([
    [() => topEigen(nan, 1), /operator returned NaN at row 0/],
    [() => topEigen(zero, 1, { oversample: NaN }), /oversample must be a number >= 0, got NaN/],
    [() => topEigen(zero, 1, { iterations: NaN }), /iterations must be a finite number >= 1/],
  ]);
  // the zero operator: eigenvalues 0
  assert(topEigen(zero, 2).values.every((v) => v === 0), "zero operator");
});

Deno.test("cg: right-hand sides beyond 1e±150 are solved, not left at 0 with a NaN residual", () => {
  const apply = (v: Float64Array, out: Float64Array) => {
    out[0] = 2 * v[0];
    out[1] = 3 * v[1];
  };
  for (const s of [1e200, 1e-200]) {
    const x = new Float64Array(2);
    const r = conjugateGradient(apply, Float64Array.of(2 * s, 3 * s), x, { tolerance: 1e-12 });
    assert(close(x[0], s) && close(x[1], s), `scale ${s}: x ${x}`);
    assert(r.relativeResidual < 1e-10, `scale ${s}: residual ${r.relativeResidual}`);
    const xc = new Float64Array(2);
    conjugateGradientColumns(apply, Float64Array.of(2 * s, 3 * s), xc, 2, 1, { tolerance: 1e-12 });
    assert(close(xc[0], s) && close(xc[1], s), `columns, scale ${s}: x ${xc}`);
  }
});

Deno.test("cg: NaN inputs, a non-positive Jacobi diagonal and unusable options are RangeErrors", () => {
  const apply = (v: Float64Array, out: Float64Array) => out.set(v);
  const two = () => new Float64Array(2);
  assertBadInput([
    [() => conjugateGradient(apply, Float64Array.of(NaN, 1), two()), /b\[0\] is NaN/],
    [
      () => conjugateGradient(apply, Float64Array.of(1, 1), Float64Array.of(0, NaN)),
      /x\[1\] is NaN/,
    ],
    [
      () => conjugateGradient(apply, Float64Array.of(1, 1), two(), { maxIterations: Infinity }),
      /maxIterations must be an integer >= 0, got Infinity/,
    ],
    [
      () => conjugateGradient(apply, Float64Array.of(1, 1), two(), { tolerance: NaN }),
      /tolerance must be a number >= 0, got NaN/,
    ],
    [
      () =>
        conjugateGradientColumns(apply, Float64Array.of(1, 1), two(), 2, 1, {
          diagonal: Float64Array.of(0, 1),
        }),
      /diagonal entry \(0, 0\) is 0/,
    ],
  ]);
});

Deno.test("svp: G beyond 1e±150 is completed at scale; NaN in G or a bad option is named", () => {
  const v = [1, 2, 3];
  for (const s of [1e200, 1e-200]) {
    const g = fullSparse(v.map((a) => v.map((b) => a * b * s)));
    const r = svp(g, 1);
    assert(allFinite(r.embedding) && r.residual < 1e-6, `scale ${s}: residual ${r.residual}`);
    assert(close(r.values[0], 14 * s, 1e-6), `scale ${s}: value ${r.values[0]}`);
  }
  const g = fullSparse([[1, 0.5], [0.5, 1]]);
  assertBadInput([
    [() => svp(fullSparse([[NaN, 0], [0, 1]]), 1), /entry \(0, 0\) is NaN/],
    [() => svp(g, 1, { eta: NaN }), /eta must be a finite number > 0, got NaN/],
    [() => svp(g, 1, { iterations: Infinity }), /iterations must be an integer >= 0/],
    [() => svp(g, 1, { init: Float64Array.of(NaN, 1), initRank: 1 }), /init value 0 is NaN/],
  ]);
});

Deno.test("svp: a step size that overflows M is named, not left to fail in ml-matrix", () => {
  const g = fullSparse([[1, 0.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]]);
  assertBadInput([[() => svp(g, 2, { eta: 1e200 }), /eta = 1e\+200 made M overflow/]]);
  // a large but representable step stops at once with a finite (if poor) M
  const r = svp(g, 2, { eta: 1e10 });
  assert(allFinite(r.embedding) && Number.isFinite(r.residual), `residual ${r.residual}`);
});

Deno.test("admm: Z beyond 1e±150 is regressed at scale; NaN in Z or a bad option is named", () => {
  const x = denseCsr([[1], [2]]);
  for (const s of [1e200, 1e-200]) {
    // ridge (μ = 0): v = xᵀz / (xᵀx + λ) = 3s / 6
    const { v } = admmRegressor(x, Float64Array.of(s, s), 1, { mu: 0, iterations: 60 });
    assert(close(v[0], s / 2, 1e-6), `scale ${s}: v ${v[0]}`);
  }
  assertBadInput([
    [() => admmRegressor(x, Float64Array.of(NaN, 1), 1), /Z has NaN at row 0, column 0/],
    [() => admmRegressor(x, Float64Array.of(1, 1), 1, { lambda: Infinity }), /must be finite/],
    [() => admmRegressor(x, Float64Array.of(1, 1), 1, { iterations: NaN }), /iterations must be/],
  ]);
});

Deno.test("kmeans: a cluster count or iteration count that is not an integer is a RangeError", () => {
  const x = denseCsr([[1, 0], [0, 1], [1, 0]]);
  assertBadInput([
    [() => sphericalKMeans(x, 2.5), /clusters must be an integer, got 2.5/],
    [() => sphericalKMeans(x, 2, { iterations: NaN }), /iterations must be an integer >= 1/],
  ]);
  // identical rows, more clusters than rows: every row still assigned, every centroid unit
  const same = denseCsr([[0.6, 0.8], [0.6, 0.8], [0.6, 0.8]]);
  const r = sphericalKMeans(same, 5, { seed: 2 });
  assert(r.clusters === 3 && r.iterations <= 10, `clusters ${r.clusters}`);
  assert(allFinite(r.centroids), "centroids not finite");
});

Deno.test("rff: a gamma whose scale overflows and a fractional growth are RangeErrors", () => {
  assertBadInput([
    [
      () => new RandomFourierFeatures(2, 4, 1e308, 1),
      /gamma 1e\+308 must be a number in \(0, 1e\+299\]/,
    ],
    [() => new RandomFourierFeatures(2, 4, 1, 1).grow(NaN), /numInputs NaN must be an integer/],
  ]);
  const rff = new RandomFourierFeatures(2, 4, MAX_GAMMA, 1);
  assert(allFinite(rff.features(Float64Array.of(3e38, -3e38))), "features not finite");
});

Deno.test("label index: options out of range are named; width-0 rows give finite spreads", () => {
  const L = 50,
    content = (r: number) => ({
      kind: "linear-lowrank" as const,
      numFeatures: 1,
      numLabels: L,
      params: { rank: r },
      tensors: {
        W: { dtype: "f32" as const, shape: [1, r], data: new Float32Array(r).fill(1) },
        H: {
          dtype: "f32" as const,
          shape: [L, r],
          data: Float32Array.from({ length: L * r }, (_, i) => Math.sin(i)),
        },
      },
    });
  assertBadInput([
    [
      () => withLabelIndex(content(2), "H", { minLabels: 0, clusters: NaN }),
      /clusters must be an integer >= 1, got NaN/,
    ],
    [
      () => withLabelIndex(content(2), "H", { minLabels: 0, recall: 2 }),
      /recall must be a number in \(0, 1\], got 2/,
    ],
    [
      () => withLabelIndex(content(2), "H", { minLabels: 0, probes: 0 }),
      /probes must be an integer >= 1/,
    ],
  ]);
  const c = withLabelIndex(content(0), "H", { minLabels: 0 });
  assert(allFinite(c.tensors.mipsSpread.data as Float32Array), "spread not finite");
});
