// `train --on-error fail` with a --state-dir that an earlier run left with rejected lines: the
// exit status (2) and "N line(s) rejected" counted the learner's rejects of every run of the
// state, so a clean file failed the run over lines of another file, with no "rejects" to show.
// The status counts this run's rejected lines; the summary's totals stay cumulative.
import { assertEquals, expectRun, lastJson, runMain, withTempDir } from "./helpers.ts";

const line = (features: Record<string, number>, labels: string[]) =>
  JSON.stringify({ features, labels }) + "\n";

Deno.test("train --on-error fail on a resumed state: only this run's rejected lines fail it", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/bad.ndjson`, line({ "0": 1 }, ["a"]) + line({ x: 1 }, ["a"]));
    await Deno.writeTextFile(
      `${dir}/good.ndjson`,
      line({ "0": 1 }, ["a"]) + line({ "1": 1 }, ["b"]),
    );
    const common = ["--state-dir", `${dir}/state`, "--model", "popularity", "--quiet"];
    // an earlier run (default --on-error skip for events) rejects one line of bad.ndjson
    const first = await expectRun(["train", "--data", `${dir}/bad.ndjson`, ...common], 0);
    assertEquals(lastJson(first.out).rejected, 1);
    // a clean file: nothing rejected by this run, status 0 (the total still says 1)
    const clean = await expectRun(
      ["train", "--data", `${dir}/good.ndjson`, "--on-error", "fail", ...common],
      0,
    );
    assertEquals(lastJson(clean.out).rejected, 1);
    assertEquals(clean.err, "");
    // a run that rejects a line itself still fails (after its summary), counting its own
    const bad = await runMain(
      ["train", "--data", `${dir}/bad.ndjson`, "--on-error", "fail", ...common],
    );
    assertEquals(bad.code, 2);
    assertEquals(lastJson(bad.out).rejected, 2);
    assertEquals(
      bad.err,
      'tagstream train: 1 line(s) rejected with --on-error fail (see "rejects" in the summary)',
    );
  });
});
