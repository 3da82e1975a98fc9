// The SGD step-size cap of streaming LEML (src/models/leml/step_cap.ts): its factor, that a
// batch of rows with ‖x‖ ≤ 1 still takes exactly the plain SGD step, and that it leaves alone
// the steps of raw rows on which plain SGD is stable.
import { LemlStream } from "../../../src/models/leml/stream.ts";
import {
  STEP_CAP_TARGET,
  STEP_CAP_TRIGGER,
  stepScale,
  UNIT_NORM_SQ,
} from "../../../src/optim/step_cap.ts";
import { assert, csrBatch } from "../../helpers.ts";
import { toyBatch } from "../extreme_rows.ts";
import { lossValue } from "../../../src/models/leml/loss.ts";
import type { Batch } from "../../../src/data/types.ts";

const rowOf = (b: Batch, i: number) => {
  const p0 = b.x.indptr[i], p1 = b.x.indptr[i + 1];
  return { indices: b.x.indices.subarray(p0, p1), values: b.x.values.subarray(p0, p1) };
};

Deno.test("leml step cap: the factor is 1 while lr·β ≤ 2, else it sets lr·β to 1 (the minimum along the step)", () => {
  for (const lr of [1e-3, 0.05, 2]) {
    for (const beta of [0, 1e-3, 0.5, 3, 39.9, 40, 40.1, 1e4, 1e30]) {
      const f = stepScale(lr, beta), what = `lr ${lr} β ${beta}: ${f}`;
      assert(f > 0 && f <= 1, what);
      if (lr * beta <= STEP_CAP_TRIGGER) assert(f === 1, what);
      else assert(Math.abs(lr * f * beta - STEP_CAP_TARGET) <= 1e-12, what);
    }
  }
  assert(stepScale(0.05, NaN) === 1 && stepScale(0.05, Infinity) === 0, "non-finite β");
});

Deno.test("leml step cap: rows with ‖x‖ ≤ 1 (float32 unit rows included) take exactly the plain SGD step, every loss and mode", () => {
  const configs: Record<string, unknown>[] = [
    {},
    { loss: "logistic" },
    { loss: "sqhinge" },
    { update: "local" },
  ];
  for (const extra of configs) {
    const m = new LemlStream({
      rank: 4,
      seed: 3,
      optimizer: "sgd",
      numFeatures: 18,
      numLabels: 6,
      ...extra,
    });
    for (let b = 0; b < 6; b++) {
      const batch = toyBatch(b, 1, b % 2 === 1, 8);
      // every row scaled to unit norm in float32 (squared norms round to about 1 ± 1e-7)
      const { indptr, values } = batch.x;
      for (let i = 0; i < 8; i++) {
        let ss = 0;
        for (let p = indptr[i]; p < indptr[i + 1]; p++) ss += values[p] * values[p];
        for (let p = indptr[i]; p < indptr[i + 1]; p++) values[p] /= Math.sqrt(ss);
        ss = 0;
        for (let p = indptr[i]; p < indptr[i + 1]; p++) ss += values[p] * values[p];
        assert(ss <= UNIT_NORM_SQ, `row ${i}: ${ss}`);
      }
      const W = m.w.data.slice(), H = m.h.data.slice(), bias = m.bias.data.slice();
      const g = m.batchGradient(batch);
      m.learnMany(batch);
      const what = `${JSON.stringify(extra)} batch ${b}`;
      const lr = m.config.lr, lrH = m.config.lrH;
      assert(W.every((w, j) => Object.is(m.w.data[j], Math.fround(w - lr * g.W[j]))), `${what}: W`);
      if (extra.update === "local") continue; // the local mode's rows also absorb into the Gram
      assert(
        H.every((h, j) => Object.is(m.h.data[j], Math.fround(h - lrH * g.H[j]))),
        `${what}: H`,
      );
      assert(
        bias.every((v, j) => Object.is(m.bias.data[j], Math.fround(v - lrH * g.bias[j]))),
        `${what}: bias`,
      );
    }
  }
});

Deno.test("leml step cap: sparse binary rows of squared norm 50 that plain SGD learns stably are learned as well as by plain SGD (the cap stays out of the way)", () => {
  // 10 labels; a row of label c: 40 of label c's own 40 features plus 10 random ones, all 1
  // (‖x‖² = 50, like bag-of-words rows). At the default lr, plain SGD is stable on this stream
  // (lr·β along its steps stays near 0.2): a cap from a loose curvature bound (trace of HᵀH
  // times Σ‖x_i‖²/n) shrank these steps about 8-fold and learned half as fast.
  const D = 400, L = 10;
  const sparseBatch = (seed: number, rows: number): Batch => {
    let s = (seed * 7919 + 1) >>> 0;
    const rand = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    const xp = [0], xi: number[] = [], yp = [0], yi: number[] = [];
    for (let i = 0; i < rows; i++) {
      const c = Math.floor(rand() * L), set = new Set<number>();
      while (set.size < 40) set.add(c * 40 + Math.floor(rand() * 40));
      while (set.size < 50) set.add(Math.floor(rand() * D));
      xi.push(...[...set].sort((a, b) => a - b));
      xp.push(xi.length);
      yi.push(c);
      yp.push(yi.length);
    }
    return csrBatch(D, L, xp, xi, new Float32Array(xi.length).fill(1), yp, yi);
  };
  const objective = (m: LemlStream, b: Batch) => {
    let sum = 0;
    for (let i = 0; i < b.x.numRows; i++) {
      const top = m.predictTopK(rowOf(b, i), L, { exact: true });
      for (let r = 0; r < L; r++) {
        const z = top.scores[r] + m.config.threshold;
        sum += lossValue("squared", z, top.labels[r] === b.y.indices[i] ? 1 : 0);
      }
    }
    return sum / b.x.numRows;
  };
  const opts = { rank: 8, seed: 1, optimizer: "sgd" as const, numFeatures: D, numLabels: L };
  const capped = new LemlStream(opts), plain = new LemlStream(opts);
  const held = sparseBatch(999, 200), start = objective(plain, held);
  for (let b = 0; b < 40; b++) {
    const batch = sparseBatch(b, 32);
    // plain SGD, by hand: W ← W − lr ∂W, [H; b] ← [H; b] − lrH ∂[H; b] (the squared loss samples nothing)
    const g = plain.batchGradient(batch), lr = plain.config.lr, lrH = plain.config.lrH;
    g.W.forEach((v, j) => plain.w.data[j] = Math.fround(plain.w.data[j] - lr * v));
    g.H.forEach((v, j) => plain.h.data[j] = Math.fround(plain.h.data[j] - lrH * v));
    g.bias.forEach((v, j) => plain.bias.data[j] = Math.fround(plain.bias.data[j] - lrH * v));
    capped.learnMany(batch);
  }
  const ref = objective(plain, held), got = objective(capped, held);
  assert(Number.isFinite(ref) && ref < 0.5 * start, `plain SGD learns: from ${start} to ${ref}`);
  assert(got <= ref * 1.05, `capped ${got} vs plain ${ref}`);
});
