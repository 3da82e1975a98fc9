// The streaming BR estimator's updates, checked against hand-derived first steps, plus partial
// observation masks, DCD → estimator hand-over and configuration errors.
import { BrEstimator, trainBr } from "../../../src/models/br/mod.ts";
import type { Batch } from "../../../src/data/types.ts";
import { makeBatch, plantedData } from "../estimator_checks.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert } from "../../helpers.ts";

// 3 rows, 3 features, 2 labels
const BATCH: Batch = {
  x: {
    numRows: 3,
    numCols: 3,
    indptr: Int32Array.of(0, 2, 3, 5),
    indices: Int32Array.of(0, 1, 1, 0, 2),
    values: Float32Array.of(1, 2, -1, 0.5, 3),
  },
  y: { numRows: 3, numCols: 2, indptr: Int32Array.of(0, 1, 3, 3), indices: Int32Array.of(0, 0, 1) },
};

/** ±1 label matrix of BATCH: sign[i][l]. */
const SIGN = [[1, -1], [1, 1], [-1, -1]];

/** Σ_i x_ij · f(sign_il) / n for feature j and label l. */
function avgDot(j: number, l: number, f: (s: number) => number): number {
  let s = 0;
  for (let i = 0; i < 3; i++) {
    for (let p = BATCH.x.indptr[i]; p < BATCH.x.indptr[i + 1]; p++) {
      if (BATCH.x.indices[p] === j) s += BATCH.x.values[p] * f(SIGN[i][l]);
    }
  }
  return s / 3;
}

Deno.test("first SGD step from zero is −η·∇ of the mean loss (squared hinge and logistic)", () => {
  for (const loss of ["squared-hinge", "logistic"] as const) {
    const eta = 0.3;
    const m = new BrEstimator({
      numFeatures: 3,
      numLabels: 2,
      optimizer: "sgd",
      loss,
      learningRate: eta,
      lambda: 0.1,
    });
    m.learnMany(BATCH);
    // at w = 0 (z = 0): squared hinge ∂/∂z = −2y, logistic ∂/∂z = −y/2; λw = 0
    const dz = loss === "logistic" ? (s: number) => -s / 2 : (s: number) => -2 * s;
    const w = m.toLabelWeights();
    const dense = new Float64Array(6);
    for (let l = 0; l < 2; l++) {
      for (let p = w.labelPtr[l]; p < w.labelPtr[l + 1]; p++) {
        dense[w.featIdx[p] * 2 + l] = w.values[p];
      }
    }
    for (let j = 0; j < 3; j++) {
      for (let l = 0; l < 2; l++) {
        const want = -eta * avgDot(j, l, dz);
        assert(
          Math.abs(dense[j * 2 + l] - want) < 1e-6,
          `${loss} w[${j},${l}] ${dense[j * 2 + l]} vs ${want}`,
        );
      }
    }
    for (let l = 0; l < 2; l++) {
      const want = -eta * (dz(SIGN[0][l]) + dz(SIGN[1][l]) + dz(SIGN[2][l])) / 3;
      assert(Math.abs(w.bias![l] - want) < 1e-6, `${loss} bias ${l}: ${w.bias![l]} vs ${want}`);
    }
  }
});

Deno.test("first Adam step moves every touched weight by the learning rate against its gradient", () => {
  const lr = 0.05;
  const m = new BrEstimator({ numFeatures: 4, numLabels: 2, learningRate: lr });
  m.learnMany({ ...BATCH, x: { ...BATCH.x, numCols: 4 } });
  const s = m.toState();
  const w = s.tensors.w as Float32Array; // [D, L] row-major
  for (let j = 0; j < 3; j++) {
    for (let l = 0; l < 2; l++) {
      const g = avgDot(j, l, (y) => -2 * y);
      const want = g === 0 ? 0 : -lr * Math.sign(g);
      assert(Math.abs(w[j * 2 + l] - want) < 1e-6, `w[${j},${l}] ${w[j * 2 + l]} vs ${want}`);
    }
  }
  // feature 3 never appeared: untouched (lazy updates)
  assert(w[6] === 0 && w[7] === 0, "an absent feature's weights moved");
  assert(s.scalars.step === 1, `step ${s.scalars.step}`);
});

Deno.test("partially observed rows only learn from their observed labels", () => {
  // row 0 observes label 0 only; rows 1-2 are fully observed
  const observed = {
    numRows: 3,
    numCols: 2,
    indptr: Int32Array.of(0, 1, 1, 1),
    indices: Int32Array.of(0),
  };
  const fullyObserved = Uint8Array.of(0, 1, 1);
  const a = new BrEstimator({
    numFeatures: 3,
    numLabels: 2,
    optimizer: "sgd",
    // below the raw-row step cap of either label (lr·β ≤ 2: 1.28 and 1.69 here), so the step is
    // the plain −lr·∇ (at rate 1 label 1's step would overshoot and be cut)
    learningRate: 0.3,
    lambda: 0,
  });
  a.learnMany({ ...BATCH, observed, fullyObserved });
  const w = a.toState().tensors.w as Float32Array;
  // feature 2 only occurs in row 2: both labels learn from it (observed); feature 1 in rows 0,1;
  // label 1's gradient on feature 1 must skip row 0 (unobserved negative)
  const g11 = (-2 * SIGN[1][1] * -1) / 3; // row 1 only: x = −1
  assert(Math.abs(w[1 * 2 + 1] - -0.3 * g11) < 1e-6, `w[1,1] ${w[3]} vs ${-0.3 * g11}`);
  const g10 = (-2 * 1 * 2 + -2 * 1 * -1) / 3; // rows 0 and 1, label 0 observed in both
  assert(Math.abs(w[1 * 2 + 0] - -0.3 * g10) < 1e-6, `w[1,0] ${w[2]} vs ${-0.3 * g10}`);
});

Deno.test("trainBr: an L2-normalising DCD model fits the planted data; the SDK agrees", () => {
  const data = plantedData(200, 5, 3);
  const b = makeBatch(data.rows, data.numFeatures, data.numLabels);
  const m = trainBr(b.x, b.y, { C: 1 }, { l2Normalize: true });
  const w = m.toLabelWeights();
  assert(w.bias !== undefined && w.labelPtr[5] > 0, "weights and bias");
  // L2-normalised prediction: a row scaled by 7 scores exactly like the row itself
  const r = data.rows[0].x;
  const s1 = m.predictScores(r);
  const s7 = m.predictScores({ indices: r.indices, values: r.values.map((v) => 7 * v) });
  for (let l = 0; l < 5; l++) assert(Math.abs(s1[l] - s7[l]) < 1e-5, `label ${l} not scale-free`);
  let p1 = 0;
  for (const row of data.rows) {
    if (row.labels.includes(m.predictTopK(row.x, 1).labels[0])) p1++;
  }
  assert(p1 / data.rows.length > 0.8, `training P@1 ${p1 / data.rows.length}`);
  // the file records l2Normalize, so the SDK scores raw rows like the trainer
  const sdk = loadModel(m.toModelFile());
  for (const row of data.rows.slice(0, 20)) {
    const x = { indices: row.x.indices, values: row.x.values.map((v) => 3 * v) };
    const a = sdk.predictTopK(x, 3), b = m.predictTopK(x, 3);
    for (let i = 0; i < 3; i++) {
      assert(a.labels[i] === b.labels[i], `SDK top-3 ${[...a.labels]} vs ${[...b.labels]}`);
      assert(
        Math.abs(a.scores[i] - b.scores[i]) < 1e-5,
        `SDK score ${a.scores[i]} vs ${b.scores[i]}`,
      );
    }
  }
});

Deno.test("invalid BR configurations are rejected naming the option", () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ loss: "hinge" }, /loss must be/],
    [{ optimizer: "lbfgs" }, /optimizer must be/],
    [{ learningRate: 0 }, /learningRate must be a finite number in \(0, 1000000\], got 0/],
    [{ lambda: -1 }, /lambda must be a finite number in \[0, 1000000\], got -1/],
    [{ numFeatures: 1.5 }, /numFeatures must be an integer in \[0, \d+\], got 1.5/],
    [{ learningrate: 0.1 }, /br: unknown option "learningrate" \(known: loss, optimizer, /],
  ];
  for (const [opts, re] of cases) {
    let msg = "";
    try {
      new BrEstimator(opts as never);
    } catch (e) {
      msg = e instanceof TypeError || e instanceof RangeError ? e.message : `other ${e}`;
    }
    assert(re.test(msg), `${JSON.stringify(opts)}: got "${msg}"`);
  }
  const m = new BrEstimator({ numFeatures: 2, numLabels: 1 });
  let msg = "";
  try {
    m.learnMany({ ...BATCH, y: { ...BATCH.y, numRows: 2 } });
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(/x has 3 rows but y has 2/.test(msg), `got "${msg}"`);
});

Deno.test("toReplicaState: weights and biases only; the restored replica scores exactly like the model and stays put", () => {
  const data = plantedData(120, 6, 3);
  const m = new BrEstimator({ seed: 2 });
  m.learnMany(makeBatch(data.rows, data.numFeatures, data.numLabels));
  const state = m.toReplicaState();
  assert(Object.keys(state.tensors).join() === "w,b", Object.keys(state.tensors).join());
  const r = BrEstimator.restore(state);
  for (const row of data.rows.slice(0, 20)) {
    assert(r.predictScores(row.x).join() === m.predictScores(row.x).join(), "scores differ");
  }
  const before = r.predictScores(data.rows[0].x).join();
  m.learnMany(makeBatch(data.rows, data.numFeatures, data.numLabels));
  assert(r.predictScores(data.rows[0].x).join() === before, "the replica moved with the model");
  assert(m.predictScores(data.rows[0].x).join() !== before, "the model did not learn");
});
