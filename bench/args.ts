/**
 * Command-line plumbing of the benchmark tasks of deno.json (`deno task bench`, `scale`,
 * `chaos`, `sdk-scale`, `knn-fast-exact`, `topk-fast-exact`, `text`) and of the scripts run by
 * hand (`deno run -A bench/service_load.ts`, `bench/leml_memory.ts`, …). Each script declares a
 * {@linkcode BenchScript} (its flags, its usage and the function that reads and checks them) and
 * runs through {@linkcode runBench}: strict parsing with the CLI's `parseFlags` (unknown flags,
 * positional arguments and missing values refused, `--seed -1` read), `--help`, and bad input —
 * a value out of range or not in plain decimal (`0x10`), an empty entry, a flag the run would
 * ignore, a data directory or dataset that is not there — refused before any work with one line
 * naming the flag (`TASK: message`) and exit code 2 (`runScript`).
 *
 * @module
 */
import {
  type Flags,
  type FlagSpec,
  listFlag,
  parseFlags,
  stringFlag,
} from "../src/cli/commands/args.ts";
import { statOrUndefined } from "../src/cli/commands/path_checks.ts";
import { runScript } from "../src/cli/run_script.ts";
import { resolveDataDir } from "../src/data/data_dir.ts";
import { checkDataFiles } from "./repro/repro.ts";

/**
 * A benchmark script's command line: its task name, usage, flags and the reader of its options.
 *
 * @example
 * ```ts
 * import { intFlag } from "../src/cli/commands/args.ts";
 * import type { BenchScript } from "./args.ts";
 * const toy: BenchScript<{ n: number }> = {
 *   task: "toy",
 *   usage: "deno task toy [--n 3]",
 *   flags: { n: "string" },
 *   options: (f) => ({ n: intFlag(f, "n", 3, 1, 10)! }),
 * };
 * console.log(toy.task); // "toy"
 * ```
 */
export interface BenchScript<T> {
  /**
   * The deno.json task (`sdk-scale`: `deno task sdk-scale`) or, for a script run by hand, its
   * path (`bench/service_load.ts`: `deno run -A bench/service_load.ts`): names the errors and
   * the command of `--help` ({@linkcode benchProgram}).
   */
  readonly task: string;
  /** The text of `--help`. */
  readonly usage: string;
  /** The flags it takes (no positional arguments, but see `afterDashes`). */
  readonly flags: FlagSpec;
  /**
   * What the arguments after `--` are (`serve flags`), for a script that hands them on: they
   * are then the positional arguments, untouched. Without it, `--` and what follows are refused.
   */
  readonly afterDashes?: string;
  /**
   * Reads and checks every flag, before any work: a TypeError or RangeError naming the flag
   * (exit code 2) for bad input.
   */
  options(f: Flags): T | Promise<T>;
}

/**
 * How `task` is run: `deno run -A PATH` for a script's path (`bench/leml_memory.ts`), else
 * `deno task TASK`.
 *
 * @example
 * ```ts
 * import { benchProgram } from "./args.ts";
 * console.log(benchProgram("scale"), "|", benchProgram("bench/leml_memory.ts")); // deno task scale | deno run -A bench/leml_memory.ts
 * ```
 */
export function benchProgram(task: string): string {
  return task.endsWith(".ts") ? `deno run -A ${task}` : `deno task ${task}`;
}

/**
 * `args` parsed with `script`'s flags, strictly (`parseFlags`, no positional arguments; errors
 * point to `PROGRAM --help`, {@linkcode benchProgram}). With `afterDashes`, the arguments after
 * the first `--` are the positional arguments, unparsed.
 *
 * @example
 * ```ts
 * import { benchFlags } from "./args.ts";
 * const script = { task: "toy", usage: "", flags: { n: "string" as const }, options: () => 0 };
 * console.log(benchFlags(script, ["--n", "-1"]).values.n); // "-1"
 * try { benchFlags(script, ["x"]); } catch (e) { console.log((e as Error).message); } // unexpected argument 'x' (toy takes no positional arguments; see deno task toy --help)
 * const passing = { ...script, afterDashes: "serve flags" };
 * console.log(benchFlags(passing, ["--n", "1", "--", "--port", "0"]).positionals); // [ "--port", "0" ]
 * ```
 */
export function benchFlags<T>(script: BenchScript<T>, args: readonly string[]): Flags {
  const dashes = script.afterDashes === undefined ? -1 : args.indexOf("--");
  const own = dashes < 0 ? [...args] : args.slice(0, dashes);
  const f = parseFlags(script.task, own, script.flags, {
    maxPositionals: 0,
    program: benchProgram(script.task),
  });
  return dashes < 0 ? f : { values: f.values, positionals: args.slice(dashes + 1) };
}

/**
 * The options of `script` from `args` (`--help` is not looked at): what {@linkcode runBench}
 * runs the script with, for the tests.
 *
 * @example
 * ```ts
 * import { intFlag } from "../src/cli/commands/args.ts";
 * import { benchOptions } from "./args.ts";
 * const script = {
 *   task: "toy",
 *   usage: "",
 *   flags: { n: "string" as const },
 *   options: (f: Parameters<typeof intFlag>[0]) => intFlag(f, "n", 3, 1, 10),
 * };
 * console.log(await benchOptions(script, ["--n", "4"])); // 4
 * await benchOptions(script, ["--n", "0x10"]).catch((e) => console.log(e.message)); // --n must be an integer in [1, 10], got '0x10'
 * ```
 */
export async function benchOptions<T>(script: BenchScript<T>, args: readonly string[]): Promise<T> {
  return await script.options(benchFlags(script, args));
}

/**
 * Runs a benchmark script: with `--help`, prints its usage; else reads its options from the
 * command line and runs `main` with them. An error ends the process with one line
 * `TASK: message` on stderr and exit code 2 for bad input, 1 otherwise (`runScript`).
 *
 * @example
 * ```ts ignore
 * import { runBench } from "./args.ts";
 * await runBench({ task: "toy", usage: "deno task toy", flags: {}, options: () => ({}) }, () => {
 *   console.log("ran");
 * });
 * ```
 */
export async function runBench<T>(
  script: BenchScript<T>,
  main: (options: T) => void | Promise<void>,
): Promise<void> {
  await runScript(script.task, async () => {
    const f = benchFlags(script, Deno.args);
    if (f.values.help === true) {
      console.log(script.usage);
      return;
    }
    await main(await script.options(f));
  });
}

/**
 * The names of a comma-separated list flag (`--datasets bibtex,delicious`), or `dflt`: no empty
 * entry, no name twice and, when `allowed` is given, each one of it (a RangeError naming the
 * flag).
 *
 * @example
 * ```ts
 * import { namesFlag } from "./args.ts";
 * const f = { values: { kinds: "a,b", bad: "a,c" }, positionals: [] };
 * console.log(namesFlag(f, "kinds", [], ["a", "b"])); // [ "a", "b" ]
 * try { namesFlag(f, "bad", [], ["a", "b"]); } catch (e) { console.log((e as Error).message); } // --bad: unknown 'c' (give a, b)
 * ```
 */
export function namesFlag(
  f: Flags,
  name: string,
  dflt: readonly string[],
  allowed?: readonly string[],
): string[] {
  const names = listFlag(f, name, [...dflt], (g, n) => stringFlag(g, n)!);
  names.forEach((v, i) => {
    if (allowed !== undefined && !allowed.includes(v)) {
      throw new RangeError(`--${name}: unknown '${v}' (give ${allowed.join(", ")})`);
    }
    if (names.indexOf(v) < i) throw new RangeError(`--${name} names '${v}' twice`);
  });
  return names;
}

/**
 * A flag that is one of `allowed`, or `dflt`.
 *
 * @example
 * ```ts
 * import { choiceFlag } from "./args.ts";
 * const f = { values: { l2: "yes" }, positionals: [] };
 * try { choiceFlag(f, "l2", "true", ["true", "false"]); } catch (e) { console.log((e as Error).message); } // --l2 must be true or false, got 'yes'
 * ```
 */
export function choiceFlag<T extends string>(
  f: Flags,
  name: string,
  dflt: T,
  allowed: readonly T[],
): T {
  const v = stringFlag(f, name, dflt)!;
  if (!(allowed as readonly string[]).includes(v)) {
    const list = allowed.length === 2
      ? `${allowed[0]} or ${allowed[1]}`
      : `one of ${allowed.join(", ")}`;
    throw new RangeError(`--${name} must be ${list}, got '${v}'`);
  }
  return v as T;
}

/**
 * Refuses `names`, flags the run would ignore (`why`: when, e.g. `with --no-generated`): a
 * TypeError naming the first one given.
 *
 * @example
 * ```ts
 * import { refuseIgnored } from "./args.ts";
 * const f = { values: { "size-mb": "1", keep: "f" }, positionals: [] };
 * try { refuseIgnored(f, ["keep", "size-mb"], "with --no-generated"); } catch (e) { console.log((e as Error).message); } // --keep has no effect with --no-generated
 * ```
 */
export function refuseIgnored(f: Flags, names: readonly string[], why: string): void {
  const given = names.find((n) => f.values[n] !== undefined);
  if (given !== undefined) throw new TypeError(`--${given} has no effect ${why}`);
}

/**
 * The data directory and where it came from, for the messages: `--data-dir` (an empty one is a
 * RangeError), else `$TAGSTREAM_DATA`, else `./data` (then `hint` says how to give one).
 *
 * @example
 * ```ts
 * import { dataDirOf } from "./args.ts";
 * console.log(dataDirOf({ values: { "data-dir": "/d" }, positionals: [] })); // { dir: "/d", source: "--data-dir", hint: "" }
 * ```
 */
export function dataDirOf(f: Flags): { dir: string; source: string; hint: string } {
  const flag = stringFlag(f, "data-dir");
  if (flag === "") throw new RangeError("--data-dir is empty: give a directory");
  const dir = resolveDataDir(flag);
  if (flag !== undefined) return { dir, source: "--data-dir", hint: "" };
  const hint = " (give --data-dir DIR or set TAGSTREAM_DATA)";
  return { dir, source: dir === "./data" ? "data directory" : "$TAGSTREAM_DATA", hint };
}

/**
 * Checks that `path` (given by `source`, e.g. `--model-dir`) is a directory: a TypeError naming
 * it, ending with `hint`, when it is missing (unless `mayBeMissing`) or not a directory.
 * Resolves with whether it exists.
 *
 * @example
 * ```ts
 * import { checkDirectory } from "./args.ts";
 * await checkDirectory("/no/such/dir", "--model-dir").catch((e) => console.log(e.message)); // --model-dir /no/such/dir: no such directory
 * console.log(await checkDirectory("/no/such/dir", "--model-dir", "", true)); // false
 * ```
 */
export async function checkDirectory(
  path: string,
  source: string,
  hint = "",
  mayBeMissing = false,
): Promise<boolean> {
  let info: Deno.FileInfo | undefined;
  try {
    info = await statOrUndefined(path);
  } catch (e) {
    throw new TypeError(`${source} ${path}: ${(e as Error).message}${hint}`);
  }
  if (info === undefined) {
    if (mayBeMissing) return false;
    throw new TypeError(`${source} ${path}: no such directory${hint}`);
  }
  if (!info.isDirectory) throw new TypeError(`${source} ${path} is not a directory${hint}`);
  return true;
}

/**
 * The data directory ({@linkcode dataDirOf}), checked to hold `NAME.train.txt` (and
 * `NAME.test.txt` when `needsTest`) of each of `datasets` (the repro runner's
 * `checkDataFiles`: a TypeError naming the directory or the missing file, listing the datasets
 * there; the file is named by `flag`, the flag that gave the dataset).
 *
 * @example
 * ```ts
 * import { checkXcDatasets } from "./args.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/toy.train.txt`, "1 1 1\n0 0:1\n");
 * const f = { values: { "data-dir": dir }, positionals: [] };
 * console.log((await checkXcDatasets(f, ["toy"], false)) === dir); // true
 * await checkXcDatasets(f, ["toy"], true).catch((e) => console.log(e.message)); // --dataset toy: .../toy.test.txt does not exist (datasets in ...: toy)
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkXcDatasets(
  f: Flags,
  datasets: readonly string[],
  needsTest: boolean,
  flag = "--dataset",
): Promise<string> {
  const { dir, source, hint } = dataDirOf(f);
  for (const name of datasets) await checkDataFiles(dir, name, needsTest, source, hint, flag);
  return dir;
}
