/**
 * Every row gets the same popularity top k, so `predictTopK` scores the L labels once per
 * change of the counts, not once per query (that was O(L) a query: 29 ms at 2^21 labels), and
 * its answers stay those of all L scores as the model learns on, for every k.
 */
import { PopularityEstimator } from "../../../src/models/popularity/mod.ts";
import { topKDense } from "../../../sdk/internal.ts";
import { assertEquals } from "../../helpers.ts";

const row = (j: number) => ({ indices: Int32Array.of(j), values: Float32Array.of(1) });

/** Counts its calls of the O(L) scoring. */
class Counted extends PopularityEstimator {
  scored = 0;
  override predictScores(
    x: Parameters<PopularityEstimator["predictScores"]>[0],
    out?: Float32Array,
  ) {
    this.scored++;
    return super.predictScores(x, out);
  }
}

Deno.test("popularity.predictTopK scores the labels once per change of the counts, not per query", () => {
  const m = new Counted({ numLabels: 50 });
  for (let i = 0; i < 30; i++) m.learnOne(row(i), [i % 7, (3 * i) % 11]);
  for (let q = 0; q < 20; q++) m.predictTopK(row(q), 5);
  for (let q = 0; q < 20; q++) m.predictTopK(row(q), 2); // a smaller k: the first 2
  assertEquals(m.scored, 1);
  m.learnOne(row(0), [40]);
  m.predictTopK(row(1), 5);
  m.predictTopK(row(2), 5);
  assertEquals(m.scored, 2);
});

Deno.test("popularity.predictTopK answers like the top k of every score as it learns on", () => {
  const m = new PopularityEstimator();
  const x = row(0);
  for (let i = 0; i < 40; i++) {
    m.learnOne(row(i), [i % 5, (i * i) % 13, 20 + (i % 3)]);
    for (const k of [0, 1, 3, 3, 8, 2, 30, 100, 5]) {
      const a = m.predictTopK(x, k), b = topKDense(m.predictScores(x), k);
      assertEquals([...a.labels], [...b.labels], `row ${i}, k ${k}`);
      assertEquals([...a.scores], [...b.scores], `row ${i}, k ${k}`);
      a.labels.fill(-1); // the caller's copy: the next answer is unchanged
    }
  }
});
