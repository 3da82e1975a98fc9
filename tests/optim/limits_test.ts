import { adamUpdate, adamUpdateRows } from "../../src/optim/adam.ts";
import { sgdUpdate, sgdUpdateRows } from "../../src/optim/sgd.ts";
import { clipGradient, GRADIENT_LIMIT } from "../../src/optim/limits.ts";
import { assert } from "../helpers.ts";

const finite = (a: ArrayLike<number>) => Array.from(a).every(Number.isFinite);

Deno.test("adam: float32 moments stay finite on gradients of 1e30 and 1e300, and steps stay near lr", () => {
  for (const big of [1e20, 1e30, 1e300, -1e300]) {
    const p = new Float32Array(4), m = new Float32Array(4), v = new Float32Array(4);
    const pr = new Float32Array(4), mr = new Float32Array(4), vr = new Float32Array(4);
    for (let t = 1; t <= 20; t++) {
      const g = Float64Array.of(big, -big, t % 2 ? big : -big, 1);
      adamUpdate(p, m, v, g, t, { lr: 0.01 });
      adamUpdateRows(pr, mr, vr, g.subarray(0, 2), Int32Array.of(1), 1, 2, t, { lr: 0.01 });
    }
    assert(finite(p) && finite(m) && finite(v), `dense ${big}: p ${p} m ${m} v ${v}`);
    assert(finite(pr) && finite(mr) && finite(vr), `rows ${big}: p ${pr} m ${mr} v ${vr}`);
    // a constant gradient moves a parameter by about lr per step, whatever its size
    assert(Math.abs(Math.abs(p[0]) - 0.2) < 0.01, `dense ${big}: moved ${p[0]} in 20 steps`);
    assert(Math.abs(Math.abs(pr[2]) - 0.2) < 0.01, `rows ${big}: moved ${pr[2]} in 20 steps`);
  }
});

Deno.test("adam and sgd: ordinary gradients are not clipped (the same steps as without a limit)", () => {
  const g = Float64Array.of(3e17, -1e-30, 0.5, -2);
  const p = Float32Array.of(1, 2, 3, 4), m = new Float32Array(4), v = new Float32Array(4);
  adamUpdate(p, m, v, g, 1, { lr: 0.1 });
  const c2 = 1 - 0.999, c1 = 1 - 0.9, step = 0.1 * Math.sqrt(c2) / c1, eps = 1e-8 * Math.sqrt(c2);
  const want = [1, 2, 3, 4].map((x, i) => {
    const mi = 0.1 * g[i], vi = 0.001 * g[i] * g[i];
    return Math.fround(x - step * Math.fround(mi) / (Math.sqrt(vi) + eps));
  });
  assert(want.every((w, i) => w === p[i]), `adam ${p} vs ${want}`);
  const s = Float32Array.of(1, 2, 3, 4);
  sgdUpdate(s, g, 0.5);
  assert(s.every((x, i) => x === Math.fround([1, 2, 3, 4][i] - 0.5 * g[i])), `sgd ${s}`);
  assert(clipGradient(0.25) === 0.25 && Number.isNaN(clipGradient(NaN)), "clip");
});

Deno.test("sgd: a gradient of 1e300 cannot make a float32 parameter infinite", () => {
  const p = new Float32Array(2), r = new Float32Array(4);
  for (let t = 0; t < 10; t++) {
    sgdUpdate(p, Float64Array.of(1e300, -1e300), 1);
    sgdUpdateRows(r, Float64Array.of(1e300, -1e300), Int32Array.of(1), 1, 2, 1);
  }
  assert(finite(p) && finite(r), `sgd: ${p} ${r}`);
  // each step moves by lr · GRADIENT_LIMIT
  const near = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.abs(b);
  assert(near(p[0], -10 * GRADIENT_LIMIT) && near(r[3], 10 * GRADIENT_LIMIT), `${p} ${r}`);
});
