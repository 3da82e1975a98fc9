/**
 * `train`'s JSON summary carries what the model says its user should know (`trainingNote`): knn
 * with `k` above the rows it learnt votes over every row, and says so; with enough rows, no note.
 */
import { assert, assertEquals, runMain, withTempDir } from "./helpers.ts";

const TOY = "4 3 2\n0 0:1\n1 1:1\n0 0:1 2:0.5\n1 1:1\n";

Deno.test("train: knn with k above the rows learnt says so in its summary; k within, nothing", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.txt`, TOY);
    const base = (state: string) => [
      "train",
      "--data",
      `${dir}/toy.txt`,
      "--quiet",
      "--model",
      "knn",
      "--state-dir",
      `${dir}/${state}`,
    ];
    const big = await runMain([...base("a"), "--option", "k=100000"]);
    assertEquals(big.code, 0, big.err);
    const s = JSON.parse(big.out.split("\n").at(-1)!);
    assert(
      typeof s.note === "string" && s.note.includes("k = 100000") &&
        s.note.includes("only 4 rows learnt"),
      big.out,
    );
    const small = await runMain([...base("b"), "--option", "k=2"]);
    assertEquals(small.code, 0, small.err);
    assertEquals(JSON.parse(small.out.split("\n").at(-1)!).note, undefined);
  });
});
