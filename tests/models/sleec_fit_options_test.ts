/**
 * Training options of SLEEC that change what each learner sees: `featureWeighting` (TF-IDF),
 * `rowFraction` and `featureFraction` (seeded per learner), and `unclusteredLearners`.
 */
import { trainSleec } from "../../src/models/sleec/batch.ts";
import { learnerView } from "../../src/models/sleec/learner_view.ts";
import { inverseDocumentFrequency } from "../../src/data/inverse_document_frequency.ts";
import { SleecModel } from "../../src/models/sleec/batch.ts";
import { resolveConfig } from "../../src/models/sleec/config.ts";
import { SleecStream } from "../../src/models/sleec/stream.ts";
import { loadModel } from "../../sdk/mod.ts";
import { makeBatch, plantedData } from "./estimator_checks.ts";
import { assert, messageOf } from "../helpers.ts";

const d = plantedData(200, 6, 5);
const b = makeBatch(d.rows, d.numFeatures, d.numLabels);
const opts = { rank: 8, svpNeighbours: 20, k: 5 };

Deno.test("sleec rowFraction: each learner gets its own seeded subset of the rows", () => {
  const m = trainSleec(b.x, b.y, { ...opts, numLearners: 3, rowFraction: 0.5 });
  const n = Math.ceil(0.5 * b.x.numRows);
  const firstLabels = new Set<string>();
  for (let t = 0; t < 3; t++) {
    const cs = m.knn.clusters.filter((c) => c.learner === t);
    const pts = cs.reduce((s, c) => s + c.numPoints, 0);
    assert(pts === n, `learner ${t} has ${pts} points, want ${n}`);
    firstLabels.add(cs.flatMap((c) => c.labels.slice(0, 20).map((l) => l.join("."))).join("|"));
  }
  assert(firstLabels.size === 3, "the learners' rows must differ");
  const again = trainSleec(b.x, b.y, { ...opts, numLearners: 3, rowFraction: 0.5 });
  const f1 = m.toModelFile(), f2 = again.toModelFile();
  assert(f1.length === f2.length && f1.every((v, i) => v === f2[i]), "same seed, same model");
  const full = learnerView(b.x, 1, 1, { seed: 3 });
  assert(full.x === b.x && full.rows.length === b.x.numRows, "fractions 1 must keep x itself");
});

Deno.test("sleec featureFraction: learners see different seeded halves of the features", () => {
  const v1 = learnerView(b.x, 1, 0.5, { seed: 1 }), v2 = learnerView(b.x, 1, 0.5, { seed: 2 });
  const cols = (x: typeof b.x) => new Set(x.indices.subarray(0, x.indptr[x.numRows]));
  const c1 = cols(v1.x), c2 = cols(v2.x);
  const D = b.x.numCols;
  assert(c1.size <= Math.ceil(D / 2) && c2.size <= Math.ceil(D / 2), `${c1.size}, ${c2.size}`);
  assert([...c1].some((j) => !c2.has(j)), "two seeds must keep different features");
  for (let i = 0; i < v1.x.numRows; i++) {
    let ss = 0;
    for (let e = v1.x.indptr[i]; e < v1.x.indptr[i + 1]; e++) ss += v1.x.values[e] ** 2;
    assert(ss === 0 || Math.abs(ss - 1) < 1e-5, `row ${i} is not unit-norm: ${ss}`);
  }
  const before = b.x.values.slice();
  trainSleec(b.x, b.y, { ...opts, numLearners: 2, featureFraction: 0.5 });
  assert(b.x.values.every((v, i) => v === before[i]), "training mutated the input");
});

Deno.test("sleec featureWeighting tfidf: IDF of the rows, applied to queries and written to the file", () => {
  const idf = inverseDocumentFrequency(b.x);
  let df0 = 0;
  for (let e = 0; e < b.x.indptr[b.x.numRows]; e++) if (b.x.indices[e] === 0) df0++;
  const want = Math.log((1 + b.x.numRows) / (1 + df0)) + 1;
  assert(Math.abs(idf[0] - want) < 1e-5, `idf[0] ${idf[0]} vs ${want}`);
  const m = trainSleec(b.x, b.y, { ...opts, featureWeighting: "tfidf" });
  assert(m.idf !== undefined && m.idf.every((v, j) => v === idf[j]), "the model keeps the IDF");
  // the file carries the IDF in its preprocessing block: the trainer read back and the SDK
  // weight raw rows as the trainer does
  const bytes = m.toModelFile();
  const back = SleecModel.fromModelFile(bytes), sdk = loadModel(bytes);
  for (const r of d.rows.slice(0, 40)) {
    const want = m.predictTopK(r.x, 3);
    const got = back.predictTopK(r.x, 3), s = sdk.predictTopK(r.x, 3);
    assert(want.labels.join() === got.labels.join(), `read back: ${got.labels} vs ${want.labels}`);
    assert(
      want.labels.join() === Array.from(s.labels).join(),
      `SDK: ${s.labels} vs ${want.labels}`,
    );
  }
  const plain = trainSleec(b.x, b.y, opts);
  assert(plain.idf === undefined, "no IDF by default");
});

Deno.test("sleec fit options: bad values name the option", () => {
  assert(messageOf(() => resolveConfig({ rowFraction: 0 })).includes("rowFraction"), "rows 0");
  assert(messageOf(() => resolveConfig({ rowFraction: 1.5 })).includes("rowFraction"), "rows");
  assert(messageOf(() => resolveConfig({ featureFraction: 0 })).includes("featureFraction"), "f");
  assert(
    messageOf(() => resolveConfig({ featureWeighting: "bm25" })).includes("featureWeighting"),
    "w",
  );
  assert(messageOf(() => learnerView(b.x, 2, 1, { seed: 0 })).includes("rowFraction"), "view");
});

Deno.test("sleec unclusteredLearners: the first learners fit all rows in one cluster, the others cluster", () => {
  const m = trainSleec(b.x, b.y, {
    ...opts,
    numClusters: 3,
    numLearners: 3,
    unclusteredLearners: 1,
  });
  const of = (t: number) => m.knn.clusters.filter((c) => c.learner === t);
  assert(
    of(0).length === 1 && of(0)[0].numPoints === b.x.numRows,
    "learner 0: one cluster of all rows",
  );
  for (const t of [1, 2]) {
    assert(of(t).length === 3, `learner ${t} has ${of(t).length} clusters, want 3`);
    assert(of(t).reduce((s, c) => s + c.numPoints, 0) === b.x.numRows, `learner ${t} points`);
  }
  // the same clustered learners as without the option (same seeds per learner)
  const clustered = trainSleec(b.x, b.y, { ...opts, numClusters: 3, numLearners: 3 });
  const pts = (cs: typeof m.knn.clusters) => cs.map((c) => c.points.join()).join("|");
  assert(
    pts(of(2)) === pts(clustered.knn.clusters.filter((c) => c.learner === 2)),
    "learner 2 differs from the all-clustered ensemble's",
  );
  const sdk = loadModel(m.toModelFile());
  for (const r of d.rows.slice(0, 30)) {
    const want = m.predictTopK(r.x, 3).labels.join(),
      got = Array.from(sdk.predictTopK(r.x, 3).labels).join();
    assert(want === got, `SDK ${got} vs trainer ${want}`);
  }
  // more than there are learners: all of them
  const all = trainSleec(b.x, b.y, {
    ...opts,
    numClusters: 3,
    numLearners: 2,
    unclusteredLearners: 5,
  });
  assert(all.knn.clusters.length === 2, `${all.knn.clusters.length} clusters, want one a learner`);
  assert(
    messageOf(() => resolveConfig({ unclusteredLearners: -1 })).includes("unclusteredLearners"),
    "a negative count",
  );
  assert(
    messageOf(() => new SleecStream({ unclusteredLearners: 1 })).includes("batch trainer"),
    "the stream refuses it",
  );
});
