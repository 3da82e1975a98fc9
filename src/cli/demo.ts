/**
 * `deno task demo [--data FILE] [--format xc|libsvm|ndjson] [--rows N] [--model NAME]
 * [--batch-size B] [--seed S] [--holdout F] [--plot FILE.svg]`: streams a multi-label dataset
 * through a streaming model in minibatches, test-then-train, with a progress bar showing the
 * prequential P@1; then evaluates the model on held-out rows and prints the metrics as ONE JSON
 * object on the last stdout line.
 *
 * Without `--data` the rows come from the synthetic generator (planted structure, power-law
 * label frequencies), so the demo needs no data directory and no server. Every `1/F`-th row
 * (F = `--holdout`, default 0.2) is held out for the final evaluation and never learned from.
 * `--model` is any `src/models/<name>/mod.ts` exporting a `factory` (default: leml, else knn).
 *
 * @module
 */
import type { Batch, Example } from "../data/types.ts";
import type { Estimator, EstimatorFactory } from "../models/estimator.ts";
import { readExamples, type StreamFormat } from "../data/readers.ts";
import { syntheticExamples } from "../data/synthetic.ts";
import { evaluateModel } from "../metrics/evaluate.ts";
import { PrequentialP1 } from "../metrics/prequential.ts";
import { propensities } from "../metrics/propensity.ts";
import { linePlot } from "../plot/line_plot.ts";
import { Progress } from "./progress.ts";

const MODELS_DIR = new URL("../models/", import.meta.url);

/**
 * Names of the models the demo can run: directories of `src/models/` with a `mod.ts`.
 *
 * @example
 * ```ts
 * import { availableModels } from "./demo.ts";
 * console.log((await availableModels()).includes("knn")); // true
 * ```
 */
export async function availableModels(): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(MODELS_DIR)) {
    if (!e.isDirectory) continue;
    try {
      const st = await Deno.stat(new URL(`${e.name}/mod.ts`, MODELS_DIR));
      if (st.isFile) names.push(e.name);
    } catch {
      // no mod.ts: not a model
    }
  }
  return names.sort();
}

/**
 * Loads the `factory` of `src/models/<name>/mod.ts`.
 *
 * @throws {TypeError} naming the available models when `name` is unknown or has no factory
 *
 * @example
 * ```ts
 * import { loadFactory } from "./demo.ts";
 * console.log((await loadFactory("popularity")).kind); // "popularity"
 * ```
 */
export async function loadFactory(name: string): Promise<EstimatorFactory> {
  const available = await availableModels();
  if (!/^[a-z0-9_-]+$/.test(name) || !available.includes(name)) {
    throw new TypeError(`Unknown model '${name}'; available: ${available.join(", ")}`);
  }
  const mod = await import(new URL(`${name}/mod.ts`, MODELS_DIR).href);
  const factory = mod.factory as EstimatorFactory | undefined;
  if (!factory || typeof factory.create !== "function") {
    throw new TypeError(`src/models/${name}/mod.ts does not export an estimator factory`);
  }
  return factory;
}

/** The default model: leml when it exports a factory, else knn. */
async function defaultModel(): Promise<string> {
  try {
    await loadFactory("leml");
    return "leml";
  } catch {
    return "knn";
  }
}

/**
 * Builds a minibatch from examples (copies), in feature and label spaces of at least the given
 * sizes. Rows with explicit negatives get an observed mask (`labels ∪ negatives`).
 *
 * @example
 * ```ts
 * import { examplesToBatch } from "./demo.ts";
 * const b = examplesToBatch([
 *   { x: { indices: Int32Array.of(2), values: Float32Array.of(1) }, labels: Int32Array.of(0) },
 *   { x: { indices: Int32Array.of(0), values: Float32Array.of(3) }, labels: Int32Array.of(1), negatives: Int32Array.of(0) },
 * ], 3, 2);
 * console.log(b.x.numCols, [...b.y.indices], [...b.observed!.indices], [...b.fullyObserved!]); // 3 [0, 1] [0, 1] [1, 0]
 * ```
 */
export function examplesToBatch(
  examples: readonly Example[],
  numFeatures: number,
  numLabels: number,
): Batch {
  const n = examples.length;
  const xPtr = new Int32Array(n + 1);
  const yPtr = new Int32Array(n + 1);
  const oPtr = new Int32Array(n + 1);
  const observedRows: (Int32Array | undefined)[] = new Array(n);
  const full = new Uint8Array(n);
  let partial = false;
  for (let i = 0; i < n; i++) {
    const e = examples[i];
    xPtr[i + 1] = xPtr[i] + e.x.indices.length;
    yPtr[i + 1] = yPtr[i] + e.labels.length;
    const k = e.x.indices.length;
    if (k > 0 && e.x.indices[k - 1] >= numFeatures) numFeatures = e.x.indices[k - 1] + 1;
    const m = e.labels.length;
    if (m > 0 && e.labels[m - 1] >= numLabels) numLabels = e.labels[m - 1] + 1;
    if (e.negatives) {
      partial = true;
      const q = e.negatives;
      if (q.length > 0 && q[q.length - 1] >= numLabels) numLabels = q[q.length - 1] + 1;
      observedRows[i] = mergeSorted(e.labels, q);
    } else {
      full[i] = 1;
    }
    oPtr[i + 1] = oPtr[i] + (observedRows[i]?.length ?? 0);
  }
  const xi = new Int32Array(xPtr[n]), xv = new Float32Array(xPtr[n]);
  const yi = new Int32Array(yPtr[n]);
  const oi = new Int32Array(oPtr[n]);
  for (let i = 0; i < n; i++) {
    const e = examples[i];
    xi.set(e.x.indices, xPtr[i]);
    xv.set(e.x.values, xPtr[i]);
    yi.set(e.labels, yPtr[i]);
    const o = observedRows[i];
    if (o) oi.set(o, oPtr[i]);
  }
  const batch: Batch = {
    x: { numRows: n, numCols: numFeatures, indptr: xPtr, indices: xi, values: xv },
    y: { numRows: n, numCols: numLabels, indptr: yPtr, indices: yi },
  };
  if (!partial) return batch;
  return {
    ...batch,
    observed: { numRows: n, numCols: numLabels, indptr: oPtr, indices: oi },
    fullyObserved: full,
  };
}

/** Union of two strictly increasing index lists. */
function mergeSorted(p: Int32Array, q: Int32Array): Int32Array {
  const out = new Int32Array(p.length + q.length);
  let a = 0, b = 0, o = 0;
  while (a < p.length || b < q.length) {
    if (b >= q.length || (a < p.length && p[a] < q[b])) out[o++] = p[a++];
    else if (a >= p.length || q[b] < p[a]) out[o++] = q[b++];
    else {
      out[o++] = p[a++];
      b++;
    }
  }
  return out.subarray(0, o);
}

/**
 * Options of {@linkcode runDemo}.
 *
 * @example
 * ```ts
 * import type { DemoOptions } from "./demo.ts";
 * const o: DemoOptions = { rows: 500, model: "popularity" };
 * console.log(o.rows); // 500
 * ```
 */
export interface DemoOptions {
  /** Read this XC/LIBSVM/NDJSON file instead of generating synthetic rows. */
  data?: string;
  /** Format of `data` (default: from the extension: .ndjson/.jsonl, .svm/.libsvm, else xc). */
  format?: StreamFormat;
  /** Rows to stream (default 6000 synthetic rows; all rows of `data`). */
  rows?: number;
  /** Model name (default: leml when available, else knn). */
  model?: string;
  /** Model-specific options passed to `factory.create`. */
  modelOptions?: Record<string, unknown>;
  /** Minibatch size (default 64). */
  batchSize?: number;
  /** Seed of the synthetic data and of the model (default 0). */
  seed?: number;
  /** Share of rows held out for the final evaluation, interleaved (default 0.2). */
  holdout?: number;
  /** Write the prequential P@1 curve to this SVG file. */
  plot?: string;
  /** Progress reporter (default: a bar on a terminal). */
  progress?: Progress;
}

/**
 * What {@linkcode runDemo} returns (and the CLI prints as JSON).
 *
 * @example
 * ```ts
 * import type { DemoResult } from "./demo.ts";
 * function p1(r: DemoResult): number { return r.metrics["P@1"]; }
 * console.log(typeof p1); // "function"
 * ```
 */
export interface DemoResult {
  model: string;
  source: string;
  rows: number;
  trainRows: number;
  testRows: number;
  numFeatures: number;
  numLabels: number;
  batchSize: number;
  /** Test-then-train P@1 over the streamed rows, percent. */
  prequentialP1: number;
  /** Time spent in `learnMany`, seconds. */
  trainSeconds: number;
  predictMsPerRow: number;
  /** Held-out metrics (see `src/metrics/evaluate.ts`). */
  metrics: Record<string, number>;
  /** Path of the SVG curve, when written. */
  plot?: string;
}

function formatOf(path: string): StreamFormat {
  const p = path.replace(/\.gz$/, "");
  if (/\.(ndjson|jsonl)$/.test(p)) return "ndjson";
  if (/\.(svm|libsvm)$/.test(p)) return "libsvm";
  return "xc";
}

const DEFAULT_SYNTHETIC_ROWS = 6000;

/**
 * Streams rows through a model test-then-train in minibatches, then evaluates it on the
 * held-out rows (every `1/holdout`-th row, never learned from).
 *
 * @example
 * ```ts
 * import { runDemo } from "./demo.ts";
 * import { Progress } from "./progress.ts";
 * const r = await runDemo({ rows: 300, model: "popularity", progress: Progress.silent() });
 * console.log(r.trainRows, r.testRows, r.metrics["P@1"] >= 0); // 240 60 true
 * ```
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const seed = options.seed ?? 0;
  const batchSize = options.batchSize ?? 64;
  const holdout = options.holdout ?? 0.2;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`demo: --batch-size must be a positive integer, got ${batchSize}`);
  }
  if (!(holdout >= 0 && holdout < 1)) {
    throw new RangeError(`demo: --holdout must be in [0, 1), got ${holdout}`);
  }
  const limit = options.rows ?? (options.data ? Infinity : DEFAULT_SYNTHETIC_ROWS);
  if (!(limit >= 1) || (limit !== Infinity && !Number.isInteger(limit))) {
    throw new RangeError(`demo: --rows must be a positive integer, got ${options.rows}`);
  }
  const modelName = options.model ?? await defaultModel();
  const factory = await loadFactory(modelName);
  const model: Estimator = factory.create({ seed, ...options.modelOptions });
  const progress = options.progress ?? new Progress();

  let sourceName: string;
  let examples: AsyncIterable<Example> | Iterable<Example>;
  let total: number | undefined;
  if (options.data) {
    const reader = await readExamples(options.data, {
      format: options.format ?? formatOf(options.data),
    });
    sourceName = reader.name;
    examples = reader.stream;
    total = limit === Infinity ? undefined : limit;
  } else {
    sourceName = "synthetic";
    examples = syntheticExamples({ rows: limit, seed });
    total = limit;
  }

  const held: Example[] = [];
  let pending: Example[] = [];
  let numFeatures = 0, numLabels = 0;
  let counts = new Float64Array(64);
  const preq = new PrequentialP1(500);
  const curve = { x: [] as number[], p1: [] as number[], window: [] as number[] };
  let learnMs = 0;
  let rows = 0;
  let sinceTick = 0;

  const flush = () => {
    if (pending.length === 0) return;
    for (const e of pending) {
      const top = model.predictTopK(e.x, 1);
      preq.add(top.labels.length > 0 ? top.labels[0] : -1, e.labels);
    }
    const batch = examplesToBatch(pending, numFeatures, numLabels);
    numFeatures = batch.x.numCols;
    numLabels = batch.y.numCols;
    if (counts.length < numLabels) {
      const next = new Float64Array(Math.max(numLabels, 2 * counts.length));
      next.set(counts);
      counts = next;
    }
    for (let p = 0; p < batch.y.indices.length; p++) counts[batch.y.indices[p]]++;
    const t0 = performance.now();
    model.learnMany(batch);
    learnMs += performance.now() - t0;
    curve.x.push(preq.rows);
    curve.p1.push(preq.p1);
    curve.window.push(preq.windowP1);
    progress.tick(sinceTick, { "P@1": preq.windowP1 });
    sinceTick = 0;
    pending = [];
  };

  progress.start(total, `${modelName} on ${sourceName}`);
  for await (const e of examples) {
    if (rows >= limit) break;
    if (Math.floor((rows + 1) * holdout) > Math.floor(rows * holdout)) held.push(e);
    else pending.push(e);
    rows++;
    sinceTick++;
    if (pending.length >= batchSize) flush();
  }
  flush();
  progress.done();

  // held-out evaluation, with propensities from the streamed (training) label counts
  const test = examplesToBatch(held, numFeatures, Math.max(numLabels, model.numLabels));
  const L = Math.max(test.y.numCols, model.numLabels, 1);
  const trainCounts = new Float64Array(L);
  trainCounts.set(counts.subarray(0, Math.min(L, counts.length)));
  const trainRows = rows - held.length;
  const { metrics, predictMsPerRow } = evaluateModel(
    model,
    { numLabels: L, x: test.x, y: { ...test.y, numCols: L } },
    { propensities: propensities(trainCounts, Math.max(1, trainRows)) },
  );
  const result: DemoResult = {
    model: modelName,
    source: sourceName,
    rows,
    trainRows,
    testRows: held.length,
    numFeatures: Math.max(numFeatures, model.numFeatures),
    numLabels: L,
    batchSize,
    prequentialP1: preq.p1,
    trainSeconds: learnMs / 1000,
    predictMsPerRow,
    metrics,
  };
  if (options.plot) {
    const svg = linePlot([
      { name: "running P@1", x: curve.x, y: curve.p1, markers: false },
      { name: `P@1, last ${preq.window}`, x: curve.x, y: curve.window, markers: false },
    ], {
      title: `${modelName} on ${sourceName}: prequential P@1`,
      xLabel: "rows streamed",
      yLabel: "P@1 (%)",
      yMin: 0,
    });
    await Deno.writeTextFile(options.plot, svg);
    result.plot = options.plot;
  }
  return result;
}

function intFlag(v: string | boolean | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || !Number.isInteger(n)) {
    throw new TypeError(`--${name} must be an integer, got '${v}'`);
  }
  return n;
}

async function main(args: string[]): Promise<void> {
  // node:util is imported dynamically: a static import makes `deno check` require
  // npm:@types/node, which node_modules does not have ("nodeModulesDir": "manual").
  const nodeUtil = "node:util";
  const { parseArgs } = (await import(nodeUtil)) as {
    parseArgs(config: {
      args: string[];
      options: Record<string, { type: "string" | "boolean" }>;
    }): { values: Record<string, string | boolean | undefined> };
  };
  const { values } = parseArgs({
    args,
    options: {
      data: { type: "string" },
      format: { type: "string" },
      rows: { type: "string" },
      model: { type: "string" },
      "batch-size": { type: "string" },
      seed: { type: "string" },
      holdout: { type: "string" },
      plot: { type: "string" },
    },
  });
  const format = values.format;
  if (format !== undefined && format !== "xc" && format !== "libsvm" && format !== "ndjson") {
    throw new TypeError(`--format must be xc, libsvm or ndjson, got '${format}'`);
  }
  let holdout: number | undefined;
  if (values.holdout !== undefined) {
    holdout = Number(values.holdout);
    if (!Number.isFinite(holdout)) throw new TypeError(`--holdout must be a number`);
  }
  const r = await runDemo({
    data: values.data as string | undefined,
    format,
    rows: intFlag(values.rows, "rows"),
    model: values.model as string | undefined,
    batchSize: intFlag(values["batch-size"], "batch-size"),
    seed: intFlag(values.seed, "seed"),
    holdout,
    plot: values.plot as string | undefined,
  });
  const m = r.metrics;
  const f = (v: number) => v.toFixed(2);
  console.log(
    `${r.model} on ${r.source}: ${r.trainRows} rows streamed test-then-train in batches of ` +
      `${r.batchSize} (${r.trainSeconds.toFixed(2)} s learning), ${r.testRows} held out`,
  );
  console.log(`prequential P@1 ${f(r.prequentialP1)}%`);
  console.log(
    `held-out P@1 ${f(m["P@1"])}  P@3 ${f(m["P@3"])}  P@5 ${f(m["P@5"])}  nDCG@5 ` +
      `${f(m["nDCG@5"])}  PSP@5 ${f(m["PSP@5"])}  AUC ${m.instanceAUC.toFixed(4)}` +
      (r.plot ? `  (curve: ${r.plot})` : ""),
  );
  console.log(JSON.stringify(r));
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (e) {
    console.error(`demo: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(
      e instanceof TypeError || e instanceof RangeError || e instanceof SyntaxError ? 2 : 1,
    );
  }
}
