import { trainDcd } from "../../../src/models/br/dcd.ts";
import { Rng } from "../../../src/random/mod.ts";
import type { BinaryCsr, CsrMatrix } from "../../../src/data/types.ts";
import { assert } from "../../helpers.ts";

/** Random sparse rows with labels driven by a few features plus label noise. */
function randomProblem(
  n: number,
  d: number,
  l: number,
  seed: number,
): { x: CsrMatrix; y: BinaryCsr } {
  const rng = new Rng(seed);
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (let i = 0; i < n; i++) {
    const feats = new Set<number>();
    while (feats.size < 4) feats.add(rng.nextInt(d));
    const idx = [...feats].sort((a, b) => a - b);
    for (const j of idx) {
      xi.push(j);
      xv.push(0.5 + rng.next());
    }
    xp.push(xi.length);
    for (let lab = 0; lab < l; lab++) {
      const on = feats.has(lab) !== (rng.next() < 0.1);
      if (on) yi.push(lab);
    }
    yp.push(yi.length);
  }
  return {
    x: {
      numRows: n,
      numCols: d,
      indptr: Int32Array.from(xp),
      indices: Int32Array.from(xi),
      values: Float32Array.from(xv),
    },
    y: { numRows: n, numCols: l, indptr: Int32Array.from(yp), indices: Int32Array.from(yi) },
  };
}

Deno.test("trainDcd reaches the squared-hinge SVM optimum (primal gradient ≈ 0)", () => {
  const { x, y } = randomProblem(120, 12, 3, 5);
  const C = 0.5, B = 1;
  const w = trainDcd(x, y, { C, eps: 1e-6, bias: B });
  for (let l = 0; l < 3; l++) {
    const wd = new Float64Array(13); // features + bias weight
    for (let p = w.labelPtr[l]; p < w.labelPtr[l + 1]; p++) wd[w.featIdx[p]] = w.values[p];
    wd[12] = w.bias![l] / B;
    // gradient of 1/2 |w|^2 + C sum max(0, 1 - y w.x)^2
    const g = Float64Array.from(wd);
    let pos = 0;
    for (let i = 0; i < x.numRows; i++) {
      const yl = y.indices.subarray(y.indptr[i], y.indptr[i + 1]).includes(l) ? 1 : -1;
      if (yl > 0) pos++;
      let s = wd[12] * B;
      for (let p = x.indptr[i]; p < x.indptr[i + 1]; p++) s += wd[x.indices[p]] * x.values[p];
      const m = 1 - yl * s;
      if (m > 0) {
        for (let p = x.indptr[i]; p < x.indptr[i + 1]; p++) {
          g[x.indices[p]] -= 2 * C * m * yl * x.values[p];
        }
        g[12] -= 2 * C * m * yl * B;
      }
    }
    assert(pos > 5 && pos < 115, `label ${l} has ${pos} positives`);
    const norm = Math.hypot(...g);
    assert(norm < 1e-3, `label ${l}: primal gradient norm ${norm}`);
  }
});

Deno.test("trainDcd is deterministic, does not mutate inputs, validates them", () => {
  const { x, y } = randomProblem(80, 10, 2, 9);
  const before = structuredClone({ x, y });
  const a = trainDcd(x, y, { seed: 3 }), b = trainDcd(x, y, { seed: 3 });
  assert(
    a.values.join() === b.values.join() && a.bias!.join() === b.bias!.join(),
    "same seed differs",
  );
  assert(JSON.stringify(before) === JSON.stringify({ x, y }), "inputs mutated");
  let threw = false;
  try {
    trainDcd(x, { ...y, numRows: 3 });
  } catch (e) {
    threw = e instanceof RangeError && /rows/.test(e.message);
  }
  assert(threw, "row mismatch not rejected");
  const nb = trainDcd(x, y, { bias: 0 });
  assert(nb.bias === undefined, "bias 0 still returned a bias");
});

Deno.test("trainDcd matches the hand-solved SVM of two mirrored points", () => {
  // rows x = +1 (label 0 on) and x = −1 (off), bias B = 1: by symmetry b = 0, and
  // ½w² + C·2(1 − w)² is minimal at w = 4C / (1 + 4C); without bias the same.
  const x = {
    numRows: 2,
    numCols: 1,
    indptr: Int32Array.of(0, 1, 2),
    indices: Int32Array.of(0, 0),
    values: Float32Array.of(1, -1),
  };
  const y = { numRows: 2, numCols: 1, indptr: Int32Array.of(0, 1, 1), indices: Int32Array.of(0) };
  for (const C of [0.25, 1, 4]) {
    const want = (4 * C) / (1 + 4 * C);
    for (const bias of [0, 1]) {
      const w = trainDcd(x, y, { C, eps: 1e-8, bias });
      assert(w.labelPtr[1] === 1 && w.featIdx[0] === 0, `C=${C}: one weight on feature 0`);
      assert(Math.abs(w.values[0] - want) < 1e-6, `C=${C} B=${bias}: w ${w.values[0]} vs ${want}`);
      if (bias) assert(Math.abs(w.bias![0]) < 1e-6, `C=${C}: bias ${w.bias![0]} should be 0`);
    }
  }
  // an all-negative label: by symmetry only the bias moves
  const none = { ...y, indptr: Int32Array.of(0, 0, 0), indices: new Int32Array(0) };
  const w = trainDcd(x, none, { C: 1, eps: 1e-8 });
  // primal: ½(w² + b²) + C[(1 + w + b)² + (1 − w + b)²] → w = 0, b = −4C/(1 + 4C)
  assert(w.labelPtr[1] === 0, `w should be exactly 0, got ${w.values.join()}`);
  assert(Math.abs(w.bias![0] + 0.8) < 1e-6, `bias ${w.bias![0]} vs −0.8`);
});
