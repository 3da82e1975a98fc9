/**
 * `predictTopK` sorts its candidates best first (decreasing score, ties by the smaller label) by
 * a heapsort of the candidate heap: for every k, including k = numLabels and past it, with
 * many tied scores (labels never seen, labels with the same bias), it equals the top k of every
 * label's score (`exact: true`). (It was an insertion sort: a top 60,000 took 5.8 s, quadratic.)
 */
import { OvaEstimator } from "../../../src/models/ova/mod.ts";
import { learn, syntheticRows as rows } from "./helpers.ts";
import { assertEquals } from "../../helpers.ts";

const x = (...js: number[]) => ({
  indices: Int32Array.from(js),
  values: new Float32Array(js.length).fill(1),
});

Deno.test("ova.predictTopK: every k, ties and all, equals the exact top k", () => {
  // 60 labels, of which 20 never seen (tied at the unseen bias) and 20 seen once each (tied
  // biases where their first steps are alike)
  const m = new OvaEstimator({ seed: 2, numLabels: 60, numFeatures: 12, hardNegatives: 0 });
  for (let l = 0; l < 20; l++) m.learnOne(x(l % 4), [l]);
  for (let l = 20; l < 40; l++) m.learnOne(x(11), [l]);
  const queries = [x(0), x(1, 2), x(11), x(5), x(0, 1, 2, 3, 11)];
  for (const q of queries) {
    for (const k of [0, 1, 2, 7, 19, 20, 21, 39, 40, 41, 59, 60, 61, 1000]) {
      const a = m.predictTopK(q, k), b = m.predictTopK(q, k, { exact: true });
      assertEquals([...a.labels], [...b.labels], `k ${k}, row ${[...q.indices]}`);
      assertEquals([...a.scores], [...b.scores], `k ${k}, row ${[...q.indices]}`);
    }
  }
});

Deno.test("ova.predictTopK: a top k of every label of a learned model is the exact ranking", () => {
  const m = new OvaEstimator({ seed: 3 });
  learn(m, rows(400, 300, 500, 8));
  for (const e of rows(5, 300, 500, 9)) {
    const a = m.predictTopK(e.x, m.numLabels), b = m.predictTopK(e.x, m.numLabels, { exact: true });
    assertEquals(a.labels.length, m.numLabels);
    assertEquals([...a.labels], [...b.labels]);
    assertEquals([...a.scores], [...b.scores]);
  }
});
