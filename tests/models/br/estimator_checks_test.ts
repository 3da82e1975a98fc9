import { checkEstimator } from "../estimator_checks.ts";
import { factory } from "../../../src/models/br/mod.ts";

checkEstimator("br (adam, squared hinge)", factory);
checkEstimator("br (sgd, logistic, l2-normalised rows)", factory, {
  createOptions: { optimizer: "sgd", loss: "logistic", l2Normalize: true, learningRate: 1 },
});
