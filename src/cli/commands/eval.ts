/**
 * `tagstream eval`: the metrics of a state directory's model (or of a model file, through the
 * SDK) on a labelled XC test file or labelled NDJSON events (their raw text and features, scored
 * as `/predict` scores them: `./eval_events.ts`). Labels are matched by name: the test file's
 * label names (`NAME.labels.txt`, or the indices) are looked up in the model's label vocabulary,
 * labels the model never saw count as misses (the model cannot score them, so they are never
 * ranked).
 * When both address labels by index (the model's label names are its indices), the test file
 * (and the training file) must have exactly the model's number of labels: another count means
 * another dataset. Propensities come from the training file when there is one (it must have the
 * test file's number of labels). `--predictions FILE` instead evaluates a predictions file (as
 * `deno task eval`).
 *
 * @module
 */
import { examplesToBatch } from "../../data/batcher.ts";
import { type Dataset, labelCounts, loadXcFile, rowView } from "../../data/dataset.ts";
import { resolveDataDir } from "../../data/data_dir.ts";
import type { Example, SparseVector } from "../../data/types.ts";
import { evaluateModel, type ScoringModel } from "../../metrics/evaluate.ts";
import type { TopK } from "../../../sdk/mod.ts";
import { propensities } from "../../metrics/propensity.ts";
import { evaluatePredictionsFile } from "../eval.ts";
import { Progress } from "../../progress/mod.ts";
import { type Command, type Flags, intFlag, parseFlags, stringFlag } from "./args.ts";
import { namedModelError, readModelArg } from "./inspect.ts";
import { openState, replayLog } from "./state.ts";
import { labelsBeside, readLabelsFlag } from "./label_names.ts";
import { propensityFlags } from "./propensity_flags.ts";
import {
  evaluateEvents,
  eventLabelCounts,
  type MatchedMetrics,
  type MatchOptions,
} from "./eval_events.ts";
import { type LabelledEvent, readLabelledEvents } from "../../data/labelled_events.ts";
import { formatFromName } from "../../data/readers.ts";
import { parseIndexKey } from "../../data/json_text.ts";

/**
 * From this many labels on, an eval that scores every label of every row (no `--top`) says on
 * stderr, before it starts, what `--top` would change: each row then costs one score per label
 * (at 10⁵ labels 2,000 rows took 9 min 41 s against 3.3 s with `--top 5`).
 */
const MANY_LABELS = 10_000;

/**
 * The stderr note of an eval without `--top` on a model of `numLabels` ≥ {@linkcode MANY_LABELS}
 * labels (scoring every label: the exact AUCs, slowly), else undefined. The default stays every
 * label: the AUCs and the Hamming loss are over all labels, whatever the model's size.
 */
function everyLabelNote(numLabels: number, rows: number, k: number): string | undefined {
  if (numLabels < MANY_LABELS) return undefined;
  return `tagstream eval: note: scoring all ${numLabels} labels of each of the ${rows} test ` +
    `rows (for the AUCs and the Hamming loss over every label); --top ${k} scores each row's ` +
    `${k} best labels only, by the model's top-k search, much faster: P@k, nDCG@k, PSP@k, ` +
    `PSnDCG@k and coverage@k unchanged, the AUCs and the Hamming loss then rank the labels ` +
    `past ${k} last`;
}

const USAGE =
  `tagstream eval (--state-dir DIR | --model-file FILE.tsm) (--dataset NAME | --data FILE) [options]
tagstream eval --predictions FILE --dataset NAME

Metrics (P@k, nDCG@k, PSP@k, PSnDCG@k in percent; AUCs, Hamming loss as fractions) of a model on
a labelled XC test file or on labelled NDJSON events, and the standard errors of the ranking
metrics over the test rows (stdErr); prints one JSON object.

  --state-dir DIR       the model of a serve/train state directory, as a restart would serve
                        it: its checkpoint and the write-ahead log's events after it, replayed
                        in memory ("fromLog": how many); "note" says what the model
                        tells its user, as train's summary (e.g. knn's k above the rows
                        it learnt)
  --model-file FILE     a model file, scored through the SDK (-: stdin)
  --dataset NAME        test on DATA_DIR/NAME.test.txt, propensities from NAME.train.txt,
                        label names from NAME.labels.txt
  --data-dir DIR        data directory (default $TAGSTREAM_DATA, else ./data)
  --data FILE           test on this XC file instead (gzip too; -: stdin)
  --format F            xc or ndjson (default: ndjson for .ndjson/.jsonl names, else xc; with
                        --dataset: NAME.test.ndjson and NAME.train.ndjson)
  --train FILE          propensities from this training file (with --data; XC: it must have
                        the test file's number of labels; NDJSON: label counts by name; -: stdin)
  --labels FILE         label names of an XC test file, one per line
  --k K                 largest cut-off, 1 to 1000 (default 5), and at most the model's number
                        of labels (with --predictions, the test file's)
  --top N               score each row's N best labels only (N >= --k), by the model's top-k
                        search, as /predict answers: P@k, nDCG@k, PSP@k, PSnDCG@k and
                        coverage@k are unchanged, and on many labels it is much faster; the
                        AUCs and the Hamming loss then rank the labels past N last (default:
                        score every label, which costs one score per label and row: a model of
                        ${MANY_LABELS} labels or more gets a note on stderr naming --top)
  --predictions FILE    evaluate a predictions file (label:score pairs per test row) instead;
                        labels a line does not list are not predicted (never ranked)
  --propensity-a A      the propensities of PSP@k and PSnDCG@k, 1/(1 + C·(N_l + B)^-A)
  --propensity-b B      (default 0.55 and 1.5; Wikipedia-LSHTC 0.5 and 0.4, Amazon 0.6 and 2.6)

NDJSON test events are the training events' format ({"text", "features", "labels"}): each is
scored from its text (when the model was trained on text) and its features, as POST /predict
and the SDK score them, and its labels (names or indices) are matched to the model's by name.

Labels the model never saw are misses. A test file whose number of labels differs from an
index-labelled model's is refused (another dataset); a different number of features is
reported in "features" (with a warning when the file is narrower than the model).

Examples:
  npx deno task tagstream eval --state-dir state --dataset bibtex
  npx deno task tagstream eval --model-file debtags-text.tsm --dataset debtags --format ndjson`;

/** A model to evaluate: scores over its own labels, and their names. */
interface NamedModel extends ScoringModel {
  numFeatures: number;
  numLabels: number;
  labelName(l: number): string;
}

/** A loaded model: it also scores an event's raw input (text and features) as `/predict` does. */
interface EvalModel extends NamedModel {
  /**
   * How it reads named features ("feature space 'hashing', with text"), when its columns are not
   * feature indices (a vocabulary or hashing): XC rows' columns then mean nothing to it.
   */
  namedFeatures?: string;
  predictTopK(x: SparseVector, k: number): TopK;
  scoreEvent(e: LabelledEvent): Float32Array;
  topOfEvent(e: LabelledEvent, n: number): TopK;
}

/** The TypeError of an event that has no features for a model that reads no text. */
function noFeatures(): never {
  throw new TypeError("the event has no 'features' and the model was not trained on text");
}

/**
 * Refuses an event's `features` whose key is not a feature index, for a model that reads
 * feature indices (`--feature-keys index` or XC/LIBSVM rows): with the key modes that read
 * names, as the learning service's rejection names them. (The SDK would drop such a key, and
 * score the event without it.)
 */
function indexKeysOnly(features: unknown, model: string): void {
  if (typeof features !== "object" || features === null || Array.isArray(features)) return;
  for (const key in features) {
    if (parseIndexKey(key) >= 0) continue;
    throw new TypeError(
      `features: key ${JSON.stringify(key.slice(0, 40))} is not a feature index (a ` +
        `non-negative integer); the model ${model} reads feature indices (--feature-keys ` +
        `index, or XC/LIBSVM rows): events that name their features need a model trained with ` +
        `--feature-keys name or hash`,
    );
  }
}

/**
 * Evaluates a model whose labels have names on an XC test set whose labels have names
 * (`testLabelNames[i]` names label `i`): test labels are mapped to the model's labels by name,
 * unknown ones get new indices the model does not score (never ranked: misses, see
 * `Evaluator.addScores`); features beyond the model's are dropped.
 * Propensities use `trainCounts` (indexed like the test labels) over `numTrain` rows, with the
 * propensity model's `options.propensity` (default A = 0.55, B = 1.5). With `options.top`, each
 * row scores only its `top` best labels, from `model.predictTopK` (the `top` option of
 * `evaluateModel`).
 *
 * @example
 * ```ts
 * import { evaluateByName } from "./eval.ts";
 * import { loadXcBytes } from "../../data/dataset.ts";
 * const test = loadXcBytes(new TextEncoder().encode("2 2 2\n1 0:1\n0 1:1\n"), "t");
 * // a model with labels named "b", "a" that always ranks "a" first
 * const model = { numFeatures: 2, numLabels: 2, labelName: (l: number) => ["b", "a"][l],
 *   predictScores: () => Float32Array.of(0, 1) };
 * const r = evaluateByName(model, test, ["a", "b"], Float64Array.of(1, 1), 2, { k: 2 });
 * console.log(r.metrics["P@1"], r.unknownLabels); // 50 0
 * ```
 */
export function evaluateByName(
  model: NamedModel,
  test: Dataset,
  testLabelNames: readonly string[],
  trainCounts: ArrayLike<number>,
  numTrain: number,
  options: MatchOptions = {},
): MatchedMetrics {
  const { k = 5, propensity = { A: 0.55, B: 1.5 }, top, progress } = options;
  const byName = new Map<string, number>();
  for (let l = 0; l < model.numLabels; l++) byName.set(model.labelName(l), l);
  let next = model.numLabels, unknown = 0;
  const map = Int32Array.from(testLabelNames, (n) => {
    const l = byName.get(n);
    if (l !== undefined) return l;
    unknown++;
    return next++;
  });
  const numLabels = next;
  const counts = new Float64Array(numLabels);
  for (let i = 0; i < testLabelNames.length && i < trainCounts.length; i++) {
    counts[map[i]] += trainCounts[i];
  }
  const examples: Example[] = [];
  for (let i = 0; i < test.x.numRows; i++) {
    const x = rowView(test.x, i);
    let n = x.indices.length;
    while (n > 0 && x.indices[n - 1] >= model.numFeatures) n--;
    const y = test.y.indices.subarray(test.y.indptr[i], test.y.indptr[i + 1]);
    examples.push({
      x: { indices: x.indices.subarray(0, n), values: x.values.subarray(0, n) },
      labels: Int32Array.from(y, (v) => map[v]).sort(),
    });
  }
  const rows = examplesToBatch(examples, model.numFeatures, numLabels);
  const { metrics, stdErr } = evaluateModel(
    model,
    { numLabels, x: rows.x, y: rows.y },
    {
      propensities: propensities(counts, Math.max(1, numTrain), propensity.A, propensity.B),
      k,
      timingRows: 0,
      top,
      progress,
    },
  );
  return { rows: test.x.numRows, metrics, stdErr, unknownLabels: unknown };
}

/** A model file scored through the SDK (full score vectors from its top-L). */
async function sdkModel(path: string): Promise<EvalModel> {
  // Loaded on demand: the other commands do not depend on the SDK.
  const { loadModel } = await import("../../../sdk/mod.ts");
  const bytes = await readModelArg("--model-file", path);
  let m: ReturnType<typeof loadModel>;
  try {
    m = loadModel(bytes);
  } catch (e) {
    throw namedModelError(e, path);
  }
  const L = m.numLabels;
  const space = m.featureSpace as { type?: string; text?: unknown } | undefined;
  const readsText = space?.text !== undefined;
  const readsIndices = space === undefined || space.type === "index";
  type Input = Parameters<typeof m.predictTopK>[0];
  const scores = (x: Input, out?: Float32Array) => {
    const s = out !== undefined && out.length === L ? out : new Float32Array(L);
    const t = m.predictTopK(x, L);
    for (let i = 0; i < t.labels.length; i++) s[t.labels[i]] = t.scores[i];
    return s;
  };
  const input = (e: LabelledEvent): Input => {
    const features = e.features as Record<string, number> | undefined;
    if (readsText && e.text !== undefined) return { text: e.text, features };
    if (readsIndices) indexKeysOnly(features, path);
    return features ?? noFeatures();
  };
  return {
    numFeatures: m.numFeatures,
    numLabels: L,
    namedFeatures: readsIndices
      ? undefined
      : `feature space '${space.type}'${readsText ? ", with text" : ""}`,
    labelName: (l) => m.labelName(l),
    predictScores: (x: SparseVector, out?: Float32Array) => scores(x, out),
    predictTopK: (x, n) => m.predictTopK(x, n),
    scoreEvent: (e) => scores(input(e)),
    topOfEvent: (e, n) => m.predictTopK(input(e), n),
  };
}

/** Test label names: --labels, NAME.labels.txt beside the file, or the indices. */
async function testNames(
  path: string,
  flag: string | undefined,
  L: number,
  known: (name: string) => boolean,
): Promise<string[]> {
  if (flag !== undefined) return await readLabelsFlag(flag, L);
  const indices = Array.from({ length: L }, (_, i) => String(i));
  const names = await labelsBeside(path, L);
  if (names === undefined) return indices;
  // Use whichever naming the model knows better (names, or indices as strings).
  const hits = (list: string[]) => list.reduce((a, n) => a + (known(n) ? 1 : 0), 0);
  return hits(names) >= hits(indices) ? names : indices;
}

/** Whether a model's label names are its indices ("0", "1", …): it addresses labels by index. */
function indexLabelled(model: NamedModel): boolean {
  for (let l = 0; l < model.numLabels; l++) if (model.labelName(l) !== String(l)) return false;
  return true;
}

/** Refuses the given flags (which `mode` ignores), naming them. */
function refuseFlags(f: Flags, names: string[], mode: string): void {
  const given = names.filter((n) => f.values[n] !== undefined).map((n) => `--${n}`);
  if (given.length > 0) {
    throw new TypeError(
      `tagstream eval: ${given.join(", ")} ${given.length > 1 ? "do" : "does"} not apply with ` +
        `${mode} (see tagstream eval --help)`,
    );
  }
}

/**
 * `path` (given as `what`, e.g. "--data x.txt") is an existing file, or `-` (stdin) when
 * `stdin`, else a TypeError.
 */
async function checkFile(what: string, path: string, stdin = false): Promise<void> {
  if (path === "-") {
    if (stdin) return;
    throw new TypeError(`${what}: this flag cannot read stdin (-): give a file`);
  }
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw new TypeError(`${what}: no such file`);
    throw new TypeError(`${what}: cannot be read (${(e as Error).message})`);
  }
  if (info.isDirectory) throw new TypeError(`${what}: is a directory, not a file`);
}

/** `path` (given as `what`) is an existing directory, else a TypeError. */
async function checkDir(what: string, path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw new TypeError(`${what}: no such directory`);
    throw new TypeError(`${what}: cannot be read (${(e as Error).message})`);
  }
  if (!info.isDirectory) throw new TypeError(`${what}: is not a directory`);
}

/** Prints the warnings on stderr, and the report (with the warnings, if any) as one JSON line. */
function printReport(warnings: string[], report: Record<string, unknown>): void {
  for (const w of warnings) console.error(`tagstream eval: warning: ${w}`);
  console.log(JSON.stringify({ ...report, ...(warnings.length > 0 ? { warnings } : {}) }));
}

/**
 * The test set's format: `--format` (xc or ndjson), else from the `--data` file's name (ndjson for
 * `.ndjson`/`.jsonl`), else xc.
 */
function evalFormat(flag: string | undefined, data: string | undefined): "xc" | "ndjson" {
  if (flag !== undefined) {
    if (flag === "xc" || flag === "ndjson") return flag;
    throw new TypeError(`tagstream eval: --format must be xc or ndjson, got '${flag}'`);
  }
  if (data === undefined || data === "-") return "xc";
  const f = formatFromName(data);
  if (f === "libsvm") {
    throw new TypeError(
      `tagstream eval: --data ${data}: eval reads XC files and NDJSON events, not LIBSVM ` +
        `(give --format xc for an XC file of another name)`,
    );
  }
  return f;
}

/** The `eval` command. */
export const evalCommand: Command = {
  name: "eval",
  summary: "metrics of a model (state dir or model file) on a test set, or of a predictions file",
  usage: USAGE,
  async run(args) {
    const f = parseFlags("eval", args, {
      "state-dir": "string",
      "model-file": "string",
      dataset: "string",
      "data-dir": "string",
      data: "string",
      train: "string",
      labels: "string",
      k: "string",
      predictions: "string",
      "propensity-a": "string",
      "propensity-b": "string",
      format: "string",
      top: "string",
    });
    if (f.values.help) {
      console.log(USAGE);
      return 0;
    }
    const k = intFlag(f, "k", 5, 1, 1000)!;
    const top = intFlag(f, "top", undefined, 1, 2 ** 31 - 1);
    if (top !== undefined && top < k) {
      throw new RangeError(
        `tagstream eval: --top ${top} is below --k ${k}: P@${k} needs each row's ${k} best ` +
          `labels (give --top ${k} or more)`,
      );
    }
    const propensity = propensityFlags(f);
    // an empty --data-dir ("$DIR" unset) is a mistake, not "the default directory"
    if (stringFlag(f, "data-dir") === "") {
      throw new TypeError("tagstream eval: --data-dir is empty: give a directory");
    }
    const dataset = stringFlag(f, "dataset");
    const predictions = stringFlag(f, "predictions");
    if (predictions !== undefined) {
      if (dataset === undefined) {
        throw new TypeError("tagstream eval: --predictions needs --dataset");
      }
      refuseFlags(
        f,
        ["state-dir", "model-file", "data", "train", "labels", "top"],
        "--predictions",
      );
      await checkFile(`--predictions ${predictions}`, predictions);
      const r = await evaluatePredictionsFile({
        dataset,
        predictions,
        dataDir: stringFlag(f, "data-dir"),
        // only a --k given is held to the test file's number of labels
        k: f.values.k !== undefined ? k : undefined,
        propensity,
        progress: new Progress(),
      });
      console.log(JSON.stringify(r));
      return 0;
    }
    const stateDir = stringFlag(f, "state-dir"), modelFile = stringFlag(f, "model-file");
    if ((stateDir === undefined) === (modelFile === undefined)) {
      throw new TypeError("tagstream eval: give exactly one of --state-dir or --model-file");
    }
    let testPath = stringFlag(f, "data"), trainPath = stringFlag(f, "train");
    if ((testPath === undefined) === (dataset === undefined)) {
      throw new TypeError("tagstream eval: give exactly one of --dataset NAME or --data FILE");
    }
    const format = evalFormat(
      stringFlag(f, "format"),
      dataset === undefined ? testPath : undefined,
    );
    let testWhat: string, trainWhat: string | undefined;
    if (dataset !== undefined) {
      // the dataset names its training file and its data directory
      refuseFlags(f, ["train"], "--dataset");
      const dir = resolveDataDir(stringFlag(f, "data-dir"));
      const ext = format === "ndjson" ? "ndjson" : "txt";
      testPath = `${dir}/${dataset}.test.${ext}`;
      trainPath = `${dir}/${dataset}.train.${ext}`;
      testWhat = `--dataset ${dataset}: ${testPath}`;
      trainWhat = `--dataset ${dataset}: ${trainPath}`;
    } else {
      refuseFlags(f, ["data-dir"], "--data");
      testWhat = `--data ${testPath}`;
      if (trainPath !== undefined) trainWhat = `--train ${trainPath}`;
    }
    if (format === "ndjson") {
      refuseFlags(f, ["labels"], "NDJSON test events (their labels are named in the events)");
      if (trainPath !== undefined && trainPath !== "-" && formatFromName(trainPath) !== "ndjson") {
        throw new TypeError(
          `tagstream eval: ${trainWhat}: NDJSON test events take their propensities from NDJSON ` +
            `training events (.ndjson or .jsonl; labels are matched by name)`,
        );
      }
    }
    // one of --data, --train and --model-file may be `-`: stdin is read once
    const fromStdin = [["data", testPath], ["train", trainPath], ["model-file", modelFile]]
      .filter(([, p]) => p === "-").map(([flag]) => `--${flag}`);
    if (fromStdin.length > 1) {
      throw new TypeError(
        `tagstream eval: ${fromStdin.join(" and ")} cannot both read stdin (-): give files`,
      );
    }
    await checkFile(testWhat, testPath!, true);
    if (trainPath !== undefined) await checkFile(trainWhat!, trainPath, true);
    const labelsFlag = stringFlag(f, "labels");
    if (labelsFlag !== undefined) await checkFile(`--labels ${labelsFlag}`, labelsFlag);
    let model: EvalModel;
    let fromLog: number | undefined;
    // what the state's model says its user should know (e.g. knn's k above the rows it learnt),
    // under train's name for it: the same sentence, read from the same field
    let modelNote: string | undefined;
    const stateWarnings: string[] = [];
    if (stateDir !== undefined) {
      await checkDir(`--state-dir ${stateDir}`, stateDir);
      const l = await openState(stateDir);
      // the model a restart would serve: the log's events after the checkpoint replayed (in
      // memory; nothing is written)
      const log = await replayLog(stateDir, l);
      fromLog = log.replayed;
      stateWarnings.push(...log.warnings);
      const est = l.estimator, names = l.parser.labels.names, parser = l.parser;
      modelNote = est.trainingNote?.();
      const readsText = parser.limits.text !== undefined;
      const readsIndices = parser.featureKeys === "index" && parser.limits.hashing === undefined;
      const input = (e: LabelledEvent) => {
        const d = est.numFeatures;
        if (readsText && e.text !== undefined) return parser.textForPredict(e.text, e.features, d);
        if (!readsIndices) return parser.featuresForPredict(e.features ?? noFeatures(), d);
        try {
          return parser.featuresForPredict(e.features ?? noFeatures(), d);
        } catch (err) {
          // the parser refuses a key that is not an index, tersely: only a refused event's keys
          // are read again, for its first such key with the key-mode hint (also when a value
          // before that key failed first)
          indexKeysOnly(e.features, stateDir);
          throw err;
        }
      };
      const named = parser.limits.hashing !== undefined ? "hashing" : "vocabulary";
      model = {
        numFeatures: est.numFeatures,
        numLabels: est.numLabels,
        namedFeatures: readsIndices
          ? undefined
          : `feature space '${named}'${readsText ? ", with text" : ""}`,
        labelName: (i) => names[i] ?? String(i),
        predictScores: (x, out) => est.predictScores(x, out),
        predictTopK: (x, n) => est.predictTopK(x, n),
        scoreEvent: (e) => est.predictScores(input(e)),
        topOfEvent: (e, n) => est.predictTopK(input(e), n),
      };
    } else {
      model = await sdkModel(modelFile!);
    }
    const modelName = stateDir ?? modelFile!;
    if (f.values.k !== undefined && k > model.numLabels) {
      // P@k past the labels the model can rank measures nothing (as prune's --ks)
      throw new RangeError(
        `--k ${k} is above the ${model.numLabels} labels of the model ${modelName}: give ` +
          `--k ${Math.max(1, model.numLabels)} or less`,
      );
    }
    if (top !== undefined && top > model.numLabels) {
      throw new RangeError(
        `--top ${top} is above the ${model.numLabels} labels of the model ${modelName}: ` +
          `leave --top out to score every label`,
      );
    }
    if (format === "xc" && model.namedFeatures !== undefined) {
      // an XC row's columns are feature indices: through a vocabulary or a hash they are
      // unrelated weights (the metrics would measure nothing)
      throw new TypeError(
        `tagstream eval: ${testWhat} is an XC file, whose features are feature indices, but the ` +
          `model ${modelName} reads named features (${model.namedFeatures}): evaluate it on ` +
          `labelled NDJSON events (--format ndjson${
            dataset !== undefined ? `: ${dataset}.test.ndjson` : ""
          })`,
      );
    }
    if (format === "ndjson") {
      const events = await readLabelledEvents(testPath!, testPath === "-" ? undefined : testPath);
      const train = trainPath === undefined ? undefined : await eventLabelCounts(trainPath);
      const note = top === undefined
        ? everyLabelNote(model.numLabels, events.length, k)
        : undefined;
      if (note !== undefined) console.error(note);
      const r = evaluateEvents(model, events, testPath!, train, {
        k,
        propensity,
        top,
        progress: new Progress(),
      });
      const warnings = [...stateWarnings];
      const testLabels = new Set(events.flatMap((e) => e.labels)).size;
      if (model.numLabels > 0 && testLabels > 0 && r.unknownLabels === testLabels) {
        warnings.push(
          `none of the ${testLabels} labels of ${testPath} is known to the model ${modelName}: ` +
            `is it another dataset?`,
        );
      }
      printReport(warnings, {
        test: testPath,
        format,
        model: modelName,
        ...(fromLog !== undefined ? { fromLog } : {}),
        ...(modelNote !== undefined ? { note: modelNote } : {}),
        rows: r.rows,
        unknownLabels: r.unknownLabels,
        features: { model: model.numFeatures },
        propensitiesFrom: trainPath ?? testPath,
        propensity,
        ...(top !== undefined ? { top } : {}),
        metrics: r.metrics,
        stdErr: r.stdErr,
      });
      return 0;
    }
    const test = await loadXcFile(testPath!);
    if (test.x.numRows === 0) {
      throw new RangeError(`${testPath} has no rows: nothing to evaluate`);
    }
    const known = new Set(Array.from({ length: model.numLabels }, (_, i) => model.labelName(i)));
    const names = await testNames(testPath!, labelsFlag, test.numLabels, (n) => known.has(n));
    const byIndex = indexLabelled(model) && names.every((n, i) => n === String(i));
    if (byIndex && test.numLabels !== model.numLabels) {
      throw new RangeError(
        `${testPath} has ${test.numLabels} labels but the model ${modelName} has ` +
          `${model.numLabels} (both address labels by index: is it another dataset?)`,
      );
    }
    let counts: ArrayLike<number> = labelCounts(test.y), numTrain = test.x.numRows;
    if (trainPath !== undefined) {
      const train = await loadXcFile(trainPath);
      if (train.numLabels !== test.numLabels) {
        throw new RangeError(
          `the propensities' ${trainPath} has ${train.numLabels} labels but ${testPath} has ` +
            `${test.numLabels} (they must come from the same dataset)`,
        );
      }
      if (train.x.numRows === 0) {
        throw new RangeError(`${trainPath} has no rows: no label frequencies for the propensities`);
      }
      counts = labelCounts(train.y);
      numTrain = train.x.numRows;
    }
    const warnings = [...stateWarnings];
    if (test.numFeatures < model.numFeatures) {
      warnings.push(
        `${testPath} has ${test.numFeatures} features, fewer than the model's ` +
          `${model.numFeatures}: is it another dataset?`,
      );
    }
    const note = top === undefined ? everyLabelNote(model.numLabels, test.x.numRows, k) : undefined;
    if (note !== undefined) console.error(note);
    const r = evaluateByName(model, test, names, counts, numTrain, {
      k,
      propensity,
      top,
      progress: new Progress(),
    });
    if (model.numLabels > 0 && r.unknownLabels === test.numLabels) {
      // a model of named labels against a test file known only by indices (stdin, or no
      // NAME.labels.txt beside it): most likely the names were not given
      const hint = !indexLabelled(model) && names.every((n, i) => n === String(i))
        ? ` the model's labels have names ('${model.labelName(0)}', ...) and the test file's ` +
          `are indices: give their names with --labels FILE, or is it another dataset?`
        : " is it another dataset?";
      warnings.push(
        `none of the ${test.numLabels} labels of ${testPath} is known to the model ` +
          `${modelName}:${hint}`,
      );
    }
    printReport(warnings, {
      test: testPath,
      model: modelName,
      ...(fromLog !== undefined ? { fromLog } : {}),
      ...(modelNote !== undefined ? { note: modelNote } : {}),
      rows: r.rows,
      unknownLabels: r.unknownLabels,
      features: { model: model.numFeatures, test: test.numFeatures },
      propensitiesFrom: trainPath ?? testPath,
      propensity,
      ...(top !== undefined ? { top } : {}),
      metrics: r.metrics,
      stdErr: r.stdErr,
    });
    return 0;
  },
};
