/**
 * `deno task bench` as the README runs it times the NDJSON reader by default (`--ndjson-mb 20`).
 * Its event generator asked the synthetic data for `Number.MAX_SAFE_INTEGER` rows, which the
 * checked synthetic options refuse (`rows must be an integer in [0, 2^31)`), so every run without
 * `--ndjson-mb 0` died after the XC part with exit status 1. A small run reaches the JSON line.
 */
import { assert, assertEquals, runDenoScript } from "../cli/helpers.ts";
import { benchScript } from "./script_refusals.ts";

Deno.test("deno task bench times the NDJSON reader and prints its JSON line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_parse_bench_" });
  try {
    const r = await runDenoScript(benchScript("parse_bench.ts"), ["--allow-all"], [
      "--data-dir",
      dir,
      "--no-generated",
      "--repeat",
      "1",
      "--ndjson-mb",
      "0.05",
    ]);
    assertEquals(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as {
      ndjson?: { bytes: number; rows: number };
    };
    assert(out.ndjson !== undefined && out.ndjson.rows > 0, r.stdout);
    assert(out.ndjson.bytes >= 50_000, `ndjson bytes ${out.ndjson.bytes}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
