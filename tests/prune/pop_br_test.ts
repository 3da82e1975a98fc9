// popBr: the search runs on a held-out split of the training rows, the found cut is applied to
// BR retrained on all rows, and the written file holds exactly the reported weights.
import { popBr } from "../../src/prune/pop_br.ts";
import { applyPop } from "../../src/prune/pop.ts";
import { validationPsp } from "../../src/prune/validation.ts";
import { labelWeightsOfContent } from "../../src/prune/model_weights.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { roundWeights } from "../../src/models/label_weights.ts";
import { preprocessRows } from "../../src/data/preprocess.ts";
import { BrEstimator, trainBr } from "../../src/models/br/mod.ts";
import { loadModel } from "../../sdk/mod.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { type Dataset, labelCounts, rowView, splitRows } from "../../src/data/dataset.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert, assertBadInput } from "../helpers.ts";

const NAMES = Array.from({ length: 10 }, (_, l) => `tag${l}`);

function planted(): Dataset {
  const data = plantedData(400, 10, 4);
  const b = makeBatch(data.rows, data.numFeatures, data.numLabels);
  return { name: "planted", numFeatures: data.numFeatures, numLabels: data.numLabels, ...b };
}

Deno.test("popBr validates on held-out rows and prunes BR retrained on all rows", () => {
  const train = planted();
  const before = structuredClone(train);
  const p = propensities(labelCounts(train.y), train.x.numRows);
  const opts = { epsilon: 0.02, lambda: 0.02, delta: 2, seed: 3, validationFraction: 0.25 };
  const r = popBr(train, p, { ...opts, labelNames: NAMES, curve: { epsilons: [0.02] } });
  assert(JSON.stringify(before) === JSON.stringify(train), "training rows mutated");
  // the search's baseline is BR fitted without the held-out rows, scored on them normalised
  const { train: fit, valid } = splitRows(train, 0.25, 3);
  const probe = trainBr(fit.x, fit.y, { seed: 3 }, { l2Normalize: true }).toLabelWeights();
  const rows = { x: preprocessRows(valid.x, { l2Normalize: true }), y: valid.y };
  const base = validationPsp(probe, rows, p);
  assert(r.search.baseline.join() === base.join(), `baseline ${r.search.baseline} vs ${base}`);
  assert(r.validation.x.numRows === valid.x.numRows, "held-out rows");
  // the stored model is the full model with the found cut and threshold, rounded to f16
  const full = r.full.toLabelWeights();
  const { lambda, delta } = opts;
  const want = roundWeights(
    applyPop(full, r.order, r.search.numPrunedLabels, { lambda, delta }),
    "f16",
  );
  assert(r.weights.values.join() === want.values.join(), "pruned weights");
  assert(r.weights.featIdx.join() === want.featIdx.join(), "pruned indices");
  assert(want.labelPtr[10] < full.labelPtr[10], "nothing pruned");
  const file = decodeModelFile(r.bytes);
  assert(file.preprocess?.l2Normalize === true, "the file records the normalisation");
  assert(file.labelNames?.join() === NAMES.join(), "label names");
  assert(file.tensors.labelIdx.dtype === "u16" && file.tensors.weights.dtype === "f16", "storage");
  const back = labelWeightsOfContent(file);
  assert(back.values.join() === r.weights.values.join(), "file weights");
  const meta = file.meta as { pop: { numPrunedLabels: number } };
  assert(meta.pop.numPrunedLabels === r.search.numPrunedLabels, "meta.pop");
  // the curve's point at the chosen (ε, λ) is the written file
  const point = r.curve!.find((q) => q.sweep === "epsilon")!;
  assert(point.bytes === r.bytes.length, `curve bytes ${point.bytes} vs ${r.bytes.length}`);
  // the SDK reads the f16/u16 file and scores raw rows like the trainer-side model of r.weights
  const sdk = loadModel(r.bytes);
  const local = BrEstimator.fromLabelWeights(r.weights, { l2Normalize: true });
  for (let i = 0; i < 30; i++) {
    const x = rowView(train.x, i);
    const a = sdk.predictTopK(x, 4), b = local.predictTopK(x, 4);
    for (let k = 0; k < 4; k++) {
      assert(a.labels[k] === b.labels[k], `row ${i}: SDK ${[...a.labels]} vs ${[...b.labels]}`);
      assert(Math.abs(a.scores[k] - b.scores[k]) < 1e-5, `row ${i}: score ${a.scores[k]}`);
    }
  }
  // same seed, same file
  const again = popBr(train, p, { ...opts, labelNames: NAMES });
  assert(again.bytes.join() === r.bytes.join(), "not deterministic");
});

Deno.test("popBr rejects bad settings naming them", () => {
  const train = planted();
  const p = propensities(labelCounts(train.y), train.x.numRows);
  const cases: [() => unknown, RegExp][] = [
    [() => popBr(train, p, { validationFraction: 1 }), /validationFraction must be in \(0, 1\)/],
    [() => popBr(train, p.subarray(1)), /9 propensities for 10 labels/],
    [() => popBr(train, p, { delta: 1.5 }), /delta must be a non-negative integer/],
    [() => popBr(train, p, { weightType: "f8" as "f16" }), /weightType must be f16 or f32/],
  ];
  assertBadInput(cases);
});
