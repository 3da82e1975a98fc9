// pruneModel on model files: a normalised BR model (POP invariants on the written file), LEML
// products that pay off and ones that do not (the original is kept, with the reason), errors.
import { pruneModel } from "../../src/prune/prune_model.ts";
import { validationPsp } from "../../src/prune/validation.ts";
import { labelWeightsOfContent } from "../../src/prune/model_weights.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { trainBr } from "../../src/models/br/mod.ts";
import { PopularityEstimator } from "../../src/models/popularity/mod.ts";
import { preprocessRows } from "../../src/data/preprocess.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { labelCounts } from "../../src/data/dataset.ts";
import { Rng } from "../../src/random/mod.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert, assertBadInput } from "../helpers.ts";

/** Planted data split into a training and a validation batch, with counts and propensities. */
function setup(numLabels = 8, seed = 5) {
  const data = plantedData(400, numLabels, seed);
  const train = makeBatch(data.rows.slice(0, 300), data.numFeatures, data.numLabels);
  const valid = makeBatch(data.rows.slice(300), data.numFeatures, data.numLabels);
  const counts = labelCounts(train.y);
  const p = propensities(counts, 300);
  return { data, train, valid, counts, p };
}

Deno.test("pruneModel on a normalised BR file: POP invariants hold in the written file", () => {
  const { train, valid, counts, p } = setup();
  const br = trainBr(train.x, train.y, { C: 1 }, { l2Normalize: true });
  const names = Array.from({ length: 8 }, (_, l) => `tag${l}`);
  const input = br.toModelFile({ labelNames: names, meta: { dataset: "planted" } });
  const content = decodeModelFile(input);
  const before = structuredClone(valid);
  const delta = 2, lambda = 0.04;
  const r = pruneModel(content, valid, counts, p, { epsilon: 0.02, lambda, delta }, input);
  assert(JSON.stringify(before) === JSON.stringify(valid), "validation rows mutated");
  // the search saw the rows as the model does (unit L2), not raw
  const prepared = { x: preprocessRows(valid.x, { l2Normalize: true }), y: valid.y };
  const base = validationPsp(labelWeightsOfContent(content), prepared, p);
  assert(r.search.baseline.join() === base.join(), `baseline ${r.search.baseline} vs ${base}`);
  assert(r.pruned && r.bytes.length < input.length, `not pruned: ${r.reason}`);
  const out = decodeModelFile(r.bytes);
  assert(out.kind === "linear-sparse" && out.preprocess?.l2Normalize === true, "kind/preprocess");
  assert(out.labelNames?.join() === names.join(), "label names carried over");
  const meta = out.meta as { dataset: string; pop: Record<string, unknown> };
  assert(meta.dataset === "planted", "original meta carried over");
  assert(meta.pop.numPrunedLabels === r.search.numPrunedLabels && meta.pop.delta === delta, "meta");
  const w = labelWeightsOfContent(out);
  const orig = labelWeightsOfContent(content);
  assert(w.values.join() === r.weights.values.join(), "file holds the reported weights");
  for (let l = 0; l < 8; l++) {
    const n = w.labelPtr[l + 1] - w.labelPtr[l];
    const had = orig.labelPtr[l + 1] - orig.labelPtr[l];
    assert(n >= Math.min(delta, had), `label ${l} keeps ${n} < δ`);
    let small = 0;
    for (let q = w.labelPtr[l]; q < w.labelPtr[l + 1]; q++) {
      if (Math.abs(w.values[q]) <= Math.sqrt(lambda)) small++;
    }
    // a weight inside [−√λ, √λ] survives only to make up the δ minimum
    assert(small === 0 || n <= delta, `label ${l}: ${small} small weights among ${n}`);
  }
  const stored = validationPsp(w, prepared, p);
  assert(stored.join() === r.stored.join(), `stored PSP ${r.stored} vs ${stored}`);
  assert(
    r.withinTolerance === stored.every((v, i) => v >= 0.98 * base[i] - 1e-9),
    "withinTolerance",
  );
});

/** A rank-L low-rank model whose product is label l ← its 3 planted features (× scale). */
function plantedLowRank(numFeatures: number, numLabels: number, scale: number, noise: number) {
  const rng = new Rng(3);
  const r = numLabels;
  const W = new Float32Array(numFeatures * r);
  for (let j = 0; j < numFeatures; j++) {
    for (let c = 0; c < r; c++) W[j * r + c] = noise * rng.normal();
  }
  for (let l = 0; l < numLabels; l++) {
    for (let k = 0; k < 3; k++) W[(3 * l + k) * r + l] += scale;
  }
  const H = new Float32Array(numLabels * r);
  for (let l = 0; l < numLabels; l++) H[l * r + l] = 1;
  const content: ModelFileContent = {
    kind: "linear-lowrank",
    numFeatures,
    numLabels,
    params: { rank: r },
    tensors: {
      W: { dtype: "f32", shape: [numFeatures, r], data: W },
      H: { dtype: "f32", shape: [numLabels, r], data: H },
    },
  };
  return content;
}

Deno.test("a LEML model whose product is sparse is replaced by the pruned linear-sparse file", () => {
  const { data, valid, counts, p } = setup();
  const content = plantedLowRank(data.numFeatures, data.numLabels, 1, 0);
  const input = encodeModelFile(content);
  // each label's column has exactly its 3 planted weights (δ = 3): nothing is lost
  const r = pruneModel(content, valid, counts, p, { delta: 3 }, input);
  assert(r.pruned, r.reason);
  assert(r.reason.startsWith("pruned linear-lowrank → linear-sparse"), r.reason);
  assert(r.search.nnzAfter === 3 * data.numLabels, `kept ${r.search.nnzAfter} weights`);
  assert(r.stored.join() === r.search.baseline.join(), "the exact product loses nothing");
  assert(decodeModelFile(r.bytes).kind === "linear-sparse", "written kind");
});

Deno.test("a LEML model is kept, with the reason, when its pruned product loses too much", () => {
  const { data, valid, counts, p } = setup();
  // small weights: thresholding at √λ = 0.1 leaves δ = 1 weight per label, mostly noise
  const content = plantedLowRank(data.numFeatures, data.numLabels, 0.05, 0.04);
  const input = encodeModelFile(content);
  const r = pruneModel(
    content,
    valid,
    counts,
    p,
    { delta: 1, curve: { lambdas: [0, 1e-4] } },
    input,
  );
  assert(!r.pruned && r.bytes === input, "the original bytes must be returned as is");
  assert(!r.withinTolerance, `stored ${r.stored} vs baseline ${r.search.baseline}`);
  assert(
    /^not pruned: .* loses [\d.]+% of validation PSP@\d .* more than ε = 1%/
      .test(r.reason),
    r.reason,
  );
  // the λ sweep is consulted for a smaller file within the tolerance
  const ok = r.curve!.filter((c) =>
    c.sweep === "lambda" && c.bytes < input.length &&
    c.psp.every((v, i) => v >= 0.99 * r.search.baseline[i] - 1e-9)
  );
  assert(
    ok.length ? r.reason.includes(`λ = ${ok[0].lambda} would give`) : r.reason.includes("no λ"),
    r.reason,
  );
});

Deno.test("pruneModel rejects mismatched counts, rows and kinds", () => {
  const { valid, counts, p } = setup();
  const br = trainBr(makeBatch([], 40, 8).x, makeBatch([], 40, 8).y);
  const content = decodeModelFile(br.toModelFile());
  const cases: [() => unknown, RegExp][] = [
    [() => pruneModel(content, valid, counts.slice(1), p), /8 labels but there are 7 label counts/],
    [
      () => pruneModel(content, { ...valid, y: { ...valid.y, numCols: 9 } }, counts, p),
      /validation rows have 9 labels but the model only 8/,
    ],
    [
      () => pruneModel({ ...content, kind: "random-features" }, valid, counts, p),
      /not a random-features model/,
    ],
    [() => pruneModel(content, valid, counts, p, { epsilon: 1 }), /epsilon must be in \[0, 1\)/],
  ];
  assertBadInput(cases);
});

Deno.test("a model without feature weights (popularity) is kept, and the reason says why", () => {
  const { train, valid, counts, p } = setup();
  const pop = new PopularityEstimator();
  pop.learnMany(train);
  const input = pop.toModelFile();
  const r = pruneModel(decodeModelFile(input), valid, counts, p, {}, input);
  assert(!r.pruned && r.bytes === input, "the original is kept");
  assert(/^not pruned: the \S+ model has no feature weights to prune$/.test(r.reason), r.reason);
});
