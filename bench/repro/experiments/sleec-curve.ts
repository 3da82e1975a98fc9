/**
 * `deno task repro sleec-curve --dataset delicious [--learners T] [--k N] [--weighted true|false]
 * [--neighbours N] [--clusters C] [--rank R] [--edge-bytes B] [--config JSON] [--validation]
 * [--members SPEC,...] [--plot FILE.svg] [--out FILE.tsm]`:
 * SLEEC's accuracy against the number of learners in its ensemble (the SLEEC paper's Figure 2,
 * here on a small data set).
 *
 * One ensemble of T learners (default 10; learner t clusters with seed `seed + t`, exactly as
 * `repro sleec --learners T`) is trained on the whole training file; the prediction of the first
 * t learners (Algorithm 2 averaged over them) is evaluated on the test file for every t = 1..T.
 * Each point reports P@1/3/5, the `knn-embedding` model-file bytes with float32 points and with
 * 8-bit points (`quantize: "i8"`), and whether the i8 file fits `--edge-bytes` (default 25 MiB:
 * the largest value Cloudflare Workers KV stores, and well inside a Worker's 128 MB). `best` is
 * the point with the most learners that fits (the ensemble as set: T is chosen beforehand, on
 * validation rows with `--validation`, never by the test rows' P@1); `bestEdgeFile` its i8
 * file's bytes and P@1/3/5 as the SDK answers them (what an edge function serves), with
 * `stdErr`, the standard errors of those figures over the test rows
 * (`PrecisionAtK.standardErrors`), and `fastxmlGapInStdErrs`, how many
 * of them each lies above (+) or below (−) FastXML's, and `edge`, what serving it costs a Worker
 * (`edgeFootprint`, measured in a fresh process: `heldBytes`, the memory the loaded model holds,
 * against the Worker's 128 MB; `loadMs`, a cold load). `fastxml` holds FastXML's figures from the
 * SLEEC paper's Table 1(b) (delicious 69.44 / 63.62 / 59.10, bibtex 63.73 / 39.00 / 28.54).
 *
 * The clusters per learner C (`--clusters`, else the paper's ⌊n/6000⌋ or 1), the SVP neighbours
 * n̄ (`--neighbours`, else `--neighbours-grid`, default 100,250), the k of the kNN prediction
 * (`--k`, else `--k-grid`, default 5,10,15,20,30,50) and the weighting (`--weighted`, else both)
 * are chosen on a seeded 20% validation split of the TRAINING file with a single learner, by the
 * mean of P@1, P@3 and P@5 (one fit per (C, n̄); k and the weighting only change prediction). The
 * test file is read only for the final evaluation.
 *
 * `--config '{"svpIterations": 30, ...}'` sets any other {@linkcode SleecConfig} field (checked
 * like every SLEEC option). `--validation` never reads the test file: the ensemble is trained on
 * the first 80% of the training file's rows and the curve is measured on the last 20%
 * (`lastRowsSplit` of `repro sleec-ablation`), for choosing settings; the selection split, when
 * there is one, is then taken from those 80%.
 *
 * `--members pca:0.25,leml:1` appends members of other kinds (specs of `repro sleec-pool`,
 * ../sleec_pool_members.ts) as learners T, T+1, … of the same `knn-embedding` file, each fitted on
 * the whole training file; the curve goes on through them (their points carry `member`). They
 * need the model's rank (`raw` does not fit it) and no TF-IDF.
 *
 * `--plot FILE.svg` draws the curve ({@linkcode learnerCurveSvg}): P@1, P@3 and P@5 against the
 * number of learners, with FastXML's figures as dashed levels. `--out FILE.tsm` writes the best
 * point's i8 file (`bestEdgeFile`), the model an edge function would load.
 *
 * @module
 */
import type { Experiment, ExperimentFlags } from "../types.ts";
import {
  intList,
  jsonObjectFlag,
  loadTrainTest,
  namingFlags,
  numberFlag,
  positiveIntFlag,
  PROPENSITY_FLAGS,
  timeSeconds,
  type TrainTest,
  validationSplit,
} from "../harness.ts";
import { labelCounts, loadDataset } from "../../../src/data/dataset.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";
import { PrecisionAtK } from "../../../src/metrics/precision.ts";
import { propensities as propensitiesOf } from "../../../src/metrics/propensity.ts";
import { resolveConfig, type SleecConfig, trainSleec } from "../../../src/models/sleec/mod.ts";
import { firstLearners, lastRowsSplit } from "./sleec-ablation.ts";
import { memberClusters, parseMember } from "../sleec_pool_members.ts";
import { edgeFootprint } from "../../../src/cli/edge_footprint.ts";
import { checkOutFile } from "../../../src/cli/commands/path_checks.ts";
import { labelLists, SleecModel } from "../../../src/models/sleec/batch.ts";
import { preprocessRows } from "../../../src/data/preprocess.ts";
import { loadModel, type Model } from "../../../sdk/mod.ts";
import { linePlot, type Series } from "../../../src/plot/line_plot.ts";
import type { BinaryCsr, CsrMatrix } from "../../../src/data/types.ts";

/** FastXML in the SLEEC paper's Table 1(b) (P@1, P@3, P@5). */
const FASTXML: Record<string, number[]> = {
  delicious: [69.44, 63.62, 59.1],
  bibtex: [63.73, 39.0, 28.54],
};

/**
 * The learner curve as an SVG line plot: P@1, P@3 and P@5 (percent) against the number of
 * learners, and FastXML's P@k as dashed levels of the same colours when `fastxml` is given.
 *
 * @example
 * ```ts
 * import { learnerCurveSvg } from "./sleec-curve.ts";
 * const curve = [1, 2].map((t) => ({ learners: t, "P@1": 60 + t, "P@3": 50 + t, "P@5": 40 + t }));
 * const svg = learnerCurveSvg(curve, [63, 52, 41], "SLEEC");
 * console.log(svg.startsWith("<svg"), svg.includes("FastXML P@5"), svg.includes("stroke-dasharray")); // true true true
 * ```
 */
export function learnerCurveSvg(
  curve: readonly Record<string, number | boolean | string>[],
  fastxml: readonly number[] | undefined,
  title: string,
): string {
  const colors = ["#1f77b4", "#d62728", "#2ca02c"];
  const x = curve.map((p) => p.learners as number);
  const series: Series[] = [];
  ["P@1", "P@3", "P@5"].forEach((key, i) => {
    series.push({
      name: `SLEEC ${key}`,
      x,
      y: curve.map((p) => p[key] as number),
      color: colors[i],
    });
    if (fastxml) {
      series.push({
        name: `FastXML ${key}`,
        x: [x[0], x[x.length - 1]],
        y: [fastxml[i], fastxml[i]],
        color: colors[i],
        markers: false,
        dashed: true,
      });
    }
  });
  return linePlot(series, { title, xLabel: "learners", yLabel: "precision (%)" });
}

/**
 * The data of the curve: the training and test files, or with `--validation` the first 80% of
 * the training file's rows and its last 20% in place of the test file.
 */
async function curveData(ctx: Parameters<Experiment>[0]): Promise<TrainTest> {
  const v = ctx.flags.validation;
  if (v === undefined || v === false || v === "false") return await loadTrainTest(ctx);
  if (v !== true && v !== "true") {
    throw new TypeError(`sleec-curve: --validation takes no value (or true|false), got '${v}'`);
  }
  const all = await loadDataset(ctx.dataDir, ctx.dataset, "train");
  const { fit, valid } = lastRowsSplit(all, 0.2);
  const a = numberFlag(ctx.flags, "propensity-a", 0.55);
  const b = numberFlag(ctx.flags, "propensity-b", 1.5);
  const propensities = propensitiesOf(labelCounts(fit.y), Math.max(1, fit.x.numRows), a, b);
  const labelNames = Array.from({ length: all.numLabels }, (_, l) => String(l));
  return { train: fit, test: valid, propensities, labelNames };
}

/**
 * `--members`: the member specs, checked before the ensemble is trained (they were read after
 * it: a typo failed only then). Their grammar is that of ../sleec_pool_members.ts.
 */
function membersFlag(
  flags: Record<string, string | boolean>,
  config: Partial<SleecConfig>,
): string[] {
  const v = flags.members;
  const members = String(v ?? "").split(",").map((m) => m.trim()).filter(Boolean);
  if (v === true || (v !== undefined && members.length === 0)) {
    throw new TypeError(
      "sleec-curve: --members needs member specs, e.g. --members pca:0.25,leml:1",
    );
  }
  if (members.length === 0) return members;
  for (const m of members) parseMember(m, "sleec-curve");
  if (resolveConfig(config as Record<string, unknown>).featureWeighting !== "none") {
    throw new TypeError(
      "sleec-curve: --members needs featureWeighting 'none' (members see unit rows)",
    );
  }
  return members;
}

/** `--config`: a JSON object of SLEEC options, checked by `resolveConfig`. */
function configFlag(flags: Record<string, string | boolean>): Partial<SleecConfig> {
  const parsed = jsonObjectFlag(flags, "config", "sleec-curve", "a JSON object of SLEEC options");
  resolveConfig(parsed);
  return parsed as Partial<SleecConfig>;
}

const sleecCurve: Experiment = async (ctx) => {
  const f = ctx.flags;
  const plot = f.plot;
  if (plot !== undefined && typeof plot !== "string") {
    throw new TypeError("sleec-curve: --plot needs a file name, e.g. --plot sleec-delicious.svg");
  }
  const out = f.out;
  if (out !== undefined && typeof out !== "string") {
    throw new TypeError("sleec-curve: --out needs a file name, e.g. --out sleec-delicious.tsm");
  }
  // before any work: a file that cannot be written, or that would replace a data file (or the
  // other output), must not be found out (or destroy the data) only at the end
  const inputs = ["train", "test"].map((split) => ({
    what: `the ${split} file of --dataset ${ctx.dataset}`,
    path: `${ctx.dataDir}/${ctx.dataset}.${split}.txt`,
  }));
  if (out !== undefined) await checkOutFile(out, "out", { inputs, kind: "model" });
  if (plot !== undefined) {
    if (out !== undefined) inputs.push({ what: `--out ${out}`, path: out });
    if (plot === out) throw new TypeError(`sleec-curve: --plot and --out are both ${out}`);
    await checkOutFile(plot, "plot", { inputs, kind: "svg" });
  }
  const { train, test, propensities, labelNames } = await curveData(ctx);
  const T = numberFlag(f, "learners") ?? 10;
  if (!Number.isInteger(T) || T < 1) {
    throw new TypeError(`sleec-curve: --learners must be a positive integer, got ${T}`);
  }
  const edgeBytes = numberFlag(f, "edge-bytes") ?? 25 * 1024 * 1024;
  // a size no file has (0, negative) left every point out: no best point, no --out written
  if (!Number.isSafeInteger(edgeBytes) || edgeBytes < 1) {
    throw new TypeError(`sleec-curve: --edge-bytes must be a positive integer, got ${edgeBytes}`);
  }
  const paperClusters = Math.max(1, Math.floor(train.x.numRows / 6000));
  const fixedC = positiveIntFlag(f, "clusters");
  const fixedN = positiveIntFlag(f, "neighbours");
  for (const [one, grid] of [["k", "k-grid"], ["neighbours", "neighbours-grid"]]) {
    if (f[one] !== undefined && f[grid] !== undefined) {
      throw new TypeError(`sleec-curve: give --${one} or --${grid}, not both`);
    }
  }
  const base: Partial<SleecConfig> = { ...configFlag(f), seed: ctx.seed };
  const rank = numberFlag(f, "rank");
  if (rank !== undefined) base.rank = rank;
  // a bare `--weighted` is true (it was refused as "must be true or false, got 'true'")
  const wFlag = f.weighted === true ? "true" : f.weighted;
  if (wFlag !== undefined && wFlag !== "true" && wFlag !== "false") {
    throw new TypeError(`sleec-curve: --weighted must be true or false, got '${wFlag}'`);
  }
  const fixedK = positiveIntFlag(f, "k");
  const kGrid = fixedK !== undefined
    ? [fixedK]
    : intList(f["k-grid"], [5, 10, 15, 20, 30, 50], "k-grid");
  const wGrid = wFlag === undefined ? [true, false] : [wFlag === "true"];
  const cGrid = fixedC !== undefined ? [fixedC] : [...new Set([paperClusters, 1])];
  const nGrid = fixedN !== undefined
    ? [fixedN]
    : intList(f["neighbours-grid"], [100, 250], "neighbours-grid");
  // the trainer's checks, now and naming the flags: a bad --learners, --rank or grid entry was
  // refused by the final fit (as an option), after the selection's fits
  namingFlags(f, {
    numLearners: "learners",
    rank: "rank",
    numClusters: "clusters",
    svpNeighbours: fixedN !== undefined ? "neighbours" : "neighbours-grid",
    k: fixedK !== undefined ? "k" : "k-grid",
  }, () =>
    resolveConfig({
      ...base,
      numLearners: T,
      numClusters: Math.max(...cGrid),
      svpNeighbours: Math.max(...nGrid),
      k: Math.max(...kGrid),
    }));
  // (before the selection too: its featureWeighting comes from --config alone)
  const members = membersFlag(f, base);
  // a member's rank must be the model's: `pca` has min(rank, D), `raw` D (refused after the
  // ensemble was trained, and on emotions' 72 features, `pca` at the default rank 100 was)
  const modelRank = resolveConfig(base as Record<string, unknown>).rank, D = train.x.numCols;
  for (const m of members) {
    const { kind } = parseMember(m, "sleec-curve");
    const r = kind === "raw" ? D : kind === "pca" ? Math.min(modelRank, D) : modelRank;
    if (r !== modelRank) {
      throw new RangeError(
        `sleec-curve: member '${m}' has another rank than the model's ${modelRank} (${r}, ` +
          `from the ${D} features of --dataset ${ctx.dataset}): give --rank ${
            kind === "raw" ? D : `${D} or less`
          }`,
      );
    }
  }
  let k = kGrid[0], weighted = wGrid[0], clusters = cGrid[0], neighbours = nGrid[0];
  const validation: Record<string, number> = {};
  const t0 = performance.now();
  if (kGrid.length * wGrid.length * cGrid.length * nGrid.length > 1) {
    const { fit, valid } = validationSplit(train, 0.2, ctx.seed);
    let best = -Infinity;
    for (const c of cGrid) {
      for (const nb of nGrid) {
        const m = trainSleec(fit.x, fit.y, {
          ...base,
          numClusters: c,
          svpNeighbours: nb,
          numLearners: 1,
        });
        for (const kk of kGrid) {
          for (const w of wGrid) {
            const r = evaluateModel(m.withPrediction(kk, w), valid, {
              propensities,
              macroAuc: false,
              timingRows: 0,
            });
            const score = (r.metrics["P@1"] + r.metrics["P@3"] + r.metrics["P@5"]) / 3;
            validation[`C=${c},n=${nb},k=${kk},${w ? "weighted" : "counts"}`] =
              Math.round(score * 100) / 100;
            if (score > best) [best, k, weighted, clusters, neighbours] = [score, kk, w, c, nb];
          }
        }
      }
    }
  }
  base.numClusters = clusters;
  base.svpNeighbours = neighbours;
  const selectSeconds = (performance.now() - t0) / 1000;
  ctx.progress.start(undefined, `train ${T} learners`);
  const { result: trained, seconds } = await timeSeconds(() =>
    trainSleec(
      train.x,
      train.y,
      { ...base, numLearners: T, k, weighted },
      (e) => ctx.progress.tick(1, { rows: e.rows }),
    )
  );
  ctx.progress.done();
  let model = trained;
  if (members.length > 0) {
    const xn = preprocessRows(train.x, { l2Normalize: true }), labels = labelLists(train.y);
    const clusters = [...trained.knn.clusters];
    for (const [i, spec] of members.entries()) {
      const extra = memberClusters(spec, T + i, xn, train.y, labels, { ...base, numLearners: 1 });
      if (extra.some((c) => c.v.length !== train.x.numCols * trained.knn.rank)) {
        throw new RangeError(
          `sleec-curve: member '${spec}' has another rank than the model's ${trained.knn.rank}`,
        );
      }
      clusters.push(...extra);
    }
    model = new SleecModel({ ...trained.knn, numLearners: T + members.length, clusters });
  }
  const meta = { dataset: ctx.dataset };
  const curve: Record<string, number | boolean | string>[] = [];
  let last: ReturnType<typeof evaluateModel> | undefined;
  let lastBytes = 0;
  for (let t = 1; t <= model.knn.numLearners; t++) {
    const m = firstLearners(model, t);
    const ev = evaluateModel(m, test, { propensities, macroAuc: false, timingRows: 500 });
    const bytes = m.toModelFile({ labelNames, meta }).byteLength;
    const bytesI8 = m.toModelFile({ labelNames, meta, quantize: "i8" }).byteLength;
    curve.push({
      learners: t,
      ...(t > T ? { member: members[t - T - 1] } : {}),
      "P@1": ev.metrics["P@1"],
      "P@3": ev.metrics["P@3"],
      "P@5": ev.metrics["P@5"],
      "PSP@5": ev.metrics["PSP@5"],
      modelBytes: bytes,
      modelBytesI8: bytesI8,
      fitsEdge: bytesI8 <= edgeBytes,
      predictMsPerRow: ev.predictMsPerRow,
    });
    last = ev;
    lastBytes = bytes;
  }
  // the largest ensemble that fits: the number of learners is a setting, chosen before the run
  // (on validation rows, `--validation`); the highest test P@1 would choose it on the test rows
  let best: Record<string, number | boolean | string> | undefined;
  for (const p of curve) if (p.fitsEdge) best = p;
  // the edge file of the best point (i8 points) as the SDK answers it: what a Worker serves
  let edgeFile: Record<string, number | Record<string, number | boolean>> | null = null;
  const fx = FASTXML[ctx.dataset];
  if (best !== undefined) {
    const file = firstLearners(model, best.learners as number)
      .toModelFile({ labelNames, meta, quantize: "i8" });
    const p = sdkPrecision(loadModel(file), test), r = p.result(), se = p.standardErrors();
    edgeFile = { bytes: file.byteLength, ...r, stdErr: se };
    // what serving it costs a Worker: cold load, first query, memory held (a fresh process)
    const path = out || await Deno.makeTempFile({ suffix: ".tsm" });
    try {
      await Deno.writeFile(path, file);
      const e = await edgeFootprint(path);
      edgeFile.edge = {
        heldBytes: e.heldBytes,
        loadMs: Math.round(e.loadMs * 10) / 10,
        fitsWorkerMemory: e.fitsWorkerMemory,
      };
    } finally {
      if (!out) await Deno.remove(path);
    }
    // how far from FastXML's figures, in standard errors of our own test estimate
    if (fx) {
      edgeFile.fastxmlGapInStdErrs = Object.fromEntries(
        ["P@1", "P@3", "P@5"].map((m, i) => [m, se[m] > 0 ? (r[m] - fx[i]) / se[m] : 0]),
      );
    }
  }
  const onValidation = f.validation === true || f.validation === "true";
  if (plot) {
    const on = onValidation ? "validation" : "test";
    await Deno.writeTextFile(
      plot,
      learnerCurveSvg(
        curve,
        fx,
        `SLEEC on ${ctx.dataset} (${on}): precision against learners` +
          (members.length ? ` + ${members.join(", ")}` : ""),
      ),
    );
  }
  return {
    metrics: last!.metrics,
    stdErr: last!.stdErr,
    trainSeconds: seconds,
    predictMsPerRow: last!.predictMsPerRow,
    modelBytes: lastBytes,
    extra: {
      numLearners: T,
      ...(members.length > 0 ? { members } : {}),
      evaluatedOn: onValidation
        ? "validation: last 20% of the training file (trained on the first 80%)"
        : "test",
      config: base,
      k,
      weighted,
      svpNeighbours: base.svpNeighbours,
      numClusters: base.numClusters,
      rank: model.knn.rank,
      curve,
      best: best ?? null,
      bestEdgeFile: edgeFile,
      fastxml: fx ? { "P@1": fx[0], "P@3": fx[1], "P@5": fx[2] } : null,
      beatsFastxml: fx && best
        ? (best["P@1"] as number) >= fx[0] && (best["P@3"] as number) >= fx[1] &&
          (best["P@5"] as number) >= fx[2]
        : null,
      edgeBytes,
      selectSeconds,
      ...(plot ? { plot } : {}),
      ...(out && edgeFile ? { out } : {}),
      ...(Object.keys(validation).length > 0
        ? {
          validationMeanP135: validation,
          selection: "mean of P@1,P@3,P@5 on 20% of train, one learner",
        }
        : {}),
    },
  };
};

/** P@1/3/5 (as the trainers' evaluation counts them) of the SDK's top-5 on `test`, accumulated. */
function sdkPrecision(model: Model, test: { x: CsrMatrix; y: BinaryCsr }): PrecisionAtK {
  const p = new PrecisionAtK([1, 3, 5]), { x, y } = test;
  for (let i = 0; i < x.numRows; i++) {
    const a = x.indptr[i], b = x.indptr[i + 1];
    const row = { indices: x.indices.subarray(a, b), values: x.values.subarray(a, b) };
    p.add(model.predictTopK(row, 5).labels, y.indices.subarray(y.indptr[i], y.indptr[i + 1]));
  }
  return p;
}

/**
 * The flags `repro sleec-curve` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner
 * refuses any other); it reads `<dataset>.test.txt` unless `--validation` is given (and not
 * `false`).
 *
 * @example
 * ```ts
 * import { FLAGS } from "./sleec-curve.ts";
 * console.log(FLAGS.flags.includes("validation")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: [
    "validation",
    "config",
    "learners",
    "edge-bytes",
    "plot",
    "out",
    "clusters",
    "neighbours",
    "rank",
    "weighted",
    "k",
    "k-grid",
    "neighbours-grid",
    "members",
    ...PROPENSITY_FLAGS,
  ],
  test: "validation",
};

export default sleecCurve;
