/**
 * A short form of `deno task chaos` (bench/service/chaos.ts): kills, a full disk and a corrupted
 * log record while events with ids stream in; every acknowledged event applied exactly once,
 * also those of bodies sent again after an answer or after a kill cut it off (idempotent by id).
 */
import { runChaosCheck } from "../../bench/service/chaos.ts";
import { assert, assertEquals } from "./helpers.ts";

Deno.test("chaos check (short): kills, disk full, a corrupted record; nothing acknowledged lost", async () => {
  const r = await runChaosCheck({ events: 3000, kills: 3, rate: 1500, seed: 7 });
  assert(r.pass, JSON.stringify(r));
  assertEquals([r.lost, r.doubled, r.acknowledged], [0, 0, 3000]);
  assert(r.kills >= 3, `${r.kills} kills`);
  assert(r.faults.diskFull !== null && r.faults.diskFull.refused503 > 0, "disk full refused");
  assert(r.faults.corruption?.refusedToStart === true, "refused a corrupted log");
  assert(r.digestMatchesCounts, "digest");
  // bodies were sent again after their 200: their events were skipped, not applied twice
  assert(r.resent.acknowledged > 0, "some acknowledged bodies were sent again");
  const dropped = r.faults.corruption?.repairDropped ?? 0;
  assert(r.duplicatesSkipped >= r.resent.acknowledged - dropped, JSON.stringify(r));
});
