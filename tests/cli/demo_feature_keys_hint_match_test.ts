// `deno task demo` adds "(the events name their features: give --feature-keys name or
// --hash-dim N)" to the refusal of a feature key that is not an index only: a file whose name,
// or a line whose other key, merely says "is not a feature index" got the hint too, which sent
// the user after a flag that could not help.
import { assert, assertEquals, runDenoScript, tempDirWith } from "./helpers.ts";

const DEMO = new URL("../../src/cli/demo.ts", import.meta.url).pathname;
const HINT = "the events name their features";

Deno.test("demo: an error that merely says 'is not a feature index' gets no --feature-keys hint", async () => {
  const dir = await tempDirWith("tagstream_demo_hint_", {
    "value.ndjson": '{"features":{"is not a feature index":"x"},"labels":["a"]}\n',
    "is not a feature index.ndjson": '{"features":{"1":1},"labels":["a"]\n',
  });
  try {
    const value = await runDenoScript(DEMO, ["--allow-all"], ["--data", `${dir}/value.ndjson`]);
    assertEquals(value.code, 2, value.stderr);
    assert(value.stderr.includes("value must be a number"), value.stderr);
    assert(!value.stderr.includes(HINT), value.stderr);
    const named = await runDenoScript(DEMO, ["--allow-all"], [
      "--data",
      `${dir}/is not a feature index.ndjson`,
    ]);
    assertEquals(named.code, 2, named.stderr);
    assert(named.stderr.includes("malformed JSON"), named.stderr);
    assert(!named.stderr.includes(HINT), named.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
