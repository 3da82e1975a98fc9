// `train --state-dir DIR` on a state directory that exists keeps its learner's settings, as
// `serve` does: a flag asking for others (--hash-dim 8192 on a 4096-column model) is refused
// naming the flag and both values; it was ignored without a word.
import { expectRun, tempDirWith } from "./helpers.ts";

const EVENTS = Array.from(
  { length: 40 },
  (_, i) => JSON.stringify({ features: { [`w${i % 7}`]: 1 }, labels: [`t${i % 3}`] }),
).join("\n") + "\n";

Deno.test("train refuses a learner flag that differs from the resumed state directory's", async () => {
  const dir = await tempDirWith("tagstream_train_resume_", { "e.ndjson": EVENTS });
  try {
    const base = ["train", "--data", `${dir}/e.ndjson`, "--model", "ova", "--quiet"];
    const state = ["--state-dir", `${dir}/state`, "--feature-keys", "hash"];
    await expectRun([...base, ...state, "--hash-dim", "4096"], 0);
    await expectRun(
      [...base, ...state, "--hash-dim", "8192"],
      2,
      /--hash-dim 8192 differs from the 4096 that --state-dir .*state was created with/,
    );
    await expectRun(
      [...base, ...state, "--batch-size", "7"],
      2,
      /--batch-size 7 differs from the 32 that --state-dir .*state was created with/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
