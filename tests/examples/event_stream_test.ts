import { runEventStream, syntheticEvents } from "../../examples/event-stream/main.ts";
import { assert, assertThrowsMsg, withTempDir } from "../helpers.ts";
import { runDenoScript } from "../cli/helpers.ts";

Deno.test("event-stream example: learns from named events test-then-train; the SDK answers like the trainer", async () => {
  const r = await runEventStream({ source: syntheticEvents(3000, 5), batchSize: 32, seed: 5 });
  assert(r.events === 3000 && r.skipped === 0, `events ${r.events}, skipped ${r.skipped}`);
  assert(r.numLabels > 50 && r.numFeatures > 500, `spaces ${r.numFeatures} x ${r.numLabels}`);
  // the stream is learnable: the last window beats the running average, which includes the start
  assert(r.recentP1 > r.prequentialP1, `recent P@1 ${r.recentP1} vs overall ${r.prequentialP1}`);
  assert(r.recentP1 > 50, `recent P@1 ${r.recentP1}`);
  // a top 5 was compared (with no query compared, sdkAgrees stays true and lastQuery empty)
  assert(r.lastQuery.length === 5, `${r.lastQuery.length} labels in the last query's top 5`);
  assert(r.sdkAgrees, "SDK top-5 differs from the trainer's");
  assert(r.lastQuery.every((q) => q.label.startsWith("tag")), JSON.stringify(r.lastQuery));
});

Deno.test("event-stream example: bad lines are skipped and counted, good lines around them are kept", async () => {
  async function* events(): AsyncGenerator<string> {
    yield '{"id":"a","features":{"w1":1,"w2":1},"labels":["x"]}\n';
    yield '{"id":"b","features":{"w1":NaN},"labels":["x"]}\n'; // malformed JSON
    yield '{"id":"c","features":{"w3":"one"},"labels":["y"],"extra":1}\n'; // a string value
    yield '{"id":"d","features":{"w3":1,"w4":2},"labels":["y","z"]}\n';
  }
  const r = await runEventStream({ source: events(), batchSize: 1 });
  assert(r.events === 2 && r.skipped === 2, `events ${r.events}, skipped ${r.skipped}`);
  assert(r.numLabels === 3 && r.numFeatures === 4, `spaces ${r.numFeatures} x ${r.numLabels}`);
  assert(r.sdkAgrees, "SDK top-5 differs from the trainer's");
});

Deno.test("event-stream example: an --out that cannot be written is refused before any event is read", async () => {
  let pulled = 0;
  async function* events(): AsyncGenerator<string> {
    pulled++;
    yield '{"id":"a","features":{"w1":1},"labels":["x"]}\n';
  }
  await withTempDir(async (dir) => {
    await assertThrowsMsg(
      () => runEventStream({ source: events(), out: `${dir}/no/such/dir/model.tsm` }),
      TypeError,
      `--out ${dir}/no/such/dir/model.tsm: directory ${dir}/no/such/dir does not exist`,
    );
    await assertThrowsMsg(
      () => runEventStream({ source: events(), out: dir }),
      TypeError,
      "is a directory",
    );
  });
  assert(pulled === 0, `${pulled} events read before the refusal`);
});

Deno.test("event-stream example: bad flags are one line naming the flag, exit 2, before any work", async () => {
  const script = new URL("../../examples/event-stream/main.ts", import.meta.url).pathname;
  await withTempDir(async (dir) => {
    const cases: [string[], RegExp][] = [
      [["--events", "abc"], /--events must be an integer >= 0, got 'abc'/],
      [["--events", "0x10"], /--events must be an integer >= 0, got '0x10'/],
      [["--batch-size", "0"], /--batch-size must be an integer in \[1, 65536\], got '0'/],
      [["--seed", "x"], /--seed must be an integer, got 'x'/],
      [["--source", `${dir}/e.ndjson`, "--events", "5"], /--events .* cannot go with --source/],
      [["--events", "50", "--out", `${dir}/nodir/m.tsm`], /--out .*nodir\/m\.tsm: directory/],
      [["--model", "nope"], /unknown model 'nope'/],
    ];
    for (const [args, re] of cases) {
      const r = await runDenoScript(script, ["--allow-all"], args);
      const what = `${args.join(" ")}: exit ${r.code}\n${r.stderr}`;
      assert(r.code === 2 && r.stdout === "", what);
      assert(/^event-stream: /.test(r.stderr) && r.stderr.trim().split("\n").length === 1, what);
      assert(re.test(r.stderr), what);
    }
  });
});
