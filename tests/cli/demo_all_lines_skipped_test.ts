// `deno task demo --data FILE --on-error skip` on a file whose every line is malformed (NDJSON
// events that name their features, read as column indices) said "FILE gave 0 rows, and
// --holdout 0.2 holds out about 1 row in 5: no held-out row to evaluate on (give more rows or a
// larger --holdout)": advice that cannot help. It now says the lines were skipped as malformed,
// how many, and the first reason (with the --feature-keys hint such a reason gets).
import { assert, assertEquals, runDenoScript, tempDirWith } from "./helpers.ts";

const DEMO = new URL("../../src/cli/demo.ts", import.meta.url).pathname;

Deno.test("demo --on-error skip on a file of malformed lines says they were skipped and why", async () => {
  const line = '{"features":{"fast":1,"json":2},"labels":["lib"]}';
  const dir = await tempDirWith("tagstream_demo_skipped_", {
    "e.ndjson": Array.from({ length: 12 }, () => line).join("\n") + "\n",
  });
  try {
    const r = await runDenoScript(DEMO, ["--allow-all"], [
      "--data",
      `${dir}/e.ndjson`,
      "--on-error",
      "skip",
    ]);
    assertEquals(r.code, 2, r.stderr);
    const msg = r.stderr.trim();
    assert(
      msg.startsWith("demo: e.ndjson gave no rows: 12 malformed lines skipped (--on-error skip)"),
      msg,
    );
    assert(/the first: Cannot parse line 1 of e\.ndjson: features: key "fast"/.test(msg), msg);
    assert(msg.endsWith("give --feature-keys name or --hash-dim N)"), msg);
    assert(!msg.includes("--holdout"), msg);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
