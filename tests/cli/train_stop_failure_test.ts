// `tagstream train --data FILE.ndjson --state-dir DIR` stops the service after the run, which
// writes the last checkpoint. When the run itself failed and that stop failed too, the stop's
// error replaced the run's: the user saw a checkpoint error and never the cause. Now the run's
// error is the one reported, the stop's a note beside it; after a good run, a failed stop still
// fails the run (the last checkpoint may not be saved).
//
// The state directory is made to refuse writes with a directory where a file's temporary copy
// goes (`NAME.tmp`): a write there fails whoever runs the test (root too).
import { assert, runMain, SIX_EVENTS, trainSixEvents, withTempDir } from "./helpers.ts";

/**
 * `tagstream train` of SIX_EVENTS with `--state-dir DIR/s`, where `blocked` files cannot be
 * written.
 */
async function trainBlocked(dir: string, blocked: string[]) {
  await Deno.mkdir(`${dir}/s`);
  for (const name of blocked) await Deno.mkdir(`${dir}/s/${name}.tmp`);
  return await trainSixEvents(dir, `${dir}/s`, ["--out", `${dir}/m.tsm`]);
}

Deno.test("train: a run that failed reports its own error, not the failed stop after it", async () => {
  await withTempDir(async (dir) => {
    // the publish at the end of the file fails (the run's error), then the last checkpoint
    const r = await trainBlocked(dir, ["model.tsm", "checkpoint.msgpack"]);
    assert(r.code === 1, `exit ${r.code}: ${r.err}`);
    const lines = r.err.trim().split("\n");
    const error = lines.filter((l) => !l.startsWith("[tagstream]"));
    assert(error.length === 1, `not one error line: ${r.err}`);
    assert(error[0].includes("model.tsm.tmp"), `the run's error is not the one reported: ${r.err}`);
    assert(
      lines.some((l) =>
        l.startsWith("[tagstream] also, stopping the service failed") &&
        l.includes("checkpoint.msgpack.tmp")
      ),
      `no note of the failed stop: ${r.err}`,
    );
    assert(r.out === "", `a summary after a failed run: ${r.out}`);
  });
});

Deno.test("train: a failed stop after a good run still fails the run", async () => {
  await withTempDir(async (dir) => {
    const r = await trainBlocked(dir, ["checkpoint.msgpack"]);
    assert(r.code === 1, `exit ${r.code}: ${r.err}`);
    assert(r.err.includes("checkpoint.msgpack.tmp"), `the stop's error is not reported: ${r.err}`);
    assert(!r.err.includes("also, "), `a note without an earlier error: ${r.err}`);
    assert(r.out === "", `a summary after a failed stop: ${r.out}`);
    const model = await Deno.stat(`${dir}/m.tsm`).then(() => true, () => false);
    assert(!model, "a model written though the last checkpoint failed");
  });
});

Deno.test("train: a failed stop after refused settings is a note beside the refusal", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/e.ndjson`, SIX_EVENTS);
    const base = ["train", "--quiet", "--model", "ova", "--data", `${dir}/e.ndjson`];
    const state = ["--state-dir", `${dir}/s`, "--feature-keys", "hash"];
    const first = await runMain([...base, ...state, "--hash-dim", "4096"]);
    assert(first.code === 0, `first run: ${first.err}`);
    await Deno.mkdir(`${dir}/s/checkpoint.msgpack.tmp`);
    // the resumed state directory was made with --hash-dim 4096: refused (exit 2), then the
    // service that opened it stops, and its checkpoint fails
    const r = await runMain([...base, ...state, "--hash-dim", "8192"]);
    assert(r.code === 2, `exit ${r.code}: ${r.err}`);
    const lines = r.err.trim().split("\n");
    const error = lines.filter((l) => !l.startsWith("[tagstream]"));
    assert(error.length === 1 && /--hash-dim 8192 differs/.test(error[0]), r.err);
    assert(
      lines.some((l) =>
        l.startsWith("[tagstream] also, stopping the service failed: --state-dir ") &&
        l.includes("checkpoint.msgpack.tmp")
      ),
      `no note of the failed stop: ${r.err}`,
    );
  });
});
