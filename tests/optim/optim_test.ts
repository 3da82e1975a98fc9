import { adamUpdate, adamUpdateRows } from "../../src/optim/adam.ts";
import { sgdRate, sgdUpdate, sgdUpdateRows } from "../../src/optim/sgd.ts";
import { assert } from "../helpers.ts";

Deno.test("adam: minimises a quadratic; row updates equal dense updates on the same rows", () => {
  const p = Float32Array.of(3, -2), m = new Float32Array(2), v = new Float32Array(2);
  for (let t = 1; t <= 500; t++) {
    adamUpdate(p, m, v, Float64Array.of(2 * p[0], 2 * p[1]), t, { lr: 0.05 });
  }
  assert(Math.abs(p[0]) < 0.05 && Math.abs(p[1]) < 0.05, `not minimised: ${p}`);
  // row-sparse: rows 0 and 2 of a 3×2 matrix equal dense steps on those rows; row 1 untouched
  const a = Float32Array.of(1, 2, 3, 4, 5, 6), ma = new Float32Array(6), va = new Float32Array(6);
  const d = Float32Array.of(1, 2, 5, 6), md = new Float32Array(4), vd = new Float32Array(4);
  const g = Float64Array.of(0.5, -1, 2, 0.25);
  for (let t = 1; t <= 3; t++) {
    adamUpdateRows(a, ma, va, g, Int32Array.of(0, 2), 2, 2, t, { lr: 0.1 });
    adamUpdate(d, md, vd, g, t, { lr: 0.1 });
  }
  assert(a[2] === 3 && a[3] === 4 && ma[2] === 0, "untouched row changed");
  assert(a[0] === d[0] && a[1] === d[1] && a[4] === d[2] && a[5] === d[3], "row vs dense mismatch");
});

Deno.test("sgd: dense and row updates, rate schedule", () => {
  const p = Float64Array.of(1, 1, 1, 1);
  sgdUpdateRows(p, Float64Array.of(1, 1), Int32Array.of(1), 1, 2, 0.5);
  assert(p.join() === "1,1,0.5,0.5", `rows: ${p}`);
  sgdUpdate(p, Float64Array.of(2, 0, 0, 2), 0.25);
  assert(p.join() === "0.5,1,0.5,0", `dense: ${p}`);
  assert(sgdRate(1, 1, 3) === 1 / 3, "rate");
  let msg = "";
  try {
    sgdUpdateRows(p, Float64Array.of(1, 1), Int32Array.of(5), 1, 2, 0.5);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(/row 5 is out of range/.test(msg), msg);
});
