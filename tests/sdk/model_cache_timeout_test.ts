// ModelCache gives up on a source's fetch after `timeoutMs`: a first load that never settles
// fails (the next request asks again) instead of holding every request of the isolate, and a
// hung background refresh does not stop the later ones.
import { ModelCache } from "../../sdk/serving.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";

const file = await Deno.readFile(new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url));

Deno.test("ModelCache: a first fetch that never settles fails after timeoutMs and is asked again", async () => {
  let fetches = 0;
  const cache = new ModelCache({
    id: "hung",
    fetch:
      () => (fetches++, fetches === 1 ? new Promise(() => {}) : Promise.resolve({ bytes: file })),
  }, { timeoutMs: 30 });
  await assertThrowsMsg(
    () => cache.get(),
    Error,
    `the model source "hung" did not answer within 30 ms`,
  );
  const m = await cache.get();
  assertEquals([fetches, m.numLabels], [2, 3]);
});

Deno.test("ModelCache: a hung refresh fails after timeoutMs; the model stays and the next refresh runs", async () => {
  let fetches = 0;
  const cache = new ModelCache({
    id: "r",
    fetch:
      () => (fetches++, fetches === 2 ? new Promise(() => {}) : Promise.resolve({ bytes: file })),
  }, { timeoutMs: 30 });
  const m = await cache.get();
  await assertThrowsMsg(() => cache.refresh(), Error, "did not answer within 30 ms");
  assert(cache.current === m, "the model in service stays");
  assertEquals(await cache.refresh(), false); // asked again: unchanged content
  assertEquals(fetches, 3);
});

Deno.test("ModelCache: timeoutMs is an integer in [0, 2^31 - 1]", async () => {
  const source = { id: "x", fetch: () => Promise.resolve({ bytes: file }) };
  for (const bad of [-1, 1.5, Number.NaN, 2 ** 31]) {
    await assertThrowsMsg(
      () => new ModelCache(source, { timeoutMs: bad }),
      RangeError,
      "timeoutMs",
    );
  }
  assertEquals((await new ModelCache(source, { timeoutMs: 0 }).get()).numLabels, 3);
});
