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
 *   [--deadline-seconds S]
 * ```
 *
 * A run with no result after `--deadline-seconds` (default 600 + events / 250) fails (exit code
 * 1) with a message naming the phase that hung, after killing the service it started.
 *
 * Bad flags ({@linkcode CHAOS}) are one line on stderr and exit code 2, before the service starts.
 *
 * @module
 */
import { intFlag } from "../src/cli/commands/args.ts";
import { type BenchScript, runBench } from "./args.ts";
import { type ChaosOptions, MAX_DEADLINE_SECONDS, runChaosCheck } from "./service/chaos.ts";

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
 * console.log((await benchOptions(CHAOS, ["--deadline-seconds", "900"])).deadlineSeconds); // 900
 * ```
 */
export const CHAOS: BenchScript<ChaosOptions> = {
  task: "chaos",
  usage: `deno task chaos [--events 20000 (1-${MAX_EVENTS})] [--kills 10 (0-1000)]
  [--senders 4 (1-64)] [--seed 1] [--deadline-seconds S (1-${MAX_DEADLINE_SECONDS})]
The chaos check of the learning service (bench/service/chaos.ts); one JSON line on stdout,
exit code 1 when the check fails, or when it has no result after --deadline-seconds (default
600 + events / 250): the message names the phase that hung, and the service is killed.`,
  flags: {
    events: "string",
    kills: "string",
    senders: "string",
    seed: "string",
    "deadline-seconds": "string",
  },
  options: (f) => {
    const deadlineSeconds = intFlag(f, "deadline-seconds", undefined, 1, MAX_DEADLINE_SECONDS);
    return {
      events: intFlag(f, "events", 20000, 1, MAX_EVENTS),
      kills: intFlag(f, "kills", 10, 0, 1000),
      senders: intFlag(f, "senders", 4, 1, 64),
      seed: intFlag(f, "seed", 1),
      // absent: the check's default, which grows with --events
      ...(deadlineSeconds !== undefined ? { deadlineSeconds } : {}),
    };
  },
};

if (import.meta.main) {
  await runBench(CHAOS, async (options) => {
    const r = await runChaosCheck({ ...options, log: (m) => console.error(`[chaos] ${m}`) });
    console.log(JSON.stringify(r));
    if (!r.pass) Deno.exit(1);
  });
}
