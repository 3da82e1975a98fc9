// A serve/train state directory given where a model file goes (`inspect DIR`, `eval --model-file
// DIR`, `prune --model DIR`) is refused with a pointer to --state-dir, which all three take (it
// was only "is a directory, not a model file"). Other directories keep the plain message.
import { expectRun, withTempDir } from "./helpers.ts";

Deno.test("a state directory as a model file points to --state-dir", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, "4 2 2\n0 0:1\n1 1:1\n0 0:1\n1 1:1\n");
    const state = `${dir}/state`;
    await expectRun(
      ["train", "--data", `${dir}/toy.train.txt`, "--model", "popularity", "--state-dir", state],
      0,
    );
    const hint = new RegExp(
      `is a directory, not a model file \\(a state directory: give --state-dir ${state}\\)`,
    );
    await expectRun(["inspect", state], 2, hint);
    await expectRun(["eval", "--model-file", state, "--data", `${dir}/toy.train.txt`], 2, hint);
    await expectRun(["prune", "--dataset", "toy", "--data-dir", dir, "--model", state], 2, hint);
    const plain = await expectRun(["inspect", dir], 2, /is a directory, not a model file$/m);
    if (plain.err.includes("--state-dir")) throw new Error(plain.err);
  });
});
