/**
 * The load check (`bench/service/load.ts`) refuses, before it starts the service, a run it
 * cannot measure: `eventsPerRequest` past the training rows (no /events body: every send was a
 * TypeError counted as a network error, in a tight loop, and the JSON line looked like a result
 * with `networkErrors` in the millions), a test file without rows (no /predict), and, with wrk,
 * a duration wrk cannot take (`wrk -d 2.5s` is refused by wrk, after the warm-up).
 */
import { runLoadCheck } from "../../bench/service/load.ts";
import { runWrk } from "../../bench/service/wrk.ts";
import { assert, tempDirWith } from "../cli/helpers.ts";

async function refusal(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  return undefined;
}

const TRAIN = `3 8 3\n0 0:1 5:0.5\n1 1:1\n2 2:1 6:1\n`;

/** What `runLoadCheck` with `options` on a tiny data set whose test file is `test` throws. */
async function loadRefusal(
  test: string,
  options: Partial<Parameters<typeof runLoadCheck>[0]>,
): Promise<unknown> {
  const dir = await tempDirWith("tagstream_load_refusal_", {
    "tiny.train.txt": TRAIN,
    "tiny.test.txt": test,
  });
  try {
    return await refusal(runLoadCheck({
      dataDir: dir,
      dataset: "tiny",
      seconds: 0.2,
      warmupSeconds: 0,
      eventConnections: 1,
      eventsPerRequest: 1,
      predictConnections: 1,
      phases: ["events"],
      client: "deno",
      ...options,
    }));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("load check: eventsPerRequest above the training rows is refused", async () => {
  const e = await loadRefusal(`1 8 3\n0 0:1\n`, { eventsPerRequest: 250 });
  assert(e instanceof RangeError, `not refused: ${e instanceof Error ? e.message : "a report"}`);
  assert(/eventsPerRequest 250/.test(e.message) && /3 rows/.test(e.message), e.message);
});

Deno.test("load check: a test file without rows is refused", async () => {
  const e = await loadRefusal(`0 8 3\n`, { phases: ["predict"] });
  assert(e instanceof RangeError, `not refused: ${e instanceof Error ? e.message : "a report"}`);
  assert(/tiny\.test\.txt has no rows/.test(e.message), e.message);
});

Deno.test("load check: with wrk, a duration that is not whole seconds is refused up front", async () => {
  const e = await loadRefusal(`1 8 3\n0 0:1\n`, { seconds: 2.5, client: "wrk" });
  assert(e instanceof RangeError && /whole number/.test(e.message), String(e));
});

Deno.test("runWrk: a duration wrk cannot take is a RangeError naming it", async () => {
  for (const seconds of [2.5, 0.5, 0]) {
    const e = await refusal(runWrk({ port: 9, connections: 1, seconds, requests: ["GET /\r\n"] }));
    assert(e instanceof RangeError && e.message.includes(`got ${seconds}`), String(e));
  }
});
