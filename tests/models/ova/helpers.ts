/**
 * Helpers of the one-vs-all tests: synthetic rows and minibatch learning.
 *
 * @module
 */
import type { OvaEstimator } from "../../../src/models/ova/mod.ts";
import { syntheticExamples } from "../../../src/data/synthetic.ts";
import type { Example } from "../../../src/data/types.ts";
import { makeBatch } from "../estimator_checks.ts";

/** `n` synthetic rows (about 20 features and 3 labels each) over the given sizes. */
export function syntheticRows(
  n: number,
  numFeatures: number,
  numLabels: number,
  seed: number,
): Example[] {
  return [
    ...syntheticExamples({ rows: n, numFeatures, numLabels, avgNnz: 20, avgLabels: 3, seed }),
  ];
}

/** Feeds `data` to `m` in minibatches of `batch` rows (in order). */
export function learn(m: OvaEstimator, data: Example[], batch = 16): void {
  for (let s = 0; s < data.length; s += batch) {
    const part = data.slice(s, s + batch).map((e) => ({
      x: e.x,
      labels: Int32Array.from(e.labels),
    }));
    m.learnMany(makeBatch(part, m.numFeatures, m.numLabels));
  }
}
