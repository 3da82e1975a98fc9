import { checkEstimator } from "../estimator_checks.ts";
import { batchFactory, factory } from "../../../src/models/leml/mod.ts";

// Streaming trainer: Adam on the squared loss with the Gram identity.
checkEstimator("leml streaming (squared, adam)", factory, {
  createOptions: { rank: 8, lr: 0.05 },
});

// Unit-L2 rows (the model file tells the SDK to normalise too) and a slower H.
checkEstimator("leml streaming (unit-L2 rows, lrH)", factory, {
  createOptions: { rank: 8, lr: 0.05, lrH: 0.02, l2Normalize: true },
});

// Bounded experience replay: two steps per minibatch, each joined by rows from a reservoir of 24
// (the reservoir is part of the state: restore, determinism and no-mutation checks cover it).
checkEstimator("leml streaming (replay)", factory, {
  createOptions: { rank: 8, lr: 0.03, replay: 24, replayRatio: 1, replaySteps: 2 },
});

// Streaming trainer with the logistic loss and sampled negatives.
checkEstimator("leml streaming (logistic, sampled negatives)", factory, {
  createOptions: { rank: 8, lr: 0.05, loss: "logistic", negatives: 4 },
});

// Batch trainer: learnMany appends the batch to its data and refits by alternating minimisation
// (warm-started from the current factors).
checkEstimator("leml batch (alternating minimisation)", batchFactory, {
  createOptions: { rank: 8, lambda: 0.1, iterations: 3 },
  epochs: 1,
});

checkEstimator("leml batch (unit-L2 rows)", batchFactory, {
  createOptions: { rank: 8, lambda: 0.1, iterations: 3, l2Normalize: true },
  epochs: 1,
});
