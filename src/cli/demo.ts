/**
 * `deno task demo [--data FILE|URL|-] [--format xc|libsvm|ndjson] [--on-error fail|skip]
 * [--feature-keys index|name] [--text|--text-only] [--hash-dim N] [--tfidf] [--l2] [--rows N]
 * [--features D --labels L --avg-nnz K] [--model NAME] [--option KEY=VALUE]...
 * [--batch-size B] [--seed S] [--holdout F] [--plot FILE.svg]`: streams a multi-label dataset
 * through a streaming model in minibatches, test-then-train, with a progress bar showing the
 * prequential P@1; then evaluates the model on held-out rows and prints the metrics as ONE JSON
 * object on the last stdout line.
 *
 * Without `--data` the rows come from the synthetic generator (planted structure, power-law
 * label frequencies), so the demo needs no data directory and no server. Every `1/F`-th row
 * (F = `--holdout`, default 0.2) is held out for the final evaluation and never learned from.
 * `--model` is any name of `MODEL_NAMES` (src/models/registry.ts; default: leml, streaming LEML),
 * `--option KEY=VALUE` sets one of its settings, as for `tagstream train`.
 *
 * @module
 */
import type { TextSettings } from "../../sdk/mod.ts";
import type { Example } from "../data/types.ts";
import type { Estimator, EstimatorFactory } from "../models/estimator.ts";
import type { SpaceLimits } from "../data/batch_check.ts";
import { loadFactory } from "../models/registry.ts";
import { formatFromName, readExamples, type StreamFormat } from "../data/readers.ts";
import { syntheticExamples, type SyntheticOptions } from "../data/synthetic.ts";
import { examplesToBatch, Minibatcher } from "../data/batcher.ts";
import type { OnError, ParseReport } from "../data/parse_report.ts";
import { NotAFeatureIndexError } from "../data/ndjson_features.ts";
import { rowView } from "../data/dataset.ts";
import { evaluateModel } from "../metrics/evaluate.ts";
import { PrequentialP1 } from "../metrics/prequential.ts";
import { propensities } from "../metrics/propensity.ts";
import { linePlot } from "../plot/line_plot.ts";
import { Progress } from "../progress/mod.ts";
import { runScript } from "./run_script.ts";
import {
  type Flags,
  type FlagSpec,
  intFlag,
  numberFlag,
  parseFlags,
  stringFlag,
} from "./commands/args.ts";
import {
  modelNamesUsage,
  seededModelOptions,
  usageWithModelOptions,
} from "./commands/learner_flags.ts";
import { checkOutFile } from "./commands/path_checks.ts";
import { writeFileAtomic } from "../service/checkpoint.ts";

/**
 * The model the demo runs by default: streaming LEML.
 *
 * @example
 * ```ts
 * import { DEFAULT_DEMO_MODEL } from "./demo.ts";
 * console.log(DEFAULT_DEMO_MODEL); // "leml"
 * ```
 */
export const DEFAULT_DEMO_MODEL = "leml";

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
  /** Read this XC/LIBSVM/NDJSON file (or URL, or `-` for stdin) instead of synthetic rows. */
  data?: string;
  /** Format of `data` (default: from the extension: .ndjson/.jsonl, .svm/.libsvm, else xc). */
  format?: StreamFormat;
  /** Bad lines of `data`: `"fail"` (default) or `"skip"` (counted in `skipped`). */
  onError?: OnError;
  /** NDJSON feature keys: `"index"` (default) or `"name"` (a growing vocabulary). */
  featureKeys?: "index" | "name";
  /** Hash the features of `data` into this many columns. */
  hashDim?: number;
  /**
   * NDJSON: read the events' raw `text` with these tokenizer settings (`sdk/tokenizer.ts`; needs
   * `featureKeys: "name"` or `hashDim`).
   */
  text?: TextSettings;
  /** TF-IDF-weight the rows (online statistics). */
  tfidf?: boolean;
  /** L2-normalise the rows. */
  l2?: boolean;
  /** Rows to stream (default 20000 synthetic rows; all rows of `data`). */
  rows?: number;
  /** Shape of the synthetic data (rows and seed come from `rows` and `seed`). */
  synthetic?: Omit<SyntheticOptions, "rows" | "seed">;
  /** Model name (default {@linkcode DEFAULT_DEMO_MODEL}). */
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
  /** Lines of `data` skipped as malformed (`onError: "skip"`). */
  skipped: number;
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

/**
 * Synthetic rows of the default demo.
 *
 * @example
 * ```ts
 * import { DEFAULT_SYNTHETIC_ROWS } from "./demo.ts";
 * console.log(DEFAULT_SYNTHETIC_ROWS); // 20000
 * ```
 */
export const DEFAULT_SYNTHETIC_ROWS = 20000;

/** Shape of the default synthetic data. */
const DEFAULT_SYNTHETIC: Omit<SyntheticOptions, "rows" | "seed"> = {
  numFeatures: 5000,
  numLabels: 200,
  avgNnz: 30,
  avgLabels: 3,
};

/**
 * Streams rows through a model test-then-train in minibatches (every row is scored before its
 * batch is learned), then evaluates it on the held-out rows (every `1/holdout`-th row, never
 * learned from).
 *
 * @example
 * ```ts
 * import { runDemo } from "./demo.ts";
 * import { Progress } from "../progress/mod.ts";
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
  if (!(holdout > 0 && holdout < 1)) {
    // no held-out row would leave nothing to evaluate
    throw new RangeError(`demo: --holdout must be in (0, 1), got ${holdout}`);
  }
  const limit = options.rows ?? (options.data ? Infinity : DEFAULT_SYNTHETIC_ROWS);
  if (!(limit >= 1) || (limit !== Infinity && !Number.isInteger(limit))) {
    throw new RangeError(`demo: --rows must be a positive integer, got ${options.rows}`);
  }
  const modelName = options.model ?? DEFAULT_DEMO_MODEL;
  const factory = await loadFactory(modelName);
  const model: Estimator = factory.create({ seed, ...options.modelOptions });
  const limits = modelLimits(factory, { seed, ...options.modelOptions });
  const progress = options.progress ?? new Progress();

  let sourceName: string;
  let examples: ReadableStream<Example>;
  let report: ParseReport | undefined;
  let sizes: { readonly numFeatures: number; readonly numLabels: number } | undefined;
  if (options.data) {
    const reader = await readExamples(options.data, {
      format: options.format ?? formatFromName(options.data),
      onError: options.onError ?? "fail",
      featureKeys: options.featureKeys,
      hashing: options.hashDim ? { dim: options.hashDim, seed } : undefined,
      ...(options.text ? { text: options.text } : {}),
      tfidf: options.tfidf,
      l2: options.l2,
    });
    sourceName = reader.name;
    examples = reader.stream;
    report = reader.report;
    sizes = reader;
  } else {
    sourceName = "synthetic";
    const shape = { ...DEFAULT_SYNTHETIC, ...options.synthetic };
    examples = ReadableStream.from(syntheticExamples({ ...shape, rows: limit, seed }));
    sizes = { numFeatures: shape.numFeatures!, numLabels: shape.numLabels! };
    checkSize(limits, modelName, "--features", sizes.numFeatures, "maxFeatures");
    checkSize(limits, modelName, "--labels", sizes.numLabels, "maxLabels");
  }
  if (options.hashDim !== undefined) {
    checkSize(limits, modelName, "--hash-dim", options.hashDim, "maxFeatures");
  }
  // XC/LIBSVM/NDJSON rows the model would refuse are named by their line (and the XC header,
  // read with the first row, by line 1) instead of by their row in a minibatch
  const base = options.data && sourceFormat(options) === "libsvm" ? 1 : 0;
  let headerChecked = false;
  const checkLearnable = (e: Example) => {
    if (limits === undefined) return;
    const header = report?.header;
    if (!headerChecked && header !== undefined) {
      headerChecked = true;
      const at = `line 1 of ${sourceName} (the header)`;
      checkSize(limits, modelName, at, header.numFeatures, "maxFeatures", "declares");
      checkSize(limits, modelName, at, header.numLabels, "maxLabels", "declares");
    }
    const j = e.x.indices.length > 0 ? e.x.indices[e.x.indices.length - 1] : -1;
    const l = e.labels.length > 0 ? e.labels[e.labels.length - 1] : -1;
    const line = `line ${e.line} of ${sourceName}`;
    if (j >= limits.maxFeatures) pastLimit(line, "feature", j, base, limits.maxFeatures, modelName);
    if (l >= limits.maxLabels) pastLimit(line, "label", l, 0, limits.maxLabels, modelName);
  };

  // split: every 1/holdout-th row is held out, the others go to the minibatcher
  const held: Example[] = [];
  let rows = 0;
  const split = new TransformStream<Example, Example>({
    transform(e, controller) {
      if (rows >= limit) return;
      const r = rows++;
      if (Math.floor((r + 1) * holdout) > Math.floor(r * holdout)) held.push(e);
      else {
        checkLearnable(e);
        controller.enqueue(e);
      }
      if (rows >= limit) controller.terminate();
    },
  });
  // a reader's sizes grow with the rows it has parsed, ahead of those batched: capped at the
  // limits, the rows before one past them (refused by checkLearnable) are learned as usual
  const batcher = new Minibatcher({
    batchSize,
    sizes: sizes === undefined || limits === undefined ? sizes : {
      get numFeatures() {
        return Math.min(sizes!.numFeatures, limits.maxFeatures);
      },
      get numLabels() {
        return Math.min(sizes!.numLabels, limits.maxLabels);
      },
    },
  });
  let numFeatures = 0, numLabels = 0;
  let counts = new Float64Array(64);
  const preq = new PrequentialP1(500);
  const curve = { x: [] as number[], p1: [] as number[], window: [] as number[] };
  let learnMs = 0;

  progress.start(limit === Infinity ? undefined : limit, `${modelName} on ${sourceName}`);
  let seen = 0;
  for await (const batch of examples.pipeThrough(split).pipeThrough(batcher)) {
    const n = batch.x.numRows;
    for (let i = 0; i < n; i++) {
      const top = model.predictTopK(rowView(batch.x, i), 1);
      const labels = batch.y.indices.subarray(batch.y.indptr[i], batch.y.indptr[i + 1]);
      preq.add(top.labels.length > 0 ? top.labels[0] : -1, labels);
    }
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
    progress.tick(rows - seen, { "P@1": preq.windowP1 });
    seen = rows;
  }
  progress.done();
  if (rows === 0 && report !== undefined && report.skipped > 0) {
    // every line was malformed: more rows or a larger --holdout would not help
    const first = report.errors[0];
    throw new RangeError(
      `demo: ${sourceName} gave no rows: ${report.skipped} malformed ` +
        `line${report.skipped === 1 ? "" : "s"} skipped (--on-error skip)` +
        (first === undefined ? "" : `, the first: ${first.message}`),
      first?.error ? { cause: first.error } : undefined,
    );
  }
  if (rows === 0) {
    // (more rows or a larger --holdout would not help either)
    throw new RangeError(`demo: ${sourceName} has no rows: nothing to learn from or evaluate on`);
  }
  if (held.length === 0) {
    throw new RangeError(
      `demo: ${sourceName} gave ${rows} row${rows === 1 ? "" : "s"}, and --holdout ${holdout} ` +
        `holds out about 1 row in ${Math.round(1 / holdout)}: no held-out row to evaluate on ` +
        `(give more rows or a larger --holdout)`,
    );
  }

  // held-out evaluation, with propensities from the streamed (training) label counts
  const test = examplesToBatch(
    held,
    Math.max(numFeatures, sizes?.numFeatures ?? 0),
    Math.max(numLabels, model.numLabels, sizes?.numLabels ?? 0),
  );
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
    skipped: report?.skipped ?? 0,
    numFeatures: Math.max(test.x.numCols, model.numFeatures),
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
    // atomic: a failed write leaves neither a partial curve nor its temporary file
    await writeFileAtomic(options.plot, new TextEncoder().encode(svg));
    result.plot = options.plot;
  }
  return result;
}

/** The growth limits the model was created with, when its factory declares settings. */
function modelLimits(
  factory: EstimatorFactory,
  options: Record<string, unknown>,
): SpaceLimits | undefined {
  const s = factory.settings?.resolve(options) as Partial<SpaceLimits> | undefined;
  const { maxFeatures, maxLabels } = s ?? {};
  return typeof maxFeatures === "number" && typeof maxLabels === "number"
    ? { maxFeatures, maxLabels }
    : undefined;
}

/** The format `runDemo` reads `options.data` as. */
function sourceFormat(options: DemoOptions): StreamFormat {
  return options.format ?? formatFromName(options.data!);
}

/** Throws a RangeError naming `what` when the size `n` it sets is above the model's limit. */
function checkSize(
  limits: SpaceLimits | undefined,
  model: string,
  what: string,
  n: number,
  setting: "maxFeatures" | "maxLabels",
  verb: "is" | "declares" = "is",
): void {
  if (limits === undefined || n <= limits[setting]) return;
  const size = verb === "declares"
    ? `declares ${n} ${setting === "maxFeatures" ? "features" : "labels"},`
    : `${n} is`;
  throw new RangeError(
    `demo: ${what} ${size} above the ${model} model's ${setting} ${limits[setting]}`,
  );
}

/** Throws a RangeError naming the line whose index `j` (0-based; `base` as written) is past `limit`. */
function pastLimit(
  line: string,
  entity: "feature" | "label",
  j: number,
  base: number,
  limit: number,
  model: string,
): never {
  const setting = entity === "feature" ? "maxFeatures" : "maxLabels";
  throw new RangeError(
    `demo: ${line}: ${entity} index ${j + base} is out of range [${base}, ${limit + base}): ` +
      `above the ${model} model's ${setting} ${limit}`,
  );
}

const USAGE = `Usage: deno task demo [options]
  --data FILE|URL|-       read this XC/LIBSVM/NDJSON source (gzip ok) instead of synthetic rows
  --format xc|libsvm|ndjson   format of --data (default: from the file name)
  --on-error fail|skip    what to do with a malformed line of --data (default fail)
  --feature-keys index|name   NDJSON feature keys: column indices (default) or names
  --hash-dim N            hash features into N columns
  --text                  NDJSON: read the events' raw "text" (words and 2-grams; needs
                          --feature-keys name or --hash-dim); --text-only ignores "features"
  --tfidf, --l2           TF-IDF weighting, row L2 normalisation
  --rows N                rows to stream (default ${DEFAULT_SYNTHETIC_ROWS} synthetic; all of --data)
  --features D --labels L --avg-nnz K   shape of the synthetic data (default ${DEFAULT_SYNTHETIC.numFeatures},
                          ${DEFAULT_SYNTHETIC.numLabels}, ${DEFAULT_SYNTHETIC.avgNnz})
  --model NAME            ${modelNamesUsage(DEFAULT_DEMO_MODEL)}
  --option KEY=VALUE      model option, repeatable (e.g. --model leml --option rank=32); an
                          unknown key or a bad value is an error naming what is allowed;
                          --model NAME --help lists the model's options
  --batch-size B          minibatch size (default 64)
  --seed S                seed of the data and the model (default 0)
  --holdout F             share of rows held out for evaluation (default 0.2)
  --plot FILE.svg         write the prequential P@1 curve`;

/** The flags of `deno task demo`. */
const DEMO_FLAGS: FlagSpec = {
  data: "string",
  format: "string",
  "on-error": "string",
  "feature-keys": "string",
  "hash-dim": "string",
  text: "boolean",
  "text-only": "boolean",
  tfidf: "boolean",
  l2: "boolean",
  rows: "string",
  features: "string",
  labels: "string",
  "avg-nnz": "string",
  model: "string",
  option: "multiple",
  "batch-size": "string",
  seed: "string",
  holdout: "string",
  plot: "string",
};

/** Flags that only apply to `--data` / only to the synthetic rows. */
const DATA_ONLY = [
  "format",
  "on-error",
  "feature-keys",
  "hash-dim",
  "text",
  "text-only",
  "tfidf",
  "l2",
];
const SYNTHETIC_ONLY = ["features", "labels", "avg-nnz"];
/** Flags that only apply to NDJSON events. */
const NDJSON_ONLY = ["feature-keys", "text", "text-only"];

/** Refuses the given flags (the run would ignore them), naming them and why. */
function refuseFlags(f: Flags, names: readonly string[], why: string): void {
  const given = names.filter((n) => f.values[n] !== undefined).map((n) => `--${n}`);
  if (given.length > 0) {
    throw new TypeError(
      `${given.join(", ")} ${given.length > 1 ? "have" : "has"} no effect ${why}`,
    );
  }
}

async function main(args: string[]): Promise<void> {
  // every flag (and the --plot path) is checked before any row is read
  const f = parseFlags("demo", args, DEMO_FLAGS, {
    maxPositionals: 0,
    program: "deno task demo",
  });
  if (f.values.help) {
    console.log(await usageWithModelOptions(USAGE, f));
    return;
  }
  const data = stringFlag(f, "data");
  if (data === "") throw new TypeError("--data is empty: give a file, a URL or - (stdin)");
  const format = stringFlag(f, "format");
  if (format !== undefined && format !== "xc" && format !== "libsvm" && format !== "ndjson") {
    throw new TypeError(`--format must be xc, libsvm or ndjson, got '${format}'`);
  }
  const onError = stringFlag(f, "on-error");
  if (onError !== undefined && onError !== "fail" && onError !== "skip") {
    throw new TypeError(`--on-error must be fail or skip, got '${onError}'`);
  }
  const featureKeys = stringFlag(f, "feature-keys");
  if (featureKeys !== undefined && featureKeys !== "index" && featureKeys !== "name") {
    throw new TypeError(`--feature-keys must be index or name, got '${featureKeys}'`);
  }
  // values first, then whether the run would use them
  if (data === undefined) {
    refuseFlags(f, DATA_ONLY, "without --data (the synthetic rows are generated, not read)");
  } else {
    refuseFlags(f, SYNTHETIC_ONLY, "with --data (the shape of the synthetic rows)");
    const read = format ?? formatFromName(data);
    if (read !== "ndjson") {
      refuseFlags(
        f,
        NDJSON_ONLY,
        `on ${read} input, only on NDJSON events (--data ${data} is read as ${read}` +
          `${format ? ", --format " + format : ""}; --format ndjson reads events)`,
      );
    }
  }
  const holdout = numberFlag(f, "holdout", undefined);
  if (holdout !== undefined && !(holdout > 0 && holdout < 1)) {
    throw new RangeError(
      `--holdout must be a number in (0, 1) (the share of rows held out), got '${f.values.holdout}'`,
    );
  }
  const synthetic: Omit<SyntheticOptions, "rows" | "seed"> = {};
  const d = intFlag(f, "features", undefined, 1, 2 ** 31 - 1);
  const l = intFlag(f, "labels", undefined, 1, 1 << 24);
  const avgNnz = numberFlag(f, "avg-nnz", undefined, 1, 1e6);
  if (d !== undefined) synthetic.numFeatures = d;
  if (l !== undefined) {
    synthetic.numLabels = l;
    // the default labels per row (3) cannot exceed the labels asked for
    synthetic.avgLabels = Math.min(DEFAULT_SYNTHETIC.avgLabels!, l);
  }
  if (avgNnz !== undefined) synthetic.avgNnz = avgNnz;
  const plot = stringFlag(f, "plot");
  const options: DemoOptions = {
    data,
    format,
    onError,
    featureKeys,
    hashDim: intFlag(f, "hash-dim", undefined, 1, 2 ** 31 - 1),
    ...(f.values.text || f.values["text-only"]
      ? { text: { ngrams: 2, ...(f.values["text-only"] ? { ignoreFeatures: true } : {}) } }
      : {}),
    tfidf: f.values.tfidf === true ? true : undefined,
    l2: f.values.l2 === true ? true : undefined,
    rows: intFlag(f, "rows", undefined, 1, 2 ** 31 - 1),
    synthetic,
    model: stringFlag(f, "model"),
    // --seed and --option KEY=VALUE, as `tagstream train` reads them (the seed given once)
    modelOptions: seededModelOptions(f),
    batchSize: intFlag(f, "batch-size", undefined, 1, 1 << 16),
    // (the models' seed range: out of it, the model's option would be named, not the flag)
    seed: intFlag(f, "seed", undefined, 0, 2 ** 32 - 1),
    holdout,
    plot,
  };
  if (options.text && featureKeys !== "name" && options.hashDim === undefined) {
    // (the words of a text are named features: column indices cannot hold them)
    const given = f.values["text-only"] ? "--text-only" : "--text";
    throw new TypeError(`${given} needs --feature-keys name or --hash-dim N`);
  }
  if (options.model !== undefined) await loadFactory(options.model);
  if (plot !== undefined) {
    const inputs = data === undefined ? [] : [{ what: `--data ${data}`, path: data }];
    await checkOutFile(plot, "plot", { inputs, kind: "svg" });
  }
  const r = await runDemo(options);
  const m = r.metrics;
  const fixed = (v: number) => v.toFixed(2);
  console.log(
    `${r.model} on ${r.source}: ${r.trainRows} rows streamed test-then-train in batches of ` +
      `${r.batchSize} (${r.trainSeconds.toFixed(2)} s learning), ${r.testRows} held out` +
      (r.skipped > 0 ? `, ${r.skipped} malformed lines skipped` : ""),
  );
  console.log(`prequential P@1 ${fixed(r.prequentialP1)}%`);
  console.log(
    `held-out P@1 ${fixed(m["P@1"])}  P@3 ${fixed(m["P@3"])}  P@5 ${fixed(m["P@5"])}  nDCG@5 ` +
      `${fixed(m["nDCG@5"])}  PSP@5 ${fixed(m["PSP@5"])}  AUC ${m.instanceAUC.toFixed(4)}` +
      (r.plot ? `  (curve: ${r.plot})` : ""),
  );
  console.log(JSON.stringify(r));
}

/**
 * Whether `e` is, or was caused by, the refusal of a feature key that is not an index
 * (`NotAFeatureIndexError` of `ndjson_features.ts`): a parse error (`lineError` of
 * `parse_report.ts`) keeps the parser's error as its `cause`, and "gave no rows: …, the first:
 * …" keeps the first parse error. Tested by class, so that a label, a key or a file name that
 * merely says those words does not count.
 */
function refusesNamedKey(e: unknown): boolean {
  for (let c = e, depth = 0; c instanceof Error && depth < 8; c = c.cause, depth++) {
    if (c instanceof NotAFeatureIndexError) return true;
  }
  return false;
}

if (import.meta.main) {
  await runScript("demo", () =>
    main(Deno.args).catch((e) => {
      // runScript names the script: not "demo: demo: …"
      if (e instanceof Error) {
        e.message = e.message.replace(/^demo: /, "");
        // NDJSON events with named features read as column indices (the default)
        const keys = Deno.args.some((a) => /^--(feature-keys|hash-dim|text|text-only)\b/.test(a));
        if (!keys && refusesNamedKey(e)) {
          e.message +=
            " (the events name their features: give --feature-keys name or --hash-dim N)";
        }
      }
      throw e;
    }));
}
