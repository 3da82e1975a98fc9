// `train --data EVENTS.ndjson --state-dir DIR` publishes DIR/model.tsm from every event of the
// file: the periodic publishes (every --publish-every events, at most one per
// --publish-min-seconds) left it at an earlier event, or absent for a file shorter than
// --publish-every.
import { decodeModelFile } from "../../sdk/internal.ts";
import { assert, assertEquals, expectRun, tempDirWith } from "./helpers.ts";

const EVENTS = Array.from(
  { length: 150 },
  (_, i) => JSON.stringify({ features: { [String(i % 9)]: 1 }, labels: [`t${i % 9}`] }),
).join("\n") + "\n";

Deno.test("train --data --state-dir publishes the model of the whole file, and says so", async () => {
  const dir = await tempDirWith("tagstream_publish_end_", { "e.ndjson": EVENTS });
  try {
    const state = `${dir}/state`;
    const args = ["train", "--data", `${dir}/e.ndjson`, "--model", "ova", "--quiet"];
    const r = await expectRun([...args, "--state-dir", state, "--publish-every", "100"], 0);
    const out = JSON.parse(r.out);
    assertEquals(out.published.path, `${state}/model.tsm`);
    assertEquals(out.published.applied, 150);
    const file = decodeModelFile(await Deno.readFile(`${state}/model.tsm`));
    assertEquals((file.meta as Record<string, unknown>).eventsApplied, 150);
    assertEquals(file.numLabels, 9);
    assertEquals(out.published.bytes, (await Deno.stat(`${state}/model.tsm`)).size);
    // --publish-every 0: nothing published
    const none = `${dir}/none`;
    const off = JSON.parse(
      (await expectRun([...args, "--state-dir", none, "--publish-every", "0"], 0)).out,
    );
    assertEquals(off.published, null);
    let exists = true;
    await Deno.stat(`${none}/model.tsm`).catch(() => exists = false);
    assert(!exists, "no model.tsm with --publish-every 0");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
