/**
 * `knn-embedding` top-k without scanning the labels (sdk/kinds/knn_embedding.ts): only the labels
 * the neighbours carry score above 0, the rest follow by index; the answer is the dense one bit
 * for bit on random SLEEC-shaped models (several learners and clusters, weighted and not), at
 * k below, around and above the number of labels reached, and on the golden file. The neighbour
 * search abandons points early (sdk/kinds/knn_index.ts): still the full scan's answer, ties
 * included; with the file's list index (src/models/sleec/knn_index.ts) probing every list is
 * exact, the default probes reach the calibrated recall on clustered points, and an
 * inconsistent index is a `corrupt` file naming the tensor.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import { knnModelContent } from "../../src/models/sleec/model_file.ts";
import { decodeModel } from "../../sdk/decode.ts";
import { featurizer, type SparseInput } from "../../sdk/features.ts";
import { KINDS } from "../../sdk/kinds/mod.ts";
import { loadModel, ModelFormatError, type TopK, type TopKOptions } from "../../sdk/mod.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { withKnnIndex } from "../../src/models/sleec/knn_index.ts";
import { dequantize } from "../../src/format/quantize.ts";
import { toPrincipalAxes } from "../../src/models/sleec/principal_axes.ts";
import { encodeKnnModel, knnModelFromContent } from "../../src/models/sleec/model_file.ts";
import type { KnnCluster } from "../../src/models/sleec/predictor.ts";
import { topK } from "../../sdk/topk.ts";
import { assert, mulberry32 } from "./helpers.ts";

const same = (a: TopK, b: TopK) =>
  a.labels.length === b.labels.length &&
  a.labels.every((l, i) => l === b.labels[i] && Object.is(a.scores[i], b.scores[i]));

function check(bytes: Uint8Array, queries: SparseInput[], options?: TopKOptions) {
  const m = decodeModel(bytes), scorer = KINDS[m.kind](m), prep = featurizer(m);
  const model = loadModel(bytes), L = m.numLabels;
  let reached = 0;
  for (const x of queries) {
    const all = scorer(...prep(x));
    const positive = all.filter((s) => s > 0).length;
    reached = Math.max(reached, positive);
    for (const k of [0, 1, 5, positive, positive + 1, positive + 7, L, L + 3]) {
      const want = topK(all, L, k);
      assert(same(model.predictTopK(x, k, options), want), `k ${k}: fast differs from dense`);
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
      const indices = [...new Set([0, 1, 2, 3].map(() => Math.floor(rand() * D)))].sort((a, b) =>
        a - b
      );
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

/**
 * A model whose clusters hold `n` unit points around 20 shared topic centres, with duplicated
 * points (exact ties) and labels by topic; V is the identity (z = x̂), and the queries are
 * stored points plus noise (as test rows embed near their training neighbours).
 */
function clustered(seed: number, n: number, learners: number, weighted: boolean) {
  const rand = mulberry32(seed), g = () => rand() - 0.5, r = 12, D = r, L = 300, topics = 20;
  const unit = (v: Float32Array) => v.map((x, _, a) => x / Math.hypot(...a));
  const centres = Array.from({ length: topics }, () => Float32Array.from({ length: r }, g));
  const clusters: KnnCluster[] = Array.from({ length: 2 * learners }, (_, c) => {
    const points = new Float32Array(n * r), labels: Int32Array[] = [];
    for (let p = 0; p < n; p++) {
      const t = Math.floor(rand() * topics);
      if (p > 0 && rand() < 0.1) { // a duplicate of an earlier point, other labels
        const q = Math.floor(rand() * p);
        points.copyWithin(p * r, q * r, q * r + r);
      } else points.set(unit(centres[t].map((x) => x + 0.25 * g())), p * r);
      labels.push(
        Int32Array.from(new Set([t * 10 + Math.floor(rand() * 5), Math.floor(rand() * L)])),
      );
      labels[p].sort();
    }
    return {
      learner: c % learners,
      centroid: Float32Array.from({ length: D }, g),
      v: Float32Array.from({ length: D * r }, (_, i) => +(i % (r + 1) === 0)),
      numPoints: n,
      points,
      labels,
    };
  });
  const model = {
    numFeatures: D,
    numLabels: L,
    rank: r,
    numLearners: learners,
    k: 7,
    weighted,
    clusters,
  };
  const queries = Array.from({ length: 60 }, () => {
    const pts = clusters[Math.floor(rand() * clusters.length)].points, p = Math.floor(rand() * n);
    const indices = Array.from({ length: D }, (_, j) => j);
    return { indices, values: indices.map((j) => pts[p * r + j] + 0.1 * g()) };
  });
  return { model, queries };
}

const recallAt5 = (a: TopK, b: TopK) => {
  const want = new Set(b.labels);
  return a.labels.filter((l) => want.has(l)).length / b.labels.length;
};

Deno.test("knn index: every list probed = exact, ties included; default probes keep recall", () => {
  for (const [seed, learners, weighted] of [[5, 1, true], [6, 2, false]] as const) {
    const { model, queries } = clustered(seed, 400, learners, weighted);
    const plain = knnModelContent(model);
    const content = withKnnIndex(plain, { minPoints: 0, listSize: 25 });
    const lists = content.tensors.knnCentroids.shape[0], bytes = encodeModelFile(content);
    assert(lists >= 2 * learners * 10, `lists ${lists}`);
    // every list probed: the exact neighbours (abandoning early, lists best first) = dense
    check(bytes, queries, { probes: lists });
    // the index's file answers `exact` as the file without it, turned to the same axes
    const m = loadModel(bytes), old = loadModel(encodeModelFile(toPrincipalAxes(plain)));
    const unturned = loadModel(
        encodeModelFile(withKnnIndex(plain, { minPoints: 0, listSize: 25, principalAxes: false })),
      ),
      plainModel = loadModel(encodeModelFile(plain));
    let recall = 0;
    for (const x of queries) {
      const exact = m.predictTopK(x, 5, { exact: true });
      assert(same(exact, old.predictTopK(x, 5)), "indexed exact differs from the file without");
      assert(
        same(unturned.predictTopK(x, 5, { exact: true }), plainModel.predictTopK(x, 5)),
        "without the turn, indexed exact differs from the plain file",
      );
      assert(same(m.predictTopK(x, 5, { probes: lists }), exact), "all lists probed differs");
      recall += recallAt5(m.predictTopK(x, 5), exact) / queries.length;
      assert(m.predictTopK(x, 5, { probes: 1 }).labels.length === 5, "probes 1: 5 labels");
    }
    const probes = content.params.knnProbes as number;
    assert(probes >= 1 && probes <= lists, `knnProbes ${probes}`);
    assert(recall >= 0.9, `recall@5 ${recall} at the default ${probes} probes`);
  }
});

Deno.test("knn index: points with ties, zero and huge norms: early abandon = full scan", () => {
  const { model, queries } = clustered(7, 300, 1, true);
  const pts = model.clusters[0].points, r = model.rank;
  for (let a = 0; a < r; a++) {
    pts[5 * r + a] = 0; // a zero point
    pts[9 * r + a] *= 1e6; // a huge one
    pts[11 * r + a] = pts[10 * r + a]; // a tie
  }
  queries.push({ indices: [], values: [] }, { indices: [3], values: [1e-30] });
  check(encodeModelFile(knnModelContent(model)), queries);
  const indexed = withKnnIndex(knnModelContent(model), { minPoints: 0, listSize: 30 });
  check(encodeModelFile(indexed), queries, { probes: 1e9 });
});

Deno.test("knn index: written by encodeKnnModel from 1024 points, ignored by the trainer's reader", () => {
  const small = clustered(8, 100, 1, true).model, big = clustered(9, 1100, 1, true).model;
  assert(!decodeModelFile(encodeKnnModel(small)).tensors.knnOrder, "index below 1024 points");
  const file = decodeModelFile(encodeKnnModel(big));
  assert(file.tensors.knnOrder.data.length === 2 * 1100, "knnOrder covers the points");
  const back = knnModelFromContent(file);
  assert(back.clusters[1].points.length === 1100 * big.rank, "points read back");
  const plain = knnModelContent(small);
  assert(withKnnIndex(plain) === plain, "content below minPoints returned as is");
});

Deno.test("knn index: points stored list by list with their labels; exact = that file without the index", () => {
  const { model, queries } = clustered(12, 500, 2, true);
  for (const quantize of [undefined, "i8"] as const) {
    const base = knnModelContent(model, quantize ? { quantize } : {});
    const indexed = withKnnIndex(base, { minPoints: 0, listSize: 25 }), t = indexed.tensors;
    const order = t.knnOrder.data as Int32Array, r = model.rank;
    assert(order.every((p, e) => p === e), `${quantize}: knnOrder is the identity`);
    // per cluster, the points (as read) with their labels are those of the turned content
    const rows = (c: ModelFileContent) => {
      const pts = dequantize(c.tensors.points), pp = c.tensors.pointPtr.data as Int32Array;
      const lp = c.tensors.labelPtr.data as Int32Array, lab = c.tensors.labels.data as Int32Array;
      return Array.from({ length: pp.length - 1 }, (_, k) => {
        const keys: string[] = [];
        for (let p = pp[k]; p < pp[k + 1]; p++) {
          keys.push(`${pts.subarray(p * r, p * r + r)}|${lab.subarray(lp[p], lp[p + 1])}`);
        }
        return keys.sort().join("\n");
      });
    };
    const turned = toPrincipalAxes(base), a = rows(indexed), b = rows(turned);
    assert(a.length === b.length && a.every((k, c) => k === b[c]), `${quantize}: same rows`);
    assert(
      String(t.labelPtr.data) !== String(turned.tensors.labelPtr.data),
      `${quantize}: the points moved`,
    );
    // the exact search of the indexed file = the same file without its index, bit for bit
    const params = { ...indexed.params };
    delete params.knnProbes;
    const tensors = { ...t };
    for (const name of ["knnCentroids", "knnLists", "knnPtr", "knnOrder"]) delete tensors[name];
    const m = loadModel(encodeModelFile(indexed));
    const plain = loadModel(encodeModelFile({ ...indexed, params, tensors }));
    for (const x of queries) {
      assert(same(m.predictTopK(x, 5, { exact: true }), plain.predictTopK(x, 5)), "exact");
    }
  }
});

Deno.test("knn index: an inconsistent index is a corrupt file naming the tensor", () => {
  const content = withKnnIndex(knnModelContent(clustered(10, 200, 1, true).model), {
    minPoints: 0,
    listSize: 20,
  });
  const t = content.tensors;
  const broken = (name: string, data: Int32Array | Float32Array): ModelFileContent => ({
    ...content,
    tensors: { ...t, [name]: { ...t[name], shape: [data.length], data } },
  });
  const order = (t.knnOrder.data as Int32Array).slice(),
    ptr = (t.knnPtr.data as Int32Array).slice();
  order[3] = order[4];
  const across = ptr.slice();
  across[t.knnLists.data[1] as number] += 1; // cluster 0's last list takes cluster 1's first point
  const cases: [string, ModelFileContent][] = [
    ["knnOrder", broken("knnOrder", order)],
    ["knnOrder", broken("knnOrder", order.subarray(1))],
    ["knnPtr", broken("knnPtr", across)],
    ["knnLists", broken("knnLists", Int32Array.of(0, 3))],
    ["knnCentroids", broken("knnCentroids", new Float32Array(5))],
  ];
  for (const [name, c] of cases) {
    let error: unknown;
    try {
      loadModel(encodeModelFile(c));
    } catch (e) {
      error = e;
    }
    assert(
      error instanceof ModelFormatError && error.reason === "corrupt" &&
        error.message.includes(name),
      `${name}: ${error}`,
    );
  }
});

Deno.test("knn index: without a list size, the cheaper of 32 and 64 points a list is written", () => {
  const { model } = clustered(8, 1200, 1, true);
  const plain = knnModelContent(model);
  const auto = withKnnIndex(plain, { minPoints: 0 });
  const a = withKnnIndex(plain, { minPoints: 0, listSize: 32 });
  const b = withKnnIndex(plain, { minPoints: 0, listSize: 64 });
  // the point rows a query reads: its cluster's centroids, then the points of the probed lists
  const cost = (c: ModelFileContent) => {
    const lists = c.tensors.knnLists.data as Int32Array, pp = c.tensors.pointPtr.data as Int32Array;
    const probes = c.params.knnProbes as number;
    let w = 0;
    for (let k = 0; k + 1 < lists.length; k++) {
      const n = pp[k + 1] - pp[k], nl = lists[k + 1] - lists[k];
      if (nl > 0) w += n * (nl + (Math.min(probes, nl) * n) / nl);
    }
    return w;
  };
  assert(cost(a) !== cost(b), "the two candidates differ");
  const chosen = cost(a) < cost(b) ? a : b;
  const same32or64 = (x: ModelFileContent) =>
    (["knnCentroids", "knnLists", "knnPtr", "knnOrder"] as const).every((t) =>
      String(x.tensors[t].data) === String(auto.tensors[t].data)
    ) && x.params.knnProbes === auto.params.knnProbes;
  assert(same32or64(chosen), "the default is the cheaper candidate, as written with its size");
  assert(!same32or64(chosen === a ? b : a), "and not the other");
});
