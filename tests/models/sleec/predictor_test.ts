import { type KnnModel, KnnPredictor } from "../../../src/models/sleec/predictor.ts";
import { assert } from "../../helpers.ts";

/**
 * Two learners over 2 features, 3 labels, rank 2.
 * Learner 0: cluster A (centroid e1, V = I, points e1 [0], (0.6, 0.8) [1], e2 [2]) and cluster B
 * (centroid e2, one point [2]). Learner 1: one cluster (centroid e2, V swaps the coordinates,
 * points e1 [2] and e2 [0, 1]).
 */
function model(weighted: boolean): KnnModel {
  return {
    numFeatures: 2,
    numLabels: 3,
    rank: 2,
    numLearners: 2,
    k: 2,
    weighted,
    clusters: [
      {
        learner: 0,
        centroid: Float32Array.of(1, 0),
        v: Float32Array.of(1, 0, 0, 1),
        numPoints: 3,
        points: Float32Array.of(1, 0, 0.6, 0.8, 0, 1),
        labels: [Int32Array.of(0), Int32Array.of(1), Int32Array.of(2)],
      },
      {
        learner: 0,
        centroid: Float32Array.of(0, 1),
        v: Float32Array.of(1, 0, 0, 1),
        numPoints: 1,
        points: Float32Array.of(0, 1),
        labels: [Int32Array.of(2)],
      },
      {
        learner: 1,
        centroid: Float32Array.of(0, 1),
        v: Float32Array.of(0, 1, 1, 0),
        numPoints: 2,
        points: Float32Array.of(1, 0, 0, 1),
        labels: [Int32Array.of(2), Int32Array.of(0, 1)],
      },
    ],
  };
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-6;

Deno.test("predictor: hand-computed weighted scores (nearest cluster, kNN, similarity weights, learner average)", () => {
  const p = new KnnPredictor(model(true));
  // x = (3, 1): learner 0 → cluster A, sims 3/√10, 2.6/√10, 1/√10 → neighbours e1, (0.6, 0.8)
  // with weights 3/5.6, 2.6/5.6; learner 1: z = (1, 3)/√10 → weights 1/4, 3/4.
  const s = p.scores(Int32Array.of(0, 1), Float32Array.of(3, 1));
  const want = [(3 / 5.6 + 0.75) / 2, (2.6 / 5.6 + 0.75) / 2, 0.25 / 2];
  want.forEach((w, l) => assert(close(s[l], w), `label ${l}: ${s[l]} vs ${w}`));
  const top = p.topK(Int32Array.of(0, 1), Float32Array.of(3, 1), 3);
  assert(top.labels.join() === "0,1,2", `order ${top.labels}`);
  assert(top.scores.every((v, i) => v === Math.fround(want[i])), `scores ${top.scores}`);
});

Deno.test("predictor: uniform weights, ties by label index, scale invariance, unknown features", () => {
  const p = new KnnPredictor(model(false));
  const s = p.scores(Int32Array.of(0, 1), Float32Array.of(3, 1));
  assert(close(s[0], 0.5) && close(s[1], 0.5) && close(s[2], 0.25), `scores ${s}`);
  assert(p.topK(Int32Array.of(0, 1), Float32Array.of(3, 1), 2).labels.join() === "0,1", "tie");
  const scaled = p.scores(Int32Array.of(0, 1), Float32Array.of(30, 10));
  assert(scaled.every((v, l) => close(v, s[l])), "row scale changed the scores");
  const withUnknown = p.scores(Int32Array.of(0, 1, 9), Float32Array.of(3, 1, 100));
  assert(withUnknown.every((v, l) => close(v, s[l])), "an unknown feature changed the scores");
});

Deno.test("predictor: a row unlike every point falls back to uniform weights over its nearest points", () => {
  const p = new KnnPredictor(model(true));
  // x = (-1, 0): learner 0 takes cluster B (centroid dot 0 against −1), its one point at sim 0;
  // learner 1: z = (0, −1), sims 0 (point 0) and −1 (point 1): no positive weight, so ½ each
  const s = p.scores(Int32Array.of(0), Float32Array.of(-1));
  const want = [0.5 / 2, 0.5 / 2, (1 + 0.5) / 2];
  want.forEach((w, l) => assert(close(s[l], w), `label ${l}: ${s[l]} vs ${w}`));
});

Deno.test("predictor: a row with no known feature has no neighbours and scores 0 everywhere", () => {
  const p = new KnnPredictor(model(true));
  // z = 0 is as near every point as any other: no point may vote (the first stored ones did)
  for (const [idx, val] of [[[], []], [[7], [2]]] as const) {
    const s = p.scores(Int32Array.from(idx), Float32Array.from(val));
    assert(s.every((v) => v === 0), `scores ${s} for ${idx}`);
    for (let t = 0; t < 2; t++) {
      const n = p.nearest(Int32Array.from(idx), Float32Array.from(val), t);
      assert(n.cluster >= 0 && n.points.length === 0, `learner ${t}: ${JSON.stringify(n)}`);
    }
  }
  // a feature V maps to 0 embeds at 0 as well: V of cluster A with a zero row for feature 1
  const m = model(false);
  const zeroFeature1 = Float32Array.of(1, 0, 0, 0);
  const clusters = m.clusters.map((c) => c.learner === 0 ? { ...c, v: zeroFeature1 } : c);
  const q = new KnnPredictor({ ...m, clusters }).scores(Int32Array.of(1), Float32Array.of(1));
  // learner 0 casts no vote; learner 1 (V swaps) has z = e1: nearest points 0 then 1, ½ each
  const want = [0.5 / 2, 0.5 / 2, 0.5 / 2];
  want.forEach((w, l) => assert(close(q[l], w), `label ${l}: ${q[l]} vs ${w}`));
});

Deno.test("predictor: k larger than a cluster uses all its points; a learner without clusters adds 0", () => {
  const m = model(true);
  const p = new KnnPredictor({ ...m, k: 10, numLearners: 3 });
  const s = p.scores(Int32Array.of(1), Float32Array.of(1));
  // learner 0 → cluster B (one point, label 2); learner 1: z = e1 → sims 1, 0 → label 2 only
  assert(close(s[2], 2 / 3) && s[0] === 0 && s[1] === 0, `scores ${s}`);
  let msg = "";
  try {
    new KnnPredictor({ ...m, k: 0 });
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("k must be a positive integer"), msg);
});
