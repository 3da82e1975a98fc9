/**
 * `lockStateDir` (src/cli/state_lock.ts), in one process: an exclusive OS lock is per open file,
 * so a second `lockStateDir` here is refused as another process's would be. The lock file names
 * its holder, a refused caller does not erase it, a release frees the directory, and an OS error
 * names the state directory. (Two real processes: state_dir_one_writer_test.ts.)
 */
import { lockStateDir } from "../../src/cli/state_lock.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

async function refusal(dir: string): Promise<Error> {
  try {
    (await lockStateDir(dir, "serve")).release();
  } catch (e) {
    return e as Error;
  }
  throw new Error(`${dir}: a second lock was taken`);
}

Deno.test("lockStateDir: one holder at a time, named in the refusal; a release frees it", async () => {
  await withTempDir(async (dir) => {
    const state = `${dir}/new/state`;
    const lock = await lockStateDir(state, "train"); // (creates the directory)
    assertEquals(lock.path, `${state}/lock`);
    const holder = JSON.parse(await Deno.readTextFile(lock.path));
    assertEquals([holder.pid, holder.command], [Deno.pid, "train"]);
    const e = await refusal(state);
    assert(e instanceof TypeError, String(e));
    assert(
      e.message.startsWith(
        `--state-dir ${state} is in use by another process (tagstream train, pid ${Deno.pid} on host `,
      ),
      e.message,
    );
    // the refused caller left the holder's record as it was
    assertEquals(JSON.parse(await Deno.readTextFile(lock.path)), holder);
    lock.release();
    lock.release(); // (again: nothing)
    const next = await lockStateDir(state, "serve");
    assertEquals(JSON.parse(await Deno.readTextFile(next.path)).command, "serve");
    next.release();
  });
});

Deno.test("lockStateDir: a holder that wrote no record yet, and a state directory that is a file", async () => {
  await withTempDir(async (dir) => {
    // the OS lock alone, as a holder has it before it writes its record
    const f = await Deno.open(`${dir}/lock`, { read: true, write: true, create: true });
    try {
      assert(await f.tryLock(true));
      assert(/\(its pid is not recorded yet\)/.test((await refusal(dir)).message));
    } finally {
      f.close();
    }
    await Deno.writeTextFile(`${dir}/file`, "x");
    const e = await refusal(`${dir}/file`);
    assert(e instanceof TypeError && e.message.startsWith(`--state-dir ${dir}/file: `), e.message);
  });
});
