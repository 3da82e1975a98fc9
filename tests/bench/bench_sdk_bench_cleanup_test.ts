/**
 * `deno run -A bench/sdk_bench.ts` without `--model` makes the pruned model with
 * `deno task prune` in a temporary directory. When the prune failed (here: a training file with
 * a bad line) the error was reported, but the directory was left behind in $TMPDIR.
 */
import { assert, assertEquals, tempDirWith } from "../cli/helpers.ts";
import { benchScript } from "./script_refusals.ts";

Deno.test("bench/sdk_bench.ts removes its temporary directory when the prune fails", async () => {
  const data = await tempDirWith("tagstream_sdkbench_data_", {
    "bibtex.train.txt": "2 3 2\n0 0:1\nnot a row\n",
    "bibtex.test.txt": "1 3 2\n0 0:1\n",
  });
  const tmp = await Deno.makeTempDir({ prefix: "tagstream_sdkbench_tmp_" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", benchScript("sdk_bench.ts"), "--data-dir", data],
      env: { NO_COLOR: "1", TMPDIR: tmp },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 1, stderr);
    assert(/prune failed/.test(stderr), stderr);
    const left: string[] = [];
    for await (const e of Deno.readDir(tmp)) left.push(e.name);
    assertEquals(left, [], "left in TMPDIR");
  } finally {
    await Deno.remove(data, { recursive: true });
    await Deno.remove(tmp, { recursive: true });
  }
});
