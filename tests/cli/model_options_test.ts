/**
 * `--option KEY=VALUE` on the command line: the values are parsed by the model's declared
 * settings; an unknown key or a bad value exits 2 naming the key and what is allowed, also when
 * a state directory's checkpoint is resumed; `--model NAME --help` lists the model's options.
 */
import { readCheckpoint } from "../../src/cli/commands/state.ts";
import { learnerOptionFlags, modelOptionFlags } from "../../src/cli/commands/learner_flags.ts";
import { assert, assertEquals, runMain, withTempDir } from "./helpers.ts";

const run = runMain;

const TOY = "4 3 2\n0 0:1\n1 1:1\n0 0:1 2:0.5\n1 1:1\n";

Deno.test("--option values reach the factory as strings, parsed by the declared kind", () => {
  const f = { values: { option: ["rank=16", "bias=false", "loss=squared"] }, positionals: [] };
  assertEquals(modelOptionFlags(f), { rank: "16", bias: "false", loss: "squared" });
  assertEquals(learnerOptionFlags(f).modelOptions, {
    seed: 0,
    rank: "16",
    bias: "false",
    loss: "squared",
  });
});

Deno.test("train: typed options from strings; unknown keys and bad values exit 2 naming them", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.txt`, TOY);
    const base = ["train", "--data", `${dir}/toy.txt`, "--quiet"];
    const ok = await run([
      ...base,
      "--state-dir",
      `${dir}/state`,
      "--option",
      "rank=3",
      "--option",
      "bias=false",
      "--option",
      "lr=0.05",
    ]);
    assertEquals(ok.code, 0, ok.err);
    const config = (await readCheckpoint(`${dir}/state`)).state.config;
    assertEquals([config.rank, config.bias, config.lr], [3, false, 0.05]);

    const misspelt = await run([...base, "--out", `${dir}/m.tsm`, "--option", "rnak=3"]);
    assertEquals(misspelt.code, 2);
    assert(
      misspelt.err.includes(
        'leml: unknown option "rnak" (known: seed, numFeatures, numLabels, rank,',
      ),
      misspelt.err,
    );
    const range = await run([...base, "--out", `${dir}/m.tsm`, "--option", "rank=0"]);
    assertEquals(range.code, 2);
    assert(
      range.err.includes('leml: option rank must be an integer in [1, 4096], got "0"'),
      range.err,
    );
    const kind = await run([...base, "--out", `${dir}/m.tsm`, "--option", "optimizer=lbfgs"]);
    assert(
      kind.code === 2 && kind.err.includes("option optimizer must be one of adam, sgd"),
      kind.err,
    );
    const other = await run([
      ...base,
      "--out",
      `${dir}/m.tsm`,
      "--model",
      "br",
      "--option",
      "learningRate=-1",
    ]);
    assert(
      other.code === 2 &&
        other.err.includes("br: option learningRate must be a finite number in (0, 1000000]"),
      other.err,
    );
    // resuming the state directory ignores the options, but still checks them
    const resumed = await run([...base, "--state-dir", `${dir}/state`, "--option", "rnak=3"]);
    assertEquals(resumed.code, 2);
    assert(resumed.err.includes('unknown option "rnak"'), resumed.err);
  });
});

Deno.test("train --model NAME --help lists the model's options", async () => {
  const h = await run(["train", "--model", "knn", "--help"]);
  assertEquals(h.code, 0);
  assert(h.out.startsWith("tagstream train"), h.out.slice(0, 40));
  assert(h.out.includes("Options of --model knn (--option KEY=VALUE):"), h.out);
  assert(/\n {2}k +an integer in \[1, 1048576\]; default 10\. Number of neighbours\./.test(h.out));
  const plain = await run(["train", "--help"]);
  assert(!plain.out.includes("Options of --model"), "no model, no option list");
});
