// `deno task prune` inputs that are refused before the search, naming the file:
// - with --train br, a NAME.labels.txt of another length than the training file's labels was
//   found out only when the pruned file was built, after both BR fits, as "linearSparseContent:
//   2 label names for 3 labels" (naming neither file);
// - a --valid file without any label made PSP@k 0 for every cut, so the search cut all labels
//   but one "within ε" and wrote the result.
import { runPrune } from "../../src/cli/prune.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { assertThrowsMsg, withTempDir } from "../helpers.ts";

Deno.test("deno task prune --train br refuses a labels file of another length, naming it", async () => {
  await withTempDir(async (dir) => {
    const rows = Array.from({ length: 30 }, (_, i) => `${i % 3} ${i % 3}:1 ${3 + (i % 4)}:1`);
    await Deno.writeTextFile(`${dir}/toy.train.txt`, `30 7 3\n${rows.join("\n")}\n`);
    await Deno.writeTextFile(`${dir}/toy.labels.txt`, "a\nb\n");
    let trained = 0;
    await assertThrowsMsg(
      () =>
        runPrune({
          dataset: "toy",
          dataDir: dir,
          train: "br",
          out: `${dir}/toy.tsm`,
          plot: false,
          delta: 1,
          progress: { start: () => {}, tick: () => trained++, done: () => {} } as never,
        }),
      RangeError,
      "toy.labels.txt has 2 names but toy.train.txt has 3 labels",
    );
    await assertThrowsMsg(() => Deno.stat(`${dir}/toy.tsm`), Deno.errors.NotFound, "");
    if (trained !== 0) throw new Error(`BR trained ${trained} labels before the refusal`);
  });
});

Deno.test("deno task prune --valid refuses a file without any label, naming it", async () => {
  await withTempDir(async (dir) => {
    const w = {
      numFeatures: 3,
      numLabels: 3,
      labelPtr: Int32Array.of(0, 3, 6, 9),
      featIdx: Int32Array.of(0, 1, 2, 0, 1, 2, 0, 1, 2),
      values: Float32Array.of(1, 0.1, 0.2, 0.1, 1, 0.2, 0.2, 0.1, 1),
    };
    await Deno.writeFile(`${dir}/m.tsm`, encodeModelFile(linearSparseContent(w)));
    const rows = Array.from({ length: 9 }, (_, i) => `${i % 3} ${i % 3}:1`);
    await Deno.writeTextFile(`${dir}/toy.train.txt`, `9 3 3\n${rows.join("\n")}\n`);
    // rows without labels: an empty label list before the features
    await Deno.writeTextFile(`${dir}/v.txt`, "3 3 3\n 0:1\n 1:1\n 2:1\n");
    await assertThrowsMsg(
      () =>
        runPrune({
          dataset: "toy",
          dataDir: dir,
          model: `${dir}/m.tsm`,
          valid: `${dir}/v.txt`,
          out: `${dir}/m.pop.tsm`,
          plot: false,
          delta: 1,
          onMessage: () => {},
        }),
      RangeError,
      `--valid ${dir}/v.txt has no row with a label`,
    );
    await assertThrowsMsg(() => Deno.stat(`${dir}/m.pop.tsm`), Deno.errors.NotFound, "");
  });
});
