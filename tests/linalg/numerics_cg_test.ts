import { conjugateGradient, conjugateGradientColumns } from "../../src/linalg/cg.ts";
import { assert } from "../helpers.ts";

/** out = A v for a dense row-major n × n matrix. */
const dense = (a: number[][]) => (v: Float64Array, out: Float64Array) => {
  for (let i = 0; i < a.length; i++) {
    let s = 0;
    for (let j = 0; j < a.length; j++) s += a[i][j] * v[j];
    out[i] = s;
  }
};

Deno.test("cg numerics: a tiny b with an ordinary warm start is solved, not turned into NaN", () => {
  // b = 1e-200 is solved as A (x/s) = b/s with s = 1e-200: the warm start x = 1 became 1e200,
  // its residual's square overflowed and every entry of x came back NaN
  const a = [[2, 0], [0, 4]];
  const x = Float64Array.of(1, -3);
  const res = conjugateGradient(dense(a), Float64Array.of(1e-200, 2e-200), x, { tolerance: 1e-12 });
  assert(
    Number.isFinite(res.relativeResidual) && res.relativeResidual <= 1e-12,
    JSON.stringify(res),
  );
  assert(Math.abs(x[0] / 0.5e-200 - 1) < 1e-12 && Math.abs(x[1] / 0.5e-200 - 1) < 1e-12, `${x}`);
  // an unscaled b with a start whose residual overflows likewise
  const far = Float64Array.of(1e200, 0);
  const r2 = conjugateGradient(dense(a), Float64Array.of(2, 4), far, { tolerance: 1e-12 });
  assert(
    r2.relativeResidual <= 1e-12 && Math.abs(far[0] - 1) < 1e-12 && Math.abs(far[1] - 1) < 1e-12,
    `${far}`,
  );
  // the column form: column 0 with the far start, column 1 an ordinary one
  const xc = Float64Array.of(1, 0.1, -1, 0.1);
  const rc = conjugateGradientColumns(
    (v, out) => {
      for (let i = 0; i < 2; i++) {
        for (let c = 0; c < 2; c++) out[i * 2 + c] = (i + 2) * v[i * 2 + c];
      }
    },
    Float64Array.of(2e-200, 2e-200, 3e-200, 3e-200),
    xc,
    2,
    2,
    { tolerance: 1e-12 },
  );
  assert(rc.relativeResidual <= 1e-12, JSON.stringify(rc));
  for (const v of xc) assert(Math.abs(v / 1e-200 - 1) < 1e-12, `${xc}`);
});

Deno.test("cg numerics: textbook cases (zero b, converged start, maxIterations 0, n steps on n × n)", () => {
  const a = [[4, 1, 0], [1, 3, 1], [0, 1, 2]];
  // zero right-hand side: the solution 0, whatever the start
  const x0 = Float64Array.of(5, -2, 1);
  conjugateGradient(dense(a), new Float64Array(3), x0);
  assert(x0.every((v) => v === 0), `${x0}`);
  // an exact start: no iteration, x unchanged
  const xs = Float64Array.of(1, 1, 1), b = new Float64Array(3);
  dense(a)(xs, b);
  const r0 = conjugateGradient(dense(a), b, xs);
  assert(r0.iterations === 0 && xs.join() === "1,1,1", JSON.stringify(r0));
  // maxIterations 0: x untouched and the start's relative residual reported
  const xz = new Float64Array(3);
  const rz = conjugateGradient(dense(a), Float64Array.of(1, 2, 3), xz, { maxIterations: 0 });
  assert(
    rz.iterations === 0 && rz.relativeResidual === 1 && xz.every((v) => v === 0),
    JSON.stringify(rz),
  );
  // exact arithmetic ends in n steps; the relative tolerance is met against ‖b‖
  const x = new Float64Array(3);
  const r = conjugateGradient(dense(a), Float64Array.of(1, 2, 3), x, { tolerance: 1e-10 });
  assert(r.iterations <= 4 && r.relativeResidual <= 1e-10, JSON.stringify(r));
  const ax = new Float64Array(3);
  dense(a)(x, ax);
  assert(Math.abs(ax[0] - 1) + Math.abs(ax[1] - 2) + Math.abs(ax[2] - 3) < 1e-9, `${ax}`);
});
