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
 * @module
 */
import { parseArgs } from "node:util";
import { runChaosCheck } from "./service/chaos.ts";

if (import.meta.main) {
  const { values: v } = parseArgs({
    args: Deno.args,
    strict: true,
    options: {
      events: { type: "string" },
      kills: { type: "string" },
      senders: { type: "string" },
      seed: { type: "string" },
    },
  });
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  const r = await runChaosCheck({
    events: num(v.events),
    kills: num(v.kills),
    senders: num(v.senders),
    seed: num(v.seed),
    log: (m) => console.error(`[chaos] ${m}`),
  });
  console.log(JSON.stringify(r));
  if (!r.pass) Deno.exit(1);
}
