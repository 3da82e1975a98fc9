/**
 * The SDK gives the trainers' answers for every model that writes a file, beyond the shared
 * estimator checks: BR with L2-normalised rows, TF-IDF and a feature vocabulary (raw rows and
 * named-feature records in, the trainer given the preprocessed rows), BR's compact f16/u16 file,
 * SLEEC (knn-embedding, several learners and clusters) and LEML.
 */
import type { CsrMatrix, SparseVector } from "../../src/data/types.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import {
  BrEstimator,
  linearSparseContent,
  preprocessRows,
  roundWeights,
  trainDcd,
} from "../../src/models/br/mod.ts";
import { factory as leml } from "../../src/models/leml/mod.ts";
import { trainSleec } from "../../src/models/sleec/batch.ts";
import { loadModel, type TopK } from "../../sdk/mod.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert } from "./helpers.ts";

const data = plantedData(240, 8, 3);
const batch = makeBatch(data.rows, data.numFeatures, data.numLabels);
const rows = (x: CsrMatrix): SparseVector[] =>
  Array.from({ length: x.numRows }, (_, i) => ({
    indices: x.indices.subarray(x.indptr[i], x.indptr[i + 1]),
    values: x.values.subarray(x.indptr[i], x.indptr[i + 1]),
  }));

function same(a: TopK, b: TopK, tol: number, what: string): void {
  assert(a.labels.length === b.labels.length, `${what}: lengths`);
  for (let i = 0; i < a.labels.length; i++) {
    const d = Math.abs(a.scores[i] - b.scores[i]);
    assert(d <= tol, `${what}: score ${i} ${a.scores[i]} vs ${b.scores[i]}`);
    assert(
      a.labels[i] === b.labels[i] || d === 0 && a.scores[i] === a.scores[i + 1],
      `${what}: label ${i}`,
    );
  }
}

Deno.test("BR (DCD), TF-IDF + L2 rows, vocabulary: raw rows and records give the trainer's top-k", () => {
  const D = data.numFeatures;
  const idf = Float32Array.from({ length: D }, (_, j) => 1 + (j % 5) / 4);
  const pre = { tfidf: true, l2Normalize: true, idf };
  const xp = preprocessRows(batch.x, pre);
  const model = BrEstimator.fromLabelWeights(trainDcd(xp, batch.y, { C: 1 }));
  const featureNames = Array.from({ length: D }, (_, j) => `f${j}`);
  const sdk = loadModel(model.toModelFile({ featureNames, preprocess: pre }));
  const raw = rows(batch.x), prepped = rows(xp);
  let nonTrivial = 0;
  for (let i = 0; i < raw.length; i += 7) {
    const want = model.predictTopK(prepped[i], 5);
    same(sdk.predictTopK(raw[i], 5), want, 1e-6, `row ${i}`);
    const record: Record<string, number> = {};
    raw[i].indices.forEach((j, p) => (record[featureNames[j]] = raw[i].values[p]));
    same(sdk.predictTopK(record, 5), want, 1e-6, `row ${i} as a record`);
    if (want.scores[0] !== want.scores[4]) nonTrivial++;
  }
  assert(nonTrivial > 10, "scores do not vary");
});

Deno.test("BR (streaming, L2-normalised inside the trainer): SDK scores are bit-identical", () => {
  const m = new BrEstimator({
    l2Normalize: true,
    numFeatures: data.numFeatures,
    numLabels: data.numLabels,
  });
  for (let e = 0; e < 3; e++) m.learnMany(batch);
  const sdk = loadModel(m.toModelFile());
  for (const [i, x] of rows(batch.x).entries()) {
    same(sdk.predictTopK(x, data.numLabels), m.predictTopK(x, data.numLabels), 0, `row ${i}`);
  }
  const batchAnswers = sdk.predictBatch(rows(batch.x).slice(0, 5), 3);
  batchAnswers.forEach((t, i) => same(t, m.predictTopK(rows(batch.x)[i], 3), 0, `batch ${i}`));
});

Deno.test("BR compact file (f16 weights, u16 label indices) = trainer with f16-rounded weights", () => {
  const w = trainDcd(batch.x, batch.y);
  const rounded = BrEstimator.fromLabelWeights(roundWeights(w, "f16"));
  const file = encodeModelFile(linearSparseContent(w, { weightType: "f16", indexType: "u16" }));
  const full = encodeModelFile(linearSparseContent(w));
  assert(file.length < full.length * 0.8, `compact ${file.length} vs ${full.length} bytes`);
  const sdk = loadModel(file);
  for (const [i, x] of rows(batch.x).entries()) {
    same(sdk.predictTopK(x, 5), rounded.predictTopK(x, 5), 0, `row ${i}`);
  }
});

Deno.test("SLEEC (knn-embedding, 2 learners × 2 clusters): SDK = trainer, bit for bit", () => {
  const model = trainSleec(batch.x, batch.y, {
    rank: 4,
    numLearners: 2,
    numClusters: 2,
    k: 5,
    svpIterations: 3,
    admmIterations: 5,
    seed: 3,
  });
  assert(model.knn.clusters.length >= 3, `${model.knn.clusters.length} clusters`);
  const sdk = loadModel(model.toModelFile());
  const i8 = loadModel(model.toModelFile({ quantize: "i8" }));
  let agree = 0;
  for (const [i, x] of rows(batch.x).entries()) {
    const want = model.predictTopK(x, 5);
    same(sdk.predictTopK(x, 5), want, 0, `row ${i}`);
    const q = i8.predictTopK(x, 5);
    if (q.labels[0] === want.labels[0]) agree++;
  }
  assert(
    agree > 0.9 * batch.x.numRows,
    `i8 points change the top label on ${batch.x.numRows - agree} rows`,
  );
  // a row with no feature the model knows embeds at 0: no neighbours, every label 0, in both
  const none = { indices: Int32Array.of(batch.x.numCols + 3), values: Float32Array.of(1) };
  const want = model.predictTopK(none, 5);
  assert(want.scores.every((v) => v === 0), `trainer ${want.scores}`);
  same(sdk.predictTopK(none, 5), want, 0, "unknown feature");
  same(sdk.predictTopK(none, 5, { exact: true }), want, 0, "unknown feature, exact");
});

Deno.test("LEML (streaming): SDK = trainer within 1e-6; f16 file within the rounding", () => {
  const m = leml.create({ seed: 1, numFeatures: data.numFeatures, numLabels: data.numLabels });
  for (let e = 0; e < 3; e++) m.learnMany(batch);
  const sdk = loadModel(m.toModelFile());
  const half = loadModel(m.toModelFile({ quantize: "f16" }));
  for (const [i, x] of rows(batch.x).entries()) {
    const want = m.predictTopK(x, 5);
    same(sdk.predictTopK(x, 5), want, 1e-6, `row ${i}`);
    const h = half.predictTopK(x, 1);
    assert(
      Math.abs(h.scores[0] - want.scores[0]) < 1e-2,
      `row ${i}: f16 ${h.scores[0]} vs ${want.scores[0]}`,
    );
  }
});
