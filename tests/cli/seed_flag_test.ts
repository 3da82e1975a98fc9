// `--seed` is checked as the flag it is: a seed outside [0, 2³² − 1], which every model refuses,
// used to be reported as the model's `option seed`, a name the user never typed.
import { expectRun, tempDirWith } from "./helpers.ts";

Deno.test("train names --seed when it is outside [0, 4294967295]", async () => {
  const dir = await tempDirWith("tagstream_seed_flag_", {
    "e.ndjson": '{"features": {"0": 1}, "labels": ["a"]}\n',
  });
  try {
    for (const seed of ["-1", "4294967296"]) {
      await expectRun(
        ["train", "--data", `${dir}/e.ndjson`, "--seed", seed, "--quiet", "--out", `${dir}/m.tsm`],
        2,
        new RegExp(`--seed must be an integer in \\[0, 4294967295\\], got '${seed}'`),
      );
    }
    await expectRun([
      "train",
      "--data",
      `${dir}/e.ndjson`,
      "--seed",
      "4294967295",
      "--quiet",
      "--out",
      `${dir}/m.tsm`,
    ], 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
