// Streaming LEML with SGD on raw (not L2-normalised) feature values between 30 and the raw-value
// limit: without a step-size cap the step lr·‖x‖²·(scale of H) overshot, and the scores became
// garbage, then ±Infinity, silently (src/models/leml/step_cap.ts).
import { LemlStream } from "../../../src/models/leml/stream.ts";
import { type LemlLoss, lossValue } from "../../../src/models/leml/loss.ts";
import type { Batch } from "../../../src/data/types.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert } from "../../helpers.ts";
import { nonFiniteTensors, TOY_LABELS, toyBatch, toyMisses, toyQuery } from "../extreme_rows.ts";

const rowOf = (b: Batch, i: number) => {
  const p0 = b.x.indptr[i], p1 = b.x.indptr[i + 1];
  return { indices: b.x.indices.subarray(p0, p1), values: b.x.values.subarray(p0, p1) };
};

Deno.test("leml sgd: raw rows from 30 to 5e14 keep the state and scores finite and the true label first (every loss, full, replay, local, one row at a time)", () => {
  const configs: Record<string, unknown>[] = [
    {},
    { loss: "logistic" },
    { loss: "sqhinge" },
    { replay: 64 },
    { update: "local", replay: 32 },
  ];
  for (const extra of configs) {
    for (const magnitude of [30, 1e3, 1e6, 1e10, 5e14]) {
      for (const mixed of [false, true]) {
        const what = `${JSON.stringify(extra)} at ${mixed ? "±" : ""}${magnitude}`;
        const m = new LemlStream({ rank: 4, seed: 1, optimizer: "sgd", ...extra });
        for (let b = 0; b < 40; b++) m.learnMany(toyBatch(b, magnitude, mixed));
        const bad = nonFiniteTensors(m.toState());
        assert(bad.length === 0, `${what}: non-finite state tensors ${bad}`);
        const misses = toyMisses(m, magnitude, mixed);
        assert(misses.length <= 1, `${what}: ${misses.join("; ")}`);
        // the model file answers the same
        const edge = loadModel(m.toModelFile());
        assert(toyMisses(edge, magnitude, mixed).length === misses.length, `${what}: the SDK`);
      }
    }
  }
  // one row per step (a batch's mean no longer averages the rows' curvature)
  for (const magnitude of [100, 1e8]) {
    const m = new LemlStream({ rank: 4, seed: 1, optimizer: "sgd" });
    for (let b = 0; b < 40; b++) {
      const batch = toyBatch(b, magnitude, false, 4);
      for (let i = 0; i < 4; i++) m.learnOne(rowOf(batch, i), [batch.y.indices[i]]);
    }
    const misses = toyMisses(m, magnitude);
    assert(misses.length <= 1, `learnOne at ${magnitude}: ${misses.join("; ")}`);
  }
});

Deno.test("leml sgd: on a fixed batch of raw rows every step lowers the loss (squared; logistic and squared hinge overall)", () => {
  for (const loss of ["squared", "logistic", "sqhinge"] as LemlLoss[]) {
    for (const magnitude of [1e2, 1e5, 1e9]) {
      const what = `${loss} at ${magnitude}`;
      const m = new LemlStream({
        rank: 4,
        seed: 1,
        optimizer: "sgd",
        loss,
        numFeatures: 3 * TOY_LABELS,
        numLabels: TOY_LABELS,
      });
      const batch = toyBatch(0, magnitude, false, 12);
      // the mean loss of the batch over every label (the objective the sampled steps estimate)
      const objective = () => {
        let sum = 0;
        for (let i = 0; i < batch.x.numRows; i++) {
          const top = m.predictTopK(rowOf(batch, i), TOY_LABELS, { exact: true });
          for (let r = 0; r < TOY_LABELS; r++) {
            const z = top.scores[r] + m.config.threshold;
            sum += lossValue(loss, z, top.labels[r] === batch.y.indices[i] ? 1 : 0);
          }
        }
        return sum / batch.x.numRows;
      };
      const losses = [objective()];
      for (let t = 0; t < 30; t++) {
        m.learnMany(batch);
        losses.push(objective());
      }
      assert(losses.every(Number.isFinite), `${what}: losses ${losses}`);
      const rises = losses.filter((v, t) => t > 0 && v > losses[t - 1]).length;
      assert(rises <= (loss === "squared" ? 0 : 3), `${what}: the loss rose ${rises} times`);
      assert(losses[30] < 0.6 * losses[0], `${what}: from ${losses[0]} to ${losses[30]}`);
    }
  }
});

Deno.test("leml sgd: the raw scale of the rows does not matter: the same stream at ×1e2 and ×1e12 scores its queries alike", () => {
  for (const loss of ["squared", "logistic"]) {
    const scores = [1e2, 1e12].map((magnitude) => {
      const m = new LemlStream({ rank: 4, seed: 1, optimizer: "sgd", loss });
      for (let b = 0; b < 20; b++) m.learnMany(toyBatch(b, magnitude, true));
      return Array.from({ length: TOY_LABELS }, (_, c) => {
        const top = m.predictTopK(toyQuery(c, magnitude, true), TOY_LABELS, { exact: true });
        const byLabel = new Float64Array(TOY_LABELS);
        top.labels.forEach((l, r) => byLabel[l] = top.scores[r]);
        return [...byLabel];
      }).flat();
    });
    const gap = Math.max(...scores[0].map((s, i) => Math.abs(s - scores[1][i])));
    const spread = Math.max(...scores[0].map(Math.abs));
    assert(Number.isFinite(gap) && gap <= 1e-3 * Math.max(1, spread), `${loss}: gap ${gap}`);
  }
});

Deno.test("leml sgd: a few raw-count rows in a stream of unit rows do not wreck it", () => {
  // with the squared loss a raw row's residual (value·wᵀh − 1)² rightly dominates its batch's
  // objective (the linear model cannot fit both scales on the same features): there only the
  // scores must stay finite; the margin losses can fit both and must rank as on unit rows
  for (const loss of ["logistic", "sqhinge", "squared"]) {
    const m = new LemlStream({ rank: 4, seed: 2, optimizer: "sgd", loss });
    for (let b = 0; b < 60; b++) {
      // unit rows (squared norm 0.2025·(1 + 1.25² + 1.5²) < 1), one row of counts in 128
      const batch = toyBatch(b, 0.45, false, 16);
      if (b % 8 === 3) {
        const v = batch.x.values;
        for (let p = 0; p < 3; p++) v[p] = 5000 + 1000 * p;
      }
      m.learnMany(batch);
    }
    assert(nonFiniteTensors(m.toState()).length === 0, `${loss}: non-finite state`);
    const misses = toyMisses(m, 0.45);
    if (loss === "squared") {
      assert(misses.every((s) => !/Infinity|NaN/.test(s)), `${loss}: ${misses.join("; ")}`);
    } else assert(misses.length <= 1, `${loss}: ${misses.join("; ")}`);
  }
});
