// popBr's curve describes, at each (ε, λ), the file that setting would write (BR retrained on
// all rows, cut and thresholded): its point at the chosen ε and λ reports the written file's
// weights beside its bytes, as the JSON summary's nnzAfter does, not the weights of the model
// fitted without the held-out rows (whose validation PSP@k the point carries).
import { popBr } from "../../src/prune/pop_br.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { type Dataset, labelCounts } from "../../src/data/dataset.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert } from "../helpers.ts";

Deno.test("popBr: the curve's point of the chosen ε and λ has the written file's weights and bytes", () => {
  const data = plantedData(400, 10, 4);
  const b = makeBatch(data.rows, data.numFeatures, data.numLabels);
  const train: Dataset = { name: "planted", numFeatures: data.numFeatures, numLabels: 10, ...b };
  const p = propensities(labelCounts(train.y), train.x.numRows);
  // ε = 0 cuts no label; these λ keep some noise weights, which the two fits do not share
  for (const lambda of [0.001, 0.02]) {
    const opts = { epsilon: 0, lambda, delta: 2, seed: 3, validationFraction: 0.25 };
    const r = popBr(train, p, { ...opts, curve: { epsilons: [0], lambdas: [lambda] } });
    const written = r.weights.labelPtr[r.weights.numLabels];
    for (const sweep of ["epsilon", "lambda"]) {
      const point = r.curve!.find((q) => q.sweep === sweep)!;
      const what = `λ ${lambda}, ${sweep} sweep`;
      assert(point.bytes === r.bytes.length, `${what}: bytes ${point.bytes} vs ${r.bytes.length}`);
      assert(point.nnz === written, `${what}: nnz ${point.nnz} vs the file's ${written}`);
    }
  }
});
