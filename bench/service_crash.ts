/**
 * Full crash check of the learning service (see `bench/service/crash.ts`): bibtex's training
 * rows as Redis Stream events, `kill -9` at random moments (5 by default), restarts; prints one
 * JSON line and exits 1 when the check fails. Bad flags ({@linkcode SERVICE_CRASH}) are one line
 * on stderr and exit code 2, before the service starts.
 *
 * ```
 * npx deno run --allow-all bench/service_crash.ts [--dataset bibtex] [--data-dir DIR]
 *   [--rows N] [--kills 5] [--rate 1500] [--seed 1] [--batch-size 32]
 * ```
 *
 * @module
 */
import { countFlag, intFlag, stringFlag } from "../src/cli/commands/args.ts";
import { type CrashOptions, runCrashCheck } from "./service/crash.ts";
import { type BenchScript, checkXcDatasets, runBench } from "./args.ts";

/**
 * The command line of bench/service_crash.ts, every flag checked before the service starts:
 * counts in plain decimal within their limits and the dataset's training and test files there.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { SERVICE_CRASH } from "./service_crash.ts";
 * await benchOptions(SERVICE_CRASH, ["--kills", "0x10"]).catch((e) => console.log(e.message)); // --kills must be an integer in [0, 1000], got '0x10'
 * await benchOptions(SERVICE_CRASH, ["--batch-size", "0"]).catch((e) => console.log(e.message)); // --batch-size must be an integer in [1, 65536], got '0'
 * ```
 */
export const SERVICE_CRASH: BenchScript<Omit<CrashOptions, "log">> = {
  task: "bench/service_crash.ts",
  usage: `deno run -A bench/service_crash.ts [--dataset bibtex] [--data-dir DIR]
  [--rows N (default: all)] [--kills 5 (0-1000)] [--rate 1500 (events/s, 1-1000000)] [--seed 1]
  [--batch-size 32 (the service's, 1-65536)]
The crash check of the learning service (bench/service/crash.ts); one JSON line on stdout, exit
code 1 when the check fails.`,
  flags: {
    dataset: "string",
    "data-dir": "string",
    rows: "string",
    kills: "string",
    rate: "string",
    seed: "string",
    "batch-size": "string",
  },
  async options(f) {
    const dataset = stringFlag(f, "dataset", "bibtex")!;
    const batchSize = countFlag(f, "batch-size", undefined, 1, 1 << 16);
    const options = {
      dataset,
      rows: countFlag(f, "rows", undefined, 1, Number.MAX_SAFE_INTEGER),
      kills: intFlag(f, "kills", 5, 0, 1000),
      rate: countFlag(f, "rate", 1500, 1, 1e6),
      seed: intFlag(f, "seed", 1),
      serveArgs: batchSize === undefined ? [] : ["--batch-size", String(batchSize)],
    };
    // the data directory last: every other flag is checked without it
    return { ...options, dataDir: await checkXcDatasets(f, [dataset], true) };
  },
};

if (import.meta.main) {
  await runBench(SERVICE_CRASH, async (options) => {
    const report = await runCrashCheck({ ...options, log: (m) => console.error(`[crash] ${m}`) });
    console.log(JSON.stringify(report));
    if (!report.pass) Deno.exit(1);
  });
}
