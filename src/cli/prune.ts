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
 *   file), else on a seeded `--val-fraction` of the training rows. A LEML model is pruned as its
 *   product W·Hᵀ and replaced by the `linear-sparse` result only when that is smaller and within
 *   ε; otherwise nothing is written (`"pruned": false`, `"out": null`, `reason` says why, and
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
 * The last stdout line is one JSON object summarising the run.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  type Dataset,
  labelCounts,
  loadDataset,
  loadNames,
  loadXcFile,
  splitRows,
} from "../data/dataset.ts";
import { resolveDataDir } from "../data/data_dir.ts";
import { decodeModelFile, ModelFormatError } from "../../sdk/internal.ts";
import type { LabelWeights } from "../models/br/label_weights.ts";
import { preprocessRows, type RowPreprocess } from "../data/preprocess.ts";
import { propensities as propensitiesOf } from "../metrics/propensity.ts";
import { curveSvg } from "../prune/curve.ts";
import { labelWeightsOfContent, rowPreprocessOfContent } from "../prune/model_weights.ts";
import { popDefaults, withinTolerance } from "../prune/pop.ts";
import { popBr } from "../prune/pop_br.ts";
import { pruneModel } from "../prune/prune_model.ts";
import { thresholdingNote } from "../prune/tolerance.ts";
import { validationPsp } from "../prune/validation.ts";
import { Progress } from "../progress/mod.ts";
import { isBadInput, runScript } from "./run_script.ts";
import { namedModelError, readModelArg } from "./commands/inspect.ts";

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

function numberOf(
  v: string | undefined,
  name: string,
  check: (n: number) => boolean,
  what: string,
) {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || !check(n)) {
    throw new TypeError(`--${name} must be ${what}, got '${v}'`);
  }
  return n;
}

function listOf(v: string | undefined, name: string, check: (n: number) => boolean, what: string) {
  if (v === undefined) return undefined;
  return v.split(",").map((s) => numberOf(s, name, check, `a comma-separated list of ${what}`)!);
}

function oneOf<T extends string>(v: string | undefined, name: string, allowed: readonly T[]) {
  if (v === undefined) return undefined;
  if (!allowed.includes(v as T)) {
    throw new TypeError(`--${name} must be one of ${allowed.join(", ")}, got '${v}'`);
  }
  return v as T;
}

/**
 * Parses the command line of `deno task prune`.
 *
 * @throws {TypeError} on a missing or malformed flag, naming it
 *
 * @example
 * ```ts
 * import { parsePruneArgs } from "./prune.ts";
 * const c = parsePruneArgs(["--dataset", "bibtex", "--model", "br.tsm", "--epsilon", "0.02", "--no-plot"]);
 * console.log(c.model, c.epsilon, c.plot); // br.tsm 0.02 false
 * ```
 */
export function parsePruneArgs(args: string[]): PruneCommand {
  const { values: v } = parseArgs({
    args,
    strict: true,
    options: {
      dataset: { type: "string" },
      "data-dir": { type: "string" },
      model: { type: "string" },
      train: { type: "string" },
      out: { type: "string" },
      plot: { type: "string" },
      "no-plot": { type: "boolean" },
      valid: { type: "string" },
      "val-fraction": { type: "string" },
      seed: { type: "string" },
      epsilon: { type: "string" },
      lambda: { type: "string" },
      delta: { type: "string" },
      ks: { type: "string" },
      epsilons: { type: "string" },
      lambdas: { type: "string" },
      weights: { type: "string" },
      index: { type: "string" },
      test: { type: "boolean" },
      C: { type: "string" },
      eps: { type: "string" },
      normalize: { type: "string" },
    },
  });
  if (!v.dataset) throw new TypeError(`--dataset is required; ${USAGE}`);
  if ((v.model === undefined) === (v.train === undefined)) {
    throw new TypeError(`give exactly one of --model FILE and --train br; ${USAGE}`);
  }
  if (v["no-plot"] && v.plot !== undefined) {
    throw new TypeError("--plot and --no-plot contradict each other");
  }
  const isEps = (n: number) => n >= 0 && n < 1;
  const nonNeg = (n: number) => n >= 0;
  const pos = (n: number) => n > 0;
  const posInt = (n: number) => Number.isInteger(n) && n >= 1;
  const cmd: PruneCommand = {
    dataset: v.dataset,
    dataDir: v["data-dir"],
    model: v.model,
    train: oneOf(v.train, "train", ["br"] as const),
    out: v.out,
    plot: v["no-plot"] ? false : v.plot,
    valid: v.valid,
    valFraction: numberOf(v["val-fraction"], "val-fraction", (n) => n > 0 && n < 1, "in (0, 1)"),
    seed: numberOf(v.seed, "seed", Number.isInteger, "an integer"),
    epsilon: numberOf(v.epsilon, "epsilon", isEps, "in [0, 1)"),
    lambda: numberOf(v.lambda, "lambda", nonNeg, "a number >= 0"),
    delta: numberOf(v.delta, "delta", (n) => Number.isInteger(n) && n >= 0, "an integer >= 0"),
    ks: listOf(v.ks, "ks", posInt, "positive integers"),
    epsilons: listOf(v.epsilons, "epsilons", isEps, "numbers in [0, 1)"),
    lambdas: listOf(v.lambdas, "lambdas", nonNeg, "numbers >= 0"),
    weightType: oneOf(v.weights, "weights", ["f16", "f32"] as const),
    indexType: oneOf(v.index, "index", ["u16", "i32"] as const),
    test: v.test ?? false,
    C: numberOf(v.C, "C", pos, "a number > 0"),
    eps: numberOf(v.eps, "eps", pos, "a number > 0"),
    normalize: oneOf(v.normalize, "normalize", ["true", "false"] as const) === undefined
      ? undefined
      : v.normalize === "true",
  };
  if (cmd.model !== undefined && (v.C ?? v.eps ?? v.normalize) !== undefined) {
    throw new TypeError("--C, --eps and --normalize only apply with --train br");
  }
  if (cmd.valid !== undefined && cmd.train !== undefined) {
    throw new TypeError("--valid only applies with --model (--train br holds out --val-fraction)");
  }
  return cmd;
}

function defaultOut(cmd: PruneCommand): string {
  if (cmd.out) return cmd.out;
  if (cmd.model) return cmd.model.replace(/(\.tsm)?$/, ".pop.tsm");
  return `${cmd.dataset}.br.pop.tsm`;
}

async function labelNamesOf(dataDir: string, dataset: string): Promise<string[] | undefined> {
  try {
    return await loadNames(dataDir, dataset, "labels");
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/** The rows of the `--valid` XC file, with errors naming the flag. */
async function loadValid(path: string): Promise<Dataset> {
  try {
    return await loadXcFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw new TypeError(`--valid ${path}: no such file`);
    if (e instanceof Deno.errors.IsADirectory) {
      throw new TypeError(`--valid ${path}: is a directory, not a file`);
    }
    throw e;
  }
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

/** PSP@k of `weights` on the test file (rows preprocessed as the model expects). */
async function testPsp(
  cmd: PruneCommand,
  dataDir: string,
  models: LabelWeights[],
  pre: RowPreprocess | undefined,
  p: ArrayLike<number>,
  ks: number[],
): Promise<number[][]> {
  const test = await loadDataset(dataDir, cmd.dataset, "test");
  checkLabelCount(
    `${cmd.dataset}.test.txt`,
    test.numLabels,
    cmd.source ?? cmd.model ?? "(trained BR)",
    models[0].numLabels,
  );
  const rows = { x: preprocessRows(test.x, pre), y: test.y };
  return models.map((w) => validationPsp(w, rows, p, ks));
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
  const dataDir = resolveDataDir(cmd.dataDir);
  const progress = cmd.progress ?? Progress.silent();
  const out = defaultOut(cmd);
  const plot = cmd.plot === false ? undefined : cmd.plot ?? out.replace(/(\.tsm)?$/, ".svg");
  const popOpts = { ...popDefaults(cmd), weightType: cmd.weightType, indexType: cmd.indexType };
  const ks = popOpts.ks;
  const curve = plot ? { epsilons: cmd.epsilons, lambdas: cmd.lambdas } : undefined;
  const train: Dataset = await loadDataset(dataDir, cmd.dataset, "train");
  const labelNames = await labelNamesOf(dataDir, cmd.dataset);
  const summary: Record<string, unknown> = { dataset: cmd.dataset };
  /** The model file to write; undefined when pruning did not help (no copy of the input). */
  let written: Uint8Array | undefined;
  let svg: string | undefined;
  if (cmd.model) {
    const source = cmd.source ?? cmd.model;
    const input = await readModelArg("--model", cmd.model);
    let content: ReturnType<typeof decodeModelFile>;
    try {
      content = decodeModelFile(input);
    } catch (e) {
      throw namedModelError(e, source);
    }
    const L = content.numLabels;
    checkLabelCount(`${cmd.dataset}.train.txt`, train.numLabels, source, L);
    const counts = new Float64Array(L);
    counts.set(labelCounts(train.y));
    const p = propensitiesOf(counts, Math.max(1, train.x.numRows));
    let rows: Dataset;
    if (cmd.valid) {
      rows = await loadValid(cmd.valid);
      checkLabelCount(`--valid ${cmd.valid}`, rows.numLabels, source, L);
      if (rows.x.numRows === 0) throw new RangeError(`--valid ${cmd.valid} has no rows`);
    } else {
      rows = splitRows(train, cmd.valFraction ?? 0.2, cmd.seed ?? 0).valid;
    }
    progress.start(undefined, "POP search");
    const r = pruneModel(content, rows, counts, p, { ...popOpts, curve }, input);
    progress.done();
    written = r.pruned ? r.bytes : undefined;
    Object.assign(summary, {
      source,
      sourceKind: content.kind,
      kind: r.pruned ? "linear-sparse" : content.kind,
      pruned: r.pruned,
      reason: r.reason,
      validation: cmd.valid ?? `${cmd.valFraction ?? 0.2} of ${cmd.dataset}.train.txt`,
      numPrunedLabels: r.search.numPrunedLabels,
      nnzBefore: r.search.nnzBefore,
      nnzAfter: r.search.nnzAfter,
      originalBytes: r.originalBytes,
      prunedBytes: r.prunedBytes,
      validationBaseline: r.search.baseline,
      validationPruned: r.stored,
      withinTolerance: r.withinTolerance,
    });
    if (cmd.test) {
      const pre = rowPreprocessOfContent(content);
      const [base, pruned] = await testPsp(
        cmd,
        dataDir,
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
    if (cmd.test) {
      const pre = normalize ? { l2Normalize: true } : undefined;
      const [base, pruned] = await testPsp(cmd, dataDir, [fullWeights, r.weights], pre, p, ks);
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
  if (written !== undefined) await Deno.writeFile(out, written);
  if (svg !== undefined && plot) await Deno.writeTextFile(plot, svg);
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
    const source = cmd.source ?? cmd.model;
    summary.message =
      `POP cannot help ${source}: ${
        String(summary.reason).replace(/^not pruned: /, "")
      }. Nothing written to ${out} ` +
      `(it would be a copy of the input); keep using ${source}.`;
  } else if (summary.withinTolerance === false) {
    summary.message = `${out} is pruned but not within ε = ${popOpts.epsilon} of the unpruned ` +
      `validation PSP@k: see reason.`;
  }
  if (typeof summary.message === "string") {
    (cmd.onMessage ?? ((m: string) => console.error(`prune: ${m}`)))(summary.message);
  }
  return summary;
}

if (import.meta.main) {
  await runScript(
    "prune",
    async () => {
      const cmd = parsePruneArgs(Deno.args);
      const summary = await runPrune({ ...cmd, progress: new Progress() });
      console.log(JSON.stringify(summary));
    },
    (e) => isBadInput(e) || e instanceof ModelFormatError,
  );
}
