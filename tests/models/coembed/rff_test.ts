/** Random Fourier features: kernel approximation, determinism and growth. */
import { cosSinInto, RandomFourierFeatures } from "../../../src/linalg/rff.ts";
import { rand } from "./helpers.ts";

Deno.test("RFF inner products approximate the RBF kernel", () => {
  const g = rand(1);
  const D = 5, gamma = 0.7;
  const rff = new RandomFourierFeatures(D, 3000, gamma, 42);
  let worst = 0;
  for (let t = 0; t < 20; t++) {
    const x = Float64Array.from({ length: D }, () => g() - 0.5);
    const y = Float64Array.from({ length: D }, () => g() - 0.5);
    let d2 = 0;
    for (let d = 0; d < D; d++) d2 += (x[d] - y[d]) ** 2;
    const fx = rff.features(x), fy = rff.features(y);
    let dot = 0;
    for (let i = 0; i < fx.length; i++) dot += fx[i] * fy[i];
    worst = Math.max(worst, Math.abs(dot - Math.exp(-gamma * d2)));
  }
  if (!(worst < 0.06)) throw new Error(`worst kernel error ${worst}`);
  // A wider kernel (larger gamma) must decorrelate distant points: check the map is not constant.
  const far = new RandomFourierFeatures(D, 3000, 50, 42);
  const a = far.features(new Float64Array(D).fill(0.4)), b = far.features(new Float64Array(D));
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  if (!(Math.abs(dot) < 0.1)) throw new Error(`k(x, y) for distant points ${dot}`);
});

Deno.test("RFF directions are seeded per input row, so growing keeps and extends them", () => {
  const a = new RandomFourierFeatures(4, 16, 0.5, 9);
  a.grow(7);
  const b = new RandomFourierFeatures(7, 16, 0.5, 9);
  for (let i = 0; i < b.W.length; i++) {
    if (a.W[i] !== b.W[i]) throw new Error(`W[${i}] differs after growth`);
  }
  const c = new RandomFourierFeatures(7, 16, 0.5, 10);
  if (c.W.every((v, i) => v === b.W[i])) throw new Error("seed has no effect");
  // Variance of the directions is 2γ.
  const big = new RandomFourierFeatures(50, 400, 0.5, 3);
  let s = 0;
  for (const w of big.W) s += w * w;
  const v = s / big.W.length;
  if (Math.abs(v - 1) > 0.05) throw new Error(`direction variance ${v}, expected 1`);
});

Deno.test("RFF rejects bad parameters with clear errors", () => {
  for (
    const [args, msg] of [
      [[3, 0, 1, 0], "numRff"],
      [[3, 4, 0, 0], "gamma"],
      [[-1, 4, 1, 0], "numInputs"],
    ] as const
  ) {
    try {
      new RandomFourierFeatures(args[0], args[1], args[2], args[3]);
      throw new Error(`accepted ${args}`);
    } catch (e) {
      if (!(e instanceof RangeError) || !e.message.includes(msg)) throw e;
    }
  }
});

Deno.test("cosSinInto matches Math.cos and Math.sin in every quadrant", () => {
  const n = 20001, a = new Float64Array(n), out = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) a[i] = (i - 10000) * 0.0137 + (i % 7) * 1e-3; // ±137, all quadrants
  a[0] = 0;
  a[1] = -Math.PI / 2;
  a[2] = 3 * Math.PI;
  a[3] = 12345.678;
  cosSinInto(a, n, out, 0.5);
  let worst = 0;
  for (let i = 0; i < n; i++) {
    worst = Math.max(
      worst,
      Math.abs(out[i] - 0.5 * Math.cos(a[i])),
      Math.abs(out[n + i] - 0.5 * Math.sin(a[i])),
    );
  }
  if (!(worst < 1e-14)) throw new Error(`max error ${worst}`);
});

Deno.test("cosSinInto gives Math.cos and Math.sin exactly for angles beyond ±1e5, NaN and ±∞", () => {
  const a = Float64Array.of(1e5, -1e5, 3e6, -7.5e9, 1e15, -1e20, 1e300, NaN, Infinity, -Infinity);
  const n = a.length, out = new Float64Array(2 * n);
  cosSinInto(a, n, out, 2);
  for (let i = 0; i < n; i++) {
    const c = 2 * Math.cos(a[i]), s = 2 * Math.sin(a[i]);
    if (!Object.is(out[i], c) || !Object.is(out[n + i], s)) {
      throw new Error(`a = ${a[i]}: ${out[i]}, ${out[n + i]} against ${c}, ${s}`);
    }
  }
});
