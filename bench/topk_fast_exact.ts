/**
 * `deno task topk-fast-exact [--datasets bibtex,delicious,debtags] [--rank-fraction 0.1]
 * [--lambda 1] [--l2 true] [--iterations 5] [--probes-grid 2,4] [--synthetic true]
 * [--calibrate queries|synthetic]`: the label
 * index on the trainer (issue 15, part 3): LEML's `predictTopK` from its index against the exact
 * scan, on real data.
 *
 * For each dataset it fits batch LEML on the training file with the repro experiment's defaults
 * (bench/repro/experiments/leml.ts: squared loss, unit-L2 rows with λ = 1, 5 alternations of
 * exact H rows and 10 CG steps for W; the rank fixed at `--rank-fraction`·L, the smallest of the
 * experiment's grid, instead of chosen on a validation split), builds the model file's label
 * index with `minLabels: 0` (these label spaces, 159-983 labels, are under the file's default
 * threshold of 4096: their files carry no index, the scan is as fast) and answers every test
 * row both ways. The index's probe counts are calibrated on the model's own queries (512
 * training rows; `LowRankScorer.calibration`), or on the exporter's synthetic queries with
 * `--calibrate synthetic` (the synthetic set only). `--synthetic` adds L = 10⁴ (rank 32, topic-structured label rows, random
 * sparse queries; the default threshold applies), where the index is what the file would carry.
 *
 * stdout: one JSON line per dataset and probe count (the index's calibrated default first):
 * labels, rank, leaves, groups, probes, index build ms, the share of rows answered from the index
 * (the rest: the probed leaves held more than a quarter of the labels, the scan answers),
 * recall@5 of fast against exact, P@1/3/5 of both and their largest difference (issue 15: within
 * 0.1, as fractions), top-5 p50/p99 µs of both, and the share of rows whose labels equal the
 * SDK's from the exported file with the same index.
 *
 * Bad flags and missing dataset files ({@linkcode TOPK_FAST_EXACT}) are one line on stderr and
 * exit code 2, before any model is fit.
 *
 * @module
 */
import { intFlag, listFlag, numberFlag } from "../src/cli/commands/args.ts";
import {
  type BenchScript,
  checkXcDatasets,
  choiceFlag,
  namesFlag,
  refuseIgnored,
  runBench,
} from "./args.ts";
import { loadDataset, rowView } from "../src/data/dataset.ts";
import type { SparseVector } from "../src/data/types.ts";
import { LemlBatch } from "../src/models/leml/mod.ts";
import { LowRankScorer } from "../src/models/leml/lowrank.ts";
import { withLabelIndex } from "../src/linalg/mips_index.ts";
import { encodeModelFile } from "../src/format/model_file.ts";
import { SmallRng } from "../src/random/mod.ts";
import { loadModel, type TopK } from "../sdk/mod.ts";
import { quantile } from "./quantile.ts";

/** What `deno task topk-fast-exact` runs with (see {@linkcode TOPK_FAST_EXACT}). */
export interface TopkFastExactOptions {
  datasets: string[];
  rankFraction: number;
  lambda: number;
  l2: boolean;
  iterations: number;
  probesGrid: number[];
  synthetic: boolean;
  calibrate: "queries" | "synthetic";
  dataDir: string;
}

/**
 * The command line of `deno task topk-fast-exact`, every flag checked before a model is fit:
 * numbers in plain decimal within their limits, `true`/`false` switches, no empty entry, each
 * dataset's training and test files in the data directory, and no flag the run would ignore
 * (`--calibrate` with `--synthetic false`, the fitting flags without datasets). `--datasets ''`
 * runs the synthetic set alone.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { TOPK_FAST_EXACT } from "./topk_fast_exact.ts";
 * const o = await benchOptions(TOPK_FAST_EXACT, ["--datasets", "", "--probes-grid", "2,4"]);
 * console.log(o.datasets, o.probesGrid, o.synthetic); // [] [ 2, 4 ] true
 * await benchOptions(TOPK_FAST_EXACT, ["--l2", "yes"]).catch((e) => console.log(e.message)); // --l2 must be true or false, got 'yes'
 * ```
 */
export const TOPK_FAST_EXACT: BenchScript<TopkFastExactOptions> = {
  task: "topk-fast-exact",
  usage: `deno task topk-fast-exact [--datasets bibtex,delicious,debtags ('': none)]
  [--rank-fraction 0.1] [--lambda 1] [--l2 true|false] [--iterations 5] [--probes-grid 2,4]
  [--synthetic true|false] [--calibrate queries|synthetic (of the synthetic set)]
  [--data-dir DIR]
LEML's predictTopK from its label index against the exact scan; one JSON line per dataset and
probe count.`,
  flags: {
    datasets: "string",
    "rank-fraction": "string",
    lambda: "string",
    l2: "string",
    iterations: "string",
    "probes-grid": "string",
    synthetic: "string",
    calibrate: "string",
    "data-dir": "string",
  },
  async options(f) {
    const datasets = f.values.datasets === ""
      ? []
      : namesFlag(f, "datasets", ["bibtex", "delicious", "debtags"]);
    const synthetic = choiceFlag(f, "synthetic", "true", ["true", "false"]) === "true";
    const l2 = choiceFlag(f, "l2", "true", ["true", "false"]) === "true";
    if (!synthetic) {
      refuseIgnored(f, ["calibrate"], "with --synthetic false (it calibrates the synthetic set)");
      if (datasets.length === 0) {
        throw new TypeError("--datasets '' with --synthetic false: nothing to run");
      }
    }
    if (datasets.length === 0) {
      const fit = ["data-dir", "rank-fraction", "lambda", "l2", "iterations"];
      refuseIgnored(f, fit, "without datasets (it is for the models fit on them)");
    }
    return {
      datasets,
      rankFraction: numberFlag(f, "rank-fraction", 0.1, 0, 1)!,
      lambda: numberFlag(f, "lambda", 1, 0, 1e6)!,
      l2,
      iterations: intFlag(f, "iterations", 5, 1, 1000)!,
      probesGrid: listFlag(f, "probes-grid", [], (g, n) => intFlag(g, n, 0, 1, 1 << 20)!),
      synthetic,
      calibrate: choiceFlag(f, "calibrate", "queries", ["queries", "synthetic"]),
      dataDir: datasets.length > 0 ? await checkXcDatasets(f, datasets, true, "--datasets") : "",
    };
  },
};

const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

/** P@1/3/5 of one answer against the sorted true labels. */
function precisions(top: Int32Array, truth: Int32Array | undefined): number[] {
  if (truth === undefined) return [0, 0, 0];
  let hits = 0;
  const out = [0, 0, 0];
  for (let r = 0; r < 5 && r < top.length; r++) {
    if (truth.includes(top[r])) hits++;
    if (r === 0) out[0] = hits;
    if (r === 2) out[1] = hits / 3;
    if (r === 4) out[2] = hits / 5;
  }
  return out;
}

/**
 * Answers `rows` fast and exactly (interleaved, each timed), one line per probe count.
 */
function compare(
  probesGrid: readonly number[],
  name: string,
  m: LowRankScorer,
  rows: SparseVector[],
  truth: (i: number) => Int32Array | undefined,
  sdkFile: Uint8Array | undefined,
  extra: Record<string, unknown>,
) {
  const idx = m.labelIndex!;
  const grid = [idx.probes, ...probesGrid];
  const sdk = sdkFile ? loadModel(sdkFile) : undefined;
  // count the rows the index answers (the others fall back to the scan)
  const search = idx.search.bind(idx);
  let answered = 0;
  idx.search = (q, k, p) => {
    const t = search(q, k, p);
    if (t !== undefined) answered++;
    return t;
  };
  for (const probes of grid) {
    answered = 0;
    const tFast: number[] = [], tExact: number[] = [];
    let hits = 0, sameSdk = 0;
    const pf = [0, 0, 0], pe = [0, 0, 0];
    // warm-up
    for (let i = 0; i < Math.min(50, rows.length); i++) {
      m.predictTopK(rows[i], 5, { probes });
      m.predictTopK(rows[i], 5, { exact: true });
    }
    answered = 0;
    for (let i = 0; i < rows.length; i++) {
      let t0 = performance.now();
      const fast: TopK = m.predictTopK(rows[i], 5, { probes });
      tFast.push(performance.now() - t0);
      t0 = performance.now();
      const exact: TopK = m.predictTopK(rows[i], 5, { exact: true });
      tExact.push(performance.now() - t0);
      for (const l of fast.labels) if (exact.labels.includes(l)) hits++;
      const y = truth(i);
      precisions(fast.labels, y).forEach((v, j) => (pf[j] += v));
      precisions(exact.labels, y).forEach((v, j) => (pe[j] += v));
      if (sdk) {
        const s = sdk.predictTopK(
          { indices: [...rows[i].indices], values: [...rows[i].values] },
          5,
          {
            probes,
          },
        );
        if ([...s.labels].sort().join() === [...fast.labels].sort().join()) sameSdk++;
      }
    }
    const n = rows.length, p = (a: number[]) => a.map((v) => round(v / n));
    const P = p(pf), E = p(pe);
    console.log(JSON.stringify({
      dataset: name,
      ...extra,
      labels: m.numLabels,
      rank: m.rank,
      leaves: idx.leaves,
      groups: idx.groups,
      probes,
      defaultProbes: probes === idx.probes,
      indexBuildMs: round(idx.buildMs, 1),
      rows: n,
      answeredFromIndex: round(answered / n),
      recallAt5: round(hits / (5 * n)),
      // (no test labels for the synthetic queries: no P@k)
      fast: extra.truth === false ? null : { p1: P[0], p3: P[1], p5: P[2] },
      exact: extra.truth === false ? null : { p1: E[0], p3: E[1], p5: E[2] },
      maxPkDiff: extra.truth === false
        ? null
        : round(Math.max(...P.map((v, j) => Math.abs(v - E[j])))),
      p50us: {
        fast: round(1000 * quantile(tFast, 0.5), 1),
        exact: round(1000 * quantile(tExact, 0.5), 1),
      },
      p99us: {
        fast: round(1000 * quantile(tFast, 0.99), 1),
        exact: round(1000 * quantile(tExact, 0.99), 1),
      },
      sdkSameLabels: sdk ? round(sameSdk / n) : null,
    }));
  }
}

async function main(o: TopkFastExactOptions): Promise<void> {
  for (const name of o.datasets) {
    const train = await loadDataset(o.dataDir, name, "train");
    const test = await loadDataset(o.dataDir, name, "test");
    const D = Math.max(train.numFeatures, test.numFeatures);
    const L = Math.max(train.numLabels, test.numLabels);
    const rank = Math.max(8, Math.round(o.rankFraction * L));
    const l2 = o.l2;
    let t = performance.now();
    const m = LemlBatch.fit({ ...train.x, numCols: D }, { ...train.y, numCols: L }, {
      rank,
      lambda: o.lambda,
      l2Normalize: l2,
      iterations: o.iterations,
    });
    const trainSeconds = (performance.now() - t) / 1000;
    const options = { minLabels: 0 };
    // probes calibrated on the model's own queries: 512 training rows (evenly spaced)
    const n = train.x.numRows, cal = Math.min(512, n);
    m.calibration = m.queryRows(
      Array.from({ length: cal }, (_, i) => rowView(train.x, Math.floor((i * n) / cal))),
    );
    t = performance.now();
    m.indexLabels(options);
    const file = encodeModelFile(
      withLabelIndex(m.toModelContent(), "H", { ...options, queries: m.calibration }),
    );
    const rows = Array.from({ length: test.x.numRows }, (_, i) => rowView(test.x, i));
    const truth = (i: number) => test.y.indices.subarray(test.y.indptr[i], test.y.indptr[i + 1]);
    compare(o.probesGrid, name, m, rows, truth, file, { trainSeconds: round(trainSeconds, 1), l2 });
  }

  if (o.synthetic) {
    // L = 10⁴, rank 32: label rows around 100 topic directions with varied norms and biases
    const L = 10_000, D = 2000, r = 32, rng = new SmallRng(7);
    const s = new LowRankScorer(r, D, L, 0);
    const topics = 100, centre = Float32Array.from({ length: topics * r }, () => rng.next() - 0.5);
    for (let l = 0; l < L; l++) {
      const c = Math.floor(rng.next() * topics), scale = 0.5 + rng.next();
      for (let a = 0; a < r; a++) {
        s.h.data[l * r + a] = scale * centre[c * r + a] + 0.1 * (rng.next() - 0.5);
      }
      s.bias.data[l] = 0.2 * (rng.next() - 0.5);
    }
    for (let i = 0; i < D * r; i++) s.w.data[i] = rng.next() - 0.5;
    const sample = (n: number): SparseVector[] =>
      Array.from({ length: n }, () => {
        const set = new Set<number>();
        while (set.size < 20) set.add(Math.floor(rng.next() * D));
        const indices = Int32Array.from([...set].sort((a, b) => a - b));
        return { indices, values: Float32Array.from(indices, () => rng.next()) };
      });
    // probes calibrated on 512 queries drawn like (not among) the answered ones, unless
    // --calibrate synthetic
    if (o.calibrate !== "synthetic") s.calibration = s.queryRows(sample(512));
    s.indexLabels(); // the default threshold (4096): the index the model file carries
    const rows = sample(1000);
    compare(o.probesGrid, "synthetic-1e4", s, rows, () => undefined, s.toModelFile(), {
      trainSeconds: null,
      truth: false,
    });
  }
}

if (import.meta.main) await runBench(TOPK_FAST_EXACT, main);
