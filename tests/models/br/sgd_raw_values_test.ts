// BR with SGD on raw (not L2-normalised) rows: a fixed rate overshot once ‖x‖² was large (each
// label's curvature along its step grows with ‖x‖²): scores ran to about 1e7 on raw term counts
// and to 1e19 on binary rows, silently. Each label's step is now capped where it would raise its
// batch loss (src/models/br/step_cap.ts); unit rows are stepped exactly as before.
import { BrEstimator } from "../../../src/models/br/estimator.ts";
import type { Batch, SparseVector } from "../../../src/data/types.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert, csrBatch } from "../../helpers.ts";
import { nonFiniteTensors, TOY_FEATURES, TOY_LABELS, toyBatch, toyQuery } from "../extreme_rows.ts";

type Loss = "squared-hinge" | "logistic";
const LOSSES: Loss[] = ["squared-hinge", "logistic"];

const rowOf = (b: Batch, i: number): SparseVector => {
  const p0 = b.x.indptr[i], p1 = b.x.indptr[i + 1];
  return { indices: b.x.indices.subarray(p0, p1), values: b.x.values.subarray(p0, p1) };
};

function lossOf(loss: Loss, s: number, positive: boolean): number {
  const z = positive ? s : -s;
  if (loss === "logistic") return z > 0 ? Math.log1p(Math.exp(-z)) : -z + Math.log1p(Math.exp(z));
  return z < 1 ? (1 - z) * (1 - z) : 0;
}

/**
 * A stream shaped like term counts: the rows of label c count its two own words (2 to 9 times)
 * and four words shared by every label (1 to 6 times), so ‖x‖² is about 100 and the labels'
 * models overlap in the shared words.
 */
const WORDS = 2 * TOY_LABELS + 4;
function countBatch(seed: number, rows = 16): Batch {
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (let i = 0; i < rows; i++) {
    const c = (i * 5 + seed * 3) % TOY_LABELS, h = i * 7 + seed * 11;
    const words = [2 * c, 2 * c + 1, 2 * TOY_LABELS, 2 * TOY_LABELS + 1, 2 * TOY_LABELS + 2];
    words.push(2 * TOY_LABELS + 3);
    words.sort((a, b) => a - b);
    for (const j of words) {
      xi.push(j);
      xv.push(j < 2 * TOY_LABELS ? 2 + (h + j) % 8 : 1 + (h + 3 * j) % 6);
    }
    xp.push(xi.length);
    yi.push(c);
    yp.push(yi.length);
  }
  return csrBatch(WORDS, TOY_LABELS, xp, xi, xv, yp, yi);
}

Deno.test("br sgd: one step on a raw row stops at the minimum along it (squared hinge: the margin), not 100 times past it", () => {
  // from zero, the step on x (‖x‖² = 100) with the bias moves every score by lr·2·(‖x‖² + 1) = 101
  // at the fixed rate; the squared hinge's minimum along the step is the margin, ±1
  const m = new BrEstimator({ optimizer: "sgd", numFeatures: 4, numLabels: 2 });
  const x = { indices: Int32Array.of(0, 1, 2, 3), values: Float32Array.of(5, 5, 5, 5) };
  m.learnOne(x, [0]);
  const s = m.predictScores(x);
  assert(Math.abs(s[0] - 1) < 1e-5 && Math.abs(s[1] + 1) < 1e-5, `scores ${[...s]}`);
  // logistic: at the minimum of the loss's quadratic bound along the step (c = ¼): ℓ'(0)/c = 2,
  // where the fixed rate moved the scores by lr·½·(‖x‖² + 1) = 25.25
  const g = new BrEstimator({ optimizer: "sgd", loss: "logistic", numFeatures: 4, numLabels: 2 });
  g.learnOne(x, [0]);
  const t = g.predictScores(x);
  assert(Math.abs(t[0] - 2) < 1e-5 && Math.abs(t[1] + 2) < 1e-5, `logistic scores ${[...t]}`);
});

Deno.test("br sgd: on a fixed batch of raw rows every step lowers each label's regularised batch loss (both losses, magnitudes 3 to 1e9)", () => {
  for (const loss of LOSSES) {
    for (const magnitude of [3, 1e2, 1e5, 1e9]) {
      const what = `${loss} at ${magnitude}`;
      const lambda = 1e-4;
      const m = new BrEstimator({
        optimizer: "sgd",
        loss,
        numFeatures: TOY_FEATURES,
        numLabels: TOY_LABELS,
      });
      // overlapping rows: every row also carries feature 0 (the batch touches every feature)
      const toy = toyBatch(0, magnitude, false, 12);
      const xp = [0], xi: number[] = [], xv: number[] = [];
      for (let i = 0; i < 12; i++) {
        const r = rowOf(toy, i);
        if (r.indices[0] !== 0) {
          xi.push(0);
          xv.push(magnitude / 2);
        }
        for (let p = 0; p < r.indices.length; p++) {
          xi.push(r.indices[p]);
          xv.push(r.values[p]);
        }
        xp.push(xi.length);
      }
      const batch: Batch = {
        x: {
          ...toy.x,
          indptr: Int32Array.from(xp),
          indices: Int32Array.from(xi),
          values: Float32Array.from(xv),
        },
        y: toy.y,
      };
      const objectives = () => {
        const out = new Float64Array(TOY_LABELS);
        for (let i = 0; i < 12; i++) {
          const s = m.predictScores(rowOf(batch, i));
          for (let l = 0; l < TOY_LABELS; l++) {
            out[l] += lossOf(loss, s[l], batch.y.indices[i] === l) / 12;
          }
        }
        const lw = m.toLabelWeights();
        for (let l = 0; l < TOY_LABELS; l++) {
          for (let p = lw.labelPtr[l]; p < lw.labelPtr[l + 1]; p++) {
            out[l] += lambda / 2 * lw.values[p] * lw.values[p];
          }
        }
        return out;
      };
      let prev = objectives();
      for (let t = 0; t < 25; t++) {
        m.learnMany(batch);
        const now = objectives();
        for (let l = 0; l < TOY_LABELS; l++) {
          assert(
            now[l] <= prev[l] * (1 + 1e-5) + 1e-9,
            `${what}: step ${t} raised label ${l}'s loss ${prev[l]} -> ${now[l]}`,
          );
        }
        prev = now;
      }
      assert(nonFiniteTensors(m.toState()).length === 0, `${what}: non-finite state`);
    }
  }
});

Deno.test("br sgd: raw counts with shared words rank the true label first with scores at unit scale (both losses, batches and single rows, the SDK)", () => {
  for (const loss of LOSSES) {
    for (const single of [false, true]) {
      const what = `${loss}${single ? " one row at a time" : ""}`;
      const m = new BrEstimator({ optimizer: "sgd", loss });
      for (let b = 0; b < 40; b++) {
        const batch = countBatch(b);
        if (!single) m.learnMany(batch);
        else {
          for (let i = 0; i < batch.x.numRows; i++) {
            m.learnOne(rowOf(batch, i), [batch.y.indices[i]]);
          }
        }
      }
      const edge = loadModel(m.toModelFile());
      const test = countBatch(99, 24);
      let misses = 0, maxAbs = 0;
      for (let i = 0; i < test.x.numRows; i++) {
        const top = m.predictTopK(rowOf(test, i), TOY_LABELS);
        if (top.labels[0] !== test.y.indices[i]) misses++;
        for (const s of top.scores) maxAbs = Math.max(maxAbs, Math.abs(s));
        assert(edge.predictTopK(rowOf(test, i), 1).labels[0] === top.labels[0], `${what}: SDK`);
      }
      assert(misses === 0, `${what}: ${misses} of 24 rows rank a wrong label first`);
      assert(maxAbs < 20, `${what}: scores up to ${maxAbs}`);
    }
  }
});

Deno.test("br sgd: the toy stream at magnitudes 30 to 5e14 keeps scores at unit scale and the true label first (both losses, ± values)", () => {
  for (const loss of LOSSES) {
    for (const magnitude of [30, 1e4, 1e9, 5e14]) {
      for (const mixed of [false, true]) {
        const what = `${loss} at ${mixed ? "±" : ""}${magnitude}`;
        const m = new BrEstimator({ optimizer: "sgd", loss, ...{ numFeatures: TOY_FEATURES } });
        for (let b = 0; b < 20; b++) m.learnMany(toyBatch(b, magnitude, mixed));
        assert(nonFiniteTensors(m.toState()).length === 0, `${what}: non-finite state`);
        for (let c = 0; c < TOY_LABELS; c++) {
          const top = m.predictTopK(toyQuery(c, magnitude, mixed), TOY_LABELS);
          assert(top.labels[0] === c, `${what}: label ${c} ranked ${[...top.labels]}`);
          for (const s of top.scores) {
            assert(Math.abs(s) < 20, `${what}: label ${c} scores ${[...top.scores]}`);
          }
        }
      }
    }
  }
});

Deno.test("br sgd: labels stay independent under the cap (a label's model is the one learned alone; also true of the old code)", () => {
  // each label is capped by its own curvature: a rate shared by the batch would couple them
  const joint = new BrEstimator({ optimizer: "sgd" });
  const alone = Array.from({ length: TOY_LABELS }, () => new BrEstimator({ optimizer: "sgd" }));
  for (let b = 0; b < 10; b++) {
    const batch = countBatch(b);
    joint.learnMany(batch);
    alone.forEach((m, c) => {
      const yi = [0];
      const pos: number[] = [];
      for (let i = 0; i < batch.x.numRows; i++) {
        if (batch.y.indices[i] === c) pos.push(0);
        yi.push(pos.length);
      }
      m.learnMany({
        x: batch.x,
        y: {
          numRows: batch.x.numRows,
          numCols: 1,
          indptr: Int32Array.from(yi),
          indices: Int32Array.from(pos),
        },
      });
    });
  }
  const test = countBatch(7);
  for (let i = 0; i < test.x.numRows; i++) {
    const s = joint.predictScores(rowOf(test, i));
    alone.forEach((m, c) => {
      const t = m.predictScores(rowOf(test, i));
      assert(Object.is(s[c], t[0]), `row ${i} label ${c}: joint ${s[c]}, alone ${t[0]}`);
    });
  }
});

/** The SGD step of the code before the cap, in the same order of operations (a reference). */
function referenceSgd(
  batches: Batch[],
  loss: Loss,
  d: number,
  L: number,
  lr: number,
  lambda: number,
) {
  const w = new Float32Array(d * L), b = new Float32Array(L);
  for (const batch of batches) {
    const n = batch.x.numRows, grad = new Float64Array(d * L), gb = new Float64Array(L);
    const touched = new Set<number>();
    for (let i = 0; i < n; i++) {
      const s = new Float64Array(L);
      for (let l = 0; l < L; l++) s[l] = b[l];
      for (let p = batch.x.indptr[i]; p < batch.x.indptr[i + 1]; p++) {
        const j = batch.x.indices[p], v = batch.x.values[p];
        for (let l = 0; l < L; l++) s[l] += v * w[j * L + l];
      }
      const pos = new Set(batch.y.indices.subarray(batch.y.indptr[i], batch.y.indptr[i + 1]));
      const deriv = new Float64Array(L);
      for (let l = 0; l < L; l++) {
        const yl = pos.has(l) ? 1 : -1, z = yl * s[l];
        let g = loss === "logistic" ? -yl / (1 + Math.exp(z)) : z < 1 ? -2 * yl * (1 - z) : 0;
        g *= 1 / n;
        deriv[l] = g;
        gb[l] += g;
      }
      for (let p = batch.x.indptr[i]; p < batch.x.indptr[i + 1]; p++) {
        const j = batch.x.indices[p], v = batch.x.values[p];
        touched.add(j);
        for (let l = 0; l < L; l++) grad[j * L + l] += v * deriv[l];
      }
    }
    for (const j of touched) {
      for (let l = 0; l < L; l++) w[j * L + l] -= lr * (grad[j * L + l] + lambda * w[j * L + l]);
    }
    for (let l = 0; l < L; l++) b[l] -= lr * gb[l];
  }
  return { w, b };
}

Deno.test("br sgd: rows of unit norm are stepped exactly as before the cap, bit for bit (also true of the old code)", () => {
  // unit rows as float32 stores them (squared norms within about 1e-7 of 1), and shorter ones
  const unit = (batch: Batch, shrink: boolean): Batch => {
    const values = new Float32Array(batch.x.values.length);
    for (let i = 0; i < batch.x.numRows; i++) {
      let ss = 0;
      for (let p = batch.x.indptr[i]; p < batch.x.indptr[i + 1]; p++) ss += batch.x.values[p] ** 2;
      const f = (shrink && i % 2 === 1 ? 0.5 : 1) / Math.sqrt(ss);
      for (let p = batch.x.indptr[i]; p < batch.x.indptr[i + 1]; p++) {
        values[p] = batch.x.values[p] * f;
      }
    }
    return { ...batch, x: { ...batch.x, values } };
  };
  for (const loss of LOSSES) {
    for (const shrink of [false, true]) {
      const batches = Array.from({ length: 30 }, (_, b) => unit(countBatch(b), shrink));
      const m = new BrEstimator({
        optimizer: "sgd",
        loss,
        numFeatures: WORDS,
        numLabels: TOY_LABELS,
      });
      for (const batch of batches) m.learnMany(batch);
      const ref = referenceSgd(batches, loss, WORDS, TOY_LABELS, 0.5, 1e-4);
      const st = m.toState();
      const same = (a: Float32Array, b: Float32Array) =>
        a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
      assert(same(st.tensors.w as Float32Array, ref.w), `${loss} ${shrink}: weights differ`);
      assert(same(st.tensors.b as Float32Array, ref.b), `${loss} ${shrink}: biases differ`);
    }
  }
});
