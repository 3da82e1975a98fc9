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
 * the share of rows whose postings reach more than a third of the labels (`wideRowShare`: the
 * SDK scored those densely until that switch was dropped for SDK bytes; the sparse path answers
 * them as fast) and, for each path, the load time (median of 3: decode and
 * index ready, i.e. `loadModel`, plus its first query for the file without `biasOrder`, which
 * sorts the bias then) and the top-5 p50/p99 µs per query:
 * - `fast`: `loadModel(bytes).predictTopK(x, 5)` on the file as written (with `biasOrder`);
 * - `sparse`: the scorer's own `topK(indices, values, 5, false)`, without the row preprocessing;
 * - `fastNoOrder`: the same file without `biasOrder` (files written before it; the SDK sorts
 *   the bias once, on the first query);
 * - `dense`: the previous path, every label's score then a scan of all L (`topK` over the
 *   scorer's dense scores, same row preprocessing);
 * and `recallAt5` of fast against dense (exact: 1) and `identical`, the fraction of queries whose
 * labels and scores are bit-identical.
 *
 *   npx deno task sdk-scale [--sizes 1000,1000000] [--queries 2000] [--dense-queries 300]
 *     [--calibrate synthetic|queries]
 *
 * (`--help` lists every flag; bad input, {@linkcode SDK_SCALE}, is one line on stderr and exit
 * code 2 before any model is built.)
 *
 * `--calibrate queries`: the `linear-lowrank` label index calibrates its probe counts on 512
 * query rows drawn like the timed ones but not among them (u = xᵀW), as a trainer calibrates on
 * its own rows (`LowRankScorer.calibration`); default: the exporter's synthetic queries.
 *
 * @module
 */
import { countFlag, intFlag, listFlag, numberFlag } from "../src/cli/commands/args.ts";
import { type BenchScript, choiceFlag, namesFlag, refuseIgnored, runBench } from "./args.ts";
import { encodeModelFile } from "../src/format/model_file.ts";
import type { ModelFileContent } from "../src/format/types.ts";
import { linearSparseContent } from "../src/models/label_weights.ts";
import { decodeModel } from "../sdk/decode.ts";
import { featurizer, type SparseInput } from "../sdk/features.ts";
import { KINDS } from "../sdk/kinds/mod.ts";
import { loadModel, type TopK } from "../sdk/mod.ts";
import { topK } from "../sdk/topk.ts";
import { mulberry32 } from "../tests/mulberry32.ts";
import { withLabelIndex } from "../src/linalg/mips_index.ts";
import { predictorFileContent } from "../src/models/coembed/learner.ts";
import { knnModelContent } from "../src/models/sleec/model_file.ts";
import { withKnnIndex } from "../src/models/sleec/knn_index.ts";
import { quantile } from "./quantile.ts";

/** The model kinds this benchmark builds (`--kinds`). */
const BENCH_KINDS = ["linear-sparse", "linear-lowrank", "random-features", "knn-embedding"];

/** The flags that only some kinds read: refused when no such kind runs. */
const KIND_FLAGS: [flags: string[], kinds: string[]][] = [
  [["features", "postings"], ["linear-sparse"]],
  [["nnz"], ["linear-sparse", "knn-embedding"]],
  [["rank", "embed-features", "calibrate"], ["linear-lowrank", "random-features"]],
  [["knn-rank", "knn-clusters", "knn-points"], ["knn-embedding"]],
];

/** What `deno task sdk-scale` runs with (see {@linkcode SDK_SCALE}). */
export interface SdkScaleOptions {
  sizes: number[];
  features: number;
  postings: number;
  nnz: number;
  queries: number;
  "dense-queries": number;
  seed: number;
  kinds: string[];
  rank: number;
  "embed-features": number;
  calibrate: "synthetic" | "queries";
  "knn-rank": number;
  "knn-clusters": number;
  "knn-points": number;
  workerd: boolean;
  "workerd-queries": number;
  "workerd-batch-ms": number;
}

/**
 * The command line of `deno task sdk-scale`, every flag checked before a model is built: sizes
 * and counts within their limits (`1e6` allowed, `0x10` not), the kinds known, no empty entry,
 * and no flag the run would ignore (a kind's flags without that kind, `--workerd-*` without
 * `--workerd`, `--dense-queries` with it).
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { SDK_SCALE } from "./sdk_scale.ts";
 * const o = await benchOptions(SDK_SCALE, ["--sizes", "1e3,1e4", "--kinds", "linear-sparse"]);
 * console.log(o.sizes, o.kinds, o.queries); // [ 1000, 10000 ] [ "linear-sparse" ] 2000
 * await benchOptions(SDK_SCALE, ["--kinds", "linear-sparse", "--rank", "8"]).catch((e) => console.log(e.message)); // --rank has no effect without --kinds linear-lowrank or random-features
 * ```
 */
export const SDK_SCALE: BenchScript<SdkScaleOptions> = {
  task: "sdk-scale",
  usage: `deno task sdk-scale [--sizes 1e3,1e4,1e5,1e6 (each up to 1e7)]
  [--kinds ${BENCH_KINDS.join(",")}] [--queries 2000] [--dense-queries 300] [--seed 15]
  [--nnz 40] linear-sparse: [--features 100000] [--postings 20]
  linear-lowrank, random-features: [--rank 32] [--embed-features 16384]
    [--calibrate synthetic|queries]
  knn-embedding: [--knn-rank 100] [--knn-clusters 4] [--knn-points 6000]
  [--workerd [--workerd-queries 300] [--workerd-batch-ms 20]]
SDK top-k as the number of labels L grows; one JSON line per L and kind (bench/sdk_scale.ts).`,
  flags: {
    sizes: "string",
    features: "string",
    postings: "string",
    nnz: "string",
    queries: "string",
    "dense-queries": "string",
    seed: "string",
    kinds: "string",
    rank: "string",
    "embed-features": "string",
    calibrate: "string",
    "knn-rank": "string",
    "knn-clusters": "string",
    "knn-points": "string",
    workerd: "boolean",
    "workerd-queries": "string",
    "workerd-batch-ms": "string",
  },
  options(f) {
    const kinds = namesFlag(f, "kinds", BENCH_KINDS, BENCH_KINDS);
    for (const [flags, users] of KIND_FLAGS) {
      if (!users.some((k) => kinds.includes(k))) {
        refuseIgnored(f, flags, `without --kinds ${users.join(" or ")}`);
      }
    }
    const workerd = f.values.workerd === true;
    if (workerd) refuseIgnored(f, ["dense-queries"], "with --workerd");
    else refuseIgnored(f, ["workerd-queries", "workerd-batch-ms"], "without --workerd");
    const count = (name: string, dflt: number, min: number, max: number) =>
      countFlag(f, name, dflt, min, max)!;
    return {
      sizes: listFlag(f, "sizes", [1e3, 1e4, 1e5, 1e6], (g, n) => countFlag(g, n, 0, 1, 1e7)!),
      features: count("features", 100_000, 1, 1e7),
      postings: count("postings", 20, 1, 1000),
      nnz: count("nnz", 40, 1, 10_000),
      queries: count("queries", 2000, 1, 1e6),
      "dense-queries": count("dense-queries", 300, 1, 1e6),
      seed: intFlag(f, "seed", 15)!,
      kinds,
      rank: count("rank", 32, 1, 1024),
      "embed-features": count("embed-features", 16384, 1, 1e7),
      calibrate: choiceFlag(f, "calibrate", "synthetic", ["synthetic", "queries"]),
      "knn-rank": count("knn-rank", 100, 1, 1024),
      "knn-clusters": count("knn-clusters", 4, 1, 1000),
      // knnRun compares 50 points with their 15th neighbours
      "knn-points": count("knn-points", 6000, 50, 1e6),
      workerd,
      "workerd-queries": count("workerd-queries", 300, 1, 1e5),
      "workerd-batch-ms": numberFlag(f, "workerd-batch-ms", 20, 0, 10_000)!,
    };
  },
};

/** The options of this run (set by `main`; the functions below read them). */
let flags: SdkScaleOptions;

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

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** p50/p99 µs of `query` over `rows` (each row timed alone, after a warm-up pass). */
function latency(rows: SparseInput[], query: (x: SparseInput) => TopK) {
  for (const x of rows.slice(0, Math.min(rows.length, 200))) query(x);
  const us = rows.map((x) => {
    const t = performance.now();
    query(x);
    return (performance.now() - t) * 1000;
  });
  return { p50us: round(quantile(us, 0.5)), p99us: round(quantile(us, 0.99)) };
}

function sparseRun(L: number) {
  const D = +flags.features!, postings = +flags.postings!, seed = +flags.seed!;
  const nQueries = +flags.queries!, nDense = +flags["dense-queries"]!;
  {
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
    const sparseTopK = scorer.topK;
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
      kind: "linear-sparse",
      L,
      D,
      nnz: content.params.nnz,
      fileBytes: bytes.length,
      fileBytesWithoutBiasOrder: oldBytes.length,
      queries: rows.length,
      rowPostingsP50: quantile(reach, 0.5),
      wideRowShare: round(reach.filter((n) => n * 3 > L).length / rows.length, 4),
      fast: {
        loadMs: round(quantile(loads.fast, 0.5)),
        ...latency(rows, (x) => model.predictTopK(x, 5)),
      },
      sparse: latency(rows, sparse),
      fastNoOrder: {
        loadMs: round(quantile(loads.noOrder, 0.5)),
        ...latency(rows, (x) => oldModel.predictTopK(x, 5)),
      },
      dense: {
        loadMs: round(quantile(loads.dense, 0.5)),
        ...latency(compared, dense),
      },
      recallAt5: round(hits / compared.length, 6),
      identical: round(identical / compared.length, 6),
    }));
  }
}

/** Recall@5 of `fast` against `exact` and whether every fast score is its label's exact score. */
function compare(pairs: [TopK, TopK][], scoreOf: (q: number, l: number) => number) {
  let hits = 0, total = 0, sameScores = true;
  pairs.forEach(([a, b], q) => {
    const want = new Set(b.labels);
    hits += a.labels.filter((l) => want.has(l)).length;
    total += b.labels.length;
    a.labels.forEach((l, i) => sameScores &&= Object.is(a.scores[i], scoreOf(q, l)));
  });
  return { recallAt5: round(hits / total, 5), exactScores: sameScores };
}

/** Load ms (median of 3) of `bytes`, and the model of the last load. */
function timedLoad(bytes: Uint8Array) {
  const ms: number[] = [];
  let model = loadModel(bytes);
  for (let rep = 0; rep < 3; rep++) {
    const t = performance.now();
    model = loadModel(bytes);
    ms.push(performance.now() - t);
  }
  return { model, loadMs: round(quantile(ms, 0.5)) };
}

/**
 * A label-embedding model with topic structure, as trained ones have: G = ⌈√L⌉ topics with
 * unit centres in R^r; label l belongs to a topic (power-law sizes) and H_l = norm_l · (centre +
 * 0.6 · noise/√r); feature j belongs to topic j mod G and W_j = centre + noise/√r. A query row
 * draws ~30 features from 1-3 topics and ~10 at random (L2-normalised), so u = xᵀW leans to its
 * topics without matching any label row.
 */
function syntheticEmbedding(D: number, L: number, r: number, seed: number) {
  const rand = mulberry32(seed),
    gauss = () => {
      const u = 1 - rand(), v = rand();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    };
  const G = Math.ceil(Math.sqrt(L)), centres = new Float64Array(G * r);
  for (let g = 0; g < G; g++) {
    let n = 0;
    for (let a = 0; a < r; a++) n += (centres[g * r + a] = gauss()) ** 2;
    for (let a = 0; a < r; a++) centres[g * r + a] /= Math.sqrt(n);
  }
  const topic = powerLaw(G, 0.5, rand), H = new Float32Array(L * r), sr = 1 / Math.sqrt(r);
  for (let l = 0; l < L; l++) {
    const g = topic(), norm = 0.5 + rand();
    for (let a = 0; a < r; a++) H[l * r + a] = norm * (centres[g * r + a] + 0.6 * gauss() * sr);
  }
  const W = new Float32Array(D * r);
  for (let j = 0; j < D; j++) {
    for (let a = 0; a < r; a++) W[j * r + a] = centres[(j % G) * r + a] + gauss() * sr;
  }
  const bias = Float32Array.from({ length: L }, () => -1 - 2 * rand() ** 2);
  const queries = (n: number): SparseInput[] => {
    const qr = mulberry32(seed ^ 0x5eed);
    return Array.from({ length: n }, () => {
      const row = new Map<number, number>(), topics = 1 + Math.floor(qr() * 3);
      const ts = Array.from({ length: topics }, () => Math.floor(qr() * G));
      for (let t = 0; t < 40; t++) {
        const j = t < 30
          ? Math.min(D - 1, ts[t % topics] + G * Math.floor(qr() * Math.floor(D / G)))
          : Math.floor(qr() * D);
        row.set(j, (row.get(j) ?? 0) + 1);
      }
      const indices = [...row.keys()].sort((a, b) => a - b);
      const norm = Math.hypot(...indices.map((j) => row.get(j)!));
      return { indices, values: indices.map((j) => row.get(j)! / norm) };
    });
  };
  return { H, W, bias, queries };
}

/** The synthetic `kind` model at L labels with its label index, and its queries. */
function embeddingModel(kind: "linear-lowrank" | "random-features", L: number) {
  const D = +flags["embed-features"]!, r = +flags.rank!, seed = +flags.seed! + L;
  const { H, W, bias, queries } = syntheticEmbedding(D, L, r, seed);
  // with --calibrate queries: 512 rows after the timed ones (queries(n) is a fixed sequence)
  let calibration: Float32Array | undefined;
  if (flags.calibrate === "queries") {
    const n = +flags.queries!, cal = queries(n + 512).slice(n);
    calibration = new Float32Array(cal.length * r);
    cal.forEach((x, i) => {
      for (let p = 0; p < x.indices.length; p++) {
        const j = x.indices[p], v = x.values[p];
        for (let a = 0; a < r; a++) calibration![i * r + a] += v * W[j * r + a];
      }
    });
  }
  const content = kind === "linear-lowrank"
    ? withLabelIndex(
      {
        kind,
        numFeatures: D,
        numLabels: L,
        params: { rank: r },
        tensors: {
          W: { dtype: "f32", shape: [D, r], data: W },
          H: { dtype: "f32", shape: [L, r], data: H },
          bias: { dtype: "f32", shape: [L], data: bias },
        },
      },
      "H",
      calibration ? { queries: calibration } : {},
    ) // what LowRankScorer.toModelContent adds
    : predictorFileContent({
      variant: "L",
      numFeatures: D,
      numLabels: L,
      rankS: r,
      rankX: 1,
      numRff: 0,
      lambdaX: 1,
      absent: "zero",
      input: "raw",
      Q: W,
      P: H,
      bias,
      V: new Float32Array(D),
    }, 0);
  return { content, queries, D, r };
}

function embeddingRun(kind: "linear-lowrank" | "random-features", L: number) {
  const nQueries = +flags.queries!, nExact = +flags["dense-queries"]!;
  const t = performance.now();
  const { content, queries, D, r } = embeddingModel(kind, L);
  const indexMs = performance.now() - t;
  const bytes = encodeModelFile(content);
  const { model, loadMs } = timedLoad(bytes);
  const rows = queries(nQueries), compared = rows.slice(0, nExact);
  const exact = compared.map((x) => model.predictTopK(x, 5, { exact: true }));
  // every label's exact score of each compared row (to check the fast path's scores)
  const probes = content.params.mipsProbes as number | undefined;
  const C = content.tensors.mipsPtr ? content.tensors.mipsPtr.shape[0] - 1 : 0;
  const sweep = probes
    ? [...new Set([Math.ceil(probes / 2), probes, 2 * probes])].map((p) => {
      const pairs = compared.map((x, q): [TopK, TopK] => [
        model.predictTopK(x, 5, { probes: p }),
        exact[q],
      ]);
      return {
        probes: p,
        recallAt5: compare(pairs, () => NaN).recallAt5,
        p50us: latency(rows.slice(0, 500), (x) => model.predictTopK(x, 5, { probes: p })).p50us,
      };
    })
    : [];
  // the fast path's labels and scores against every label's score (the kind's dense scorer)
  const decoded = decodeModel(bytes), scorer = KINDS[kind](decoded), prep = featurizer(decoded);
  let hits = 0, exactScores = true;
  for (const [q, x] of compared.entries()) {
    const a = model.predictTopK(x, 5), all = scorer(...prep(x)), b = topK(all, L, 5);
    if (b.labels.some((l, i) => l !== exact[q].labels[i])) throw new Error("exact path differs");
    const want = new Set(b.labels);
    hits += a.labels.filter((l) => want.has(l)).length / b.labels.length;
    a.labels.forEach((l, i) => exactScores &&= Object.is(a.scores[i], all[l]));
  }
  console.log(JSON.stringify({
    kind,
    L,
    D,
    rank: r,
    fileBytes: bytes.length,
    indexBytes: Object.entries(content.tensors)
      .filter(([name]) => name.startsWith("mips"))
      .reduce((n, [, t]) => n + t.data.byteLength, 0),
    indexBuildMs: round(indexMs, 0),
    clusters: C,
    groups: content.tensors.mipsGroupPtr ? content.tensors.mipsGroupPtr.shape[0] - 1 : 0,
    probes,
    groupProbes: content.params.mipsGroupProbes,
    loadMs,
    fast: latency(rows, (x) => model.predictTopK(x, 5)),
    exact: latency(compared, (x) => model.predictTopK(x, 5, { exact: true })),
    recallAt5: round(hits / compared.length, 5),
    exactScores,
    probeSweep: sweep,
  }));
}

/** The synthetic `knn-embedding` model of `knnRun` at L labels on `data`, and its queries. */
function knnModel(L: number, data: "topics" | "random", nQueries: number) {
  const D = 4096, r = +flags["knn-rank"]!, C = +flags["knn-clusters"]!, G = 60;
  const nPts = +flags["knn-points"]!;
  const seed = +flags.seed! + L, rand = mulberry32(seed), label = powerLaw(L, 0.8, rand);
  const gauss = () => rand() + rand() + rand() - 1.5;
  const sigma = Float64Array.from({ length: r }, (_, a) => 1 / Math.sqrt(a + 6));
  const unit = (v: Float32Array) => {
    const s = Math.hypot(...v);
    return v.map((x) => x / s);
  };
  const randomUnit = (n: number) => unit(Float32Array.from({ length: n }, gauss));
  // topic centres: unit in R^r (before the σ scaling); a point or V row: σ ⊙ (centre + noise)
  const near = (centre: Float32Array, o: number, noise: number) =>
    Float32Array.from({ length: r }, (_, a) => sigma[a] * (centre[o + a] + noise * gauss()));
  const topicOf = powerLaw(G, 1, rand);
  const clusters = Array.from({ length: C }, (_, c) => {
    const centres = new Float32Array(G * r);
    for (let g = 0; g < G; g++) centres.set(randomUnit(r), g * r);
    const pools = Array.from({ length: G }, () => Array.from({ length: 8 }, label));
    const points = new Float32Array(nPts * r), labels: Int32Array[] = [];
    for (let p = 0; p < nPts; p++) {
      const g = topicOf(), set = new Set<number>();
      points.set(unit(data === "topics" ? near(centres, g * r, 0.3) : randomUnit(r)), p * r);
      for (let t = 1 + Math.floor(rand() * 6); t > 0; t--) {
        set.add(data === "topics" && rand() < 0.8 ? pools[g][Math.floor(rand() * 8)] : label());
      }
      labels.push(Int32Array.from(set).sort());
    }
    const v = new Float32Array(D * r);
    for (let j = 0; j < D; j++) {
      v.set(
        data === "topics"
          ? near(centres, (j % G) * r, 0.3)
          : Float32Array.from({ length: r }, () => gauss() * 0.1 + (c % 2 ? 0.01 : -0.01)),
        j * r,
      );
    }
    return { learner: 0, centroid: randomUnit(D), v, numPoints: nPts, points, labels };
  });
  const plain = knnModelContent({
    numFeatures: D,
    numLabels: L,
    rank: r,
    numLearners: 1,
    k: 15,
    weighted: true,
    clusters,
  });
  const t = performance.now();
  const content = withKnnIndex(plain);
  const indexSeconds = round((performance.now() - t) / 1000);
  // topic rows: ~30 features of one topic (columns g, g + G, …) and ~10 random ones
  const rows = data === "random"
    ? queryRows(D, nQueries, +flags.nnz!, seed)
    : Array.from({ length: nQueries }, (): SparseInput => {
      const g = Math.floor(rand() * G), row = new Map<number, number>();
      for (let i = 0; i < 40; i++) {
        const j = i < 30 ? g + G * Math.floor(rand() * Math.floor(D / G)) : Math.floor(rand() * D);
        row.set(j, (row.get(j) ?? 0) + 1);
      }
      const indices = [...row.keys()].sort((a, b) => a - b);
      return { indices, values: indices.map((j) => row.get(j)!) };
    });
  return { D, r, C, nPts, plain, content, indexSeconds, rows, clusters };
}

/**
 * SLEEC-shaped models: `--knn-clusters` clusters of `--knn-points` embedded points each (the
 * streaming learner keeps a reservoir of 6000), rank `--knn-rank` (SLEEC's default 100),
 * D = 4096, k = 15 weighted neighbours, written with the neighbour index (`withKnnIndex`, as
 * `encodeKnnModel` writes files). Two data sets, one JSON line each:
 * - `topics` (realistic): each cluster has 60 topics (power-law sizes) with random centres;
 *   a point is its topic's centre plus noise, scaled per coordinate by σ_a² ∝ 1/(a + 6) (the
 *   energy profile of trained SLEEC embeddings, whose coordinates come from eigenvectors: ~25%
 *   in the first 5, ~55% in the first 20) and unit-normalised; its 1-6 labels come 80% from its
 *   topic's 8 labels, else from the power law. Feature j belongs to topic j mod 60 (V's row j
 *   is that topic's centre plus noise, scaled alike) and a query row has ~30 features of one
 *   topic and ~10 random ones, so z lands near its topic's points, as a test row's embedding
 *   lands near its training neighbours (bibtex, delicious: the 15th neighbour at cosine ≈ 0.7,
 *   a typical point at ≈ 0.05-0.1; `nn15Sim`/`medianSim` report the same for these points).
 * - `random`: the points uniform on the unit sphere, the labels independent power-law draws, V
 *   random and the queries as for `linear-sparse` (the earlier generator): no neighbourhood
 *   structure at all (every point at cosine ≈ 0 ± 0.1 from the query), the worst case of any
 *   neighbour index; reported so that it is not hidden.
 */
function knnRun(L: number) {
  for (const data of ["topics", "random"] as const) {
    const { D, r, C, nPts, plain, content, indexSeconds, rows, clusters } = knnModel(
      L,
      data,
      +flags.queries!,
    );
    const bytes = encodeModelFile(content);
    const { model, loadMs } = timedLoad(bytes);
    const compared = rows.slice(0, +flags["dense-queries"]!);
    const pairs = compared.map((x): [TopK, TopK] => [
      model.predictTopK(x, 5),
      model.predictTopK(x, 5, { exact: true }),
    ]);
    const identical = pairs.filter(([a, b]) =>
      a.labels.every((l, i) =>
        l === b.labels[i] && Object.is(a.scores[i], b.scores[i])
      )
    ).length / pairs.length;
    // structure: leave-one-out cosine of a point's 15th neighbour, and of a typical point
    const pts = clusters[0].points, nn15: number[] = [], typical: number[] = [];
    for (let q = 0; q < 50; q++) {
      const sims: number[] = [];
      for (let p = 0; p < nPts; p++) {
        let s = 0;
        for (let a = 0; a < r; a++) s += pts[p * r + a] * pts[q * r + a];
        if (p !== q) sims.push(s);
      }
      sims.sort((a, b) => b - a);
      nn15.push(sims[14]);
      typical.push(sims[sims.length >> 1]);
    }
    console.log(JSON.stringify({
      kind: "knn-embedding",
      data,
      L,
      D,
      rank: r,
      clusters: C,
      pointsPerCluster: nPts,
      nn15Sim: round(quantile(nn15, 0.5), 3),
      medianSim: round(quantile(typical, 0.5), 3),
      fileBytes: bytes.length,
      fileBytesNoIndex: encodeModelFile(plain).length,
      indexSeconds,
      loadMs,
      lists: content.tensors.knnCentroids?.shape[0] ?? 0,
      defaultProbes: content.params.knnProbes,
      fast: latency(rows, (x) => model.predictTopK(x, 5)),
      exact: latency(compared, (x) => model.predictTopK(x, 5, { exact: true })),
      recallAt5: compare(pairs, () => NaN).recallAt5,
      identical: round(identical, 4),
    }));
  }
}

const ROOT = new URL("../", import.meta.url).pathname;
const KV_LIMIT = 25 * 2 ** 20, ISOLATE_LIMIT = 128 * 2 ** 20;

/** The Worker of `--workerd`: reads the model from KV once per isolate, times queries in workerd. */
const WORKER = `import { loadModel } from ${JSON.stringify(`${ROOT}sdk/mod.ts`)};
let model, loadMs, readMs, reloadMs;
export default {
  async fetch(request, env) {
    const { rows, batchMs } = await request.json();
    if (!model) {
      let t = performance.now();
      const buf = await env.MODEL.get("model", "arrayBuffer");
      readMs = performance.now() - t;
      t = performance.now();
      model = loadModel(new Uint8Array(buf));
      loadMs = performance.now() - t; // the first load of the isolate: the SDK's code not yet compiled
      t = performance.now();
      loadModel(new Uint8Array(buf));
      reloadMs = performance.now() - t;
    }
    // workerd's clock is coarse (performance.now() moves in whole ms, and in production not at
    // all between I/O): each query runs back to back for batchMs, its time is the mean
    const top = rows.map((x) => [...model.predictTopK(x, 5).labels]);
    for (let i = 0; i < 3; i++) for (const x of rows) model.predictTopK(x, 5); // warm-up
    const us = rows.map((x) => {
      let n = 0;
      const t = performance.now();
      do {
        model.predictTopK(x, 5);
        n++;
      } while (performance.now() - t < batchMs);
      return (performance.now() - t) * 1000 / n;
    });
    // all queries once each, in sequence (no repetition of a row: caches as in a stream)
    let t = performance.now(), passes = 0;
    do {
      for (const x of rows) model.predictTopK(x, 5);
      passes++;
    } while (performance.now() - t < 5 * batchMs);
    const meanUs = (performance.now() - t) * 1000 / (passes * rows.length);
    return Response.json({ readMs, loadMs, reloadMs, top, us, meanUs });
  },
};
`;

/**
 * The model of `kind` at L labels (as the Deno runs build it) and its query rows, or undefined
 * when its file would exceed Workers KV's 25 MiB value limit (checked on the tensors' sizes
 * before building what cannot fit).
 */
function workerdModel(kind: string, L: number, n: number) {
  const r = +flags.rank!, D = +flags["embed-features"]!;
  if (kind === "linear-sparse") {
    const D = +flags.features!, seed = +flags.seed!;
    const content = syntheticModel(D, L, +flags.postings!, seed + L);
    return { content, rows: queryRows(D, n, +flags.nnz!, seed) };
  }
  if (kind === "linear-lowrank" || kind === "random-features") {
    if (4 * (L * (r + 1) + D * r) > KV_LIMIT) return undefined;
    const { content, queries } = embeddingModel(kind, L);
    return { content, rows: queries(n) };
  }
  if (kind === "knn-embedding") {
    const { content, rows } = knnModel(L, "topics", n);
    return { content, rows };
  }
  throw new RangeError(`--kinds: unknown kind ${kind}`);
}

/**
 * What `loadModel(bytes)` and `rows`' top-5 queries allocate beyond the file (tensors are views
 * into it): the growth of V8's heap and external memory around them after full collections,
 * measured in a fresh Deno (`--expose-gc`).
 */
async function sdkBytes(bytes: Uint8Array, rows: SparseInput[]): Promise<number> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/model.tsm`, bytes);
    await Deno.writeTextFile(
      `${dir}/rows.json`,
      JSON.stringify(rows.map((x) => ({
        indices: Array.from(x.indices),
        values: Array.from(x.values),
      }))),
    );
    const script = `import { loadModel } from ${JSON.stringify(`${ROOT}sdk/mod.ts`)};
const bytes = await Deno.readFile("model.tsm");
const rows = JSON.parse(await Deno.readTextFile("rows.json"));
const mem = () => (globalThis.gc(), globalThis.gc(), Deno.memoryUsage());
const a = mem();
const model = loadModel(bytes);
for (const x of rows) model.predictTopK(x, 5);
const b = mem();
console.log(b.heapUsed + b.external - a.heapUsed - a.external, model.numLabels);`;
    await Deno.writeTextFile(`${dir}/mem.ts`, script);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--v8-flags=--expose-gc", `--config=${ROOT}deno.json`, "mem.ts"],
      cwd: dir,
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    return +new TextDecoder().decode(out.stdout).split(" ")[0];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * `--workerd`: for `kind`, the largest L of `--sizes` whose model fits a Worker (a file within
 * Workers KV's 25 MiB value limit, and an isolate of 128 MB: the file plus what `loadModel` and
 * 50 queries allocate, measured in Deno, within 112 MiB, leaving 16 MiB to the runtime), served by
 * a Worker (the SDK bundled by esbuild, run by Miniflare's workerd, the model read from a KV
 * namespace once per isolate). The Worker times top-5 per query (each query repeated for
 * `--workerd-batch-ms`: workerd's clock moves in whole milliseconds) and a pass over all queries;
 * the answers are checked against Deno's. One JSON line with `"runtime": "workerd"`.
 */
async function workerdRun(kind: string) {
  const n = +flags["workerd-queries"]!;
  const sizes = [...flags.sizes].sort((a, b) => b - a);
  const tried: { L: number; fileBytes?: number; memoryMiB?: number; fits: boolean }[] = [];
  let chosen;
  for (const L of sizes) {
    const built = workerdModel(kind, L, n);
    const bytes = built && encodeModelFile(built.content);
    if (!built || !bytes || bytes.length > KV_LIMIT) {
      tried.push({ L, fileBytes: bytes?.length, fits: false });
      continue;
    }
    const model = loadModel(bytes);
    const resident = bytes.length + await sdkBytes(bytes, built.rows.slice(0, 50));
    const fits = resident <= ISOLATE_LIMIT - 16 * 2 ** 20;
    tried.push({ L, fileBytes: bytes.length, memoryMiB: round(resident / 2 ** 20, 1), fits });
    if (fits) {
      chosen = { L, bytes, rows: built.rows, model, resident };
      break;
    }
  }
  if (!chosen) {
    console.log(JSON.stringify({ kind, runtime: "workerd", fits: false, tried }));
    return;
  }
  const { L, bytes, rows, model } = chosen;
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/worker.js`, WORKER);
    const esbuild = await new Deno.Command(`${ROOT}node_modules/.bin/esbuild`, {
      args: [
        `${dir}/worker.js`,
        "--bundle",
        "--minify",
        "--format=esm",
        "--platform=browser",
        "--conditions=workerd,worker",
        `--outfile=${dir}/bundle.js`,
      ],
      stderr: "piped",
    }).output();
    if (!esbuild.success) throw new Error(new TextDecoder().decode(esbuild.stderr));
    await Deno.writeFile(`${dir}/model.tsm`, bytes);
    await Deno.writeTextFile(
      `${dir}/body.json`,
      JSON.stringify({
        rows: rows.map((x) => ({ indices: Array.from(x.indices), values: Array.from(x.values) })),
        batchMs: +flags["workerd-batch-ms"]!,
      }),
    );
    await Deno.writeTextFile(
      `${dir}/run.mjs`,
      `import { readFileSync } from "node:fs";
import { Miniflare } from ${JSON.stringify(`${ROOT}node_modules/miniflare/dist/src/index.js`)};
const mf = new Miniflare({
  modules: true, scriptPath: "bundle.js", compatibilityDate: "2025-01-01", host: "127.0.0.1",
  kvNamespaces: ["MODEL"],
});
try {
  const file = readFileSync("model.tsm");
  const buf = file.buffer.slice(file.byteOffset, file.byteOffset + file.length);
  await (await mf.getKVNamespace("MODEL")).put("model", buf);
  const res = await mf.dispatchFetch("http://localhost/", { method: "POST", body: readFileSync("body.json") });
  process.stdout.write(await res.text());
} finally {
  await mf.dispose();
}
`,
    );
    // TMPDIR: Miniflare's own temporary directory goes with dir (its dispose does not wait for it)
    const out = await new Deno.Command("node", {
      args: ["run.mjs"],
      cwd: dir,
      stderr: "piped",
      env: { TMPDIR: dir },
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) throw new Error(`${text}\n${new TextDecoder().decode(out.stderr)}`);
    const w = JSON.parse(text) as {
      readMs: number;
      loadMs: number;
      reloadMs: number;
      top: number[][];
      us: number[];
      meanUs: number;
    };
    const deno = rows.map((x) => [...model.predictTopK(x, 5).labels]);
    const same = deno.filter((d, i) => JSON.stringify(d) === JSON.stringify(w.top[i])).length;
    console.log(JSON.stringify({
      kind,
      runtime: "workerd",
      L,
      fileBytes: bytes.length,
      memoryMiB: round(chosen.resident / 2 ** 20, 1),
      queries: rows.length,
      kvReadMs: w.readMs,
      loadMs: w.loadMs,
      reloadMs: w.reloadMs,
      p50us: round(quantile(w.us, 0.5)),
      p99us: round(quantile(w.us, 0.99)),
      meanUs: round(w.meanUs),
      sameTop5AsDeno: round(same / rows.length, 4),
      tried,
    }));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function main(o: SdkScaleOptions): Promise<void> {
  flags = o;
  if (o.workerd) {
    for (const kind of o.kinds) await workerdRun(kind);
    return;
  }
  for (const L of o.sizes) {
    for (const kind of o.kinds) {
      if (kind === "linear-sparse") sparseRun(L);
      else if (kind === "linear-lowrank" || kind === "random-features") embeddingRun(kind, L);
      else knnRun(L);
    }
  }
}

if (import.meta.main) await runBench(SDK_SCALE, main);
