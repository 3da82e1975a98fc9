/**
 * `deno task eval --dataset NAME --predictions FILE [--data-dir DIR] [--k K]`: evaluates stored
 * predictions against a dataset's test file and prints ONE JSON object on the last stdout line:
 * `{"dataset", "rows", "metrics": {"P@1", ..., "PSnDCG@5", "instanceAUC", "macroAUC",
 * "hamming", "coverage@1", ...}, "stdErr": {"P@1", ..., "PSnDCG@5"}}` (precision-type metrics
 * in percent, AUCs and Hamming loss as fractions; an AUC that has no valid row or label prints as
 * null; `stdErr` holds the standard errors of the ranking metrics over the test rows).
 *
 * FILE has one line per test row, in test-file order: space-separated `label:score` pairs
 * (0-based labels, any order, each at most once). A label absent from a line is not predicted:
 * it is never ranked (a line listing fewer than k labels leaves the remaining top-k positions as
 * misses; an empty line ranks nothing), in the AUCs it ranks below every listed label (tying with
 * the other absent ones), and in the Hamming loss it is predicted negative (a listed label is
 * predicted when its score is > 0). A test row with no true label counts 0 in P@k and nDCG@k and
 * nothing in PSP@k and PSnDCG@k (the Extreme Classification Repository's convention); the
 * instance AUC averages over the rows with a true and a false label, the macro AUC over the labels
 * true in some test rows and false in others.
 * Propensities come from the dataset's TRAINING file, which must have as many labels as the test
 * file. Top-k lists rank the listed labels by decreasing score, ties broken by the smaller label
 * index.
 *
 * @module
 */
import { labelCounts, labelsOf, loadDataset } from "../data/dataset.ts";
import { resolveDataDir } from "../data/data_dir.ts";
import { propensities } from "../metrics/propensity.ts";
import { Evaluator } from "../metrics/evaluate.ts";
import { Progress } from "../progress/mod.ts";
import { runScript } from "./run_script.ts";
import { intFlag, parseFlags, stringFlag } from "./commands/args.ts";
import { osReason } from "./commands/path_checks.ts";
import { propensityFlags } from "./commands/propensity_flags.ts";

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * One parsed prediction line: listed labels and their scores.
 *
 * @example
 * ```ts
 * import type { PredictionRow } from "./eval.ts";
 * const r: PredictionRow = { labels: Int32Array.of(3), scores: Float64Array.of(0.5) };
 * console.log(r.labels[0]); // 3
 * ```
 */
export interface PredictionRow {
  labels: Int32Array;
  scores: Float64Array;
}

/**
 * Parses one line of a predictions file (`label:score` pairs separated by spaces or tabs).
 *
 * @param line the line, without its newline
 * @param numLabels size of the label space (labels must be in `[0, numLabels)`)
 * @param where names the line in errors, e.g. "line 3 of preds.txt"
 * @throws {SyntaxError} on a malformed pair; {RangeError} on a label out of range or repeated
 *
 * @example
 * ```ts
 * import { parsePredictionLine } from "./eval.ts";
 * const r = parsePredictionLine("4:0.9 0:-1.5e-1", 5, "line 1 of p.txt");
 * console.log([...r.labels], [...r.scores]); // [4, 0] [0.9, -0.15]
 * try {
 *   parsePredictionLine("4:0.9 7:1", 5, "line 2 of p.txt");
 * } catch (e) {
 *   console.log((e as Error).message); // Cannot parse line 2 of p.txt: label 7 is out of range [0, 5)
 * }
 * ```
 */
export function parsePredictionLine(line: string, numLabels: number, where: string): PredictionRow {
  const tokens = line.split(/[ \t]+/).filter((t) => t !== "");
  const labels = new Int32Array(tokens.length);
  const scores = new Float64Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    const colon = tok.indexOf(":");
    const ls = colon > 0 ? tok.slice(0, colon) : "";
    const ss = colon > 0 ? tok.slice(colon + 1) : "";
    if (!/^\d+$/.test(ls) || !DECIMAL.test(ss)) {
      throw new SyntaxError(
        `Cannot parse ${where}: '${tok}' is not a label:score pair (e.g. 12:0.83)`,
      );
    }
    const l = Number(ls);
    if (l >= numLabels) {
      throw new RangeError(`Cannot parse ${where}: label ${l} is out of range [0, ${numLabels})`);
    }
    const s = Number(ss);
    if (!Number.isFinite(s)) {
      throw new RangeError(`Cannot parse ${where}: score '${ss}' of label ${l} is not finite`);
    }
    labels[i] = l;
    scores[i] = s;
  }
  if (labels.length > 1) {
    const sorted = labels.slice().sort();
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i] === sorted[i - 1]) {
        throw new RangeError(`Cannot parse ${where}: label ${sorted[i]} is listed twice`);
      }
    }
  }
  return { labels, scores };
}

/**
 * Splits a predictions file's text into lines (LF or CRLF; a leading UTF-8 byte order mark is
 * skipped; a final newline does not start a new row, so "a\n\n" is two rows, the second empty).
 *
 * @example
 * ```ts
 * import { predictionLines } from "./eval.ts";
 * console.log(predictionLines("0:1\r\n\n2:1\n")); // ["0:1", "", "2:1"]
 * ```
 */
export function predictionLines(text: string): string[] {
  // a leading UTF-8 BOM (Deno.readTextFile keeps it) is not part of the first label
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/**
 * Options of {@linkcode evaluatePredictionsFile}.
 *
 * @example
 * ```ts
 * import type { EvalOptions } from "./eval.ts";
 * const o: EvalOptions = { dataset: "bibtex", predictions: "preds.txt", k: 5 };
 * console.log(o.k); // 5
 * ```
 */
export interface EvalOptions {
  dataset: string;
  predictions: string;
  /** Data directory (default: `$TAGSTREAM_DATA`, else `./data`). */
  dataDir?: string;
  /**
   * Largest cut-off: at most the test file's number of labels (default 5, with the cut-offs 1, 3
   * and 5 whatever the number of labels).
   */
  k?: number;
  /**
   * The propensity model's A and B (default 0.55 and 1.5, the Extreme Classification
   * Repository's for most data sets; Wikipedia-LSHTC 0.5 and 0.4, Amazon 0.6 and 2.6).
   */
  propensity?: { A?: number; B?: number };
  progress?: Progress;
}

/**
 * Evaluates a predictions file against `<dataDir>/<dataset>.test.txt`, with propensities from
 * `<dataset>.train.txt`; returns the object the CLI prints.
 *
 * @example
 * ```ts
 * import { evaluatePredictionsFile } from "./eval.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/toy.train.txt`, "2 2 2\n0 0:1\n1 1:1\n");
 * await Deno.writeTextFile(`${dir}/toy.test.txt`, "2 2 2\n0 0:1\n1 1:1\n");
 * await Deno.writeTextFile(`${dir}/p.txt`, "0:0.9 1:0.1\n0:0.8\n");
 * const r = await evaluatePredictionsFile({ dataset: "toy", dataDir: dir, predictions: `${dir}/p.txt` });
 * console.log(r.rows, r.metrics["P@1"], r.metrics.macroAUC); // 2 50 0.5
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function evaluatePredictionsFile(
  options: EvalOptions,
): Promise<
  {
    dataset: string;
    rows: number;
    propensity: { A: number; B: number };
    metrics: Record<string, number>;
    stdErr: Record<string, number>;
  }
> {
  const A = options.propensity?.A ?? 0.55, B = options.propensity?.B ?? 1.5;
  const dataDir = resolveDataDir(options.dataDir);
  const test = await loadDataset(dataDir, options.dataset, "test");
  const train = await loadDataset(dataDir, options.dataset, "train");
  const testFile = `${options.dataset}.test.txt`, trainFile = `${options.dataset}.train.txt`;
  if (test.x.numRows === 0) throw new RangeError(`${testFile} has no rows: nothing to evaluate`);
  if (train.x.numRows === 0) {
    throw new RangeError(`${trainFile} has no rows: no label frequencies for the propensities`);
  }
  if (train.numLabels !== test.numLabels) {
    throw new RangeError(
      `${trainFile} has ${train.numLabels} labels but ${testFile} has ${test.numLabels} ` +
        `(propensities need the test file's label space)`,
    );
  }
  const numLabels = test.numLabels;
  if (options.k !== undefined && options.k > numLabels) {
    // a line ranks at most the test file's labels: P@k past them measures nothing
    throw new RangeError(
      `--k ${options.k} is above the ${numLabels} labels of ${testFile}: give --k ` +
        `${Math.max(1, numLabels)} or less`,
    );
  }
  const counts = new Float64Array(numLabels);
  counts.set(labelCounts(train.y));
  const p = propensities(counts, Math.max(1, train.x.numRows), A, B);
  let text: string;
  try {
    text = await Deno.readTextFile(options.predictions);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new TypeError(`Cannot read predictions ${options.predictions}: no such file`);
    }
    if (e instanceof Deno.errors.IsADirectory) {
      throw new TypeError(`Cannot read predictions ${options.predictions}: it is a directory`);
    }
    // any other reason the file cannot be read (the OS's, without its `(os error N)` and the
    // call after it): bad input naming the file, as a missing one
    throw new TypeError(`Cannot read predictions ${options.predictions}: ${osReason(e)}`);
  }
  const source = options.predictions.slice(options.predictions.lastIndexOf("/") + 1);
  const lines = predictionLines(text);
  const numRows = test.x.numRows;
  if (lines.length !== numRows) {
    throw new RangeError(
      `${source} has ${lines.length} lines but ${testFile} has ${numRows} rows ` +
        `(one line per test row is required, empty lines included)`,
    );
  }
  const ev = new Evaluator(numLabels, { propensities: p, k: options.k ?? 5 });
  const progress = options.progress;
  progress?.start(numRows, "eval");
  for (let i = 0; i < numRows; i++) {
    const row = parsePredictionLine(lines[i], numLabels, `line ${i + 1} of ${source}`);
    ev.addSparseScores(row.labels, row.scores, labelsOf(test.y, i));
    progress?.tick();
  }
  progress?.done();
  return {
    dataset: options.dataset,
    rows: numRows,
    propensity: { A, B },
    metrics: ev.result(),
    stdErr: ev.standardErrors(),
  };
}

/** `deno task eval --help`. */
const USAGE =
  `usage: deno task eval --dataset NAME --predictions FILE [--data-dir DIR] [--k K (1-1000)]
       [--propensity-a A --propensity-b B]
Evaluates a predictions file against DIR/NAME.test.txt (propensities from NAME.train.txt; DIR:
--data-dir, else $TAGSTREAM_DATA, else ./data). FILE has one line per test row, in test-file
order, of space-separated label:score pairs (0-based labels, any order). Prints one JSON line:
P@k, nDCG@k, PSP@k, PSnDCG@k (percent) and coverage@k for the k of 1, 3, 5, K up to K (default
5; a K given is at most the number of labels), instanceAUC, macroAUC and hamming (fractions; a
listed label with a score > 0 counts as predicted), and stdErr. A test row with no true label
counts 0 in P@k and nDCG@k and nothing in PSP@k and PSnDCG@k; instanceAUC averages over the rows
with a true and a false label, macroAUC over the labels true in some rows and false in others
(the others are left out). PSP and PSnDCG weigh label l by its inverse propensity 1/p_l, where
p_l = 1/(1 + C·(N_l + B)^-A) and C = (ln N − 1)·(B + 1)^A, with N_l training rows carrying l out
of N (Jain et al. 2016): A = 0.55, B = 1.5 by default; Wikipedia-LSHTC 0.5 and 0.4, Amazon 0.6
and 2.6.`;

async function main(args: string[]): Promise<void> {
  const f = parseFlags("eval", args, {
    dataset: "string",
    predictions: "string",
    "data-dir": "string",
    k: "string",
    "propensity-a": "string",
    "propensity-b": "string",
  }, { maxPositionals: 0, program: "deno task eval" });
  if (f.values.help) {
    console.log(USAGE);
    return;
  }
  const dataset = stringFlag(f, "dataset"), predictions = stringFlag(f, "predictions");
  if (!dataset || !predictions) {
    throw new TypeError(
      `--dataset and --predictions are required; usage: deno task eval --dataset NAME ` +
        `--predictions FILE [--data-dir DIR] [--k K]`,
    );
  }
  const dataDir = stringFlag(f, "data-dir");
  if (dataDir === "") throw new TypeError("--data-dir is empty: give a directory");
  // (only a --k given is held to the number of labels: the default 5 evaluates any dataset)
  const k = intFlag(f, "k", undefined, 1, 1000);
  const propensity = propensityFlags(f);
  const out = await evaluatePredictionsFile({
    dataset,
    predictions,
    dataDir,
    k,
    propensity,
    progress: new Progress(),
  });
  console.log(JSON.stringify(out));
}

if (import.meta.main) await runScript("eval", () => main(Deno.args));
