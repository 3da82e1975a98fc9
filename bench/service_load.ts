/**
 * Full load check of the learning service (see `bench/service/load.ts`): concurrent
 * connections drive `/events` and `/predict` for a fixed time; prints one JSON line with
 * throughput, p50/p99 latency and error counts. Exits 1 when a 5xx was seen, or with `--strict`
 * when a target (≥ 20,000 events/s learned, /predict p99 ≤ 5 ms at 64 connections) is missed.
 *
 * ```
 * npx deno run --allow-all bench/service_load.ts [--dataset bibtex] [--data-dir DIR]
 *   [--seconds 10] [--event-connections 4] [--events-per-request 250]
 *   [--predict-connections 64] [--phases events,predict,mixed] [--strict]
 *   [--client wrk|deno] [--predict-form object|compact|indices]
 *   [--max-load L [--wait-minutes 10]] [--deno-flag=--cpu-prof ...] [-- serve flags...]
 * ```
 *
 * `--client wrk` (the default when `wrk` is installed: `scripts/install-services.sh --bench`)
 * drives the server from a C load generator; `deno` uses an in-process client. The report gives
 * the CPU share of server and client and the load average of each phase. `--max-load L` first
 * waits (at most `--wait-minutes`) until the machine's 1-minute load average is below L, and
 * measures anyway afterwards (the load averages in the report tell).
 *
 * Bad flags ({@linkcode SERVICE_LOAD}) are one line on stderr and exit code 2, before the
 * service starts.
 *
 * @module
 */
import { countFlag, numberFlag, parseFlags, stringFlag } from "../src/cli/commands/args.ts";
import { SERVE_FLAGS } from "../src/cli/commands/serve_flags.ts";
import { type LoadOptions, runLoadCheck } from "./service/load.ts";
import { loadAverage } from "./service/harness.ts";
import {
  type BenchScript,
  checkXcDatasets,
  choiceFlag,
  namesFlag,
  refuseIgnored,
  runBench,
} from "./args.ts";

/** The phases of the load check. */
const PHASES = ["events", "predict", "mixed"];

/** The options of the load check, with `--strict`, `--max-load` and `--wait-minutes`. */
export interface ServiceLoadOptions extends Omit<LoadOptions, "log"> {
  strict: boolean;
  /** Wait until the 1-minute load average is below it (none: do not wait). */
  maxLoad?: number;
  /** Longest wait for `maxLoad`, in minutes. */
  waitMinutes: number;
}

/**
 * The command line of bench/service_load.ts, every flag checked before the service starts:
 * counts within their limits, the phases, client and body form known, `--wait-minutes` only with
 * `--max-load`, the dataset's training file there, and the serve flags after `--` known to
 * `tagstream serve`.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { SERVICE_LOAD } from "./service_load.ts";
 * await benchOptions(SERVICE_LOAD, ["--seconds", "0x10"]).catch((e) => console.log(e.message)); // --seconds must be a number in [0.1, 86400], got '0x10'
 * await benchOptions(SERVICE_LOAD, ["--", "--batchsize", "8"]).catch((e) => console.log(e.message)); // serve flags after --: tagstream serve: unknown option '--batchsize' (see tagstream serve --help)
 * ```
 */
export const SERVICE_LOAD: BenchScript<ServiceLoadOptions> = {
  task: "bench/service_load.ts",
  usage: `deno run -A bench/service_load.ts [--dataset bibtex] [--data-dir DIR]
  [--seconds 10 (0.1-86400; whole seconds with wrk)] [--event-connections 4 (1-1024)]
  [--events-per-request 250 (1-100000; at most the training rows)]
  [--predict-connections 64 (1-1024)] [--phases events,predict,mixed] [--strict]
  [--client wrk|deno] [--predict-form object|compact|indices]
  [--max-load L [--wait-minutes 10]] [--deno-flag=--cpu-prof ...] [-- serve flags...]
The load check of the learning service (bench/service/load.ts); one JSON line on stdout, exit
code 1 when a 5xx was seen (or, with --strict, a target was missed).`,
  flags: {
    dataset: "string",
    "data-dir": "string",
    seconds: "string",
    "event-connections": "string",
    "events-per-request": "string",
    "predict-connections": "string",
    phases: "string",
    strict: "boolean",
    client: "string",
    "predict-form": "string",
    "max-load": "string",
    "wait-minutes": "string",
    "deno-flag": "multiple",
  },
  afterDashes: "serve flags",
  async options(f) {
    const maxLoad = numberFlag(f, "max-load", undefined, 0, 1e6);
    if (maxLoad === undefined) refuseIgnored(f, ["wait-minutes"], "without --max-load");
    const serveArgs = f.positionals;
    try {
      parseFlags("serve", [...serveArgs], SERVE_FLAGS, { maxPositionals: 0 });
    } catch (e) {
      throw new TypeError(`serve flags after --: ${(e as Error).message}`);
    }
    const dataset = stringFlag(f, "dataset", "bibtex")!;
    const phases = namesFlag(f, "phases", PHASES, PHASES);
    const client = f.values.client === undefined
      ? undefined
      : choiceFlag(f, "client", "wrk", ["wrk", "deno"]);
    const options = {
      dataset,
      seconds: numberFlag(f, "seconds", 10, 0.1, 86_400)!,
      eventConnections: countFlag(f, "event-connections", 4, 1, 1024)!,
      eventsPerRequest: countFlag(f, "events-per-request", 250, 1, 100_000)!,
      predictConnections: countFlag(f, "predict-connections", 64, 1, 1024)!,
      phases: phases as LoadOptions["phases"],
      strict: f.values.strict === true,
      client,
      predictForm: choiceFlag(f, "predict-form", "object", ["object", "compact", "indices"]),
      maxLoad,
      waitMinutes: numberFlag(f, "wait-minutes", 10, 0, 1440)!,
      serveArgs,
      denoFlags: f.values["deno-flag"] as string[] | undefined,
    };
    // the data directory last: every other flag is checked without it
    return { ...options, dataDir: await checkXcDatasets(f, [dataset], false) };
  },
};

if (import.meta.main) {
  await runBench(SERVICE_LOAD, async ({ strict, maxLoad, waitMinutes, ...options }) => {
    if (maxLoad !== undefined) {
      const until = Date.now() + waitMinutes * 60000;
      while (loadAverage() >= maxLoad && Date.now() < until) {
        console.error(`[load] load average ${loadAverage()} >= ${maxLoad}: waiting`);
        await new Promise((r) => setTimeout(r, 15000));
      }
    }
    const report = await runLoadCheck({ ...options, log: (m) => console.error(`[load] ${m}`) });
    console.log(JSON.stringify(report));
    const missed = report.meetsEventsTarget === false || report.meetsPredictTarget === false;
    if (!report.zero5xx || (strict && missed)) Deno.exit(1);
  });
}
