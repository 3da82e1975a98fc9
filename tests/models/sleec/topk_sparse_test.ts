/**
 * SLEEC's KnnPredictor.topK answers from the labels the votes reach (every other label scores
 * 0): the same answer as the top k of all its scores, call after call (the previous row's votes
 * must not leak into the next).
 */
import { assertEquals } from "../../helpers.ts";
import { KnnPredictor } from "../../../src/models/sleec/predictor.ts";
import { topKDense } from "../../../sdk/internal.ts";

function model(L: number, seed: number) {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const D = 6, r = 3, P = 7, clusters = [];
  for (let t = 0; t < 2; t++) {
    for (let c = 0; c < 2; c++) {
      clusters.push({
        learner: t,
        centroid: Float32Array.from({ length: D }, rnd),
        v: Float32Array.from({ length: D * r }, () => rnd() - 0.5),
        numPoints: P,
        points: Float32Array.from({ length: P * r }, () => rnd() - 0.5),
        // labels at and past L are ignored; few distinct labels make ties
        labels: Array.from({ length: P }, (_, p) => Int32Array.of(p % 3, 3 + (p % 2), L + 1)),
      });
    }
  }
  const rows = Array.from({ length: 12 }, (_, i) => {
    const idx = Int32Array.of(i % D, D - 1 === i % D ? D + 2 : (i % D) + 1);
    return [idx, Float32Array.of(rnd() - 0.5, rnd() - 0.5)] as const;
  });
  return {
    m: {
      numFeatures: D,
      numLabels: L,
      rank: r,
      numLearners: 3,
      k: 3,
      weighted: seed % 2 === 0,
      clusters,
    },
    rows,
  };
}

Deno.test("KnnPredictor.topK equals the top k of every label's score, row after row", () => {
  for (const L of [5, 8, 40]) {
    for (const seed of [1, 2, 3]) {
      const { m, rows } = model(L, seed);
      const p = new KnnPredictor(m), ref = new KnnPredictor(m);
      for (const [i, v] of rows) {
        for (const k of [0, 1, 3, 6, L + 4]) {
          const want = topKDense(ref.scores(i, v), k), got = p.topK(i, v, k);
          assertEquals([...got.labels], [...want.labels], `L ${L} seed ${seed} k ${k}`);
          assertEquals([...got.scores], [...want.scores], `L ${L} seed ${seed} k ${k}`);
        }
        // scores after a topK (and the other way round) see only this row's votes
        assertEquals([...p.scores(i, v)], [...ref.scores(i, v)]);
      }
      // an empty row casts no vote: every label scores 0, the smallest labels first
      const none = p.topK(new Int32Array(0), new Float32Array(0), 3);
      assertEquals([...none.labels], [0, 1, 2].slice(0, Math.min(3, L)));
      assertEquals([...none.scores], [0, 0, 0]);
    }
  }
});
