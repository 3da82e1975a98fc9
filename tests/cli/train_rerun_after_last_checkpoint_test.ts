// `train --data EVENTS.ndjson --state-dir DIR --out M.tsm` killed after its last checkpoint but
// before M.tsm was written (or simply run again): the state directory holds the whole file, so
// the rerun reads nothing new. It said "learned nothing from EVENTS.ndjson: no model written"
// and exited 1, so the crash story's "run the same command again" never gave the model file.
// It now writes the state directory's model and exits 0.
import { assert, assertEquals, runMain, withTempDir } from "./helpers.ts";

const EVENTS = Array.from(
  { length: 6 },
  (_, i) => `{"features": {"${i % 3}": 1}, "labels": ["l${i % 2}"]}`,
).join("\n") + "\n";

Deno.test("train --data: run again after the whole file is in the state directory, it writes --out", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/e.ndjson`, EVENTS);
    const args = ["train", "--model", "popularity", "--data", `${dir}/e.ndjson`];
    const state = ["--state-dir", `${dir}/s`];
    const first = await runMain([...args, "--quiet", ...state]);
    assertEquals(first.code, 0, first.err);
    // (as if the first run had been killed between its last checkpoint and writing --out)
    const again = await runMain([...args, ...state, "--out", `${dir}/m.tsm`]);
    assertEquals(again.code, 0, again.err);
    assert(
      again.err.includes(`holds ${dir}/e.ndjson to its end already (line 6, 6 events)`),
      again.err,
    );
    const s = JSON.parse(again.out.trim().split("\n").at(-1)!);
    assertEquals([s.learnedNothing, s.eventsApplied, s.out], [false, 6, `${dir}/m.tsm`]);
    assert((await Deno.stat(`${dir}/m.tsm`)).size > 0);
  });
});

// ... but only on that file: another file with no event (empty, or blank lines) on a state
// directory that holds a file learned nothing. The first version of the rerun rule said "DIR holds
// OTHER to its end already (line 6, 6 events)" (e.ndjson's line), wrote --out and exited 0.
for (const [what, content] of [["empty", ""], ["blank lines only", "\n\n\n"]]) {
  Deno.test(`train --data: another file (${what}) on a state directory that holds a file learned nothing`, async () => {
    await withTempDir(async (dir) => {
      await Deno.writeTextFile(`${dir}/e.ndjson`, EVENTS);
      await Deno.writeTextFile(`${dir}/other.ndjson`, content);
      const state = ["--state-dir", `${dir}/s`];
      const first = await runMain([
        "train",
        "--model",
        "popularity",
        "--data",
        `${dir}/e.ndjson`,
        "--quiet",
        ...state,
      ]);
      assertEquals(first.code, 0, first.err);
      const r = await runMain([
        "train",
        "--model",
        "popularity",
        "--data",
        `${dir}/other.ndjson`,
        ...state,
        "--out",
        `${dir}/m.tsm`,
      ]);
      assert(!r.err.includes("to its end already"), r.err);
      const s = JSON.parse(r.out.trim().split("\n").at(-1)!);
      assertEquals([r.code, s.learnedNothing], [1, true], r.err);
    });
  });
}
