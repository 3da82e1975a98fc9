/**
 * `npx deno run -A bench/service_stages.ts` (README "Continuous learning service") times
 * test-then-train scoring on the columns the model knows yet: it cut a row's indices to them but
 * passed all of its values, which the estimators' checked queries refuse
 * (`leml.predictTopK: x has 1 indices but 2 values`), so every run on data whose rows bring new
 * features died with exit status 2 after the parsing stages. A tiny dataset whose second row has a
 * feature the first did not reaches the JSON line. Its lines carried their ids, so every pass after
 * the first was duplicates (acknowledged, not applied) and `ingestBodyWithWal` timed mostly the id
 * check: every pass must be applied.
 */
import { assert, assertEquals, runDenoScript, tempDirWith } from "../cli/helpers.ts";
import { benchScript } from "./script_refusals.ts";

Deno.test("bench/service_stages.ts scores rows with features not seen yet, and applies every pass", async () => {
  const dir = await tempDirWith("tagstream_stages_", {
    "tiny.train.txt": "4 4 2\n0 0:1\n1 0:1 3:0.5\n0 1:1 2:1\n1 3:1\n",
  });
  try {
    const r = await runDenoScript(benchScript("service_stages.ts"), ["--allow-all"], [
      "--dataset",
      "tiny",
      "--data-dir",
      dir,
      "--passes",
      "3",
      "--batch-size",
      "1",
    ]);
    assertEquals(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as {
      events: number;
      passes: number;
      ingestBodyEventsApplied?: number;
      microsecondsPerEvent: Record<string, unknown>;
    };
    assertEquals([out.events, out.passes], [4, 3]);
    assertEquals(out.ingestBodyEventsApplied, 12, r.stdout);
    assert("scoreTop5" in out.microsecondsPerEvent, r.stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
