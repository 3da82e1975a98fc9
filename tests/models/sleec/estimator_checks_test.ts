import { checkEstimator } from "../estimator_checks.ts";
import { factory } from "../../../src/models/sleec/mod.ts";

// The defaults (embedding dimension 100, one learner, one cluster).
checkEstimator("sleec streaming", factory);

// An ensemble of two learners with two clusters each (smaller embedding to stay fast).
checkEstimator("sleec streaming, ensemble of clustered learners", factory, {
  createOptions: { numLearners: 2, numClusters: 2, rank: 24, k: 10 },
});
