// BR's SGD step cap (src/models/br/step_cap.ts) measured a batch only when one of its rows was
// above unit norm, and never with l2Normalize: at a learning rate above the default, unit rows
// overshot (squared hinge at lr 10: scores near 1e19; the bias alone at lr 5: 8e17). Unit
// batches are now measured too when lr times their curvature bound c·(1 + [bias]) + λ passes the
// trigger, on the rows as learned (scaled with l2Normalize); never at the default rate.
import { BrEstimator } from "../../../src/models/br/estimator.ts";
import { unitRowsNeedCap } from "../../../src/models/br/step_cap.ts";
import type { Batch } from "../../../src/data/types.ts";
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

type Loss = "squared-hinge" | "logistic";

Deno.test("br sgd: at learning rates 2 to 1000 on unit rows (raw or l2Normalize) the scores stay bounded and the planted labels are learnt", () => {
  for (const loss of ["squared-hinge", "logistic"] as Loss[]) {
    for (const learningRate of [2, 10, 1000]) {
      for (const { l2Normalize, magnitude } of UNIT_CASES) {
        const what = `${loss}, lr ${learningRate}, l2Normalize ${l2Normalize}`;
        const m = new BrEstimator({ optimizer: "sgd", loss, learningRate, l2Normalize });
        for (let i = 0; i < 200; i++) m.learnMany(toyBatch(i, magnitude, false, 8));
        assert(nonFiniteTensors(m.toState()).length === 0, `${what}: non-finite state`);
        // the squared hinge's minimum is at the margin ±1, the logistic loss's scores grow
        // slowly (about log t): a diverging step ran them to 1e19
        const a = toyMaxAbsScore(m, magnitude);
        assert(a < 10, `${what}: a score of ${a}`);
        const misses = toyMisses(m, magnitude);
        assert(misses.length === 0, `${what}: ${misses.join("; ")}`);
      }
    }
  }
});

Deno.test("br sgd: the bias alone (rows without features) converges to its minimum at learning rates above 1", () => {
  // label 0 is positive in two rows of three: the squared hinge's minimum in b is 1/3
  const batch: Batch = {
    x: {
      numRows: 3,
      numCols: 1,
      indptr: Int32Array.of(0, 0, 0, 0),
      indices: new Int32Array(0),
      values: new Float32Array(0),
    },
    y: {
      numRows: 3,
      numCols: 2,
      indptr: Int32Array.of(0, 1, 2, 3),
      indices: Int32Array.of(0, 0, 1),
    },
  };
  const empty = { indices: new Int32Array(0), values: new Float32Array(0) };
  for (const learningRate of [1.5, 2, 5, 100]) {
    const m = new BrEstimator({ optimizer: "sgd", learningRate, numFeatures: 1, numLabels: 2 });
    for (let i = 0; i < 200; i++) m.learnMany(batch);
    const s = m.predictScores(empty);
    assert(
      Math.abs(s[0] - 1 / 3) < 1e-4 && Math.abs(s[1] + 1 / 3) < 1e-4,
      `lr ${learningRate}: biases ${[...s]}, not ±1/3`,
    );
  }
});

Deno.test("br sgd: with l2Normalize the cap measures the scaled rows (the same model as on the rows scaled beforehand)", () => {
  // a cap measured on the raw values (norm about 11) would take steps about 100 times too short
  for (const loss of ["squared-hinge", "logistic"] as Loss[]) {
    const a = new BrEstimator({ optimizer: "sgd", loss, learningRate: 10, l2Normalize: true });
    const b = new BrEstimator({ optimizer: "sgd", loss, learningRate: 10 });
    for (let i = 0; i < 50; i++) {
      const batch = toyBatch(i, 5, false, 8);
      a.learnMany(batch);
      const x = batch.x, values = new Float32Array(x.values.length);
      for (let r = 0; r < x.numRows; r++) {
        let ss = 0;
        for (let p = x.indptr[r]; p < x.indptr[r + 1]; p++) ss += x.values[p] * x.values[p];
        for (let p = x.indptr[r]; p < x.indptr[r + 1]; p++) values[p] = x.values[p] / Math.sqrt(ss);
      }
      b.learnMany({ ...batch, x: { ...x, values } });
    }
    for (let c = 0; c < TOY_LABELS; c++) {
      const q = toyQuery(c, 5), sa = a.predictScores(q);
      let ss = 0;
      for (const v of q.values) ss += v * v;
      const sb = b.predictScores({
        indices: q.indices,
        values: q.values.map((v) => v / Math.sqrt(ss)),
      });
      for (let l = 0; l < TOY_LABELS; l++) {
        assert(
          Math.abs(sa[l] - sb[l]) < 1e-3 && Math.abs(sa[l]) < 10,
          `${loss}, query ${c}, label ${l}: l2Normalize ${sa[l]}, scaled rows ${sb[l]}`,
        );
      }
    }
  }
});

Deno.test("br sgd: unit batches are measured only above the default rate (its steps unchanged at 0.5)", () => {
  // at the default rate 0.5 the squared hinge with a bias is exactly at the trigger (lr·c·2 = 2)
  assert(!unitRowsNeedCap(0.5, "squared-hinge", true, 1e-4), "default");
  assert(!unitRowsNeedCap(0.5, "logistic", true, 1e-4), "default logistic");
  assert(unitRowsNeedCap(2, "squared-hinge", true, 1e-4), "lr 2");
  assert(unitRowsNeedCap(1.5, "squared-hinge", false, 1e-4), "lr 1.5 without a bias");
  assert(unitRowsNeedCap(5, "logistic", true, 1e-4), "logistic lr 5");
  // λ is part of the bound: a large λ at the default rate overshot on its own
  assert(unitRowsNeedCap(0.5, "squared-hinge", true, 100), "lambda 100");
  for (const lambda of [100, 1e6]) {
    const m = new BrEstimator({ optimizer: "sgd", lambda });
    for (let i = 0; i < 200; i++) m.learnMany(toyBatch(i, 0.4, false, 8));
    const a = toyMaxAbsScore(m, 0.4);
    assert(
      a <= 1 && nonFiniteTensors(m.toState()).length === 0,
      `lambda ${lambda}: a score of ${a}`,
    );
  }
});
