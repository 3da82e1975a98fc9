/**
 * Runs the `coembed` repro experiment directly (same JSON as `deno task repro coembed`), and
 * optionally a grid over variants and τ:
 *
 *   deno run --allow-all bench/coembed_run.ts --dataset yeast [--variant L|NL|all]
 *     [--tau 0.3|0.5|0.8|all] [--repeats N] [--seed S] [--data-dir DIR] [other experiment flags]
 *
 * It takes the flags `deno task repro coembed` takes (the experiment's `FLAGS`), parsed the same
 * way. Prints one JSON object per (variant, τ) on its own line.
 *
 * @module
 */
import { resolveDataDir } from "../src/data/data_dir.ts";
import { Progress } from "../src/progress/mod.ts";
import experiment, { FLAGS } from "./repro/experiments/coembed.ts";
import { checkExperimentFlags, parseReproArgs } from "./repro/repro.ts";

const USAGE = "usage: deno run --allow-all bench/coembed_run.ts [--dataset D (default yeast)] " +
  "[--data-dir DIR] [--seed N] [--variant L|NL|all] [--tau T|all] [flags of coembed]";

/**
 * Parses the command line of this script as `deno task repro coembed` parses its own
 * ({@linkcode parseReproArgs}: `--name VALUE`, `--name=VALUE`, a bare `--name` is true), with
 * `--dataset` defaulting to yeast, and takes the flags the coembed experiment takes (its
 * `FLAGS`), where `--variant all` and `--tau all` stand for a grid. `help`: `--help`/`-h` was
 * given (nothing else is then checked).
 *
 * @throws {TypeError} on a flag the experiment does not take (listing those it takes), a
 *   repeated flag or an unexpected argument
 * @throws {RangeError} on an empty value, a number not in plain decimal or a bad `--seed`
 *
 * @example
 * ```ts
 * import { parseCoembedRunArgs } from "./coembed_run.ts";
 * const a = parseCoembedRunArgs(["--tau", "all", "--rowUpdate", "joint", "--no-stream"]);
 * console.log(a.dataset, a.variants, a.taus, a.flags); // yeast [ "NL" ] [ "0.3", "0.5", "0.8" ] { rowUpdate: "joint", "no-stream": true }
 * try { parseCoembedRunArgs(["--epoch", "3"]); } catch (e) { console.log((e as Error).message); } // unknown flag --epoch for coembed (coembed takes --dataset, ...)
 * ```
 */
export function parseCoembedRunArgs(args: readonly string[]): {
  dataset: string;
  dataDir?: string;
  seed: number;
  variants: string[];
  taus: string[];
  flags: Record<string, string | boolean>;
  help?: boolean;
} {
  const hasDataset = args.some((a) => a === "--dataset" || a.startsWith("--dataset="));
  const parsed = parseReproArgs([
    "coembed",
    ...(hasDataset ? [] : ["--dataset", "yeast"]),
    ...args,
  ]);
  const { variant, tau, ...flags } = parsed.flags;
  if (parsed.help) {
    return {
      dataset: parsed.dataset,
      seed: parsed.seed,
      variants: [],
      taus: [],
      flags: {},
      help: true,
    };
  }
  checkExperimentFlags("coembed", FLAGS, parsed.flags);
  return {
    dataset: parsed.dataset,
    ...(parsed.dataDir !== undefined ? { dataDir: parsed.dataDir } : {}),
    seed: parsed.seed,
    variants: variant === "all" ? ["L", "NL"] : [String(variant ?? "NL")],
    taus: tau === "all" ? ["0.3", "0.5", "0.8"] : [String(tau ?? "0.5")],
    flags,
  };
}

if (import.meta.main) {
  let args: ReturnType<typeof parseCoembedRunArgs>;
  try {
    args = parseCoembedRunArgs(Deno.args);
  } catch (e) {
    console.error(`coembed_run: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(2);
  }
  if (args.help) {
    console.log(`${USAGE}\nFlags of coembed: ${FLAGS.flags.map((f) => `--${f}`).join(", ")}`);
    Deno.exit(0);
  }
  const { dataset, seed, flags } = args;
  const dataDir = resolveDataDir(args.dataDir);
  for (const variant of args.variants) {
    for (const tau of args.taus) {
      const t0 = performance.now();
      const r = await experiment({
        dataset,
        dataDir,
        seed,
        flags: { ...flags, variant, tau },
        progress: new Progress({ silent: true }),
      });
      console.log(JSON.stringify({
        experiment: "coembed",
        dataset,
        metrics: r.metrics,
        trainSeconds: r.trainSeconds,
        predictMsPerRow: r.predictMsPerRow,
        modelBytes: r.modelBytes,
        ...r.extra,
        perRepeat: undefined,
        wallSeconds: (performance.now() - t0) / 1000,
      }));
    }
  }
}
