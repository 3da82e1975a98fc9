/**
 * `--publish-min-seconds` beside `--publish-every 0` (serve, train) is refused naming both: it
 * spaces the automatic publishes, which are off, and was ignored without a word.
 */
import { publishBuilder } from "../../src/cli/commands/publish.ts";
import { assert, assertEquals, expectRun, tempDirWith } from "./helpers.ts";

Deno.test("publishBuilder refuses --publish-min-seconds with --publish-every 0", () => {
  let msg = "";
  try {
    publishBuilder({
      values: { "publish-every": "0", "publish-min-seconds": "5" },
      positionals: [],
    });
  } catch (e) {
    assert(e instanceof TypeError, String(e));
    msg = e.message;
  }
  assert(/--publish-min-seconds .*--publish-every 0/.test(msg), msg);
  // either alone is fine
  assertEquals(
    publishBuilder({ values: { "publish-every": "0" }, positionals: [] }).publishEvery,
    0,
  );
  assertEquals(
    publishBuilder({ values: { "publish-min-seconds": "5" }, positionals: [] }).publishMinSeconds,
    5,
  );
});

Deno.test("train --state-dir: --publish-min-seconds with --publish-every 0 is a usage error", async () => {
  const line = (i: number) => JSON.stringify({ features: { [String(i % 3)]: 1 }, labels: ["a"] });
  const dir = await tempDirWith("tagstream_publish_", {
    "e.ndjson": [0, 1, 2].map(line).join("\n") + "\n",
  });
  try {
    await expectRun(
      [
        "train",
        "--data",
        `${dir}/e.ndjson`,
        "--state-dir",
        `${dir}/state`,
        "--model",
        "ova",
        "--publish-every",
        "0",
        "--publish-min-seconds",
        "5",
      ],
      2,
      /--publish-min-seconds .*--publish-every 0/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
