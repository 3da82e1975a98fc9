import { checkEstimator } from "../estimator_checks.ts";
import { factory } from "../../../src/models/ova/mod.ts";

checkEstimator("ova (logistic, defaults)", factory);
checkEstimator("ova (squared hinge, tight feature cap, replay)", factory, {
  createOptions: {
    loss: "squared-hinge",
    learningRate: 0.3,
    maxLabelsPerFeature: 4,
    hardNegatives: 2,
    negatives: 2,
    replay: 64,
    replayRatio: 1,
  },
});
