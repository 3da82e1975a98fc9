/**
 * Full bad-input check of the learning service (see `bench/service/bad_input.ts`): every bad
 * request several times over, thousands of randomly mutated event lines, then `kill -9` and a
 * restart; prints one JSON line and exits 1 when the check fails.
 *
 * ```
 * npx deno run --allow-all bench/service_bad_input.ts [--rounds 5] [--fuzz 5000] [--seed 1]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { runBadInputCheck } from "./service/bad_input.ts";

if (import.meta.main) {
  const { values: v } = parseArgs({
    args: Deno.args,
    strict: true,
    options: { rounds: { type: "string" }, fuzz: { type: "string" }, seed: { type: "string" } },
  });
  const report = await runBadInputCheck({
    rounds: Number(v.rounds ?? 5),
    fuzz: Number(v.fuzz ?? 5000),
    seed: Number(v.seed ?? 1),
    log: (m) => console.error(`[bad-input] ${m}`),
  });
  console.log(JSON.stringify(report));
  if (!report.pass) Deno.exit(1);
}
