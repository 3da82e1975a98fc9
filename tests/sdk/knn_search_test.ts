/**
 * The neighbour search of `knn-embedding` (sdk/kinds/knn_index.ts) against a brute-force
 * reference written here from docs/model-format.md (sim_p = Σ_a point_p[a] · z[a] in a = 0, 1, …
 * order, / ‖z‖; the k' best by similarity, ties to the earlier point): the exact search (every
 * list, or no index) returns the reference's points and similarities bit for bit, on points whose
 * energy sits in the first coordinates (the bounds abandon most points) and on random ones (no
 * bounds), at ranks that are and are not multiples of 8, with duplicated, zero and huge points;
 * the approximate search returns exact similarities in the reference order, and its recall@5
 * of the labels against the exact answer is high on a good index and low on a scrambled one
 * (the floor tells them apart). Prediction leaves the model's bytes unchanged.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { withKnnIndex } from "../../src/models/sleec/knn_index.ts";
import { knnModelContent } from "../../src/models/sleec/model_file.ts";
import type { KnnCluster } from "../../src/models/sleec/predictor.ts";
import { decodeModel } from "../../sdk/decode.ts";
import { knnSearch } from "../../sdk/kinds/knn_index.ts";
import { loadModel, type SparseInput, type TopK } from "../../sdk/mod.ts";
import { assert, mulberry32 } from "./helpers.ts";

/**
 * One learner, `C` clusters of `n` unit points in R^r: `front` points (a topic centre plus noise,
 * coordinate a scaled by 1/√(a + 2): most energy in the first coordinates, as trained SLEEC
 * embeddings) or uniform ones; every 7th point duplicates an earlier one (exact ties). Labels
 * follow the topic. Queries: noisy copies of stored points.
 */
function model(seed: number, r: number, n: number, front: boolean) {
  const rand = mulberry32(seed), g = () => rand() + rand() + rand() - 1.5, C = 2, L = 200;
  const unit = (v: Float32Array) => v.map((x, _, a) => x / Math.hypot(...a));
  const topics = Array.from({ length: 12 }, () => Float32Array.from({ length: r }, g));
  const scale = (a: number) => front ? 1 / Math.sqrt(a + 2) : 1;
  const clusters: KnnCluster[] = Array.from({ length: C }, () => {
    const points = new Float32Array(n * r), labels: Int32Array[] = [];
    for (let p = 0; p < n; p++) {
      const t = Math.floor(rand() * topics.length);
      if (p % 7 === 6) points.copyWithin(p * r, (p - 3) * r, (p - 2) * r);
      else {
        points.set(
          unit(Float32Array.from({ length: r }, (_, a) => scale(a) * (topics[t][a] + 0.4 * g()))),
          p * r,
        );
      }
      labels.push(
        Int32Array.from(new Set([t * 8 + Math.floor(rand() * 4), Math.floor(rand() * L)])).sort(),
      );
    }
    return {
      learner: 0,
      centroid: Float32Array.from({ length: r }, g),
      v: Float32Array.from({ length: r * r }, (_, i) => +(i % (r + 1) === 0)), // z = x̂
      numPoints: n,
      points,
      labels,
    };
  });
  const content = knnModelContent({
    numFeatures: r,
    numLabels: L,
    rank: r,
    numLearners: 1,
    k: 10,
    weighted: true,
    clusters,
  });
  const queries: SparseInput[] = Array.from({ length: 40 }, () => {
    const c = clusters[Math.floor(rand() * C)], p = Math.floor(rand() * n);
    const indices = Array.from({ length: r }, (_, j) => j);
    return { indices, values: indices.map((j) => c.points[p * r + j] + 0.05 * g()) };
  });
  return { content, queries };
}

/** The reference: cluster c's k' best points by the ordered similarity, ties to the earlier. */
function reference(content: ModelFileContent, c: number, z: Float64Array, kk: number) {
  const r = content.params.rank as number, pts = content.tensors.points.data as Float32Array;
  const ptr = content.tensors.pointPtr.data as Int32Array;
  let ss = 0;
  for (let a = 0; a < r; a++) ss += z[a] * z[a];
  const zinv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
  const all: [number, number][] = [];
  for (let p = ptr[c]; p < ptr[c + 1]; p++) {
    let s = 0;
    for (let a = 0; a < r; a++) s += pts[p * r + a] * z[a];
    all.push([p, s * zinv]);
  }
  all.sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  return { zinv, all, best: all.slice(0, kk) };
}

/** Runs knnSearch on `content` for each query (in each cluster) and checks it against the reference. */
function checkSearch(content: ModelFileContent, queries: SparseInput[], probes?: number) {
  const m = decodeModel(encodeModelFile(content)), r = content.params.rank as number;
  const pts = m.tensors.points.data as Float32Array;
  const ptr = m.tensors.pointPtr.data as Int32Array, C = ptr.length - 1;
  const z = new Float64Array(r), kk = 10, ids = new Int32Array(kk), sims = new Float64Array(kk);
  const { search } = knnSearch(m, pts, r, ptr, z, ids, sims);
  let hits = 0, total = 0;
  for (const x of queries) {
    for (let c = 0; c < C; c++) {
      z.fill(0);
      for (let e = 0; e < x.indices.length; e++) z[x.indices[e]] = x.values[e];
      const ref = reference(content, c, z, kk), simOf = new Map(ref.all);
      const n = search(c, ref.zinv, kk, probes);
      assert(n === kk, `cluster ${c}: ${n} neighbours`);
      for (let i = 0; i < n; i++) {
        // every similarity is the ordered sum's, in the reference's order
        assert(Object.is(sims[i], simOf.get(ids[i])), `point ${ids[i]}: sim ${sims[i]}`);
        if (i > 0) {
          assert(
            sims[i] < sims[i - 1] || sims[i] === sims[i - 1] && ids[i] > ids[i - 1],
            `rank ${i}: out of order`,
          );
        }
        if (probes === undefined) {
          assert(ids[i] === ref.best[i][0], `rank ${i}: point ${ids[i]}, want ${ref.best[i][0]}`);
        }
        hits += +ref.best.some(([p]) => p === ids[i]);
        total++;
      }
    }
  }
  return hits / total;
}

Deno.test("knn search: exact = brute force bit for bit, with and without bounds and index", () => {
  for (const [r, front] of [[40, true], [37, true], [29, false], [6, true]] as const) {
    const { content, queries } = model(r, r, 300, front);
    // a zero point, a huge one and zero / tiny queries
    const pts = content.tensors.points.data as Float32Array;
    for (let a = 0; a < r; a++) pts[4 * r + a] = 0, pts[8 * r + a] *= 1e6;
    queries.push({ indices: [], values: [] }, { indices: [1], values: [1e-30] });
    checkSearch(content, queries);
    const indexed = withKnnIndex(content, { minPoints: 0, listSize: 20 });
    checkSearch(indexed, queries);
    checkSearch(indexed, queries, 1e9);
  }
});

Deno.test("knn search: probed lists give exact similarities; recall floor fails a scrambled index", () => {
  const { content, queries } = model(11, 48, 1500, true);
  const indexed = withKnnIndex(content, { minPoints: 0, listSize: 40 });
  const probes = indexed.params.knnProbes as number;
  const lists = indexed.tensors.knnCentroids.shape[0] / 2;
  assert(probes < lists, `default probes ${probes} of ${lists} lists`);
  // neighbour recall of the default probes (each similarity checked against the reference)
  const good = checkSearch(indexed, queries, probes);
  // the same lists and centroids, but the points dealt to the lists at random
  const order = (indexed.tensors.knnOrder.data as Int32Array).slice(), rand = mulberry32(3);
  for (let c = 0; c < 2; c++) {
    for (let i = 1500 * c + 1499; i > 1500 * c; i--) {
      const j = 1500 * c + Math.floor(rand() * (i - 1500 * c + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
  }
  const scrambled = {
    ...indexed,
    tensors: { ...indexed.tensors, knnOrder: { ...indexed.tensors.knnOrder, data: order } },
  };
  const bad = checkSearch(scrambled, queries, probes);
  assert(good >= 0.9 && bad < 0.9, `neighbour recall: index ${good}, scrambled ${bad}`);
  // label recall@5 of predictTopK (default probes) against the exact answer
  const recall = (c: ModelFileContent) => {
    const m = loadModel(encodeModelFile(c));
    let sum = 0;
    for (const x of queries) {
      const want = new Set(m.predictTopK(x, 5, { exact: true }).labels);
      sum += m.predictTopK(x, 5).labels.filter((l) => want.has(l)).length / want.size;
    }
    return sum / queries.length;
  };
  const goodLabels = recall(indexed), badLabels = recall(scrambled);
  assert(goodLabels >= 0.95 && badLabels < 0.95, `label recall ${goodLabels}, ${badLabels}`);
});

Deno.test("knn search: prediction does not change the model's bytes", () => {
  const { content, queries } = model(12, 24, 400, true);
  for (const c of [content, withKnnIndex(content, { minPoints: 0, listSize: 20 })]) {
    const bytes = encodeModelFile(c), copy = bytes.slice(), m = loadModel(bytes), L = m.numLabels;
    const first: TopK[] = queries.map((x) => m.predictTopK(x, 5));
    for (const x of queries) {
      m.predictTopK(x, 5, { exact: true }), m.predictTopK(x, 5, { probes: 1 });
    }
    m.predictBatch(queries, L);
    assert(bytes.every((b, i) => b === copy[i]), "the file's bytes changed");
    queries.forEach((x, q) => {
      const again = m.predictTopK(x, 5);
      assert(
        again.labels.every((l, i) =>
          l === first[q].labels[i] && Object.is(again.scores[i], first[q].scores[i])
        ),
        `query ${q}: a later answer differs`,
      );
    });
  }
});
