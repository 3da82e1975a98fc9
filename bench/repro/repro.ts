/**
 * `deno task repro NAME --dataset D [--data-dir DIR] [--seed N] [other flags]`: runs the
 * experiment `bench/repro/experiments/NAME.ts` and prints ONE JSON object as the last stdout
 * line: `{"experiment", "dataset", "seed", "metrics", "stdErr" (when the experiment gives the
 * standard errors of its ranking metrics), "trainSeconds", "predictMsPerRow", "modelBytes",
 * ...extra}`. Flags other than `--dataset`, `--data-dir` and `--seed` are passed to
 * the experiment (`--k 10` or `--k=10` → `"10"`; a bare `--quick` → `true`); each experiment
 * accepts only the flags its file lists in its `FLAGS` export ({@linkcode ExperimentFlags}).
 *
 * Before any work: an unknown experiment, a flag the experiment does not read, a repeated or
 * empty flag, a number not written in plain decimal (`0x10`), a bad `--seed`, a `--data-dir`
 * that is not a directory and a dataset without its files are errors naming the flag (exit 2).
 * `--help` prints the usage (with NAME: the experiment's flags).
 *
 * @module
 */
import {
  DECIMAL_NUMBER,
  type Flags,
  intFlag,
  NEGATIVE_NUMBER,
} from "../../src/cli/commands/args.ts";
import { statOrUndefined } from "../../src/cli/commands/path_checks.ts";
import { resolveDataDir } from "../../src/data/data_dir.ts";
import { Progress } from "../../src/progress/mod.ts";
import type { Experiment, ExperimentContext, ExperimentFlags } from "./types.ts";

const EXPERIMENTS_DIR = new URL("./experiments/", import.meta.url);

/**
 * Names of the available experiments (the `.ts` files of `bench/repro/experiments/`).
 *
 * @example
 * ```ts
 * import { listExperiments } from "./repro.ts";
 * console.log((await listExperiments()).includes("knn")); // true
 * ```
 */
export async function listExperiments(): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(EXPERIMENTS_DIR)) {
    if (e.isFile && e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
      names.push(e.name.slice(0, -3));
    }
  }
  return names.sort();
}

/** The flags of the runner itself, taken by every experiment. */
const RUNNER_FLAGS = ["dataset", "data-dir", "seed"] as const;

/**
 * Parsed command line of the repro runner (`help`: `--help`/`-h` was given; nothing else is
 * then checked).
 *
 * @example
 * ```ts
 * import type { ReproArgs } from "./repro.ts";
 * const a: ReproArgs = { name: "knn", dataset: "bibtex", seed: 0, flags: {} };
 * console.log(a.name); // "knn"
 * ```
 */
export interface ReproArgs {
  name: string;
  dataset: string;
  dataDir?: string;
  seed: number;
  flags: Record<string, string | boolean>;
  help?: boolean;
}

const USAGE = "usage: deno task repro NAME --dataset D [--data-dir DIR] [--seed N] [flags]";

/**
 * Parses the command line: `--name VALUE`, `--name=VALUE` or a bare `--name` (true; a `--name`
 * followed by a token that is not a flag takes it as its value, a negative number included),
 * `--help`/`-h`, and `--` (the rest is positional). Exactly one positional argument, the
 * experiment's name, and `--dataset` are required.
 *
 * @throws {TypeError} for a missing NAME or `--dataset`, an unexpected positional argument, a
 *   short option, a repeated flag, or a flag without its value
 * @throws {RangeError} for an empty value, a number not in plain decimal (`0x10`, ` 5`), or a
 *   `--seed` that is not an integer
 *
 * @example
 * ```ts
 * import { parseReproArgs } from "./repro.ts";
 * const a = parseReproArgs(["knn", "--dataset", "bibtex", "--k", "10", "--quick", "--seed=3"]);
 * console.log(a.name, a.dataset, a.seed, a.flags); // knn bibtex 3 { k: "10", quick: true }
 * try { parseReproArgs(["knn", "--dataset", "bibtex", "--k", "0x10"]); } catch (e) { console.log((e as Error).message); } // --k must be a plain decimal number, got '0x10'
 * try { parseReproArgs(["knn", "extra", "--dataset", "bibtex"]); } catch (e) { console.log((e as Error).message); } // unexpected argument 'extra' (repro takes one experiment NAME; see deno task repro --help)
 * ```
 */
export function parseReproArgs(args: string[]): ReproArgs {
  const flags: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const tok = args[i];
    if (tok === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (tok === "--help" || tok === "-h") {
      help = true;
      continue;
    }
    if (!tok.startsWith("-") || tok === "-" || NEGATIVE_NUMBER.test(tok)) {
      positionals.push(tok);
      continue;
    }
    if (!tok.startsWith("--")) {
      throw new TypeError(
        `unknown option '${tok}' (repro flags are long: --name VALUE; see deno task repro --help)`,
      );
    }
    const eq = tok.indexOf("=");
    const name = eq < 0 ? tok.slice(2) : tok.slice(2, eq);
    let value: string | boolean;
    if (eq >= 0) {
      value = tok.slice(eq + 1);
    } else {
      const next = args[i + 1];
      const isValue = next !== undefined && next !== "--" &&
        (!next.startsWith("-") || next === "-" || NEGATIVE_NUMBER.test(next));
      value = isValue ? next : true;
      if (isValue) i++;
    }
    if (!/^[A-Za-z][\w-]*$/.test(name)) {
      throw new TypeError(`'${tok}' is not a flag (flags are --name VALUE or --name=VALUE)`);
    }
    if (Object.hasOwn(flags, name)) {
      throw new TypeError(
        `--${name} given twice ('${flags[name]}' and '${value}'): give it once`,
      );
    }
    if (typeof value === "string") {
      if (value.trim() === "") throw new RangeError(`--${name} is empty: give a value`);
      // what Number() would read differently from a plain decimal (0x10, 0b1, ' 5')
      if (Number.isFinite(Number(value)) && !DECIMAL_NUMBER.test(value)) {
        throw new RangeError(`--${name} must be a plain decimal number, got '${value}'`);
      }
    }
    flags[name] = value;
  }
  if (help) return { name: positionals[0] ?? "", dataset: "", seed: 0, flags, help: true };
  if (positionals.length === 0) {
    throw new TypeError(`${USAGE} (no experiment NAME given; see deno task repro --help)`);
  }
  if (positionals.length > 1) {
    const extra = positionals.slice(1).map((p) => `'${p}'`).join(", ");
    throw new TypeError(
      `unexpected argument${positionals.length > 2 ? "s" : ""} ${extra} ` +
        `(repro takes one experiment NAME; see deno task repro --help)`,
    );
  }
  const { dataset, "data-dir": dataDir, seed: _seed, ...rest } = flags;
  if (dataset === undefined) {
    throw new TypeError("--dataset NAME is required (e.g. --dataset bibtex)");
  }
  if (typeof dataset !== "string") {
    throw new TypeError("--dataset needs a value (e.g. --dataset bibtex)");
  }
  if (dataDir !== undefined && typeof dataDir !== "string") {
    throw new TypeError("--data-dir needs a directory");
  }
  const seed = intFlag({ values: flags, positionals: [] } as Flags, "seed", 0)!;
  return { name: positionals[0], dataset, ...(dataDir ? { dataDir } : {}), seed, flags: rest };
}

/**
 * Refuses the flags experiment `name` does not accept (`spec.flags`, its `FLAGS` export, and
 * the runner's `--dataset`, `--data-dir`, `--seed`): a TypeError naming the flag and listing
 * the accepted ones.
 *
 * @example
 * ```ts
 * import { checkExperimentFlags } from "./repro.ts";
 * import { FLAGS } from "./experiments/popularity.ts";
 * checkExperimentFlags("popularity", FLAGS, { threshold: "0.3" }); // fine
 * try { checkExperimentFlags("popularity", FLAGS, { treshold: "0.3" }); } catch (e) { console.log((e as Error).message); } // unknown flag --treshold for popularity (popularity takes --dataset, --data-dir, --seed, --threshold, --propensity-a, --propensity-b)
 * ```
 */
export function checkExperimentFlags(
  name: string,
  spec: ExperimentFlags,
  flags: Readonly<Record<string, string | boolean>>,
): void {
  const accepted = spec.flags;
  const unknown = Object.keys(flags).filter((f) => !accepted.includes(f));
  if (unknown.length > 0) {
    const all = [...RUNNER_FLAGS, ...accepted].map((f) => `--${f}`).join(", ");
    throw new TypeError(
      `unknown flag${unknown.length > 1 ? "s" : ""} ${unknown.map((f) => `--${f}`).join(", ")} ` +
        `for ${name} (${name} takes ${all})`,
    );
  }
}

/**
 * Imports `bench/repro/experiments/<name>.ts` (nothing runs) and returns its default export,
 * `run`, the {@linkcode Experiment}, and its `FLAGS` export, `spec`, the
 * {@linkcode ExperimentFlags}.
 *
 * @throws {TypeError} naming the file when either export is missing or malformed
 *
 * @example
 * ```ts
 * import { loadExperiment } from "./repro.ts";
 * const { run, spec } = await loadExperiment("popularity");
 * console.log(typeof run, spec.flags, spec.test); // function [ "threshold", "propensity-a", "propensity-b" ] true
 * ```
 */
export async function loadExperiment(
  name: string,
): Promise<{ run: Experiment; spec: ExperimentFlags }> {
  const mod = await import(new URL(`${name}.ts`, EXPERIMENTS_DIR).href);
  const run = mod.default as Experiment | undefined;
  if (typeof run !== "function") {
    throw new TypeError(
      `bench/repro/experiments/${name}.ts has no default export of an Experiment function`,
    );
  }
  const spec = mod.FLAGS as ExperimentFlags | undefined;
  if (
    typeof spec !== "object" || spec === null || !Array.isArray(spec.flags) ||
    !spec.flags.every((f) => typeof f === "string") ||
    !(spec.test === undefined || spec.test === true || typeof spec.test === "string")
  ) {
    throw new TypeError(
      `bench/repro/experiments/${name}.ts has no FLAGS export of an ExperimentFlags ` +
        `({ flags: [...], test? }: the flags it accepts; see bench/repro/types.ts)`,
    );
  }
  return { run, spec };
}

/** {@linkcode statOrUndefined}, with any other failure a TypeError naming the path. */
const statNamed = (path: string): Promise<Deno.FileInfo | undefined> =>
  statOrUndefined(path).catch((e) => {
    throw new TypeError(`${path}: ${(e as Error).message}`);
  });

/**
 * Checks, before any work, that the data directory exists and holds the files the run reads:
 * `<dataset>.train.txt`, and `<dataset>.test.txt` when `needsTest`. Errors start with `source`
 * (`--data-dir`, or `$TAGSTREAM_DATA` when the directory came from it), end with `hint` when
 * the directory is missing, and list the datasets found when a file is.
 *
 * @throws {TypeError} naming the directory or the missing file
 *
 * @example
 * ```ts
 * import { checkDataFiles } from "./repro.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/toy.train.txt`, "1 1 1\n0 0:1\n");
 * await checkDataFiles(dir, "toy", false, "--data-dir"); // fine
 * await checkDataFiles(dir, "toy", true, "--data-dir").catch((e) => console.log(e.message)); // --dataset toy: .../toy.test.txt does not exist (datasets in ...: toy)
 * await checkDataFiles(`${dir}/nope`, "toy", false, "--data-dir").catch((e) => console.log(e.message)); // --data-dir .../nope: no such directory (it should hold toy.train.txt)
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkDataFiles(
  dataDir: string,
  dataset: string,
  needsTest: boolean,
  source: string,
  hint = "",
  flag = "--dataset",
): Promise<void> {
  const info = await statNamed(dataDir);
  const holds = `it should hold ${dataset}.train.txt`;
  if (info === undefined) {
    throw new TypeError(`${source} ${dataDir}: no such directory (${holds})${hint}`);
  }
  if (!info.isDirectory) {
    throw new TypeError(`${source} ${dataDir} is not a directory (${holds})${hint}`);
  }
  for (const split of needsTest ? ["train", "test"] : ["train"]) {
    const path = `${dataDir}/${dataset}.${split}.txt`;
    const file = await statNamed(path);
    if (file?.isFile) continue;
    const found: string[] = [];
    for await (const e of Deno.readDir(dataDir)) {
      if (e.name.endsWith(".train.txt")) found.push(e.name.slice(0, -".train.txt".length));
    }
    throw new TypeError(
      `${flag} ${dataset}: ${path} ${file ? "is not a file" : "does not exist"} ` +
        `(datasets in ${dataDir}: ${found.sort().join(", ") || "none"})`,
    );
  }
}

/** Whether an experiment with `FLAGS` `spec`, run with `flags`, reads the test file. */
function readsTestFile(
  spec: ExperimentFlags,
  flags: Readonly<Record<string, string | boolean>>,
): boolean {
  const test = spec.test;
  if (test === undefined) return false;
  if (test === true) return true;
  const v = flags[test];
  return v === undefined || v === "false";
}

/**
 * Runs the experiment named in `args.name` and returns the JSON object the CLI prints. The
 * experiment name, its file's exports ({@linkcode loadExperiment}), its flags and the data files
 * are checked first ({@linkcode checkExperimentFlags}, {@linkcode checkDataFiles}).
 *
 * @example
 * ```ts
 * import { runExperiment } from "./repro.ts";
 * import { Progress } from "../../src/progress/mod.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/toy.train.txt`, "3 2 2\n0 0:1\n0 0:1\n1 1:1\n");
 * await Deno.writeTextFile(`${dir}/toy.test.txt`, "1 2 2\n1 1:1\n");
 * const out = await runExperiment(
 *   { name: "knn", dataset: "toy", dataDir: dir, seed: 0, flags: { k: "1" } },
 *   Progress.silent(),
 * );
 * console.log(out.experiment, out.k, (out.metrics as Record<string, number>)["P@1"]); // knn 1 100
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function runExperiment(
  args: ReproArgs,
  progress: Progress,
): Promise<Record<string, unknown>> {
  const available = await listExperiments();
  if (!available.includes(args.name)) {
    throw new TypeError(
      `Unknown experiment '${args.name}'; available: ${available.join(", ") || "(none)"}`,
    );
  }
  const { run, spec } = await loadExperiment(args.name);
  checkExperimentFlags(args.name, spec, args.flags);
  if (args.dataDir === "") throw new TypeError("--data-dir is empty: give a directory");
  const dataDir = resolveDataDir(args.dataDir);
  const source = args.dataDir !== undefined
    ? "--data-dir"
    : dataDir === "./data"
    ? "data directory"
    : "$TAGSTREAM_DATA";
  const hint = args.dataDir === undefined ? " (give --data-dir DIR or set TAGSTREAM_DATA)" : "";
  await checkDataFiles(dataDir, args.dataset, readsTestFile(spec, args.flags), source, hint);
  const ctx: ExperimentContext = {
    dataset: args.dataset,
    dataDir,
    seed: args.seed,
    flags: args.flags,
    progress,
  };
  const r = await run(ctx);
  return {
    experiment: args.name,
    dataset: args.dataset,
    seed: args.seed,
    metrics: r.metrics,
    ...(r.stdErr ? { stdErr: r.stdErr } : {}),
    trainSeconds: r.trainSeconds,
    predictMsPerRow: r.predictMsPerRow,
    modelBytes: r.modelBytes,
    ...r.extra,
  };
}

/**
 * The help text: the usage and the experiments; with `name`, the flags that experiment takes.
 *
 * @example
 * ```ts
 * import { reproUsage } from "./repro.ts";
 * console.log((await reproUsage("popularity")).includes("--threshold")); // true
 * ```
 */
export async function reproUsage(name = ""): Promise<string> {
  const available = await listExperiments();
  if (name !== "" && !available.includes(name)) {
    throw new TypeError(`Unknown experiment '${name}'; available: ${available.join(", ")}`);
  }
  const lines = [
    USAGE,
    "",
    "Runs bench/repro/experiments/NAME.ts and prints one JSON object (the last stdout line).",
    "  --dataset D     reads DIR/D.train.txt (and DIR/D.test.txt)",
    "  --data-dir DIR  data directory (default $TAGSTREAM_DATA, else ./data)",
    "  --seed N        random seed (default 0)",
    "",
  ];
  if (name === "") {
    lines.push(`Experiments: ${available.join(", ")}`);
    lines.push("'deno task repro NAME --help' lists the flags of NAME.");
  } else {
    const { flags } = (await loadExperiment(name)).spec;
    lines.push(`Flags of ${name}: ${flags.map((f) => `--${f}`).join(", ") || "none"}`);
    lines.push(`(their meaning: bench/repro/experiments/${name}.ts)`);
  }
  return lines.join("\n");
}

if (import.meta.main) {
  try {
    const args = parseReproArgs(Deno.args);
    if (args.help) {
      console.log(await reproUsage(args.name));
    } else {
      const out = await runExperiment(args, new Progress());
      console.log(JSON.stringify(out));
    }
  } catch (e) {
    console.error(`repro: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(e instanceof TypeError || e instanceof RangeError ? 2 : 1);
  }
}
