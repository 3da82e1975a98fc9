// `tagstream train` on a file with a row its model cannot learn (a raw value past the limit of
// the squared loss, src/models/raw_value_limit.ts) stops with exit 2 naming the file's line and the feature,
// and writes no model; with `l2Normalize` the same file trains.
import { assert, expectRun, tempDirWith } from "./helpers.ts";

Deno.test("train names the line of an unlearnable row and writes nothing", async () => {
  const dir = await tempDirWith("unlearnable-", {
    "big.txt": "3 4 2\n0 0:1 1:0.5\n1 2:1e30\n0,1 3:1\n",
    "big.svm": "0 1:1 2:0.5\n1 3:1e30\n0,1 4:1\n",
  });
  try {
    const out = `${dir}/m.tsm`;
    await expectRun(
      ["train", "--model", "leml", "--data", `${dir}/big.txt`, "--out", out, "--quiet"],
      2,
      /Cannot learn line 3 of .*big\.txt: feature 2 has value 1e\+30, above the limit 1e\+15/,
      /set l2Normalize: true/,
    );
    // LIBSVM numbers features from 1: the message says the file's number
    await expectRun(
      [
        "train",
        "--model",
        "leml",
        "--data",
        `${dir}/big.svm`,
        "--format",
        "libsvm",
        "--out",
        out,
        "--quiet",
      ],
      2,
      /Cannot learn line 2 of .*big\.svm: feature 3 has value 1e\+30/,
    );
    const written = await Deno.stat(out).then(() => true, () => false);
    assert(!written, "no model file");
    // with --state-dir: the rows before the refused one are not checkpointed either (the service
    // is stopped without its last checkpoint; a regression guard: a plain stop() would write one)
    const state = `${dir}/state`;
    await expectRun(
      ["train", "--model", "leml", "--data", `${dir}/big.txt`, "--state-dir", state, "--quiet"],
      2,
      /Cannot learn line 3 of .*big\.txt/,
    );
    const saved = await Deno.stat(`${state}/checkpoint.msgpack`).then(() => true, () => false);
    assert(!saved, "a checkpoint of the rows before the refused one");
    await expectRun(
      [
        "train",
        "--model",
        "leml",
        "--data",
        `${dir}/big.txt`,
        "--out",
        out,
        "--quiet",
        "--option",
        "l2Normalize=true",
      ],
      0,
    );
    assert((await Deno.stat(out)).size > 0, "the model file");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
