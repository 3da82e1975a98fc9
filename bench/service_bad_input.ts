/**
 * Full bad-input check of the learning service (see `bench/service/bad_input.ts`): every bad
 * request several times over, thousands of randomly mutated event lines, then `kill -9` and a
 * restart; prints one JSON line and exits 1 when the check fails. Bad flags
 * ({@linkcode SERVICE_BAD_INPUT}) are one line on stderr and exit code 2.
 *
 * ```
 * npx deno run --allow-all bench/service_bad_input.ts [--rounds 5] [--fuzz 5000] [--seed 1]
 * ```
 *
 * @module
 */
import { countFlag, intFlag } from "../src/cli/commands/args.ts";
import { type BadInputOptions, runBadInputCheck } from "./service/bad_input.ts";
import { type BenchScript, runBench } from "./args.ts";

/**
 * The command line of bench/service_bad_input.ts: counts in plain decimal within their limits,
 * checked before the service starts.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { SERVICE_BAD_INPUT } from "./service_bad_input.ts";
 * console.log(await benchOptions(SERVICE_BAD_INPUT, ["--fuzz", "1e3"])); // { rounds: 5, fuzz: 1000, seed: 1 }
 * await benchOptions(SERVICE_BAD_INPUT, ["--rounds", "0x10"]).catch((e) => console.log(e.message)); // --rounds must be an integer in [1, 1000], got '0x10'
 * ```
 */
export const SERVICE_BAD_INPUT: BenchScript<Omit<BadInputOptions, "log">> = {
  task: "bench/service_bad_input.ts",
  usage: `deno run -A bench/service_bad_input.ts [--rounds 5 (1-1000)] [--fuzz 5000 (0-10000000)]
  [--seed 1]
The bad-input check of the learning service (bench/service/bad_input.ts); one JSON line on
stdout, exit code 1 when the check fails.`,
  flags: { rounds: "string", fuzz: "string", seed: "string" },
  options: (f) => ({
    rounds: intFlag(f, "rounds", 5, 1, 1000),
    fuzz: countFlag(f, "fuzz", 5000, 0, 1e7),
    seed: intFlag(f, "seed", 1),
  }),
};

if (import.meta.main) {
  await runBench(SERVICE_BAD_INPUT, async (options) => {
    const report = await runBadInputCheck({
      ...options,
      log: (m) => console.error(`[bad-input] ${m}`),
    });
    console.log(JSON.stringify(report));
    if (!report.pass) Deno.exit(1);
  });
}
