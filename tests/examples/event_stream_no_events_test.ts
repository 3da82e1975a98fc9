// The event-stream example on a source of which no line is an event (a model file given as
// --source, events whose labels are not a list) refuses to go on, naming the source, how many
// lines were skipped and the first reason, and writes no model; it used to end with exit status 0
// and write an empty model to --out. `--help` prints the usage (it was "Unknown option").
import { runEventStream } from "../../examples/event-stream/main.ts";
import { assert, assertEquals, assertThrowsMsg, withTempDir } from "../helpers.ts";

const MAIN = new URL("../../examples/event-stream/main.ts", import.meta.url).pathname;

Deno.test("event-stream example: a source of no events is refused, naming the first reason", async () => {
  await withTempDir(async (dir) => {
    const source = `${dir}/bad.ndjson`, out = `${dir}/m.tsm`;
    await Deno.writeTextFile(source, '{"features": {"w1": 1}, "labels": "x"}\nhello\n');
    await assertThrowsMsg(
      () => runEventStream({ source, out, model: "br" }),
      SyntaxError,
      `${source} gave no events: 2 lines skipped as not events; the first: Cannot parse line 1 of bad.ndjson`,
    );
    assertEquals(await Deno.stat(out).catch(() => null), null, "a model was written");
    // an empty source is no error: nothing was skipped
    const empty = `${dir}/empty.ndjson`;
    await Deno.writeTextFile(empty, "");
    assertEquals((await runEventStream({ source: empty, model: "br" })).events, 0);
  });
});

Deno.test("event-stream example: --help prints the usage", async () => {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--help"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(r.stdout);
  assertEquals(r.code, 0, new TextDecoder().decode(r.stderr));
  assert(out.startsWith("usage: deno run -A examples/event-stream/main.ts"), out);
});
