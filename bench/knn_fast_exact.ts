/**
 * `deno task knn-fast-exact [--datasets bibtex,delicious] [--probes-grid 2,4,8] [--k 15]
 * [--clusters C] [--list-size 64] [--seed 0] [--model-dir DIR]`: the `knn-embedding` neighbour
 * index (issue 15) on real SLEEC models. For each dataset it trains batch SLEEC on the training
 * file (one learner, rank 100, n̄ = 100, `--k` neighbours weighted, C = `--clusters` or the
 * paper's ⌊n/6000⌋; with `--model-dir`, a trained model file `DIR/<dataset>.tsm` is reused and
 * written there otherwise), writes its model file with the index (`encodeKnnModel`, the default
 * calibrated `knnProbes`) and answers every row of the test file through the SDK, fast
 * (`predictTopK(x, 5)`) and exact (`{ exact: true }`).
 *
 * stdout: one JSON line per dataset and probe count (the file's default first, then each of
 * `--probes-grid` below the number of lists): file bytes (with and without the index), load ms
 * (median of 5), lists and default probes, top-5 p50/p99 µs of both paths, recall@5 of fast
 * against exact, the share of rows answered identically (labels and scores), and P@1/3/5 of both
 * against the test labels with their largest difference (issue 15: within 0.1).
 *
 * Bad flags, missing dataset files and a `--model-dir` that is not a directory
 * ({@linkcode KNN_FAST_EXACT}; a missing one is created) are one line on stderr and exit code 2, before any training.
 *
 * @module
 */
import { intFlag, listFlag, stringFlag } from "../src/cli/commands/args.ts";
import { type BenchScript, checkDirectory, checkXcDatasets, namesFlag, runBench } from "./args.ts";
import { loadDataset } from "../src/data/dataset.ts";
import { encodeModelFile } from "../src/format/model_file.ts";
import { decodeModelFile } from "../sdk/internal.ts";
import { withKnnIndex } from "../src/models/sleec/knn_index.ts";
import { knnModelContent, knnModelFromContent, trainSleec } from "../src/models/sleec/mod.ts";
import { loadModel, type SparseInput, type TopK } from "../sdk/mod.ts";
import { PrecisionAtK } from "../src/metrics/precision.ts";
import type { BinaryCsr } from "../src/data/types.ts";
import { quantile } from "./quantile.ts";

/** What `deno task knn-fast-exact` runs with (see {@linkcode KNN_FAST_EXACT}). */
export interface KnnFastExactOptions {
  datasets: string[];
  probesGrid: number[];
  k: number;
  /** Clusters of the trained model; undefined: ⌊n/6000⌋. */
  clusters?: number;
  listSize: number;
  seed: number;
  dataDir: string;
  modelDir?: string;
}

/** Largest `--k`, `--clusters`, `--list-size` and probe count (SLEEC's counts' limit). */
const MAX_COUNT = 1 << 20;

/**
 * The command line of `deno task knn-fast-exact`, every flag checked before a model is trained:
 * counts in plain decimal within their limits, no empty entry, each dataset's training and test
 * files in the data directory, `--model-dir` a directory, created when missing (the trained
 * files are written there: a bad one would fail after the training).
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { KNN_FAST_EXACT } from "./knn_fast_exact.ts";
 * await benchOptions(KNN_FAST_EXACT, ["--model-dir", "deno.json"]).catch((e) => console.log(e.message)); // --model-dir deno.json is not a directory
 * ```
 */
export const KNN_FAST_EXACT: BenchScript<KnnFastExactOptions> = {
  task: "knn-fast-exact",
  usage: `deno task knn-fast-exact [--datasets bibtex,delicious] [--probes-grid 2,4,8] [--k 15]
  [--clusters C (default: training rows / 6000)] [--list-size 64] [--seed 0] [--data-dir DIR]
  [--model-dir DIR (reuses DIR/<dataset>.tsm, else trains and writes it)]
The knn-embedding neighbour index on batch SLEEC models of real data, fast against exact; one
JSON line per dataset and probe count.`,
  flags: {
    datasets: "string",
    "probes-grid": "string",
    k: "string",
    clusters: "string",
    "list-size": "string",
    seed: "string",
    "data-dir": "string",
    "model-dir": "string",
  },
  async options(f) {
    const datasets = namesFlag(f, "datasets", ["bibtex", "delicious"]);
    const probesGrid = listFlag(f, "probes-grid", [], (g, n) => intFlag(g, n, 0, 1, MAX_COUNT)!);
    const k = intFlag(f, "k", 15, 1, MAX_COUNT)!;
    const clusters = intFlag(f, "clusters", undefined, 1, MAX_COUNT);
    const listSize = intFlag(f, "list-size", 64, 1, MAX_COUNT)!;
    const seed = intFlag(f, "seed", 0)!;
    const modelDir = stringFlag(f, "model-dir");
    if (modelDir === "") throw new RangeError("--model-dir is empty: give a directory");
    // created now if missing: the trained files are written there after the training
    if (modelDir !== undefined && !await checkDirectory(modelDir, "--model-dir", "", true)) {
      await Deno.mkdir(modelDir, { recursive: true }).catch((e) => {
        throw new TypeError(`--model-dir ${modelDir}: cannot create it: ${(e as Error).message}`);
      });
    }
    const dataDir = await checkXcDatasets(f, datasets, true, "--datasets");
    return {
      datasets,
      probesGrid,
      k,
      ...(clusters !== undefined ? { clusters } : {}),
      listSize,
      seed,
      dataDir,
      ...(modelDir !== undefined ? { modelDir } : {}),
    };
  },
};

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** The model file of `name`: reused from `--model-dir` when there, else trained (and saved). */
async function trainedFile(
  o: KnnFastExactOptions,
  name: string,
  train: Awaited<ReturnType<typeof loadDataset>>,
) {
  const path = o.modelDir !== undefined ? `${o.modelDir}/${name}.tsm` : undefined;
  if (path) {
    try {
      return { bytes: await Deno.readFile(path), trainSeconds: NaN };
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
  const t = performance.now();
  const model = trainSleec(train.x, train.y, {
    seed: o.seed,
    k: o.k,
    numClusters: o.clusters ?? Math.max(1, Math.floor(train.x.numRows / 6000)),
  });
  const trainSeconds = round((performance.now() - t) / 1000);
  const bytes = encodeModelFile(knnModelContent(model.knn));
  if (path) await Deno.writeFile(path, bytes);
  return { bytes, trainSeconds };
}

/** p50/p99 µs of `query` over `rows` (each row timed alone, after a warm-up pass). */
function latency(rows: SparseInput[], query: (x: SparseInput) => TopK) {
  for (const x of rows.slice(0, 300)) query(x);
  const us = rows.map((x) => {
    const t = performance.now();
    query(x);
    return (performance.now() - t) * 1000;
  });
  return { p50us: round(quantile(us, 0.5)), p99us: round(quantile(us, 0.99)) };
}

/** P@1, P@3, P@5 (percent, as the trainers' evaluation counts them) of the answers on `y`. */
function precision(answers: TopK[], y: BinaryCsr) {
  const p = new PrecisionAtK([1, 3, 5]);
  answers.forEach((a, i) => p.add(a.labels, y.indices.subarray(y.indptr[i], y.indptr[i + 1])));
  const r = p.result();
  return { "P@1": round(r["P@1"], 3), "P@3": round(r["P@3"], 3), "P@5": round(r["P@5"], 3) };
}

async function main(o: KnnFastExactOptions): Promise<void> {
  for (const name of o.datasets) {
    const train = await loadDataset(o.dataDir, name, "train");
    const test = await loadDataset(o.dataDir, name, "test");
    const { bytes: plain, trainSeconds } = await trainedFile(o, name, train);
    const content = knnModelContent(knnModelFromContent(decodeModelFile(plain)));
    let t = performance.now();
    const indexed = withKnnIndex(content, { listSize: o.listSize });
    const indexSeconds = round((performance.now() - t) / 1000);
    const bytes = encodeModelFile(indexed);
    const loads: number[] = [];
    let model = loadModel(bytes);
    for (let rep = 0; rep < 5; rep++) {
      t = performance.now();
      model = loadModel(bytes);
      loads.push(performance.now() - t);
    }
    const rows: SparseInput[] = [];
    for (let q = 0; q < test.x.numRows; q++) {
      const a = test.x.indptr[q], b = test.x.indptr[q + 1];
      rows.push({ indices: test.x.indices.subarray(a, b), values: test.x.values.subarray(a, b) });
    }
    const exactOpt = { exact: true };
    const exact = rows.map((x) => model.predictTopK(x, 5, exactOpt));
    const pExact = precision(exact, test.y),
      exactTime = latency(rows, (x) => model.predictTopK(x, 5, exactOpt));
    const lists = indexed.tensors.knnCentroids?.shape[0] ?? 0;
    const def = indexed.params.knnProbes as number | undefined;
    for (const probes of [def, ...o.probesGrid.filter((p) => p !== def)]) {
      const o = { probes };
      const fast = rows.map((x) => model.predictTopK(x, 5, o));
      let hits = 0, total = 0, identical = 0;
      fast.forEach((a, q) => {
        const b = exact[q], want = new Set(b.labels);
        hits += Array.from(a.labels).filter((l) => want.has(l)).length;
        total += b.labels.length;
        identical += +(a.labels.length === b.labels.length &&
          a.labels.every((l, i) => l === b.labels[i] && Object.is(a.scores[i], b.scores[i])));
      });
      const pFast = precision(fast, test.y);
      const maxPkDiff = round(
        Math.max(
          ...(["P@1", "P@3", "P@5"] as const).map((key) => Math.abs(pFast[key] - pExact[key])),
        ),
        3,
      );
      console.log(JSON.stringify({
        dataset: name,
        trainRows: train.x.numRows,
        testRows: rows.length,
        numLabels: model.numLabels,
        rank: content.params.rank,
        k: content.params.k,
        clusters: content.params.numClusters,
        points: content.tensors.labelPtr.data.length - 1,
        trainSeconds,
        indexSeconds,
        fileBytes: bytes.length,
        fileBytesNoIndex: plain.length,
        loadMs: round(quantile(loads, 0.5)),
        lists,
        defaultProbes: def,
        probes,
        fast: latency(rows, (x) => model.predictTopK(x, 5, o)),
        exact: exactTime,
        recallAt5: round(hits / total, 5),
        identical: round(identical / rows.length, 5),
        precisionFast: pFast,
        precisionExact: pExact,
        maxPkDiff,
      }));
    }
  }
}

if (import.meta.main) await runBench(KNN_FAST_EXACT, main);
