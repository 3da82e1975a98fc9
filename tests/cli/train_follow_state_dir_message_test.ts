/**
 * `tagstream train --follow FILE` needs `--state-dir` (its help: "needs --state-dir"). Given
 * neither `--out` nor `--state-dir`, it used to answer "give --out FILE and/or --state-dir DIR",
 * and a user who then gave `--out FILE` was refused again, for the missing `--state-dir`.
 */
import { assert, expectRun, withTempDir } from "./helpers.ts";

Deno.test("train --follow without --state-dir names --state-dir, not --out", async () => {
  await withTempDir(async (dir) => {
    const events = `${dir}/events.ndjson`;
    await Deno.writeTextFile(events, '{"features":{"0":1},"labels":["a"]}\n');
    for (const extra of [[], ["--out", `${dir}/m.tsm`]]) {
      const r = await expectRun(
        ["train", "--follow", events, ...extra],
        2,
        /--follow needs --state-dir/,
      );
      assert(!/--out FILE/.test(r.err), `suggests --out: ${r.err}`);
    }
    // a --data run still accepts --out alone, and is told so when it has neither
    await expectRun(["train", "--data", events], 2, /--out FILE and\/or --state-dir DIR/);
  });
});
