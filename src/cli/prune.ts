/**
 * `deno task prune`: POP-prunes a linear model and writes the pruned model file plus an SVG
 * curve of model size against validation PSP@k over ε and λ.
 *
 * ```
 * deno task prune --dataset NAME (--model FILE | --train br) [--out FILE] [--plot FILE.svg]
 *   [--no-plot] [--data-dir DIR] [--valid FILE] [--val-fraction 0.2] [--seed 0]
 *   [--epsilon 0.01] [--lambda 0.01] [--delta 5] [--ks 1,3,5]
 *   [--epsilons 0,0.005,0.01,0.02,0.05,0.1] [--lambdas 0,0.0001,0.001,0.01,0.03,0.1]
 *   [--weights f16|f32] [--index u16|i32] [--test]
 *   [--C 1] [--eps 0.1] [--normalize true|false]          (with --train br)
 * ```
 *
 * - `--model FILE`: a `linear-sparse` (BR) or `linear-lowrank` (LEML) model file. Labels are
 *   ranked by wⱼuⱼ from `<dataset>.train.txt`; the search validates on `--valid FILE` (an XC
 *   file), else on a seeded `--val-fraction` of the training rows, which the model may have
 *   learned: stderr then warns and the summary's `validation` says so. A LEML model is pruned
 *   as its product W·Hᵀ and replaced by the `linear-sparse` result only when that is smaller
 *   and within ε; otherwise nothing is written (`"pruned": false`, `"out": null`, `reason` says why, and
 *   stderr says `prune: POP cannot help …`).
 * - `"pruned": true` with `"withinTolerance": false` (BR): ε bounds POP's label search only; the
 *   λ thresholding after it may lose more. The pruned file is written, `reason` explains and
 *   names a λ of the sweep within ε, and stderr says `prune: … not within ε`.
 * - `--train br`: trains binary relevance (DCD) itself: the search runs on a held-out part of the
 *   training file, the found label cut is applied to BR retrained on all training rows
 *   (`src/prune/pop_br.ts`).
 *
 * The output defaults to `<model>.pop.tsm` (or `<dataset>.br.pop.tsm`), the plot to the output
 * name with `.svg` (the sweeps, and the input model's size and validation PSP@k). `--test` also reports the unpruned and pruned PSP@k on `<dataset>.test.txt`.
 * The last stdout line is one JSON object summarising the run. Every flag and path is checked
 * before any data is read or anything is written (bad input: exit status 2, naming the flag or
 * the file); the output files are written atomically.
 *
 * @module
 */
import { type Dataset, labelCounts, loadDataset, loadXcFile, splitRows } from "../data/dataset.ts";
import { resolveDataDir } from "../data/data_dir.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import type { LabelWeights } from "../models/label_weights.ts";
import { preprocessRows, type RowPreprocess } from "../data/preprocess.ts";
import { propensities as propensitiesOf } from "../metrics/propensity.ts";
import { curveSvg } from "../prune/curve.ts";
import { labelWeightsOfContent, rowPreprocessOfContent } from "../prune/model_weights.ts";
import { popDefaults, withinTolerance } from "../prune/pop.ts";
import { popBr } from "../prune/pop_br.ts";
import { pruneModel } from "../prune/prune_model.ts";
import { searchProgress } from "../prune/search_progress.ts";
import { thresholdingNote } from "../prune/tolerance.ts";
import { biasOrderMemo, modelColumns, validationPsp } from "../prune/validation.ts";
import { Progress } from "../progress/mod.ts";
import { runScript } from "./run_script.ts";
import { namedModelError, readModelArg } from "./commands/inspect.ts";
import { readDatasetLabels } from "./commands/label_names.ts";
import {
  type Flags,
  type FlagSpec,
  intFlag,
  numberFlag,
  parseFlags,
  stringFlag,
} from "./commands/args.ts";
import { checkInputFile, checkOutFile } from "./commands/path_checks.ts";
import { writeFileAtomic } from "../service/checkpoint.ts";

/**
 * What `deno task prune` does, as parsed from its flags.
 *
 * @example
 * ```ts
 * import type { PruneCommand } from "./prune.ts";
 * const c: PruneCommand = { dataset: "bibtex", train: "br", plot: false };
 * console.log(c.train); // "br"
 * ```
 */
export interface PruneCommand {
  dataset: string;
  dataDir?: string;
  /** Model file to prune (exclusive with `train`). */
  model?: string;
  /**
   * State directory whose model to prune (`tagstream prune --state-dir`, which writes it to a
   * temporary `model` file: {@linkcode runPrune} refuses it).
   */
  stateDir?: string;
  /**
   * What the summary's `source` and its messages call the model (default `model`): e.g. the
   * state directory a temporary `model` file was written from.
   */
  source?: string;
  /** Train this model instead (only "br"). */
  train?: "br";
  /** Output model file. */
  out?: string;
  /** SVG curve file, or false for none. */
  plot?: string | false;
  /** Validation rows (XC file) instead of a split of the training file. */
  valid?: string;
  valFraction?: number;
  seed?: number;
  epsilon?: number;
  lambda?: number;
  delta?: number;
  ks?: number[];
  epsilons?: number[];
  lambdas?: number[];
  weightType?: "f16" | "f32";
  indexType?: "u16" | "i32";
  /** Also evaluate PSP@k on the test file. */
  test?: boolean;
  /** BR settings for `train: "br"`. */
  C?: number;
  eps?: number;
  normalize?: boolean;
  progress?: Progress;
  /**
   * Receives the one-line message of a run that wrote no model or a model outside ε (default:
   * printed to stderr as `prune: …`).
   */
  onMessage?: (message: string) => void;
}

const USAGE = "usage: deno task prune --dataset NAME (--model FILE | --train br) [--out FILE] " +
  "[--plot FILE.svg | --no-plot] [--epsilon 0.01] [--lambda 0.01] [--delta 5] ...";

/** The flags of `deno task prune` (`tagstream prune` adds `--state-dir`). */
const PRUNE_FLAGS: FlagSpec = {
  dataset: "string",
  "data-dir": "string",
  model: "string",
  train: "string",
  out: "string",
  plot: "string",
  "no-plot": "boolean",
  valid: "string",
  "val-fraction": "string",
  seed: "string",
  epsilon: "string",
  lambda: "string",
  delta: "string",
  ks: "string",
  epsilons: "string",
  lambdas: "string",
  weights: "string",
  index: "string",
  test: "boolean",
  C: "string",
  eps: "string",
  normalize: "string",
};

/** Flags naming a file or directory: an empty value is an error, never "the default". */
const PATH_FLAGS = ["data-dir", "model", "state-dir", "out", "plot", "valid"] as const;

/**
 * `value` (of `--NAME`, or one item of its list) as a plain decimal number, an integer when
 * `integer` (the grammar of {@linkcode numberFlag} / {@linkcode intFlag}: no `0x10`, `Infinity`,
 * blanks) that passes `check`; else a RangeError `--NAME must be WHAT, got 'VALUE'`.
 */
function decimalOf(
  value: string,
  name: string,
  integer: boolean,
  check: (n: number) => boolean,
  what: string,
): number {
  let n = NaN;
  try {
    n = (integer ? intFlag : numberFlag)({ values: { [name]: value }, positionals: [] }, name, 0)!;
  } catch {
    // not a plain decimal number: reported below with the range the flag needs
  }
  if (!check(n)) throw new RangeError(`--${name} must be ${what}, got '${value}'`);
  return n;
}

function numberOf(
  f: Flags,
  name: string,
  check: (n: number) => boolean,
  what: string,
  integer = false,
): number | undefined {
  const v = stringFlag(f, name);
  return v === undefined ? undefined : decimalOf(v, name, integer, check, what);
}

function listOf(
  f: Flags,
  name: string,
  check: (n: number) => boolean,
  what: string,
  integer = false,
): number[] | undefined {
  const v = stringFlag(f, name);
  if (v === undefined) return undefined;
  return v.split(",").map((s) =>
    decimalOf(s.trim(), name, integer, check, `a comma-separated list of ${what}`)
  );
}

function oneOf<T extends string>(f: Flags, name: string, allowed: readonly T[]): T | undefined {
  const v = stringFlag(f, name);
  if (v === undefined) return undefined;
  if (!allowed.includes(v as T)) {
    throw new TypeError(`--${name} must be one of ${allowed.join(", ")}, got '${v}'`);
  }
  return v as T;
}

/**
 * Parses the command line of `deno task prune`: every flag is checked here, before any file is
 * read. Unknown flags, positional arguments, empty paths, numbers that are not plain decimals
 * in range and flags the run would ignore are errors naming the flag. With `{ stateDir: true }`
 * (`tagstream prune`) `--state-dir DIR` is a third source of the model, returned as `stateDir`.
 *
 * @throws {TypeError} on a missing, unknown, empty or conflicting flag, naming it
 * @throws {RangeError} on a number out of range, naming the flag and the value
 *
 * @example
 * ```ts
 * import { parsePruneArgs } from "./prune.ts";
 * const c = parsePruneArgs(["--dataset", "bibtex", "--model", "br.tsm", "--epsilon", "0.02", "--no-plot"]);
 * console.log(c.model, c.epsilon, c.plot); // br.tsm 0.02 false
 * try {
 *   parsePruneArgs(["--dataset", "bibtex", "--train", "br", "--lambda", "0x10"]);
 * } catch (e) {
 *   console.log((e as Error).message); // --lambda must be a number >= 0, got '0x10'
 * }
 * ```
 */
export function parsePruneArgs(
  args: string[],
  options: { stateDir?: boolean } = {},
): PruneCommand {
  const spec: FlagSpec = options.stateDir ? { ...PRUNE_FLAGS, "state-dir": "string" } : PRUNE_FLAGS;
  const f = parseFlags("prune", args, spec, { maxPositionals: 0 });
  const v = f.values;
  const dataset = stringFlag(f, "dataset");
  if (!dataset) throw new TypeError(`--dataset is required; ${USAGE}`);
  for (const name of PATH_FLAGS) {
    if (stringFlag(f, name) === "") {
      throw new TypeError(
        `--${name} is empty: give a ${name.endsWith("dir") ? "directory" : "file"}`,
      );
    }
  }
  const model = stringFlag(f, "model"), stateDir = stringFlag(f, "state-dir");
  const sources = [model, stateDir, stringFlag(f, "train")].filter((s) => s !== undefined);
  if (model !== undefined && stateDir !== undefined) {
    throw new TypeError("give --state-dir or --model, not both");
  }
  if (sources.length !== 1) {
    throw new TypeError(
      `give exactly one of --model FILE${options.stateDir ? ", --state-dir DIR" : ""} and ` +
        `--train br; ${USAGE}`,
    );
  }
  const plotFlag = stringFlag(f, "plot");
  if (v["no-plot"] === true && plotFlag !== undefined) {
    throw new TypeError("--plot and --no-plot contradict each other");
  }
  const isEps = (n: number) => n >= 0 && n < 1;
  const nonNeg = (n: number) => n >= 0;
  const pos = (n: number) => n > 0;
  const posInt = (n: number) => n >= 1;
  const normalize = oneOf(f, "normalize", ["true", "false"] as const);
  const cmd: PruneCommand = {
    dataset,
    dataDir: stringFlag(f, "data-dir"),
    model,
    stateDir,
    train: oneOf(f, "train", ["br"] as const),
    out: stringFlag(f, "out"),
    plot: v["no-plot"] === true ? false : plotFlag,
    valid: stringFlag(f, "valid"),
    valFraction: numberOf(f, "val-fraction", (n) => n > 0 && n < 1, "in (0, 1)"),
    seed: intFlag(f, "seed", undefined),
    epsilon: numberOf(f, "epsilon", isEps, "in [0, 1)"),
    lambda: numberFlag(f, "lambda", undefined, 0),
    delta: intFlag(f, "delta", undefined, 0),
    ks: listOf(f, "ks", posInt, "positive integers", true),
    epsilons: listOf(f, "epsilons", isEps, "numbers in [0, 1)"),
    lambdas: listOf(f, "lambdas", nonNeg, "numbers >= 0"),
    weightType: oneOf(f, "weights", ["f16", "f32"] as const),
    indexType: oneOf(f, "index", ["u16", "i32"] as const),
    test: v.test === true,
    C: numberOf(f, "C", pos, "a number > 0"),
    eps: numberOf(f, "eps", pos, "a number > 0"),
    normalize: normalize === undefined ? undefined : normalize === "true",
  };
  if (cmd.train === undefined && (v.C ?? v.eps ?? v.normalize) !== undefined) {
    throw new TypeError("--C, --eps and --normalize only apply with --train br");
  }
  if (cmd.valid !== undefined && cmd.train !== undefined) {
    throw new TypeError("--valid only applies with --model (--train br holds out --val-fraction)");
  }
  if (cmd.valid !== undefined && (v["val-fraction"] ?? v.seed) !== undefined) {
    throw new TypeError(
      `--val-fraction and --seed split the training file: they do not apply with --valid`,
    );
  }
  if (cmd.plot === false && (v.epsilons ?? v.lambdas) !== undefined) {
    throw new TypeError(
      "--epsilons and --lambdas are the sweeps of the plot: they do not apply with --no-plot",
    );
  }
  if (cmd.plot !== undefined && cmd.plot !== false && cmd.plot === cmd.out) {
    throw new TypeError(`--plot and --out are the same file ${cmd.out}`);
  }
  return cmd;
}

function defaultOut(cmd: PruneCommand): string {
  if (cmd.out !== undefined) return cmd.out;
  if (cmd.model !== undefined) return cmd.model.replace(/(\.tsm)?$/, ".pop.tsm");
  return `${cmd.dataset}.br.pop.tsm`;
}

/**
 * `DATA_DIR/NAME.labels.txt`, or undefined when there is none; an unreadable or malformed file
 * (not UTF-8, an empty or repeated name) is an error naming it, as the names go into the model.
 */
async function labelNamesOf(dataDir: string, dataset: string): Promise<string[] | undefined> {
  return await readDatasetLabels(`${dataDir}/${dataset}.labels.txt`);
}

/**
 * The files a prune run reads and writes, as {@linkcode checkPruneFiles} resolves them.
 *
 * @example
 * ```ts
 * import type { PruneFiles } from "./prune.ts";
 * const f: PruneFiles = { dataDir: "data", train: "data/bibtex.train.txt", out: "m.pop.tsm" };
 * console.log(f.train); // data/bibtex.train.txt
 * ```
 */
export interface PruneFiles {
  dataDir: string;
  /** `DATA_DIR/NAME.train.txt`. */
  train: string;
  /** `DATA_DIR/NAME.test.txt`, with `test`. */
  test?: string;
  /** The pruned model file to write. */
  out: string;
  /** The SVG curve to write, if any. */
  plot?: string;
}

/**
 * Checks, before anything is read or written, the paths of a prune run: the dataset's training
 * (and, with `test`, test) file and `valid` are files to read, `out` and `plot` files that can
 * be written. The TypeError names the flag and the path. (`model` is read, and refused naming
 * the flag, by {@linkcode runPrune}.)
 *
 * @example
 * ```ts
 * import { checkPruneFiles } from "./prune.ts";
 * const dir = await Deno.makeTempDir();
 * await checkPruneFiles({ dataset: "nope", dataDir: dir, train: "br" })
 *   .catch((e) => console.log(e.message)); // --dataset nope: /tmp/.../nope.train.txt: no such file ...
 * await Deno.writeTextFile(`${dir}/toy.train.txt`, "1 2 2\n0 1:1\n");
 * await checkPruneFiles({ dataset: "toy", dataDir: dir, train: "br", out: dir })
 *   .catch((e) => console.log(e.message)); // --out /tmp/... is a directory: give a file path
 * const f = await checkPruneFiles({ dataset: "toy", dataDir: dir, train: "br", out: `${dir}/m.tsm` });
 * console.log(f.plot === `${dir}/m.svg`); // true
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkPruneFiles(cmd: PruneCommand): Promise<PruneFiles> {
  const dataDir = resolveDataDir(cmd.dataDir);
  const files: PruneFiles = { dataDir, train: `${dataDir}/${cmd.dataset}.train.txt`, out: "" };
  const dataFile = async (path: string) => {
    try {
      await checkInputFile(path, "dataset");
    } catch (e) {
      const why = (e as Error).message.replace(/^--dataset /, "");
      const hint = cmd.dataDir === undefined
        ? " (the data directory is --data-dir DIR, else " +
          "$TAGSTREAM_DATA, else ./data)"
        : "";
      throw new TypeError(`--dataset ${cmd.dataset}: ${why}${hint}`);
    }
  };
  await dataFile(files.train);
  if (cmd.test) {
    files.test = `${dataDir}/${cmd.dataset}.test.txt`;
    await dataFile(files.test);
  }
  if (cmd.valid !== undefined) await checkInputFile(cmd.valid, "valid");
  files.out = defaultOut(cmd);
  // an output never replaces an input (the unpruned model, the data)
  const inputs = [
    ...(cmd.model !== undefined ? [{ what: `--model ${cmd.model}`, path: cmd.model }] : []),
    ...[files.train, files.test].filter((p) => p !== undefined).map((path) => ({
      what: `--dataset ${cmd.dataset}'s ${path}`,
      path,
    })),
    ...(cmd.valid !== undefined ? [{ what: `--valid ${cmd.valid}`, path: cmd.valid }] : []),
  ];
  await checkOutFile(files.out, "out", { inputs, kind: "model" });
  if (cmd.plot !== false) {
    files.plot = cmd.plot ?? files.out.replace(/(\.tsm)?$/, ".svg");
    await checkOutFile(files.plot, "plot", { inputs, kind: "svg" });
    if (files.plot === files.out) {
      throw new TypeError(`--plot and --out are the same file ${files.out}`);
    }
  }
  return files;
}

/** Refuses an XC file whose number of labels is not the model's (another dataset). */
function checkLabelCount(file: string, fileLabels: number, model: string, L: number): void {
  if (fileLabels !== L) {
    throw new RangeError(
      `${file} has ${fileLabels} labels but the model ${model} has ${L} (POP addresses labels ` +
        `by index: is it another dataset?)`,
    );
  }
}

/** Refuses a `--ks` cut-off above the number of labels (the default 1,3,5 is always fine). */
function checkKs(cmd: PruneCommand, L: number, file: string): void {
  const k = cmd.ks?.find((k) => k > L);
  if (k !== undefined) {
    throw new RangeError(`--ks ${k} is above the ${L} labels of ${file}`);
  }
}

/**
 * Refuses a held-out validation split with no rows (and, for `--train br`, one that leaves no
 * row to train on), before the search: PSP@k on no rows is 0, and every pruning is "within ε".
 */
function checkSplit(cmd: PruneCommand, numRows: number, file: string): void {
  const f = cmd.valFraction ?? 0.2;
  const nv = Math.round(numRows * f);
  if (nv === 0) {
    throw new RangeError(
      `--val-fraction ${f} of the ${numRows} rows of ${file} gives no validation row: give a ` +
        `larger --val-fraction${cmd.train === undefined ? " or --valid FILE" : ""}`,
    );
  }
  if (cmd.train !== undefined && nv === numRows) {
    throw new RangeError(
      `--val-fraction ${f} of the ${numRows} rows of ${file} leaves no row to train on: give a ` +
        `smaller --val-fraction`,
    );
  }
}

/** PSP@k of `weights` on the test rows (preprocessed as the model expects). */
function testPsp(
  test: Dataset,
  models: LabelWeights[],
  pre: RowPreprocess | undefined,
  p: ArrayLike<number>,
  ks: number[],
): number[][] {
  const rows = { x: preprocessRows(modelColumns(test.x, models[0].numFeatures), pre), y: test.y };
  // (the pruned weights have the unpruned model's bias: one order for both)
  const orders = biasOrderMemo();
  return models.map((w) => validationPsp(w, rows, p, ks, orders));
}

/** The model kinds POP prunes. */
const PRUNABLE_KINDS: readonly string[] = ["linear-sparse", "linear-lowrank"];

/** Reads and decodes `--model`, refusing (naming it) a file that is not a linear model. */
async function readModel(
  path: string,
  source: string,
): Promise<{ input: Uint8Array; content: ReturnType<typeof decodeModelFile> }> {
  const input = await readModelArg("--model", path);
  let content: ReturnType<typeof decodeModelFile>;
  try {
    content = decodeModelFile(input);
  } catch (e) {
    throw namedModelError(e, source);
  }
  if (!PRUNABLE_KINDS.includes(content.kind)) {
    throw new TypeError(
      `POP prunes linear models (linear-sparse, linear-lowrank), not a ${content.kind} model ` +
        `(${source}): its scores are not a per-label weight vector over the input features`,
    );
  }
  const space = content.featureSpace;
  if (space !== undefined && space.type !== "index") {
    // its columns are names' (a vocabulary's or hashed), not the XC rows' feature indices: the
    // validation PSP@k would score the rows through unrelated weights
    throw new TypeError(
      `POP validates on the dataset's XC rows, whose features are feature indices, but the ` +
        `model ${source} reads named features (feature space '${space.type}'` +
        `${"text" in space && space.text !== undefined ? ", with text" : ""}: trained on NDJSON ` +
        `events with --feature-keys name or hash, or --text): prune a model trained on the ` +
        `dataset's XC file or on events with feature indices`,
    );
  }
  return { input, content };
}

/**
 * Runs `deno task prune`: writes the pruned model (and the SVG curve unless `plot` is false)
 * and returns the JSON summary the CLI prints.
 *
 * @example
 * ```ts
 * import { runPrune } from "./prune.ts";
 * const dir = await Deno.makeTempDir();
 * const rows = Array.from({ length: 30 }, (_, i) => `${i % 3} ${i % 3}:1 ${3 + (i % 4)}:1`);
 * await Deno.writeTextFile(`${dir}/toy.train.txt`, `30 7 3\n${rows.join("\n")}\n`);
 * const s = await runPrune({ dataset: "toy", dataDir: dir, train: "br", delta: 1,
 *   out: `${dir}/toy.tsm`, plot: false });
 * console.log(s.kind, (await Deno.stat(`${dir}/toy.tsm`)).size === s.modelBytes); // linear-sparse true
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function runPrune(cmd: PruneCommand): Promise<Record<string, unknown>> {
  if (cmd.stateDir !== undefined) {
    throw new TypeError("runPrune: write the model of --state-dir to a file and give it as model");
  }
  // every path first, then the inputs, each checked against the others, before the search
  const files = await checkPruneFiles(cmd);
  const { dataDir, out } = files;
  const plot = files.plot;
  const progress = cmd.progress ?? Progress.silent();
  const popOpts = { ...popDefaults(cmd), weightType: cmd.weightType, indexType: cmd.indexType };
  const ks = popOpts.ks;
  const curve = plot ? { epsilons: cmd.epsilons, lambdas: cmd.lambdas } : undefined;
  const source = cmd.source ?? cmd.model ?? "(trained BR)";
  const model = cmd.model === undefined ? undefined : await readModel(cmd.model, source);
  const trainFile = `${cmd.dataset}.train.txt`;
  const train: Dataset = await loadDataset(dataDir, cmd.dataset, "train");
  if (train.x.numRows === 0) {
    throw new RangeError(
      `--dataset ${cmd.dataset}: ${files.train} has no rows: no label frequencies to rank by`,
    );
  }
  const L = model?.content.numLabels ?? train.numLabels;
  if (model) checkLabelCount(trainFile, train.numLabels, source, L);
  checkKs(cmd, L, model ? `the model ${source}` : trainFile);
  const say = cmd.onMessage ?? ((m: string) => console.error(`prune: ${m}`));
  // said when found, before the search (which can take minutes), and kept for the summary
  const warnings: string[] = [];
  const warn = (w: string) => {
    warnings.push(w);
    say(`warning: ${w}`);
  };
  let valid: Dataset | undefined;
  if (cmd.valid !== undefined) {
    valid = await loadXcFile(cmd.valid);
    checkLabelCount(`--valid ${cmd.valid}`, valid.numLabels, source, L);
    if (valid.x.numRows === 0) throw new RangeError(`--valid ${cmd.valid} has no rows`);
    if (valid.y.indices.length === 0) {
      // PSP@k on rows without labels is 0 whatever is pruned: every cut would be "within ε"
      throw new RangeError(`--valid ${cmd.valid} has no row with a label: nothing to validate on`);
    }
    const D = model?.content.numFeatures ?? train.numFeatures;
    if (valid.numFeatures > D) {
      // the model scores only its own columns: the others would be dropped without a word
      warn(
        `--valid ${cmd.valid} has ${valid.numFeatures} features, more than the ${D} of ` +
          `${model ? `the model ${source}` : trainFile} (the others are ignored): is it another ` +
          `dataset?`,
      );
    }
  } else {
    checkSplit(cmd, train.x.numRows, trainFile);
  }
  const split = `${cmd.valFraction ?? 0.2} of ${trainFile}`;
  if (model && valid === undefined) {
    // (--train br holds its split out of the fit; a given model may have been trained on it)
    warn(
      `${source} is validated on ${split}, rows the model may have learned: POP's ε is then ` +
        `measured on memorised rows; give --valid FILE with rows it was not trained on`,
    );
  }
  let test: Dataset | undefined;
  if (files.test !== undefined) {
    test = await loadDataset(dataDir, cmd.dataset, "test");
    checkLabelCount(`${cmd.dataset}.test.txt`, test.numLabels, source, L);
  }
  const labelNames = await labelNamesOf(dataDir, cmd.dataset);
  if (cmd.train !== undefined && labelNames !== undefined && labelNames.length !== L) {
    // (they were found out of step only when the pruned file was built, after both BR fits)
    throw new RangeError(
      `${cmd.dataset}.labels.txt has ${labelNames.length} names but ${trainFile} has ${L} ` +
        `labels: is it another dataset?`,
    );
  }
  const summary: Record<string, unknown> = { dataset: cmd.dataset };
  /** The model file to write; undefined when pruning did not help (no copy of the input). */
  let written: Uint8Array | undefined;
  let svg: string | undefined;
  if (model) {
    const { input, content } = model;
    const counts = new Float64Array(L);
    counts.set(labelCounts(train.y));
    const p = propensitiesOf(counts, Math.max(1, train.x.numRows));
    const rows = valid ?? splitRows(train, cmd.valFraction ?? 0.2, cmd.seed ?? 0).valid;
    // "POP search" (its label cuts), then "POP curve" (its points: popCurve's 6 ε and 6 λ by
    // default), with rate and ETA on a terminal
    const observer = searchProgress(progress, ks);
    const r = pruneModel(content, rows, counts, p, { ...popOpts, curve, observer }, input);
    progress.done();
    written = r.pruned ? r.bytes : undefined;
    Object.assign(summary, {
      source,
      sourceKind: content.kind,
      kind: r.pruned ? "linear-sparse" : content.kind,
      pruned: r.pruned,
      reason: r.reason,
      validation: cmd.valid ??
        `train split (${split}; the model may have learned these rows): give --valid`,
      numPrunedLabels: r.search.numPrunedLabels,
      nnzBefore: r.search.nnzBefore,
      nnzAfter: r.search.nnzAfter,
      originalBytes: r.originalBytes,
      prunedBytes: r.prunedBytes,
      validationBaseline: r.search.baseline,
      validationPruned: r.stored,
      withinTolerance: r.withinTolerance,
    });
    if (test) {
      const pre = rowPreprocessOfContent(content);
      const [base, pruned] = testPsp(
        test,
        [labelWeightsOfContent(content), r.weights],
        pre,
        p,
        ks,
      );
      Object.assign(summary, { testBaseline: base, testPruned: pruned });
    }
    if (r.curve) {
      svg = curveSvg(r.curve, {
        title: `POP on ${cmd.dataset}`,
        ks,
        referenceBytes: input.length,
        referenceLabel: `input ${content.kind}`,
        referencePsp: r.search.baseline,
      });
      summary.curve = r.curve;
    }
  } else {
    const counts = labelCounts(train.y);
    const p = propensitiesOf(counts, Math.max(1, train.x.numRows));
    const normalize = cmd.normalize ?? true;
    progress.start(2 * train.numLabels, "br (fit split, then all rows)");
    const r = popBr(train, p, {
      ...popOpts,
      dcd: { C: cmd.C ?? 1, eps: cmd.eps ?? 0.1 },
      l2Normalize: normalize,
      validationFraction: cmd.valFraction ?? 0.2,
      seed: cmd.seed ?? 0,
      labelNames,
      meta: { dataset: cmd.dataset },
      curve,
      onProgress: () => progress.tick(),
    });
    progress.done();
    written = r.bytes;
    const unpruned = r.full.toModelFile({ labelNames });
    const fullWeights = r.full.toLabelWeights();
    const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
    const note = thresholdingNote(r.search.final, r.search.baseline, {
      epsilon: popOpts.epsilon,
      lambda: popOpts.lambda,
      ks,
      curve: r.curve,
      maxBytes: unpruned.length,
    });
    Object.assign(summary, {
      source: "br",
      kind: "linear-sparse",
      pruned: true,
      reason:
        `pruned BR: ${r.weights.labelPtr[r.weights.numLabels]} of ${
          fullWeights.labelPtr[fullWeights.numLabels]
        } weights, ${kb(unpruned.length)} → ${kb(r.bytes.length)}` + (note ? `; ${note}` : ""),
      numPrunedLabels: r.search.numPrunedLabels,
      nnzBefore: fullWeights.labelPtr[fullWeights.numLabels],
      nnzAfter: r.weights.labelPtr[r.weights.numLabels],
      originalBytes: unpruned.length,
      prunedBytes: r.bytes.length,
      validationBaseline: r.search.baseline,
      validationPruned: r.search.final,
      withinTolerance: withinTolerance(r.search.final, r.search.baseline, popOpts.epsilon),
      searchSeconds: r.searchSeconds,
      trainSeconds: r.trainSeconds,
    });
    if (test) {
      const pre = normalize ? { l2Normalize: true } : undefined;
      const [base, pruned] = testPsp(test, [fullWeights, r.weights], pre, p, ks);
      Object.assign(summary, { testBaseline: base, testPruned: pruned });
    }
    if (r.curve) {
      svg = curveSvg(r.curve, {
        title: `POP on ${cmd.dataset}`,
        ks,
        referenceBytes: unpruned.length,
        referenceLabel: "unpruned BR",
        referencePsp: r.search.baseline,
      });
      summary.curve = r.curve;
    }
  }
  // atomic: a failed write leaves neither a partial file nor its temporary file
  if (written !== undefined) await writeFileAtomic(out, written);
  if (svg !== undefined && plot) await writeFileAtomic(plot, new TextEncoder().encode(svg));
  Object.assign(summary, {
    epsilon: popOpts.epsilon,
    lambda: popOpts.lambda,
    delta: popOpts.delta,
    ks,
    out: written === undefined ? null : out,
    plot: plot ?? null,
    modelBytes: written === undefined ? null : written.length,
  });
  if (written === undefined) {
    summary.message =
      `POP cannot help ${source}: ${
        String(summary.reason).replace(/^not pruned: /, "")
      }. Nothing written to ${out} ` +
      `(it would be a copy of the input); keep using ${source}.`;
  } else if (summary.withinTolerance === false) {
    summary.message = `${out} is pruned but not within ε = ${popOpts.epsilon} of the unpruned ` +
      `validation PSP@k: see reason.`;
  }
  if (warnings.length > 0) summary.warnings = warnings;
  if (typeof summary.message === "string") say(summary.message);
  return summary;
}

if (import.meta.main) {
  await runScript(
    "prune",
    async () => {
      if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
        console.log(
          `${USAGE}\n(all the options: npx deno task tagstream prune --help; --state-dir is only ` +
            "tagstream prune's)",
        );
        return;
      }
      let cmd: PruneCommand;
      try {
        cmd = parsePruneArgs(Deno.args);
      } catch (e) {
        // runScript names the script: not "prune: tagstream prune: …"
        if (e instanceof Error) e.message = e.message.replace(/^tagstream prune: /, "");
        throw e;
      }
      const summary = await runPrune({ ...cmd, progress: new Progress() });
      console.log(JSON.stringify(summary));
    },
  );
}
