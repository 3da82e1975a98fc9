// `tagstream prune` validates on XC rows, whose features are column indices: a model that reads
// named features (a vocabulary, or hashing, as `train --feature-keys name` or `hash`, or
// `--text` make) has columns that are not the dataset's feature indices, so its validation
// PSP@k would measure nothing. It is refused before the search, naming the model and its feature
// space, and nothing is written.
import { assert, assertEquals, filesIn, runMain, TEN_ROWS_XC, withTempDir } from "./helpers.ts";

Deno.test("prune refuses a model of named (vocabulary or hashed) features: XC rows address features by index", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, TEN_ROWS_XC);
    // three labels "0", "1", "2" (as the toy dataset's indices), features named by words
    const events = Array.from(
      { length: 30 },
      (_, i) =>
        JSON.stringify({
          features: { [`w${i % 3}`]: 1, [`v${i % 5}`]: 1 },
          labels: [String(i % 3)],
        }),
    );
    await Deno.writeTextFile(`${dir}/named.ndjson`, events.join("\n") + "\n");
    for (const [name, flags] of [["vocab", ["--feature-keys", "name"]], ["hashed", ["--text"]]]) {
      const model = `${dir}/${name}.tsm`;
      const t = await runMain(
        ["train", "--quiet", "--data", `${dir}/named.ndjson`, "--model", "br", "--out", model]
          .concat(flags),
      );
      assertEquals(t.code, 0, t.err);
      const before = await filesIn(dir);
      const r = await runMain(["prune", "--dataset", "toy", "--data-dir", dir, "--model", model]);
      assertEquals(r.code, 2, `${name}: ${r.out}\n${r.err}`);
      assertEquals(r.out, "");
      assert(r.err.includes(model), `${name}: the model is not named: ${r.err}`);
      assert(/feature indices/.test(r.err) && /(vocabulary|hashing)/.test(r.err), r.err);
      assertEquals(await filesIn(dir), before, `${name}: a failed prune wrote a file`);
    }
  });
});
