// `tagstream inspect PATH --edge` measures the model in a fresh process, which reads PATH again.
// A pipe (`inspect <(zcat m.tsm.gz) --edge`) was read whole by inspect first: the fresh process
// found it empty and the run failed with exit 1 and a false diagnosis ("Cannot measure /dev/fd/63
// at the edge: Cannot read model file (truncated) at byte 0"); a named FIFO made the fresh
// process wait for a writer for ever. Like `-` (stdin), a path that is not a regular file is now
// refused with --edge: a usage error (exit 2) naming the path, before anything is read.
import { assert, assertEquals, expectRun, runMain, withTempDir } from "./helpers.ts";

/** Trains a tiny br model into `dir/m.tsm`; returns its path. */
async function tinyModel(dir: string): Promise<string> {
  await Deno.writeTextFile(
    `${dir}/good.txt`,
    "4 5 3\n0,1 0:1 2:0.5\n2 1:1 4:2\n1 0:1 3:1\n0 2:1 4:1\n",
  );
  const out = `${dir}/m.tsm`;
  const r = await runMain(["train", "--data", `${dir}/good.txt`, "--model", "br", "--out", out]);
  assertEquals(r.code, 0, r.err);
  return out;
}

Deno.test("inspect --edge refuses a pipe (process substitution) with a usage error", async () => {
  await withTempDir(async (dir) => {
    const model = await tinyModel(dir);
    const main = new URL("../../src/cli/main.ts", import.meta.url).pathname;
    // bash gives the model as /dev/fd/N, a pipe fed by cat
    const out = await new Deno.Command("bash", {
      args: [
        "-c",
        `"$1" run --allow-all "$2" inspect <(cat "$3") --edge`,
        "bash",
        Deno.execPath(),
        main,
        model,
      ],
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 2, err);
    assert(
      /^tagstream inspect: --edge loads the model file in a fresh process: \/dev\/fd\/\d+ is not a regular file/
        .test(err.trim()),
      err,
    );
    // a regular file is measured as before
    const r = await expectRun(["inspect", model, "--edge", "--json"], 0);
    assertEquals(
      (JSON.parse(r.out) as { edge: { fileBytes: number } }).edge.fileBytes,
      (await Deno.stat(model)).size,
    );
  });
});
