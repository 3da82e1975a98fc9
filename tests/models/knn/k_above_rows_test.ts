/**
 * knn with `k` above the rows it has learnt (`tagstream train --model knn --option k=100000` on
 * a 50-row file) answers with what it has: each query votes over every stored row, as at the
 * start of every stream. It said nothing about it; now `trainingNote()` says so (naming k and
 * the rows) for a trainer's summary, until enough rows are learnt, and a restored model says
 * the same.
 */
import { factory, type KnnEstimator } from "../../../src/models/knn/mod.ts";
import { assert, assertEquals } from "../../helpers.ts";

const row = (j: number) => ({ indices: Int32Array.of(j, j + 1), values: Float32Array.of(1, 1) });

Deno.test("knn: k above the rows learnt votes over all of them, and trainingNote says so", () => {
  const big = factory.create({ k: 100000 }) as KnnEstimator;
  const all = factory.create({ k: 3 }) as KnnEstimator;
  for (const [j, labels] of [[0, [0]], [1, [1]], [2, [0, 2]]] as const) {
    big.learnOne(row(j), labels);
    all.learnOne(row(j), labels);
  }
  // the same answer as a k of exactly the rows stored
  assertEquals([...big.predictScores(row(1))], [...all.predictScores(row(1))]);
  assertEquals(
    big.trainingNote(),
    "knn: k = 100000 neighbours but only 3 rows learnt: each query votes over every row learnt " +
      "(a similarity-weighted popularity); learn more rows or lower k",
  );
  assertEquals(all.trainingNote(), undefined);
  // a restored model says the same
  assertEquals(factory.restore(big.toState()).trainingNote?.(), big.trainingNote());
  const one = factory.create({ k: 2 }) as KnnEstimator;
  assert(one.trainingNote()!.includes("but only 0 rows learnt"), String(one.trainingNote()));
  one.learnOne(row(0), [0]);
  assert(one.trainingNote()!.includes("but only 1 row learnt:"), String(one.trainingNote()));
  one.learnOne(row(1), [1]);
  assertEquals(one.trainingNote(), undefined);
});
