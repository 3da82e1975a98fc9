import { runEventStream, syntheticEvents } from "../../examples/event-stream/main.ts";
import { assert } from "../helpers.ts";

Deno.test("event-stream example: learns from named events test-then-train; the SDK answers like the trainer", async () => {
  const r = await runEventStream({ source: syntheticEvents(3000, 5), batchSize: 32, seed: 5 });
  assert(r.events === 3000 && r.skipped === 0, `events ${r.events}, skipped ${r.skipped}`);
  assert(r.numLabels > 50 && r.numFeatures > 500, `spaces ${r.numFeatures} x ${r.numLabels}`);
  // the stream is learnable: the last window beats the running average, which includes the start
  assert(r.recentP1 > r.prequentialP1, `recent P@1 ${r.recentP1} vs overall ${r.prequentialP1}`);
  assert(r.recentP1 > 50, `recent P@1 ${r.recentP1}`);
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
