// A missing dataset is named by the flag that gave it: the benchmarks that take a list
// (`--datasets`) said `--dataset NAME`, a flag they do not have.
import { checkXcDatasets } from "../../bench/args.ts";
import { assertThrowsMsg, withTempDir } from "../helpers.ts";

Deno.test("checkXcDatasets names the missing dataset by the given flag (default --dataset)", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, "1 1 1\n0 0:1\n");
    const f = { values: { "data-dir": dir }, positionals: [] };
    await assertThrowsMsg(
      () => checkXcDatasets(f, ["tyo"], false, "--datasets"),
      TypeError,
      `--datasets tyo: ${dir}/tyo.train.txt does not exist (datasets in ${dir}: toy)`,
    );
    await assertThrowsMsg(() => checkXcDatasets(f, ["tyo"], false), TypeError, "--dataset tyo: ");
  });
});
