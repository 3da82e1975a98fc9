/**
 * `bench/service_stages.ts` times the whole `ingestBody` path over `--passes` passes of the
 * training lines, per event. The lines carried their ids, so every pass after the first was
 * duplicates (acknowledged, not applied): with `--passes 3` two thirds of the "events" cost only
 * the id check, and `ingestBodyWithWal` was far below what an event costs. Every pass must be
 * applied.
 */
import { assertEquals, runDenoScript, tempDirWith } from "../cli/helpers.ts";
import { benchScript } from "./script_refusals.ts";

Deno.test("bench/service_stages.ts applies every pass of the whole ingestion path", async () => {
  const dir = await tempDirWith("tagstream_stages_passes_", {
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
    };
    assertEquals([out.events, out.passes], [4, 3]);
    assertEquals(out.ingestBodyEventsApplied, 12, r.stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
