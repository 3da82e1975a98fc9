import { makeBatch, plantedData } from "../estimator_checks.ts";
import { labelLists, SleecModel, trainSleec } from "../../../src/models/sleec/batch.ts";
import { knnModelContent, knnModelFromContent } from "../../../src/models/sleec/model_file.ts";
import { decodeModelFile } from "../../../sdk/internal.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert, messageOf } from "../../helpers.ts";

const train = plantedData(300, 8, 7);
const held = plantedData(120, 8, 99);
const batch = makeBatch(train.rows, train.numFeatures, train.numLabels);
const options = { rank: 12, svpNeighbours: 30, k: 10 };

function p1(m: SleecModel, rows: typeof held.rows): number {
  let hits = 0;
  for (const r of rows) if (r.labels.includes(m.predictTopK(r.x, 1).labels[0])) hits++;
  return hits / rows.length;
}

Deno.test("sleec batch: learns the planted problem and generalises to held-out rows", () => {
  const m = trainSleec(batch.x, batch.y, options);
  assert(p1(m, train.rows) >= 0.9, `training P@1 ${p1(m, train.rows)}`);
  // popularity alone gets about 0.25 on this data
  assert(p1(m, held.rows) >= 0.75, `held-out P@1 ${p1(m, held.rows)}`);
  const ensemble = trainSleec(batch.x, batch.y, { ...options, numLearners: 2, numClusters: 2 });
  assert(ensemble.knn.clusters.length === 4, `${ensemble.knn.clusters.length} clusters`);
  assert(
    ensemble.knn.clusters.map((c) => c.learner).join() === "0,0,1,1",
    "clusters of both learners",
  );
  assert(p1(ensemble, held.rows) >= 0.75, `ensemble held-out P@1 ${p1(ensemble, held.rows)}`);
});

Deno.test("sleec batch: inputs are not mutated and the same seed gives the same model file", () => {
  const before = structuredClone(batch);
  const a = trainSleec(batch.x, batch.y, { ...options, seed: 5 }).toModelFile();
  const b = trainSleec(batch.x, batch.y, { ...options, seed: 5 }).toModelFile();
  assert(a.length === b.length && a.every((v, i) => v === b[i]), "same seed, different files");
  assert(
    JSON.stringify(Array.from(batch.x.values)) === JSON.stringify(Array.from(before.x.values)),
    "x mutated",
  );
  assert(batch.y.indices.every((v, i) => v === before.y.indices[i]), "y mutated");
});

Deno.test("sleec batch: model file → trainer and → SDK give the same top-k; i8 stays close", () => {
  const m = trainSleec(batch.x, batch.y, { ...options, numLearners: 2, numClusters: 2 });
  const bytes = m.toModelFile({ labelNames: Array.from({ length: 8 }, (_, l) => `tag${l}`) });
  const back = SleecModel.fromModelFile(bytes);
  const sdk = loadModel(bytes);
  for (const r of held.rows.slice(0, 40)) {
    const want = m.predictScores(r.x);
    const got = back.predictScores(r.x);
    assert(want.every((v, l) => v === got[l]), "decoded model scores differ");
    const a = m.predictTopK(r.x, 5), s = sdk.predictTopK(r.x, 5);
    assert(a.labels.join() === Array.from(s.labels).join(), `SDK top-k ${s.labels} vs ${a.labels}`);
    a.scores.forEach((v, i) => assert(Math.abs(v - s.scores[i]) < 1e-6, `SDK score ${i}`));
  }
  const i8 = SleecModel.fromModelFile(m.toModelFile({ quantize: "i8" }));
  assert(m.toModelFile({ quantize: "i8" }).length < bytes.length, "i8 file is not smaller");
  let agree = 0;
  for (const r of held.rows) {
    if (i8.predictTopK(r.x, 1).labels[0] === m.predictTopK(r.x, 1).labels[0]) agree++;
  }
  assert(agree / held.rows.length >= 0.95, `i8 top-1 agreement ${agree}/${held.rows.length}`);
});

Deno.test("sleec batch: the model file layout is the documented one", () => {
  const m = trainSleec(batch.x, batch.y, { ...options, numClusters: 2 });
  const c = decodeModelFile(m.toModelFile());
  const C = 2, D = train.numFeatures, r = options.rank, P = train.rows.length;
  assert(c.kind === "knn-embedding", c.kind);
  assert(c.params.rank === r && c.params.k === 10 && c.params.weighted === true, "params");
  assert(c.params.numLearners === 1 && c.params.numClusters === C, "params (sizes)");
  const shape = (name: string) => c.tensors[name].shape.join("x");
  assert(shape("centroids") === `${C}x${D}`, shape("centroids"));
  assert(shape("V") === `${C * D}x${r}` && shape("points") === `${P}x${r}`, "V/points shapes");
  assert(shape("pointPtr") === `${C + 1}` && shape("labelPtr") === `${P + 1}`, "pointer shapes");
  const labels = c.tensors.labels.data as Int32Array;
  const total = train.rows.reduce((s, row) => s + row.labels.length, 0);
  assert(labels.length === total, `${labels.length} labels vs ${total}`);
  const rebuilt = knnModelFromContent(knnModelContent(m.knn));
  assert(rebuilt.clusters[1].numPoints === m.knn.clusters[1].numPoints, "round trip");
});

Deno.test("sleec batch: bad input names the problem", () => {
  const short = { ...batch.y, numRows: 3 };
  assert(
    messageOf(() => trainSleec(batch.x, short)).includes("300 feature rows but 3 label rows"),
    "rows",
  );
  const bad = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(5) };
  assert(messageOf(() => labelLists(bad)).includes("row 0 has label 5 outside [0, 2)"), "labels");
  assert(messageOf(() => trainSleec(batch.x, batch.y, { k: 0 })).includes("option k"), "config");
  const notKnn = { ...decodeModelFile(trainSleec(batch.x, batch.y, options).toModelFile()) };
  delete (notKnn.tensors as Record<string, unknown>).points;
  assert(
    messageOf(() => knnModelFromContent(notKnn)).includes('missing tensor "points"'),
    "tensor",
  );
});
