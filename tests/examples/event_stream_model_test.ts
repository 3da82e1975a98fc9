/**
 * The event-stream example always writes the learned model as a model file (and checks it with
 * the SDK): a `--model` whose model cannot be written is refused before any event is read, not
 * after the whole stream has been learned.
 */
import { runEventStream } from "../../examples/event-stream/main.ts";
import { MODEL_NAMES } from "../../src/models/registry.ts";
import { assert, assertThrowsMsg } from "../helpers.ts";
import { runDenoScript } from "../cli/helpers.ts";

Deno.test("event-stream example: --model knn (not exportable) is refused before any event is read", async () => {
  assert((MODEL_NAMES as readonly string[]).includes("knn"), "the registry has no knn");
  let pulled = 0;
  async function* events(): AsyncGenerator<string> {
    for (let i = 0; i < 50; i++) {
      pulled++;
      yield `{"id":"e${i}","features":{"w${i % 7}":1},"labels":["t${i % 3}"]}\n`;
    }
  }
  await assertThrowsMsg(
    () => runEventStream({ source: events(), model: "knn" }),
    TypeError,
    "--model knn",
  );
  assert(pulled === 0, `${pulled} events read before the refusal`);

  const script = new URL("../../examples/event-stream/main.ts", import.meta.url).pathname;
  const r = await runDenoScript(script, ["--allow-all"], ["--model", "knn", "--events", "20"]);
  const what = `exit ${r.code}\n${r.stdout}${r.stderr}`;
  assert(r.code === 2 && r.stdout === "", what);
  assert(/^event-stream: --model knn /.test(r.stderr), what);
  assert(r.stderr.trim().split("\n").length === 1, what);
});
