/**
 * `deno task repro NAME --dataset D [--data-dir DIR] [--seed N] [other flags]`: runs the
 * experiment `bench/repro/experiments/NAME.ts` and prints ONE JSON object as the last stdout
 * line: `{"experiment", "dataset", "seed", "metrics", "stdErr" (when the experiment gives the
 * standard errors of its ranking metrics), "trainSeconds", "predictMsPerRow", "modelBytes",
 * ...extra}`. Flags other than `--dataset`, `--data-dir` and `--seed` are passed to
 * the experiment (`--k 10` or `--k=10` → `"10"`; a bare `--quick` → `true`).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { resolveDataDir } from "../../src/data/data_dir.ts";
import { Progress } from "../../src/progress/mod.ts";
import type { Experiment, ExperimentContext } from "./types.ts";

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

/**
 * Parsed command line of the repro runner.
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
}

/**
 * Parses the command line (with `node:util` `parseArgs`; an unknown `--flag` followed by a
 * non-flag token takes it as its value).
 *
 * @example
 * ```ts
 * import { parseReproArgs } from "./repro.ts";
 * const a = parseReproArgs(["knn", "--dataset", "bibtex", "--k", "10", "--quick", "--seed=3"]);
 * console.log(a.name, a.dataset, a.seed, a.flags); // knn bibtex 3 { k: "10", quick: true }
 * ```
 */
export function parseReproArgs(args: string[]): ReproArgs {
  const { tokens } = parseArgs({ args, strict: false, allowPositionals: true, tokens: true });
  const flags: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t];
    if (tok.kind === "positional") {
      positionals.push(tok.value);
    } else if (tok.kind === "option") {
      if (tok.value !== undefined) {
        flags[tok.name] = tok.value;
      } else {
        const next = tokens[t + 1];
        if (next && next.kind === "positional" && next.index === tok.index + 1) {
          flags[tok.name] = next.value;
          t++;
        } else {
          flags[tok.name] = true;
        }
      }
    } else if (tok.kind === "option-terminator") {
      for (const rest of tokens.slice(t + 1)) {
        if (rest.kind === "positional") positionals.push(rest.value);
      }
      break;
    }
  }
  if (positionals.length !== 1) {
    throw new TypeError(
      `usage: deno task repro NAME --dataset D [--data-dir DIR] [--seed N] [flags] ` +
        `(got ${positionals.length} positional arguments: ${positionals.join(" ") || "none"})`,
    );
  }
  const { dataset, "data-dir": dataDir, seed, ...rest } = flags;
  if (typeof dataset !== "string" || dataset === "") {
    throw new TypeError("--dataset NAME is required (e.g. --dataset bibtex)");
  }
  if (dataDir !== undefined && typeof dataDir !== "string") {
    throw new TypeError("--data-dir needs a directory");
  }
  let seedNum = 0;
  if (seed !== undefined) {
    seedNum = Number(seed);
    if (typeof seed !== "string" || !Number.isInteger(seedNum)) {
      throw new TypeError(`--seed must be an integer, got '${seed}'`);
    }
  }
  return { name: positionals[0], dataset, dataDir, seed: seedNum, flags: rest };
}

/**
 * Runs the experiment named in `args.name` and returns the JSON object the CLI prints.
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
  const mod = await import(new URL(`${args.name}.ts`, EXPERIMENTS_DIR).href);
  const run = mod.default as Experiment | undefined;
  if (typeof run !== "function") {
    throw new TypeError(
      `bench/repro/experiments/${args.name}.ts has no default export of an Experiment function`,
    );
  }
  const ctx: ExperimentContext = {
    dataset: args.dataset,
    dataDir: resolveDataDir(args.dataDir),
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

if (import.meta.main) {
  try {
    const args = parseReproArgs(Deno.args);
    const out = await runExperiment(args, new Progress());
    console.log(JSON.stringify(out));
  } catch (e) {
    console.error(`repro: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(e instanceof TypeError || e instanceof RangeError ? 2 : 1);
  }
}
