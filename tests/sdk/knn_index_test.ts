/**
 * `knn-embedding` top-k without scanning the labels (sdk/kinds/knn_embedding.ts): only the labels
 * the neighbours carry score above 0, the rest follow by index; the answer is the dense one bit
 * for bit on random SLEEC-shaped models (several learners and clusters, weighted and not), at
 * k below, around and above the number of labels reached, and on the golden file.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import { knnModelContent } from "../../src/models/sleec/model_file.ts";
import { decodeModel } from "../../sdk/decode.ts";
import { featurizer, type SparseInput } from "../../sdk/features.ts";
import { KINDS } from "../../sdk/kinds/mod.ts";
import { loadModel, type TopK } from "../../sdk/mod.ts";
import { topK } from "../../sdk/topk.ts";
import { assert, mulberry32 } from "./helpers.ts";

const same = (a: TopK, b: TopK) =>
  a.labels.length === b.labels.length &&
  a.labels.every((l, i) => l === b.labels[i] && Object.is(a.scores[i], b.scores[i]));

function check(bytes: Uint8Array, queries: SparseInput[]) {
  const m = decodeModel(bytes), scorer = KINDS[m.kind](m), prep = featurizer(m);
  const model = loadModel(bytes), L = m.numLabels;
  let reached = 0;
  for (const x of queries) {
    const all = scorer(...prep(x));
    const positive = all.filter((s) => s > 0).length;
    reached = Math.max(reached, positive);
    for (const k of [0, 1, 5, positive, positive + 1, positive + 7, L, L + 3]) {
      const want = topK(all, L, k);
      assert(same(model.predictTopK(x, k), want), `k ${k}: fast differs from dense`);
      assert(same(model.predictTopK(x, k, { exact: true }), want), `k ${k}: exact differs`);
    }
  }
  return reached;
}

Deno.test("knn-embedding top-k: the neighbours' labels then the rest by index = dense", () => {
  for (const [seed, weighted, learners] of [[1, true, 1], [2, false, 2], [3, true, 3]] as const) {
    const rand = mulberry32(seed), g = () => rand() - 0.5, D = 12, r = 4, L = 500;
    const clusters = Array.from({ length: 2 * learners }, (_, c) => {
      const n = 5 + Math.floor(rand() * 30), points = Float32Array.from({ length: n * r }, g);
      return {
        learner: c % learners,
        centroid: Float32Array.from({ length: D }, g),
        v: Float32Array.from({ length: D * r }, g),
        numPoints: n,
        points,
        labels: Array.from({ length: n }, () =>
          // labels bunched at the end so that zero-score labels come before and after them
          Int32Array.from(new Set([L - 1 - Math.floor(rand() * 40), Math.floor(rand() * L)]))
            .sort()),
      };
    });
    const bytes = encodeModelFile(knnModelContent({
      numFeatures: D,
      numLabels: L,
      rank: r,
      numLearners: learners,
      k: 6,
      weighted,
      clusters,
    }));
    const queries = Array.from({ length: 30 }, () => {
      const indices = [...new Set([0, 1, 2, 3].map(() => Math.floor(rand() * D)))];
      return { indices, values: indices.map(g) };
    });
    queries.push({ indices: [], values: [] });
    const reached = check(bytes, queries);
    assert(reached > 5 && reached < L, `labels reached ${reached}`);
  }
});

Deno.test("knn-embedding golden file: fast = dense", async () => {
  const bytes = await Deno.readFile(new URL("../fixtures/v1/knn-embedding.tsm", import.meta.url));
  const D = loadModel(bytes).numFeatures, rand = mulberry32(4);
  check(
    bytes,
    Array.from({ length: 10 }, () => ({ indices: [Math.floor(rand() * D)], values: [1] })),
  );
});
