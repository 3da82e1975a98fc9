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
 * @module
 */
import { parseArgs } from "node:util";
import { resolveDataDir } from "../src/data/data_dir.ts";
import { runLoadCheck } from "./service/load.ts";
import { loadAverage } from "./service/harness.ts";

if (import.meta.main) {
  const { values: v, positionals } = parseArgs({
    args: Deno.args,
    strict: true,
    allowPositionals: true,
    options: {
      dataset: { type: "string" },
      "data-dir": { type: "string" },
      seconds: { type: "string" },
      "event-connections": { type: "string" },
      "events-per-request": { type: "string" },
      "predict-connections": { type: "string" },
      phases: { type: "string" },
      strict: { type: "boolean" },
      client: { type: "string" },
      "predict-form": { type: "string" },
      "max-load": { type: "string" },
      "wait-minutes": { type: "string" },
      "deno-flag": { type: "string", multiple: true },
    },
  });
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  const maxLoad = num(v["max-load"]);
  if (maxLoad !== undefined) {
    const until = Date.now() + (num(v["wait-minutes"]) ?? 10) * 60000;
    while (loadAverage() >= maxLoad && Date.now() < until) {
      console.error(`[load] load average ${loadAverage()} >= ${maxLoad}: waiting`);
      await new Promise((r) => setTimeout(r, 15000));
    }
  }
  const report = await runLoadCheck({
    dataDir: resolveDataDir(v["data-dir"]),
    dataset: v.dataset,
    seconds: num(v.seconds),
    eventConnections: num(v["event-connections"]),
    eventsPerRequest: num(v["events-per-request"]),
    predictConnections: num(v["predict-connections"]),
    phases: v.phases?.split(",") as ("events" | "predict" | "mixed")[] | undefined,
    serveArgs: positionals,
    denoFlags: v["deno-flag"],
    client: v.client as "wrk" | "deno" | undefined,
    predictForm: v["predict-form"] as "object" | "compact" | "indices" | undefined,
    log: (m) => console.error(`[load] ${m}`),
  });
  console.log(JSON.stringify(report));
  const missed = report.meetsEventsTarget === false || report.meetsPredictTarget === false;
  if (!report.zero5xx || (v.strict && missed)) Deno.exit(1);
}
