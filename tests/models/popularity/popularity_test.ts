// Popularity baseline: the shared estimator checks plus its own behaviour (frequencies, growth,
// model file content, state round trip).
import { checkEstimator } from "../estimator_checks.ts";
import { factory, PopularityEstimator } from "../../../src/models/popularity/mod.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert } from "../../helpers.ts";

checkEstimator("popularity", factory, {
  minTrainP1: 0.2,
  skip: {
    newLabels: "popularity ranks by frequency: a rare new label never reaches the top 3",
  },
});

const EMPTY = { indices: new Int32Array(0), values: new Float32Array(0) };

Deno.test("popularity scores are label frequencies minus the threshold, for any row", () => {
  const m = new PopularityEstimator({ threshold: 0.25 });
  m.learnMany({
    x: {
      numRows: 4,
      numCols: 3,
      indptr: Int32Array.of(0, 1, 1, 2, 3),
      indices: Int32Array.of(0, 2, 1),
      values: Float32Array.of(1, 1, 1),
    },
    y: {
      numRows: 4,
      numCols: 3,
      indptr: Int32Array.of(0, 2, 3, 3, 4),
      indices: Int32Array.of(0, 2, 2, 5),
    },
  });
  // counts: 0 -> 1, 2 -> 2, 5 -> 1 (label 5 grows the space beyond numCols)
  assert(m.numLabels === 6 && m.numFeatures === 3 && m.rows === 4, "sizes");
  const s = m.predictScores({ indices: Int32Array.of(1), values: Float32Array.of(9) });
  const expected = [0.25, 0, 0.5, 0, 0, 0.25].map((f) => f - 0.25);
  expected.forEach((e, l) => assert(Math.abs(s[l] - e) < 1e-7, `label ${l}: ${s[l]} vs ${e}`));
  const top = m.predictTopK(EMPTY, 3);
  assert(top.labels.join() === "2,0,5", `top ${top.labels}`); // 0 and 5 tie: smaller first
  m.learnOne(EMPTY, [1, 1]); // duplicates count once
  assert(Math.abs(m.predictScores(EMPTY)[1] - (1 / 5 - 0.25)) < 1e-7, "learnOne");
});

Deno.test("popularity model file is linear-sparse with the scores as bias; state round trip", () => {
  const m = new PopularityEstimator({ numFeatures: 4 });
  for (const y of [[0], [0, 3], [3], [3]]) m.learnOne(EMPTY, y);
  const content = m.toModelContent({ labelNames: ["a", "b", "c", "d"] });
  assert(content.kind === "linear-sparse", content.kind);
  assert(content.tensors.featPtr.data.length === 5, "featPtr has D + 1 entries");
  assert(content.tensors.weights.data.length === 0, "no weights");
  const sdk = loadModel(m.toModelFile({ labelNames: ["a", "b", "c", "d"] }));
  const fromFile = sdk.predictTopK({ indices: Int32Array.of(2), values: Float32Array.of(1) }, 4);
  const direct = m.predictTopK(EMPTY, 4);
  assert(fromFile.labels.join() === direct.labels.join(), `${fromFile.labels} vs ${direct.labels}`);
  const b = factory.restore(structuredClone(m.toState()));
  assert(b.predictScores(EMPTY).join() === m.predictScores(EMPTY).join(), "restored scores");
  let err: unknown;
  try {
    factory.restore({ ...m.toState(), kind: "knn" });
  } catch (e) {
    err = e;
  }
  assert(
    err instanceof TypeError && err.message.endsWith('state kind is "knn", not "popularity"'),
    `${err}`,
  );
});
