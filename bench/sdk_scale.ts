/**
 * `deno task sdk-scale`: SDK top-k of `linear-sparse` models as the number of labels L grows
 * (issue 15: time per query that does not grow with L).
 *
 * For every L of `--sizes` (default 10³, 10⁴, 10⁵, 10⁶) it builds a synthetic feature-major
 * model through `linearSparseContent` (the writer of BR, POP and ova): D = `--features`
 * (default 10⁵) features of `--postings` (default 20) labels each, drawn with power-law label
 * frequencies, random f32 weights and random negative-leaning biases (as one-vs-all learners
 * have), so the file stays under 25 MiB at L = 10⁶. Query rows (`--queries`, default 2000) have
 * ~`--nnz` (default 40) power-law features with positive values, L2-normalised, as text rows do.
 *
 * stdout: one JSON line per L with the file bytes, the postings a query row reaches (median),
 * the share of rows the SDK answers by scanning all L (postings for more than a third of the
 * labels: then scanning is as fast) and, for each path, the load time (median of 3: decode and
 * index ready, i.e. `loadModel`, plus its first query for the file without `biasOrder`, which
 * sorts the bias then) and the top-5 p50/p99 µs per query:
 * - `fast`: `loadModel(bytes).predictTopK(x, 5)` on the file as written (with `biasOrder`; the
 *   SDK picks the sparse or the dense path per row);
 * - `sparse`: the sparse path forced (the scorer's `topK(indices, values, 5, false)`);
 * - `fastNoOrder`: the same file without `biasOrder` (files written before it; the SDK sorts
 *   the bias once, on the first query);
 * - `dense`: the previous path, every label's score then a scan of all L (`topK` over the
 *   scorer's dense scores, same row preprocessing);
 * and `recallAt5` of fast against dense (exact: 1) and `identical`, the fraction of queries whose
 * labels and scores are bit-identical.
 *
 *   npx deno task sdk-scale [--sizes 1000,1000000] [--queries 2000] [--dense-queries 300]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { encodeModelFile } from "../src/format/model_file.ts";
import type { ModelFileContent } from "../src/format/types.ts";
import { linearSparseContent } from "../src/models/br/label_weights.ts";
import { decodeModel } from "../sdk/decode.ts";
import { featurizer, type SparseInput } from "../sdk/features.ts";
import { KINDS } from "../sdk/kinds/mod.ts";
import { loadModel, type TopK } from "../sdk/mod.ts";
import { topK, type TopKScorer } from "../sdk/topk.ts";
import { mulberry32 } from "../tests/mulberry32.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "1000,10000,100000,1000000" },
    features: { type: "string", default: "100000" },
    postings: { type: "string", default: "20" },
    nnz: { type: "string", default: "40" },
    queries: { type: "string", default: "2000" },
    "dense-queries": { type: "string", default: "300" },
    seed: { type: "string", default: "15" },
  },
});

/** A sampler of [0, n) with P(i) ∝ (i + 1)^-s (inverse CDF on a table), in a shuffled order. */
function powerLaw(n: number, s: number, rand: () => number): () => number {
  const cdf = new Float64Array(n);
  for (let i = 0, t = 0; i < n; i++) cdf[i] = t += (i + 1) ** -s;
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [perm[i], perm[j]] = [perm[j], perm[i]];
  }
  return () => {
    const u = rand() * cdf[n - 1];
    let lo = 0, hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return perm[lo];
  };
}

/** A synthetic `linear-sparse` content: `postings` labels per feature, biases for every label. */
function syntheticModel(D: number, L: number, postings: number, seed: number): ModelFileContent {
  const rand = mulberry32(seed), label = powerLaw(L, 0.8, rand);
  const count = new Int32Array(L + 1), byFeature: Int32Array[] = [];
  for (let j = 0; j < D; j++) {
    const set = new Set<number>();
    for (let t = 0; t < postings; t++) set.add(label());
    byFeature.push(Int32Array.from(set));
    for (const l of set) count[l + 1]++;
  }
  for (let l = 0; l < L; l++) count[l + 1] += count[l];
  // label-major (features increase within a label: features are visited in order)
  const next = count.slice(0, L), nnz = count[L];
  const featIdx = new Int32Array(nnz), values = new Float32Array(nnz);
  for (let j = 0; j < D; j++) {
    for (const l of byFeature[j]) {
      const q = next[l]++;
      featIdx[q] = j;
      values[q] = (rand() - 0.3) * 2;
    }
  }
  const bias = Float32Array.from({ length: L }, () => -1 - 2 * rand() ** 2);
  return linearSparseContent(
    { numFeatures: D, numLabels: L, labelPtr: count, featIdx, values, bias },
    { meta: { synthetic: true } },
  );
}

function queryRows(D: number, n: number, nnz: number, seed: number): SparseInput[] {
  const rand = mulberry32(seed ^ 0x5eed), feature = powerLaw(D, 1, rand);
  return Array.from({ length: n }, () => {
    const row = new Map<number, number>();
    const k = Math.max(1, Math.round(nnz * (0.5 + rand())));
    for (let t = 0; t < k; t++) {
      const j = feature();
      row.set(j, (row.get(j) ?? 0) + 1);
    }
    const indices = [...row.keys()].sort((a, b) => a - b);
    const values = indices.map((j) => row.get(j)! * (1 + Math.log1p(j)));
    const norm = Math.hypot(...values);
    return { indices, values: values.map((v) => v / norm) };
  });
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** p50/p99 µs of `query` over `rows` (each row timed alone, after a warm-up pass). */
function latency(rows: SparseInput[], query: (x: SparseInput) => TopK) {
  for (const x of rows.slice(0, Math.min(rows.length, 200))) query(x);
  const us = rows.map((x) => {
    const t = performance.now();
    query(x);
    return (performance.now() - t) * 1000;
  });
  return { p50us: round(percentile(us, 0.5)), p99us: round(percentile(us, 0.99)) };
}

if (import.meta.main) {
  const D = +flags.features!, postings = +flags.postings!, seed = +flags.seed!;
  const nQueries = +flags.queries!, nDense = +flags["dense-queries"]!;
  for (const L of flags.sizes!.split(",").map(Number)) {
    const content = syntheticModel(D, L, postings, seed + L);
    const bytes = encodeModelFile(content);
    const { biasOrder: _, ...withoutOrder } = content.tensors;
    const oldBytes = encodeModelFile({ ...content, tensors: withoutOrder });
    const rows = queryRows(D, nQueries, +flags.nnz!, seed);

    // load times: the median of 3 loads of each (interleaved), after a warm-up of every path
    const loads = { fast: [] as number[], noOrder: [] as number[], dense: [] as number[] };
    let model = loadModel(bytes), oldModel = loadModel(oldBytes);
    let decoded = decodeModel(bytes), scorer = KINDS[decoded.kind](decoded);
    for (let rep = 0; rep < 3; rep++) {
      let t = performance.now();
      model = loadModel(bytes);
      loads.fast.push(performance.now() - t);
      t = performance.now();
      oldModel = loadModel(oldBytes);
      oldModel.predictTopK(rows[0], 5); // sorts the bias
      loads.noOrder.push(performance.now() - t);
      t = performance.now();
      decoded = decodeModel(bytes);
      scorer = KINDS[decoded.kind](decoded);
      loads.dense.push(performance.now() - t);
    }
    const prep = featurizer(decoded);
    const dense = (x: SparseInput) => topK(scorer(...prep(x)), L, 5);
    const sparseTopK = (scorer as TopKScorer).topK!;
    const sparse = (x: SparseInput) => sparseTopK(...prep(x), 5, false);
    // the labels' postings a row reaches (an upper bound of the labels it touches)
    const ptr = decoded.tensors.featPtr.data;
    const reach = rows.map((x) =>
      Array.from(x.indices).reduce((n, j) => n + ptr[j + 1] - ptr[j], 0)
    );

    let hits = 0, identical = 0;
    const compared = rows.slice(0, nDense);
    for (const x of compared) {
      const a = model.predictTopK(x, 5), b = dense(x), c = oldModel.predictTopK(x, 5);
      const d = sparse(x);
      const want = new Set(b.labels);
      hits += a.labels.filter((l) => want.has(l)).length / b.labels.length;
      const same = (u: TopK) =>
        u.labels.every((l, i) => l === b.labels[i] && Object.is(u.scores[i], b.scores[i]));
      if (a.labels.length === b.labels.length && same(a) && same(c) && same(d)) identical++;
    }
    console.log(JSON.stringify({
      L,
      D,
      nnz: content.params.nnz,
      fileBytes: bytes.length,
      fileBytesWithoutBiasOrder: oldBytes.length,
      queries: rows.length,
      rowPostingsP50: percentile(reach, 0.5),
      denseRowShare: round(reach.filter((n) => n * 3 > L).length / rows.length, 4),
      fast: {
        loadMs: round(percentile(loads.fast, 0.5)),
        ...latency(rows, (x) => model.predictTopK(x, 5)),
      },
      sparse: latency(rows, sparse),
      fastNoOrder: {
        loadMs: round(percentile(loads.noOrder, 0.5)),
        ...latency(rows, (x) => oldModel.predictTopK(x, 5)),
      },
      dense: {
        loadMs: round(percentile(loads.dense, 0.5)),
        ...latency(compared, dense),
      },
      recallAt5: round(hits / compared.length, 6),
      identical: round(identical / compared.length, 6),
    }));
  }
}
