/**
 * bench/sdk_bench.ts goes through the bench runner (`bench/args.ts`): an unknown flag, a missing
 * value, a model file or data directory that is not there are one line and exit code 2 before
 * any work (its flags were read loosely: `--bogus` was ignored and the pruning run started; a
 * missing model file was a stack trace); `--help` prints the usage.
 */
import { assert, assertEquals, runDenoScript, tempDirWith } from "../cli/helpers.ts";
import { benchOptions } from "../../bench/args.ts";
import { SDK_BENCH } from "../../bench/sdk_bench.ts";
import { assertRefusedEndToEnd, benchScript } from "./script_refusals.ts";

Deno.test("sdk_bench: bad flags are one line and exit 2 before any work; --help exits 0", async () => {
  const dir = await tempDirWith("tagstream_sdk_bench_", {
    "bibtex.test.txt": "1 3 2\n0 0:1\n",
    "model.tsm": "not a model",
  });
  try {
    const none = `${dir}/none`;
    await assertRefusedEndToEnd([
      [
        "sdk_bench.ts",
        ["--bogus"],
        /^bench\/sdk_bench\.ts: unknown option '--bogus' \(see deno run -A bench\/sdk_bench\.ts --help\)$/,
      ],
      ["sdk_bench.ts", ["--model"], /^bench\/sdk_bench\.ts: --model needs a value$/],
      ["sdk_bench.ts", ["--model", ""], /^bench\/sdk_bench\.ts: --model is empty/],
      [
        "sdk_bench.ts",
        ["--model", `${dir}/missing.tsm`, "--data-dir", dir],
        /^bench\/sdk_bench\.ts: --model .*missing\.tsm: no such file$/,
      ],
      ["sdk_bench.ts", ["--model", dir], /^bench\/sdk_bench\.ts: --model .* is not a file$/],
      [
        "sdk_bench.ts",
        ["--model", `${dir}/model.tsm`, "--data-dir", none],
        /^bench\/sdk_bench\.ts: --data-dir .*none: no such directory \(it should hold bibtex\.test\.txt\)$/,
      ],
      // no model: it is made from bibtex.train.txt, which is not there
      [
        "sdk_bench.ts",
        ["--data-dir", dir],
        /^bench\/sdk_bench\.ts: --dataset bibtex: .*bibtex\.train\.txt does not exist/,
      ],
      ["sdk_bench.ts", ["extra"], /^bench\/sdk_bench\.ts: unexpected argument 'extra'/],
    ]);
    // a file that is not a model: the SDK's ModelFormatError, one line, exit 2
    const bad = await runDenoScript(benchScript("sdk_bench.ts"), ["--allow-all"], [
      "--model",
      `${dir}/model.tsm`,
      "--data-dir",
      dir,
    ]);
    assertEquals(bad.code, 2, bad.stderr);
    assertEquals(bad.stderr.trim().split("\n").length, 1, bad.stderr);
    assert(bad.stderr.startsWith("bench/sdk_bench.ts: "), bad.stderr);
    const help = await runDenoScript(benchScript("sdk_bench.ts"), ["--allow-all"], ["--help"]);
    assertEquals(help.code, 0, help.stderr);
    assert(help.stdout.startsWith("deno run -A bench/sdk_bench.ts [--model FILE]"), help.stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sdk_bench: $SDK_BENCH_MODEL is checked like --model; importing the script runs nothing", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", benchScript("sdk_bench.ts")],
    env: { NO_COLOR: "1", SDK_BENCH_MODEL: "/no/such/model.tsm" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 2, stderr);
  assertEquals(
    stderr.trim(),
    "bench/sdk_bench.ts: $SDK_BENCH_MODEL /no/such/model.tsm: no such file",
  );
  // (the import above did not load a model nor register benchmarks)
  const e = await benchOptions(SDK_BENCH, ["--model", "/no/such.tsm"]).catch((e) => e);
  assert(e instanceof TypeError && e.message === "--model /no/such.tsm: no such file", String(e));
});
