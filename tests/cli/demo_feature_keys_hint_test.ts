// `deno task demo --data events.ndjson` reads NDJSON feature keys as column indices unless told
// otherwise; on events that name their features (README "Data": `--feature-keys name`) its
// one-line error now says which flag to give, as `tagstream train` does.
import { assert, assertEquals, runDenoScript, tempDirWith } from "./helpers.ts";

const DEMO = new URL("../../src/cli/demo.ts", import.meta.url).pathname;

Deno.test("demo on named NDJSON features without --feature-keys names the flag", async () => {
  const dir = await tempDirWith("tagstream_demo_keys_", {
    "e.ndjson": '{"features":{"fast":1,"json":2},"labels":["lib"]}\n',
  });
  try {
    const r = await runDenoScript(DEMO, ["--allow-all"], ["--data", `${dir}/e.ndjson`]);
    assertEquals(r.code, 2, r.stderr);
    const line = r.stderr.trim();
    assert(
      line.startsWith('demo: Cannot parse line 1 of e.ndjson: features: key "fast" is not a') &&
        line.endsWith("(the events name their features: give --feature-keys name or --hash-dim N)"),
      line,
    );
    const named = await runDenoScript(DEMO, ["--allow-all"], [
      "--data",
      `${dir}/e.ndjson`,
      "--feature-keys",
      "name",
    ]);
    assert(!named.stderr.includes("the events name their features"), named.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
