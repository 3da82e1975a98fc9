// The event-stream example's `--out` is checked like `tagstream train --out`: it must not name the
// `--source` file (the model was written over the events it was learned from) nor an existing file
// that is not a model (any file was replaced); both are refused before any event is read, and
// the file is kept. A model file already there is replaced.
import { runEventStream } from "../../examples/event-stream/main.ts";
import { assert, assertThrowsMsg, withTempDir } from "../helpers.ts";

const EVENTS = '{"id":"a","features":{"w1":1},"labels":["x"]}\n' +
  '{"id":"b","features":{"w2":1},"labels":["y"]}\n';

Deno.test("event-stream example: an --out naming the source or a file that is not a model is refused", async () => {
  await withTempDir(async (dir) => {
    const source = `${dir}/events.ndjson`, other = `${dir}/notes.txt`;
    await Deno.writeTextFile(source, EVENTS);
    await Deno.writeTextFile(other, "keep me\n");
    await assertThrowsMsg(
      () => runEventStream({ source, out: source }),
      TypeError,
      `--out ${source} is the same file as --source ${source}`,
    );
    assert(await Deno.readTextFile(source) === EVENTS, "the events were replaced");
    await assertThrowsMsg(
      () => runEventStream({ source, out: other }),
      TypeError,
      `--out ${other} exists and is not a Tagstream model file`,
    );
    assert(
      await Deno.readTextFile(other) === "keep me\n",
      "a file that is not a model was replaced",
    );
    // a model file is replaced by the new model
    const model = `${dir}/m.tsm`;
    const first = await runEventStream({ source, out: model, model: "br" });
    const second = await runEventStream({ source, out: model, model: "popularity" });
    assert(first.modelBytes > 0 && second.modelBytes > 0, "models");
    assert((await Deno.readFile(model)).length === second.modelBytes, "the model was not replaced");
  });
});
