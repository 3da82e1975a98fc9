// The shared estimator checks on the kNN baseline.
import { checkEstimator } from "../estimator_checks.ts";
import { factory } from "../../../src/models/knn/mod.ts";

checkEstimator("knn", factory, {
  createOptions: { k: 5 },
  skip: { saveLoad: "the kNN baseline is not exportable (toModelFile throws by design)" },
});
