/**
 * The crash, bad-input and load checks of the learning service, shortened for CI (the full
 * versions are bench/service_crash.ts, bench/service_bad_input.ts and bench/service_load.ts).
 * Each starts `tagstream serve` (and redis-server) on 127.0.0.1 with free ports and stops
 * everything it started, also on failure.
 */
import { runCrashCheck } from "../../bench/service/crash.ts";
import { runBadInputCheck } from "../../bench/service/bad_input.ts";
import { runLoadCheck } from "../../bench/service/load.ts";
import { assert, assertEquals, DATA_DIR, HAS_DATA } from "./helpers.ts";

Deno.test({
  name: "crash check (short): kill -9 twice while consuming Redis; every event applied once",
  ignore: !HAS_DATA,
  async fn() {
    const r = await runCrashCheck({
      dataDir: DATA_DIR,
      rows: 1200,
      kills: 2,
      rate: 1500,
      // No idle flushes: minibatches stay aligned with the stream, so the crashed run must
      // end with exactly the uninterrupted run's model.
      serveArgs: ["--flush-ms", "0", "--batch-size", "16"],
    });
    assertEquals(r.failures, []);
    assertEquals(r.crashed.applied, 1200);
    assertEquals(r.crashed.digest, r.expectedDigest);
    assertEquals(r.crashed.pending, 0);
    assertEquals(r.crashed.restarts, 2);
    assertEquals(r.p1Gap, 0);
    assert(r.uninterrupted.testP1 > 10, `test P@1 ${r.uninterrupted.testP1}`);
  },
});

Deno.test({
  name: "bad-input check (short): every bad request is a clear 4xx, nothing accepted is lost",
  async fn() {
    const r = await runBadInputCheck({ rounds: 1, fuzz: 100 });
    assertEquals(r.failures, []);
    assertEquals(r.serverErrors, 0);
    assertEquals(r.appliedAfterRestart, r.goodAccepted + r.fuzzAccepted);
    assert(r.fuzzRejected > 0, "most mutated lines are rejected");
  },
});

Deno.test({
  name: "load check (short): concurrent /events and /predict, zero 5xx, events learned",
  ignore: !HAS_DATA,
  async fn() {
    const r = await runLoadCheck({
      dataDir: DATA_DIR,
      seconds: 1,
      warmupSeconds: 0.5,
      eventConnections: 2,
      predictConnections: 8,
      phases: ["events", "predict"],
      client: "deno", // tests never depend on wrk (a bench-only tool)
    });
    assert(r.zero5xx, JSON.stringify(r.phases));
    const ev = r.phases.events.events!, pr = r.phases.predict.predict!;
    assertEquals([ev.networkErrors, ev.status4xx, pr.networkErrors, pr.status4xx], [0, 0, 0, 0]);
    // learned by the end of the phase, or soon after it (a loaded machine can delay learning past
    // a one-second phase; the figure for rates is eventsLearned, measured in the phase)
    assert(ev.eventsAccepted! > 0 && ev.eventsLearnedEventually! > 0, JSON.stringify(ev));
    assert(pr.requests > 0 && pr.p99Ms > 0, JSON.stringify(pr));
  },
});
