// A real full disk (ENOSPC from the OS, not the test hook of storage_faults.ts, whose message
// names the file) failing `train`'s last checkpoint: the runtime's message for a write on an open
// file has no path, so the run ended with "tagstream train: No space left on device (os error
// 28)", naming neither the state directory nor the file. It now names both; the exit status stays
// 1 (the run failed; its input was not bad).
//
// The full disk is /dev/full (every write fails with ENOSPC), where the checkpoint's temporary
// copy goes: `checkpoint.msgpack.tmp` is a symbolic link to it.
import { assert, trainSixEvents } from "./helpers.ts";
import { fullDiskTest } from "../service/full_disk.ts";

fullDiskTest(
  "train: a full disk failing the last checkpoint names the state directory and the file",
  async (dir) => {
    const state = `${dir}/s`;
    await Deno.mkdir(state);
    await Deno.symlink("/dev/full", `${state}/checkpoint.msgpack.tmp`);
    const r = await trainSixEvents(dir, state, ["--checkpoint-seconds", "0"]);
    assert(r.code === 1, `exit ${r.code}: ${r.err}`);
    const last = r.err.trim().split("\n").at(-1)!;
    assert(
      last ===
        `tagstream train: --state-dir ${state}: cannot write ${state}/checkpoint.msgpack.tmp ` +
          "(No space left on device)",
      last,
    );
  },
);
