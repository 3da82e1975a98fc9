/**
 * `deno task text [--data-dir DIR] [--dataset debtags] [--model ova] [--no-select]`: a tagger
 * learned from raw text, end to end, next to the same learner on the prepared word counts and
 * the fastText anchor of issue 17.
 *
 * - **Text.** One streaming pass over `NAME.train.ndjson`'s `text` (the NDJSON reader with the
 *   SDK's tokenizer, `--text-only`: the events' `features` ignored), minibatches of 256, into
 *   `ova` (or `--model`). The feature space (hashing 2^18 / 2^20 columns or a growing vocabulary)
 *   and the longest n-gram (1 or 2) are chosen on a validation split of the training file (the
 *   first 80% of its lines learn, the last 20% score by P@1; rows are in hash order, so this is
 *   a shuffled split); `NAME.test.ndjson` is read only for the final evaluation.
 * - **Features.** The same learner, one pass over the events' prepared word counts (`features`,
 *   a growing vocabulary of names).
 * - The exported file fits the budget of 1/100 of fastText's model (8.39 MB): the weights are
 *   stored as f16 (label indices as u16) and thresholded (|w| > √λ, POP's weight thresholding, `src/prune/pop.ts`) at
 *   the smallest λ in 0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5 whose file fits (chosen by size alone).
 * - P@1/3/5 (percent) on the test file, computed through the SDK (`loadModel(file).predictTopK(
 *   {text}, 5)` on the raw test text) from the exported file, and from the unpruned f32 file
 *   (`unpruned`; the trainer's own top-5 are checked against it: `sdkRowsDifferingFromTrainer`),
 *   `cpuSeconds` of the learning pass (reading, tokenizing and learning: process CPU time),
 *   `exportCpuSeconds` of the thresholding and encoding, `modelBytes` of the exported file.
 *
 * Prints one JSON object. Bad flags, an unknown `--model` and missing dataset files
 * ({@linkcode TEXT}) are one line on stderr and exit code 2, before any learning.
 *
 * @module
 */
import process from "node:process";
import { intFlag, stringFlag } from "../src/cli/commands/args.ts";
import { checkInputFile } from "../src/cli/commands/path_checks.ts";
import { Minibatcher } from "../src/data/batcher.ts";
import { readExamples, type ReadExamplesOptions } from "../src/data/readers.ts";
import type { Example } from "../src/data/types.ts";
import { Vocabulary } from "../src/data/vocabulary.ts";
import type { FeatureSpace } from "../src/format/types.ts";
import type { Estimator, EstimatorFactory, ModelFileOptions } from "../src/models/estimator.ts";
import { loadFactory } from "../src/models/registry.ts";
import { loadModel } from "../sdk/mod.ts";
import type { TextSettings } from "../sdk/tokenizer.ts";
import { encodeModelFile } from "../src/format/model_file.ts";
import { linearSparseContent } from "../src/models/label_weights.ts";
import type { OvaEstimator } from "../src/models/ova/mod.ts";
import { thresholdWeights } from "../src/prune/pop.ts";
import { type BenchScript, checkDirectory, dataDirOf, runBench } from "./args.ts";

/** fastText 0.9.2 (Debian), `-loss ova -wordNgrams 2`, 1 thread, on debtags (issue 17). */
export const FASTTEXT = {
  tool: "fastText 0.9.2 -loss ova -wordNgrams 2 (1 thread)",
  epoch1: { p1: 74.2, cpuSeconds: 8.9 },
  epoch25: { p1: 84.2, cpuSeconds: 88 },
  modelBytes: 839e6,
};

/** What `deno task text` runs with (see {@linkcode TEXT}). */
export interface TextOptions {
  dataset: string;
  trainPath: string;
  testPath: string;
  factory: EstimatorFactory;
  batchSize: number;
  /** Whether the feature space and n-grams are chosen on a validation split (not `--no-select`). */
  select: boolean;
}

/**
 * The command line of `deno task text`, checked before any learning: the model known, the batch
 * size in plain decimal within its limit, the dataset's `NAME.train.ndjson` and
 * `NAME.test.ndjson` in the data directory.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { TEXT } from "./text.ts";
 * await benchOptions(TEXT, ["--batch-size", "0x10"]).catch((e) => console.log(e.message)); // --batch-size must be an integer in [1, 65536], got '0x10'
 * ```
 */
export const TEXT: BenchScript<TextOptions> = {
  task: "text",
  usage: `deno task text [--data-dir DIR] [--dataset debtags] [--model ova] [--no-select]
  [--batch-size 256]
A tagger learned from the raw text of DIR/NAME.train.ndjson, evaluated on NAME.test.ndjson
through the SDK, next to the same learner on the word counts and fastText; one JSON object.`,
  flags: {
    "data-dir": "string",
    dataset: "string",
    model: "string",
    "no-select": "boolean",
    "batch-size": "string",
  },
  async options(f) {
    const dataset = stringFlag(f, "dataset", "debtags")!;
    if (dataset === "") throw new RangeError("--dataset is empty: give a dataset name");
    const batchSize = intFlag(f, "batch-size", 256, 1, 1 << 16)!;
    const factory = await loadFactory(stringFlag(f, "model", "ova")!).catch((e) => {
      throw new TypeError(`--model: ${(e as Error).message}`);
    });
    const { dir, source, hint } = dataDirOf(f);
    await checkDirectory(dir, source, hint);
    const trainPath = `${dir}/${dataset}.train.ndjson`, testPath = `${dir}/${dataset}.test.ndjson`;
    for (const path of [trainPath, testPath]) await checkInputFile(path, "dataset");
    return {
      dataset,
      trainPath,
      testPath,
      factory,
      batchSize,
      select: f.values["no-select"] !== true,
    };
  },
};

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** A feature space to learn in: hashing columns, or a growing vocabulary. */
type Space = { hashDim: number } | { vocabulary: true };
interface Setup {
  space: Space;
  text?: TextSettings;
}

function readerOptions(s: Setup, labels: Vocabulary, features?: Vocabulary): ReadExamplesOptions {
  return {
    format: "ndjson",
    labels,
    ...("hashDim" in s.space
      ? { hashing: { dim: s.space.hashDim } }
      : { featureKeys: "name", ...(features ? { features, growFeatures: false } : {}) }),
    ...(s.text ? { text: s.text } : {}),
  };
}

/** Lines [from, to) of a file's rows (1-based line numbers), as a filter. */
type Lines = { from: number; to: number };

/** One pass of a fresh model over the file's rows in `lines`. */
async function learn(o: TextOptions, s: Setup, path: string, lines?: Lines) {
  const labels = new Vocabulary();
  const cpu0 = cpuSeconds();
  const r = await readExamples(path, readerOptions(s, labels));
  const model: Estimator = o.factory.create({ seed: 0 });
  let stream = r.stream;
  if (lines) {
    stream = stream.pipeThrough(
      new TransformStream<Example, Example>({
        transform(e, c) {
          if (e.line! >= lines.from && e.line! < lines.to) c.enqueue(e);
        },
      }),
    );
  }
  for await (const b of stream.pipeThrough(new Minibatcher({ batchSize: o.batchSize, sizes: r }))) {
    model.learnMany(b);
  }
  const cpu = cpuSeconds() - cpu0;
  return { model, reader: r, labels, cpu };
}

/** P@1, P@3, P@5 (percent) of `top` against `gold` over rows. */
function precision(rows: { top: ArrayLike<number>; gold: ReadonlySet<number> }[]) {
  const hit = [0, 0, 0], ks = [1, 3, 5];
  for (const { top, gold } of rows) {
    ks.forEach((k, i) => {
      for (let r = 0; r < Math.min(k, top.length); r++) if (gold.has(top[r])) hit[i] += 1 / k;
    });
  }
  const n = Math.max(1, rows.length);
  return { p1: 100 * hit[0] / n, p3: 100 * hit[1] / n, p5: 100 * hit[2] / n };
}

/** Test rows as the trainer maps them (labels through the training vocabulary; new: -1). */
async function testRows(s: Setup, path: string, trained: Awaited<ReturnType<typeof learn>>) {
  const labels = Vocabulary.fromJSON(trained.labels.toJSON());
  const r = await readExamples(
    path,
    readerOptions(s, labels, trained.reader.featureVocabulary),
  );
  const L = trained.model.numLabels, out: { x: Example["x"]; gold: Set<number> }[] = [];
  for await (const e of r.stream) {
    out.push({ x: e.x, gold: new Set([...e.labels].filter((l) => l < L)) });
  }
  return out;
}

/** The raw JSON events of a file, lines [from, to) (1-based). */
async function rawEvents(path: string, lines?: Lines) {
  const text = await Deno.readTextFile(path);
  return text.split("\n").filter((l) => l.trim() !== "").map((l, i) => ({
    line: i + 1,
    ev: JSON.parse(l) as { text: string; features: Record<string, number>; labels: string[] },
  })).filter((e) => !lines || (e.line >= lines.from && e.line < lines.to));
}

/** The model-file budget: 1/100 of fastText's model. */
const BUDGET = FASTTEXT.modelBytes / 100;

/** The file within {@linkcode BUDGET}: f16 weights thresholded at the smallest λ that fits. */
function compactFileOf(s: Setup, t: Awaited<ReturnType<typeof learn>>) {
  const m = t.model as OvaEstimator;
  if (typeof m.toLabelWeights !== "function") return { file: fileOf(s, t), lambda: null };
  const w = m.toLabelWeights(), featureSpace = spaceOf(s, t);
  let file: Uint8Array = new Uint8Array(0), lambda = 0;
  for (lambda of [0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]) {
    // linearSparseContent passes the feature space on to applyModelFileOptions
    const options: ModelFileOptions = {
      labelNames: t.labels.names,
      featureSpace,
      ...(m.config.l2Normalize ? { preprocess: { l2Normalize: true } } : {}),
    };
    const content = linearSparseContent(lambda > 0 ? thresholdWeights(w, lambda, 0) : w, {
      ...options,
      weightType: "f16",
      ...(t.labels.size <= 65536 ? { indexType: "u16" as const } : {}),
    });
    file = encodeModelFile(content);
    if (file.byteLength <= BUDGET) break;
  }
  return { file, lambda };
}

function fileOf(s: Setup, t: Awaited<ReturnType<typeof learn>>): Uint8Array {
  return t.model.toModelFile({ labelNames: t.labels.names, featureSpace: spaceOf(s, t) });
}

function spaceOf(s: Setup, t: Awaited<ReturnType<typeof learn>>): FeatureSpace {
  const r = t.reader, D = t.model.numFeatures;
  let featureSpace: FeatureSpace;
  if (r.hasher) featureSpace = { ...r.hasher.featureSpace(), ...(s.text ? { text: s.text } : {}) };
  else {
    const names = r.featureVocabulary!.names;
    featureSpace = {
      type: "vocabulary",
      names: Array.from({ length: D }, (_, i) => names[i] ?? `#${i}`),
      ...(s.text ? { text: s.text } : {}),
    };
  }
  return featureSpace;
}

const describe = (s: Setup) => ({
  space: "hashDim" in s.space ? `hashing ${s.space.hashDim}` : "vocabulary",
  ...(s.text ? { ngrams: s.text.ngrams ?? 1 } : {}),
});

// 2. the chosen setup on the whole training file; the test file through the SDK
async function evaluate(o: TextOptions, s: Setup) {
  const t = await learn(o, s, o.trainPath);
  const cpu0 = cpuSeconds();
  const { file, lambda } = compactFileOf(s, t);
  const exportCpu = cpuSeconds() - cpu0;
  const full = fileOf(s, t);
  const test = await rawEvents(o.testPath);
  const names = new Map(t.labels.names.map((n, i) => [n, i]));
  const gold = test.map(({ ev }) => new Set(ev.labels.map((n) => names.get(n) ?? -1)));
  const topOf = (bytes: Uint8Array) => {
    const sdk = loadModel(bytes);
    return test.map(({ ev }) =>
      sdk.predictTopK(s.text ? { text: ev.text } : ev.features, 5).labels
    );
  };
  const sdkTop = topOf(full), compactTop = topOf(file);
  // the trainer's own top-5 on the same rows, mapped by its reader: the same labels
  const rows = await testRows(s, o.testPath, t);
  let differ = 0;
  rows.forEach((r, i) => {
    const a = t.model.predictTopK(r.x, 5).labels, b = sdkTop[i];
    if (a.length !== b.length || a.some((l, j) => l !== b[j])) differ++;
  });
  const p = precision(compactTop.map((top, i) => ({ top, gold: gold[i] })));
  const u = precision(sdkTop.map((top, i) => ({ top, gold: gold[i] })));
  return {
    ...describe(s),
    p1: +p.p1.toFixed(2),
    p3: +p.p3.toFixed(2),
    p5: +p.p5.toFixed(2),
    cpuSeconds: +t.cpu.toFixed(2),
    exportCpuSeconds: +exportCpu.toFixed(2),
    modelBytes: file.byteLength,
    export: { quantize: "f16", thresholdLambda: lambda },
    unpruned: {
      p1: +u.p1.toFixed(2),
      p3: +u.p3.toFixed(2),
      p5: +u.p5.toFixed(2),
      modelBytes: full.byteLength,
    },
    numFeatures: t.model.numFeatures,
    sdkRowsDifferingFromTrainer: differ,
  };
}

async function main(o: TextOptions): Promise<void> {
  // 1. selection on a validation split of the training file
  const nTrain = (await rawEvents(o.trainPath)).length;
  const cut = Math.floor(nTrain * 0.8) + 1;
  const candidates: Setup[] = [];
  for (const space of [{ hashDim: 1 << 18 }, { hashDim: 1 << 20 }, { vocabulary: true as const }]) {
    for (const ngrams of [1, 2]) candidates.push({ space, text: { ngrams, ignoreFeatures: true } });
  }
  let best: Setup = { space: { hashDim: 1 << 20 }, text: { ngrams: 2, ignoreFeatures: true } };
  const validation: Record<string, number> = {};
  const selectStart = performance.now();
  if (o.select) {
    const valid = await rawEvents(o.trainPath, { from: cut, to: Infinity });
    let bestP1 = -1;
    for (const s of candidates) {
      const t = await learn(o, s, o.trainPath, { from: 1, to: cut });
      const sdk = loadModel(fileOf(s, t));
      const names = new Map(t.labels.names.map((n, i) => [n, i]));
      const p = precision(valid.map(({ ev }) => ({
        top: sdk.predictTopK({ text: ev.text }, 5).labels,
        gold: new Set(ev.labels.map((n) => names.get(n) ?? -1)),
      })));
      const key = JSON.stringify(describe(s));
      validation[key] = +p.p1.toFixed(2);
      if (p.p1 > bestP1) {
        bestP1 = p.p1;
        best = s;
      }
    }
  }
  const selectSeconds = (performance.now() - selectStart) / 1000;

  const text = await evaluate(o, best);
  const features = await evaluate(o, { space: { vocabulary: true } });
  const fastTextBytes = FASTTEXT.modelBytes;
  console.log(JSON.stringify({
    dataset: o.dataset,
    model: o.factory.kind,
    trainRows: nTrain,
    text,
    features,
    fastText: FASTTEXT,
    target: {
      p1: FASTTEXT.epoch25.p1,
      cpuSeconds: FASTTEXT.epoch1.cpuSeconds,
      modelBytes: fastTextBytes / 100,
      met: text.p1 >= FASTTEXT.epoch25.p1 && text.cpuSeconds < FASTTEXT.epoch1.cpuSeconds &&
        text.modelBytes <= fastTextBytes / 100,
    },
    validation,
    selectSeconds: +selectSeconds.toFixed(1),
  }));
}

if (import.meta.main) await runBench(TEXT, main);
