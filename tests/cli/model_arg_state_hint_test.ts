// A model path that is a directory is refused with `PATH: is a directory, not a model file`,
// plus a hint when the directory holds a checkpoint (`give --state-dir PATH`). Looking for that
// checkpoint is a stat of `PATH/checkpoint.msgpack`; when the stat itself failed (here a
// symbolic link to itself: "too many levels of symbolic links", whoever runs the test), its raw
// OS error replaced the clear message (and exited 1, not 2). The hint is best-effort now.
import { readModelArg } from "../../src/cli/commands/inspect.ts";
import { assert, expectRun, withTempDir } from "./helpers.ts";

/** A directory whose `checkpoint.msgpack` cannot be stat'ed (a link to itself). */
async function loopDir(dir: string): Promise<string> {
  const path = `${dir}/m`;
  await Deno.mkdir(path);
  await Deno.symlink("checkpoint.msgpack", `${path}/checkpoint.msgpack`);
  return path;
}

Deno.test("readModelArg: a directory whose checkpoint cannot be stat'ed is still named", async () => {
  await withTempDir(async (dir) => {
    const path = await loopDir(dir);
    const e = await readModelArg("--model-file", path).then(() => undefined, (e) => e);
    assert(e instanceof TypeError, `not a TypeError: ${e}`);
    assert(
      e.message === `--model-file ${path}: is a directory, not a model file`,
      `message: ${e.message}`,
    );
  });
});

Deno.test("inspect on such a directory: exit 2, one clear line", async () => {
  await withTempDir(async (dir) => {
    const path = await loopDir(dir);
    await expectRun(["inspect", path], 2, /is a directory, not a model file/);
  });
});
