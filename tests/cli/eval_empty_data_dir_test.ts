// `tagstream eval --data-dir ""` (a `--data-dir "$DIR"` whose variable is unset): an error naming
// the flag, as `deno task eval` and `prune` say, not a silent fall back to $TAGSTREAM_DATA or
// ./data, which evaluated against whatever dataset of that name lived there.
import { assertEquals, expectRun, withTempDir } from "./helpers.ts";

Deno.test("tagstream eval --data-dir '': one line, exit 2, nothing read", async () => {
  await withTempDir(async (dir) => {
    // a dataset the fall-back would find: ./data is not used, $TAGSTREAM_DATA points here
    await Deno.writeTextFile(`${dir}/toy.train.txt`, "2 2 2\n0 0:1\n1 1:1\n");
    await Deno.writeTextFile(`${dir}/toy.test.txt`, "2 2 2\n0 0:1\n1 1:1\n");
    await Deno.writeTextFile(`${dir}/p.txt`, "0:0.9 1:0.1\n0:0.8\n");
    const env = Deno.env.get("TAGSTREAM_DATA");
    Deno.env.set("TAGSTREAM_DATA", dir);
    try {
      // the same command with the directory given works: the flag is the only difference
      const ok = await expectRun(
        ["eval", "--predictions", `${dir}/p.txt`, "--dataset", "toy", "--data-dir", dir],
        0,
      );
      assertEquals(JSON.parse(ok.out.trim().split("\n").pop()!).rows, 2);
      for (const mode of [["--predictions", `${dir}/p.txt`], ["--model-file", `${dir}/m.tsm`]]) {
        const r = await expectRun(
          ["eval", ...mode, "--dataset", "toy", "--data-dir", ""],
          2,
          /^tagstream eval: --data-dir is empty: give a directory$/,
        );
        assertEquals(r.out, "");
      }
    } finally {
      if (env === undefined) Deno.env.delete("TAGSTREAM_DATA");
      else Deno.env.set("TAGSTREAM_DATA", env);
    }
  });
});
