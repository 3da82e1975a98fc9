/**
 * `knn-embedding` files whose params are valid but extreme, or malformed, read alike by the SDK
 * (`loadModel`) and the trainer's reader (`SleecModel.fromModelFile`): a `k` past every cluster
 * (k' = min(k, points), so k = 2^33 answers as k = the points; it failed to allocate its
 * buffers), a `numLearners` far past the learners that own clusters (the learners without
 * clusters cast no vote; each query looped over all 2^53 of them, without end), a `weighted`
 * present but not a boolean (the SDK served it as unweighted, the trainer refused it), a
 * `labelPtr` that does not start at 0 (the trainer gave point 0 a slice from the tensor's end,
 * the SDK refused it) and points that are not finite (a NaN made the neighbours depend on the
 * visiting order: the trainer and the SDK's indexed search disagreed).
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { SleecModel } from "../../src/models/sleec/batch.ts";
import { knnModelContent } from "../../src/models/sleec/model_file.ts";
import type { KnnModel } from "../../src/models/sleec/predictor.ts";
import { loadModel, ModelFormatError, type TopK } from "../../sdk/mod.ts";
import { assert, mulberry32 } from "./helpers.ts";

/** A 2-learner model: 3 features, 6 labels, rank 2, clusters of 3 and 4 points. */
function model(over: Partial<KnnModel> = {}): KnnModel {
  const rand = mulberry32(7), g = () => rand() - 0.5;
  const cluster = (learner: number, n: number) => ({
    learner,
    centroid: Float32Array.from({ length: 3 }, g),
    v: Float32Array.from({ length: 6 }, g),
    numPoints: n,
    points: Float32Array.from({ length: 2 * n }, g),
    labels: Array.from({ length: n }, (_, i) => Int32Array.of(i % 6, 5 - (i % 3))),
  });
  return {
    numFeatures: 3,
    numLabels: 6,
    rank: 2,
    numLearners: 2,
    k: 3,
    weighted: true,
    clusters: [cluster(0, 3), cluster(1, 4)],
    ...over,
  };
}

const queries = [
  { indices: [0], values: [1] },
  { indices: [0, 2], values: [0.5, -2] },
  { indices: [1, 2], values: [3, 1] },
];

/** Both readers' top 6 of each query (SDK: default and exact; trainer: its own reader). */
function answers(bytes: Uint8Array): TopK[] {
  const sdk = loadModel(bytes), trainer = SleecModel.fromModelFile(bytes);
  return queries.flatMap((q) => [
    sdk.predictTopK(q, 6),
    sdk.predictTopK(q, 6, { exact: true }),
    trainer.predictTopK({
      indices: Int32Array.from(q.indices),
      values: Float32Array.from(q.values),
    }, 6),
  ]);
}

const key = (a: TopK[]) => JSON.stringify(a.map((t) => [[...t.labels], [...t.scores]]));

function corrupt(bytes: Uint8Array): string {
  try {
    loadModel(bytes);
  } catch (e) {
    if (e instanceof ModelFormatError && e.reason === "corrupt") return e.message;
    throw e;
  }
  return "read";
}

Deno.test("knn-embedding: a k past every cluster answers as k = the points, in both readers", () => {
  for (const weighted of [true, false]) {
    const all = answers(encodeModelFile(knnModelContent(model({ k: 7, weighted }))));
    assert(all.some((t) => t.scores[0] > 0), "no answer scores above 0");
    for (const k of [8, 2 ** 33, Number.MAX_SAFE_INTEGER]) {
      const got = answers(encodeModelFile(knnModelContent(model({ k, weighted }))));
      assert(key(got) === key(all), `k ${k}: ${key(got)} against ${key(all)}`);
    }
  }
});

Deno.test("knn-embedding: learners without clusters cast no vote, however many the file declares", () => {
  // unweighted votes of the one nearest point: each voting learner gives its point's labels 1
  const base = model({ k: 1, weighted: false });
  const two = answers(encodeModelFile(knnModelContent(base)));
  assert(two.some((t) => t.scores[0] > 0), "no learner voted");
  for (const numLearners of [3, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
    // learners 0 and numLearners − 1 own the clusters (at most 2^31 − 1: the tensor is i32)
    const last = Math.min(numLearners - 1, 2 ** 31 - 1);
    const far = model({
      k: 1,
      weighted: false,
      numLearners,
      clusters: [base.clusters[0], { ...base.clusters[1], learner: last }],
    });
    const got = answers(encodeModelFile(knnModelContent(far)));
    got.forEach((t, i) => {
      assert(
        t.labels.join() === two[i].labels.join(),
        `${numLearners} learners, answer ${i}: labels ${t.labels} against ${two[i].labels}`,
      );
      t.scores.forEach((s, j) => {
        // the two learners' vote count (0, 1 or 2) over the learners
        const want = Math.fround(Math.round(two[i].scores[j] * 2) / numLearners);
        assert(s === want, `${numLearners} learners, answer ${i}: score ${s}, want ${want}`);
      });
    });
  }
});

Deno.test("knn-embedding: a weighted param that is not a boolean is corrupt in the SDK, as in the trainer", () => {
  for (const weighted of [1, 0, "true", [1]]) {
    const content = knnModelContent(model());
    const bytes = encodeModelFile({
      ...content,
      params: { ...content.params, weighted: weighted as unknown as boolean },
    });
    const message = corrupt(bytes);
    assert(message.includes(`param "weighted"`), `weighted ${weighted}: ${message}`);
    let trainer = "read";
    try {
      SleecModel.fromModelFile(bytes);
    } catch (e) {
      trainer = (e as Error).message;
    }
    assert(trainer.includes(`param "weighted"`), `trainer, weighted ${weighted}: ${trainer}`);
  }
});

Deno.test("knn-embedding: a labelPtr that does not start at 0 is refused by both readers", () => {
  const content = knnModelContent(model());
  const labelPtr = (content.tensors.labelPtr.data as Int32Array).slice();
  labelPtr[0] = -1;
  const broken: ModelFileContent = {
    ...content,
    tensors: { ...content.tensors, labelPtr: { ...content.tensors.labelPtr, data: labelPtr } },
  };
  const bytes = encodeModelFile(broken);
  const message = corrupt(bytes);
  assert(message.includes("labelPtr"), `SDK: ${message}`);
  let trainer = "read";
  try {
    SleecModel.fromModelFile(bytes);
  } catch (e) {
    assert(e instanceof RangeError, `trainer: ${e}`);
    trainer = e.message;
  }
  assert(/labelPtr starts at -1, not 0/.test(trainer), `trainer: ${trainer}`);
});

Deno.test("knn-embedding: points that are not finite are refused by both readers", () => {
  // a NaN similarity beats nothing and nothing beats it, so the neighbours depended on the
  // visiting order: on a file with an index the SDK's exact search and the trainer disagreed
  for (const bad of [NaN, Infinity, -Infinity]) {
    const content = knnModelContent(model());
    const points = (content.tensors.points.data as Float32Array).slice();
    points[5] = bad;
    const bytes = encodeModelFile({
      ...content,
      tensors: { ...content.tensors, points: { ...content.tensors.points, data: points } },
    });
    const message = corrupt(bytes);
    assert(message.includes(`tensor "points" holds a value that is not finite`), `SDK: ${message}`);
    let trainer = "read";
    try {
      SleecModel.fromModelFile(bytes);
    } catch (e) {
      assert(e instanceof RangeError, `trainer: ${e}`);
      trainer = e.message;
    }
    assert(
      trainer.includes(`tensor "points" holds ${bad} at point 2, coordinate 1`),
      `trainer: ${trainer}`,
    );
  }
});
