// Streaming LEML's SGD step cap (src/models/leml/step_cap.ts) measured a batch only when one of
// its rows was above unit norm, and never with l2Normalize: above the default rates, unit rows
// overshot (squared loss at lr 2: scores near 1e37, at lr 10 Infinity; initScale 30 or λ 100 at
// the default rate: 1e34 and 1e19). Unit batches are now measured too when the settings are above
// the defaults, on the rows as learned (scaled with l2Normalize); never at the defaults.
import { LemlStream } from "../../../src/models/leml/stream.ts";
import { GradientScratch } from "../../../src/models/leml/gradients.ts";
import { SmallRng } from "../../../src/random/mod.ts";
import type { LemlLoss } from "../../../src/models/leml/loss.ts";
import type { LemlStreamOptions } from "../../../src/models/leml/settings.ts";
import { assert } from "../../helpers.ts";
import {
  nonFiniteTensors,
  TOY_LABELS,
  toyBatch,
  toyMaxAbsScore,
  toyMisses,
  toyQuery,
  UNIT_CASES,
} from "../extreme_rows.ts";

const LOSSES: LemlLoss[] = ["squared", "logistic", "sqhinge"];

function train(options: LemlStreamOptions, magnitude: number, batches = 200): LemlStream {
  const m = new LemlStream({ optimizer: "sgd", rank: 6, seed: 1, ...options });
  for (let i = 0; i < batches; i++) m.learnMany(toyBatch(i, magnitude, false, 8));
  return m;
}

Deno.test("leml sgd: at rates 2 to 1000 on unit rows (raw or l2Normalize) the scores stay bounded and the planted labels are learnt", () => {
  const cases: LemlStreamOptions[] = [];
  for (const loss of LOSSES) for (const lr of [2, 10, 1000]) cases.push({ loss, lr });
  // the local mode (squared loss) shares the cap
  cases.push({ update: "local", lr: 2 }, { update: "local", lr: 10 });
  for (const opts of cases) {
    for (const { l2Normalize, magnitude } of UNIT_CASES) {
      const what = `${JSON.stringify(opts)}, l2Normalize ${l2Normalize}`;
      const m = train({ ...opts, l2Normalize }, magnitude);
      assert(nonFiniteTensors(m.toState()).length === 0, `${what}: non-finite state`);
      // targets 0/1 (squared, threshold 0.5), margins ±1, logistic scores growing like log t;
      // an overshooting step ran them to 1e37 or Infinity
      const a = toyMaxAbsScore(m, magnitude);
      assert(a < 20, `${what}: a score of ${a}`);
      const misses = toyMisses(m, magnitude);
      assert(misses.length === 0, `${what}: ${misses.join("; ")}`);
    }
  }
});

Deno.test("leml sgd: a large initScale or λ at the default rate stays bounded on unit rows", () => {
  for (const { l2Normalize, magnitude } of UNIT_CASES) {
    for (const loss of ["squared", "sqhinge"] as LemlLoss[]) {
      const what = `${loss}, initScale 30, l2Normalize ${l2Normalize}`;
      const m = train({ loss, initScale: 30, l2Normalize }, magnitude);
      const a = toyMaxAbsScore(m, magnitude);
      assert(a < 20, `${what}: a score of ${a}`);
      const misses = toyMisses(m, magnitude);
      assert(misses.length === 0, `${what}: ${misses.join("; ")}`);
    }
    // λ 100 shrinks the factors to about 0 (the scores to the biases less the threshold)
    const m = train({ lambda: 100, l2Normalize }, magnitude);
    const a = toyMaxAbsScore(m, magnitude);
    assert(a < 1 && nonFiniteTensors(m.toState()).length === 0, `lambda 100: a score of ${a}`);
  }
});

Deno.test("leml sgd: with l2Normalize the cap measures the scaled rows (the same model as on the rows scaled beforehand)", () => {
  // a cap measured on the raw values (norm about 11) would take W steps about 100 times too short
  for (const loss of LOSSES) {
    const a = new LemlStream({
      optimizer: "sgd",
      loss,
      lr: 10,
      rank: 6,
      seed: 1,
      l2Normalize: true,
    });
    const b = new LemlStream({ optimizer: "sgd", loss, lr: 10, rank: 6, seed: 1 });
    for (let i = 0; i < 50; i++) {
      const batch = toyBatch(i, 5, false, 8);
      a.learnMany(batch);
      const x = batch.x, values = new Float32Array(x.values.length);
      for (let r = 0; r < x.numRows; r++) {
        let ss = 0;
        for (let p = x.indptr[r]; p < x.indptr[r + 1]; p++) ss += x.values[p] * x.values[p];
        for (let p = x.indptr[r]; p < x.indptr[r + 1]; p++) {
          values[p] = x.values[p] / Math.sqrt(ss);
        }
      }
      b.learnMany({ ...batch, x: { ...x, values } });
    }
    for (let c = 0; c < TOY_LABELS; c++) {
      const q = toyQuery(c, 5), sa = a.predictScores(q);
      let ss = 0;
      for (const v of q.values) ss += v * v;
      const scaled = { indices: q.indices, values: q.values.map((v) => v / Math.sqrt(ss)) };
      const sb = b.predictScores(scaled);
      for (let l = 0; l < TOY_LABELS; l++) {
        assert(
          Math.abs(sa[l] - sb[l]) < 1e-3 && Math.abs(sa[l]) < 20,
          `${loss}, query ${c}, label ${l}: l2Normalize ${sa[l]}, scaled rows ${sb[l]}`,
        );
      }
    }
  }
});

Deno.test("leml sgd: unit batches are measured only above the default settings (the default step is not)", () => {
  const batch = toyBatch(0, 0.4, false, 8);
  const active = (options: LemlStreamOptions): boolean => {
    const m = new LemlStream({ optimizer: "sgd", rank: 4, ...options });
    m.learnMany(batch); // grows the model to the batch
    const sc = new GradientScratch(4);
    sc.full(m, batch, 0, new SmallRng(1));
    return sc.curv.active;
  };
  for (const l2Normalize of [false, true]) {
    assert(!active({ l2Normalize }), `defaults, l2Normalize ${l2Normalize}: measured`);
    assert(!active({ l2Normalize, loss: "logistic" }), `logistic defaults: measured`);
    for (const o of [{ lr: 2 }, { lrH: 0.1 }, { lambda: 100 }, { initScale: 30 }]) {
      assert(
        active({ l2Normalize, ...o }),
        `${JSON.stringify(o)}, l2Normalize ${l2Normalize}: not`,
      );
    }
  }
  // a row above unit norm is measured at the defaults, as before
  const m = new LemlStream({ optimizer: "sgd", rank: 4 });
  const big = toyBatch(0, 3, false, 8);
  m.learnMany(big);
  const sc = new GradientScratch(4);
  sc.full(m, big, 0, new SmallRng(1));
  assert(sc.curv.active, "a raw row above unit norm: not measured");
});
