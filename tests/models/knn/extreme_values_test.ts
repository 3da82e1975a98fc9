/**
 * The cosine kNN baseline on extreme but finite feature values: it stores L2-normalised rows
 * (norms in float64), so rows at 1e30, near 3e38 or of denormals are stored finite and answered
 * as the same rows at 1.
 */
import { KnnEstimator } from "../../../src/models/knn/estimator.ts";
import type { Estimator } from "../../../src/models/estimator.ts";
import { assert } from "../../helpers.ts";
import { nonFiniteTensors, TOY_LABELS, toyBatch, toyMisses, toyQuery } from "../extreme_rows.ts";

Deno.test("knn: raw values from denormals to 3e38 are stored finite and ranked like the rows at 1, also after a restore", () => {
  const cases = [[1e10, false], [1e20, true], [1e30, true], [2.2e38, false], [2.2e38, true], [
    1e-30,
    true,
  ], [1e-44, false]] as const;
  for (const [magnitude, mixed] of cases) {
    const what = `${mixed ? "±" : ""}${magnitude}`;
    const m = new KnnEstimator({ k: 5 });
    for (let b = 0; b < 4; b++) m.learnMany(toyBatch(b, magnitude, mixed));
    assert((m as Estimator).learnRefusal === undefined, "kNN normalises every row: no refusal");
    const bad = nonFiniteTensors(m.toState());
    assert(bad.length === 0, `${what}: non-finite state tensors ${bad}`);
    for (const model of [m, KnnEstimator.fromState(m.toState())]) {
      const misses = toyMisses(model, magnitude, mixed);
      assert(misses.length === 0, `${what}: ${misses.join("; ")}`);
      for (let c = 0; c < TOY_LABELS; c++) {
        const a = model.predictScores(toyQuery(c, magnitude, mixed));
        const b = model.predictScores(toyQuery(c, 1, mixed));
        assert(a.every((s, l) => Math.abs(s - b[l]) <= 1e-6), `${what}, label ${c}: ${a} vs ${b}`);
      }
    }
  }
});
