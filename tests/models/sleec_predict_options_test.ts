/**
 * SLEEC's vote power (`votePower` π: a neighbour weighs max(0, sim)^π): 1 is the paper's rule,
 * other values are hand-checked, stored in the model file (format version 4, read back, served by
 * the SDK bit for bit), carried by the streaming learner and its replica, and validated.
 */
import { type KnnModel, KnnPredictor } from "../../src/models/sleec/predictor.ts";
import { SleecModel, trainSleec } from "../../src/models/sleec/batch.ts";
import { resolveConfig } from "../../src/models/sleec/config.ts";
import { SleecStream } from "../../src/models/sleec/stream.ts";
import { SleecReplica } from "../../src/models/sleec/replica.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { loadModel } from "../../sdk/mod.ts";
import { makeBatch, plantedData } from "./estimator_checks.ts";
import { assert, messageOf } from "../helpers.ts";

/**
 * One learner, 2 features, 3 labels, rank 2. Cluster A (centroid e1, V = I) has points e1
 * [label 0] and (0.6, 0.8) [label 1]; cluster B (centroid e2, V = I) has the point e2 [label 2].
 */
function model(extra: Partial<KnnModel> = {}): KnnModel {
  return {
    numFeatures: 2,
    numLabels: 3,
    rank: 2,
    numLearners: 1,
    k: 2,
    weighted: true,
    clusters: [
      {
        learner: 0,
        centroid: Float32Array.of(1, 0),
        v: Float32Array.of(1, 0, 0, 1),
        numPoints: 2,
        points: Float32Array.of(1, 0, 0.6, 0.8),
        labels: [Int32Array.of(0), Int32Array.of(1)],
      },
      {
        learner: 0,
        centroid: Float32Array.of(0, 1),
        v: Float32Array.of(1, 0, 0, 1),
        numPoints: 1,
        points: Float32Array.of(0, 1),
        labels: [Int32Array.of(2)],
      },
    ],
    ...extra,
  };
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-6;
const x = { i: Int32Array.of(0, 1), v: Float32Array.of(3, 1) }; // sims 3/√10 and 2.6/√10 in A

Deno.test("sleec vote power: 1 is the paper's rule, 2 squares the weights, counted votes ignore it", () => {
  const base = new KnnPredictor(model()).scores(x.i, x.v);
  const p1 = new KnnPredictor(model({ votePower: 1 })).scores(x.i, x.v);
  assert(base.every((s, l) => s === p1[l]), `p = 1 changed the scores: ${base} vs ${p1}`);
  const p2 = new KnnPredictor(model({ votePower: 2 })).scores(x.i, x.v);
  const w0 = 9, w1 = 2.6 * 2.6;
  assert(close(p2[0], w0 / (w0 + w1)) && close(p2[1], w1 / (w0 + w1)), `p = 2: ${p2}`);
  assert(p2[0] > base[0], "a sharper vote must favour the nearest neighbour");
  const counted = new KnnPredictor(model({ weighted: false, votePower: 8 })).scores(x.i, x.v);
  assert(close(counted[0], 0.5) && close(counted[1], 0.5), `counted votes: ${counted}`);
});

Deno.test("sleec vote power: in the file (version 4), read back, served by the SDK bit for bit", () => {
  const d = plantedData(120, 4, 3);
  const b = makeBatch(d.rows, d.numFeatures, d.numLabels);
  const plain = trainSleec(b.x, b.y, { rank: 4, k: 7 });
  const sharp = trainSleec(b.x, b.y, { rank: 4, k: 7, votePower: 8 });
  assert(plain.knn.votePower === undefined, "the paper's rule is not stored");
  assert(sharp.knn.votePower === 8, "the trained model carries its vote power");
  const plainFile = decodeModelFile(plain.toModelFile());
  const sharpFile = decodeModelFile(sharp.toModelFile());
  assert(plainFile.params.votePower === undefined && plainFile.formatVersion < 4, "plain: v < 4");
  assert(sharpFile.params.votePower === 8 && sharpFile.formatVersion === 4, "sharp: v4");
  const back = SleecModel.fromModelFile(sharp.toModelFile());
  assert(back.knn.votePower === 8, "read back");
  const served = loadModel(sharp.toModelFile());
  let differs = 0;
  for (let i = 0; i < b.x.numRows; i++) {
    const row = {
      indices: b.x.indices.subarray(b.x.indptr[i], b.x.indptr[i + 1]),
      values: b.x.values.subarray(b.x.indptr[i], b.x.indptr[i + 1]),
    };
    const want = sharp.predictTopK(row, 3), got = served.predictTopK(row, 3);
    assert(String(got.labels) === String(want.labels), `row ${i}: ${got.labels} vs ${want.labels}`);
    assert(String(got.scores) === String(want.scores), `row ${i}: ${got.scores} vs ${want.scores}`);
    const p = plain.predictTopK(row, 3);
    if (String(p.scores) !== String(want.scores)) differs++;
  }
  assert(differs > 0, "the vote power changed no score");
});

Deno.test("sleec vote power: the stream and its replica carry it; batch-only options refused", () => {
  const d = plantedData(80, 4, 3);
  const b = makeBatch(d.rows, d.numFeatures, d.numLabels);
  const s = new SleecStream({ rank: 4, k: 5, votePower: 4, reservoirSize: 64 });
  s.learnMany(b);
  assert(s.knnModel().votePower === 4, "the stream's model carries it");
  assert(decodeModelFile(s.toModelFile()).params.votePower === 4, "and its file");
  // the service's replica (the state the learner thread sends) predicts as the stream does
  const replica = SleecReplica.fromState(s.toReplicaState());
  for (let i = 0; i < b.x.numRows; i++) {
    const row = {
      indices: b.x.indices.subarray(b.x.indptr[i], b.x.indptr[i + 1]),
      values: b.x.values.subarray(b.x.indptr[i], b.x.indptr[i + 1]),
    };
    const want = s.predictTopK(row, 3), got = replica.predictTopK(row, 3);
    assert(
      String(got.scores) === String(want.scores),
      `replica row ${i}: ${got.scores} vs ${want.scores}`,
    );
  }
  for (const name of ["rowFraction", "featureFraction", "featureWeighting"]) {
    const value = name === "featureWeighting" ? "tfidf" : 0.5;
    assert(
      messageOf(() => new SleecStream({ [name]: value })).includes(name),
      `the stream must refuse ${name}`,
    );
  }
});

Deno.test("sleec vote power: bad values name it", () => {
  assert(messageOf(() => resolveConfig({ votePower: 0 })).includes("votePower"), "votePower 0");
  assert(messageOf(() => resolveConfig({ votePower: 65 })).includes("votePower"), "votePower 65");
  assert(
    messageOf(() => new KnnPredictor(model({ votePower: 1.5 }))).includes("votePower"),
    "predictor votePower",
  );
});
