// kNN top-k ranks by the float32 scores it returns: labels whose vote shares differ by less
// than a float32 step of share − threshold tie, and ties go to the smaller label (as the ranking
// of predictScores does).
import { KnnEstimator } from "../../../src/models/knn/mod.ts";
import { topKDense } from "../../../sdk/internal.ts";
import { mulberry32 } from "../../mulberry32.ts";
import { assert } from "../../helpers.ts";

/** 20 stored rows at nearly the same angle, row i carrying label 19 − i alone. */
function nearTies(seed: number, threshold: number): KnnEstimator {
  const rand = mulberry32(seed), m = new KnnEstimator({ k: 20, threshold });
  const base = rand();
  for (let i = 0; i < 20; i++) {
    const a = base + 3e-7 * rand();
    m.learnOne(
      { indices: Int32Array.of(0, 1), values: Float32Array.of(Math.cos(a), Math.sin(a)) },
      [19 - i],
    );
  }
  return m;
}

Deno.test("knn predictTopK: equal float32 scores are listed by increasing label, as the dense ranking", () => {
  const x = { indices: Int32Array.of(0, 1), values: Float32Array.of(1, 0.3) };
  for (const threshold of [0.5, 0.25, 0, 1]) {
    for (let seed = 1; seed <= 20; seed++) {
      const m = nearTies(seed, threshold);
      for (const k of [3, 20, 25]) {
        const top = m.predictTopK(x, k), dense = topKDense(m.predictScores(x), k);
        for (let i = 1; i < top.labels.length; i++) {
          const s0 = top.scores[i - 1], s1 = top.scores[i];
          assert(
            s0 > s1 || (s0 === s1 && top.labels[i - 1] < top.labels[i]),
            `threshold ${threshold}, seed ${seed}, k ${k}: label ${top.labels[i]} (${s1}) after ` +
              `${top.labels[i - 1]} (${s0})`,
          );
        }
        assert(
          String(top.labels) === String(dense.labels) &&
            String(top.scores) === String(dense.scores),
          `threshold ${threshold}, seed ${seed}, k ${k}: ${top.labels} against ${dense.labels}`,
        );
      }
    }
  }
});
