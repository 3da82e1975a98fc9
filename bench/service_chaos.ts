/**
 * Chaos check of the learning service (see `bench/service/chaos.ts`): ≥ 20,000 events with ids
 * over HTTP while the service is `kill -9`ed at random (also during checkpoints), its disk fills
 * once and a write-ahead-log record is corrupted once; unanswered bodies and a share of
 * acknowledged ones are sent again. Prints one JSON line (sent, acknowledged, applied, lost,
 * doubled — every event applied more than once, resent bodies included —, resent,
 * duplicatesAcknowledged, kills, faults, seconds) and exits 1 when the check fails (lost or
 * doubled above 0, among others).
 *
 * ```
 * npx deno task chaos [--events 20000] [--kills 10] [--senders 4] [--seed 1]
 * ```
 *
 * Bad flags ({@linkcode CHAOS}) are one line on stderr and exit code 2, before the service starts.
 *
 * @module
 */
import { intFlag } from "../src/cli/commands/args.ts";
import { type BenchScript, runBench } from "./args.ts";
import { type ChaosOptions, runChaosCheck } from "./service/chaos.ts";

/** Most `--events`: sent at 2500 a second at most, 10⁶ take seven minutes. */
const MAX_EVENTS = 1_000_000;

/**
 * The command line of `deno task chaos`: counts in plain decimal within their limits.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { CHAOS } from "./service_chaos.ts";
 * console.log(await benchOptions(CHAOS, ["--events", "2000", "--seed", "-3"])); // { events: 2000, kills: 10, senders: 4, seed: -3 }
 * await benchOptions(CHAOS, ["--senders", "0"]).catch((e) => console.log(e.message)); // --senders must be an integer in [1, 64], got '0'
 * ```
 */
export const CHAOS: BenchScript<ChaosOptions> = {
  task: "chaos",
  usage: `deno task chaos [--events 20000 (1-${MAX_EVENTS})] [--kills 10 (0-1000)]
  [--senders 4 (1-64)] [--seed 1]
The chaos check of the learning service (bench/service/chaos.ts); one JSON line on stdout,
exit code 1 when the check fails.`,
  flags: { events: "string", kills: "string", senders: "string", seed: "string" },
  options: (f) => ({
    events: intFlag(f, "events", 20000, 1, MAX_EVENTS),
    kills: intFlag(f, "kills", 10, 0, 1000),
    senders: intFlag(f, "senders", 4, 1, 64),
    seed: intFlag(f, "seed", 1),
  }),
};

if (import.meta.main) {
  await runBench(CHAOS, async (options) => {
    const r = await runChaosCheck({ ...options, log: (m) => console.error(`[chaos] ${m}`) });
    console.log(JSON.stringify(r));
    if (!r.pass) Deno.exit(1);
  });
}
