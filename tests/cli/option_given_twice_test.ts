// A model option given twice with two values (`--option rank=4 --option rank=8`), or a seed given
// both as --seed and as --option seed=S with another value: one of the two was ignored without a
// word (the last --option won, and --option seed overrode --seed). Refused before any data is
// read, naming the option; the same value twice is harmless.
import { learnerOptionFlags, modelOptionFlags } from "../../src/cli/commands/learner_flags.ts";
import { assertEquals, expectRun, withTempDir } from "./helpers.ts";

const flags = (values: Record<string, string | string[]>) => ({ values, positionals: [] });

Deno.test("--option: a key given twice with two values is refused, naming it", () => {
  let message = "";
  try {
    modelOptionFlags(flags({ option: ["rank=4", "lambda=0.1", "rank=8"] }));
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    message = e.message;
  }
  assertEquals(message, "--option rank is given twice ('4' and '8'): give it once");
  // the same value twice, and different keys, are fine
  assertEquals(modelOptionFlags(flags({ option: ["rank=4", "rank=4", "bias=false"] })), {
    rank: "4",
    bias: "false",
  });
});

Deno.test("--seed and --option seed=S: refused when they disagree", () => {
  let message = "";
  try {
    learnerOptionFlags(flags({ seed: "3", option: ["seed=5"] }));
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    message = e.message;
  }
  assertEquals(message, "--seed 3 and --option seed=5 disagree: give the seed once");
  assertEquals(
    learnerOptionFlags(flags({ seed: "3", option: ["seed=3"] })).modelOptions?.seed,
    "3",
  );
  assertEquals(learnerOptionFlags(flags({ option: ["seed=5"] })).modelOptions?.seed, "5");
  assertEquals(learnerOptionFlags(flags({ seed: "4294967295" })).modelOptions?.seed, 4294967295);
});

Deno.test("train --option rank=4 --option rank=8: one line, exit 2, nothing written", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, "2 3 2\n0 0:1\n1 1:1 2:1\n");
    const out = `${dir}/m.tsm`;
    const r = await expectRun(
      [
        "train",
        "--data",
        `${dir}/toy.train.txt`,
        "--out",
        out,
        "--quiet",
        "--option",
        "rank=4",
        "--option",
        "rank=8",
      ],
      2,
      /^tagstream train: --option rank is given twice \('4' and '8'\): give it once$/,
    );
    assertEquals(r.out, "");
    assertEquals(await Deno.stat(out).then(() => true, () => false), false);
  });
});
