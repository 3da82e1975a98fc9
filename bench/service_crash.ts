/**
 * Full crash check of the learning service (see `bench/service/crash.ts`): bibtex's training
 * rows as Redis Stream events, `kill -9` at random moments (5 by default), restarts; prints one
 * JSON line and exits 1 when the check fails.
 *
 * ```
 * npx deno run --allow-all bench/service_crash.ts [--dataset bibtex] [--data-dir DIR]
 *   [--rows N] [--kills 5] [--rate 1500] [--seed 1] [--batch-size 32]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { resolveDataDir } from "../src/data/data_dir.ts";
import { runCrashCheck } from "./service/crash.ts";

if (import.meta.main) {
  const { values: v } = parseArgs({
    args: Deno.args,
    strict: true,
    options: {
      dataset: { type: "string" },
      "data-dir": { type: "string" },
      rows: { type: "string" },
      kills: { type: "string" },
      rate: { type: "string" },
      seed: { type: "string" },
      "batch-size": { type: "string" },
    },
  });
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  const report = await runCrashCheck({
    dataDir: resolveDataDir(v["data-dir"]),
    dataset: v.dataset,
    rows: num(v.rows),
    kills: num(v.kills),
    rate: num(v.rate),
    seed: num(v.seed),
    serveArgs: v["batch-size"] ? ["--batch-size", v["batch-size"]] : [],
    log: (m) => console.error(`[crash] ${m}`),
  });
  console.log(JSON.stringify(report));
  if (!report.pass) Deno.exit(1);
}
