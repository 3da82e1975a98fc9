// `tagstream eval` of an XC test file (its features are column indices) against a model that
// reads named features (a vocabulary or hashing: `train --feature-keys name` or `hash`, or
// `--text`): the XC columns are not the model's, so the metrics would measure nothing. A user
// who leaves out `--format ndjson` (`eval --model-file debtags-text.tsm --dataset debtags`) is
// refused, naming the model, its feature space and `--format ndjson`, for a model file and for
// a state directory alike.
import { assert, assertEquals, runMain, TEN_ROWS_XC, withTempDir } from "./helpers.ts";

Deno.test("eval of XC rows with a model of named features is refused, pointing to --format ndjson", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.test.txt`, TEN_ROWS_XC);
    await Deno.writeTextFile(`${dir}/toy.train.txt`, TEN_ROWS_XC);
    const events = Array.from(
      { length: 30 },
      (_, i) => JSON.stringify({ features: { [`w${i % 3}`]: 1 }, labels: [String(i % 3)] }),
    );
    await Deno.writeTextFile(`${dir}/toy.test.ndjson`, events.join("\n") + "\n");
    for (const [name, flags] of [["vocab", ["--feature-keys", "name"]], ["hashed", ["--text"]]]) {
      const model = `${dir}/${name}.tsm`, state = `${dir}/${name}.state`;
      const t = await runMain(
        ["train", "--quiet", "--data", `${dir}/toy.test.ndjson`, "--model", "ova"]
          .concat(["--out", model, "--state-dir", state], flags),
      );
      assertEquals(t.code, 0, t.err);
      for (const source of [["--model-file", model], ["--state-dir", state]]) {
        for (const test of [["--data", `${dir}/toy.test.txt`], ["--dataset", "toy"]]) {
          const args = ["eval", ...source, ...test];
          if (test[0] === "--dataset") args.push("--data-dir", dir);
          const r = await runMain(args);
          const what = `${name} ${source[0]} ${test[0]}`;
          assertEquals(r.code, 2, `${what}: ${r.out}\n${r.err}`);
          assertEquals(r.out, "", what);
          assert(r.err.includes(source[1]), `${what}: the model is not named: ${r.err}`);
          assert(/(vocabulary|hashing)/.test(r.err) && /--format ndjson/.test(r.err), r.err);
        }
        // the same model scores the NDJSON events
        const ok = await runMain(["eval", ...source, "--data", `${dir}/toy.test.ndjson`]);
        assertEquals(ok.code, 0, ok.err);
      }
    }
  });
});
