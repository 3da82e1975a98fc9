// openSource reads a source's first bytes to detect gzip. A source that failed right there (a
// connection lost before the body, an iterable that throws at once) rejected with its own
// error, e.g. `TypeError: error reading a body from connection`, naming no source; the same
// failure a chunk later named it. Now both name it.
import { openSource } from "../../src/data/sources.ts";
import { readExamples } from "../../src/data/readers.ts";
import { loadXcFile } from "../../src/data/dataset_load.ts";
import { assert, assertThrowsMsg, withLocalServer } from "../helpers.ts";

/** An async iterable whose first `next()` rejects with `message`. */
function failing(message: string): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error(message)) }),
  };
}

Deno.test("sources: an iterable failing before its first bytes is named", async () => {
  await assertThrowsMsg(
    () => openSource(failing("disk gone"), { name: "feed" }),
    TypeError,
    "Cannot read feed: disk gone",
  );
  await assertThrowsMsg(
    () => readExamples(failing("disk gone"), { name: "feed" }),
    TypeError,
    "Cannot read feed: disk gone",
  );
  // an error that already names the source is not named twice
  const e = await assertThrowsMsg(
    () => readExamples([7 as unknown as string], { name: "feed" }),
    TypeError,
    "Cannot read feed: chunks must be strings",
  );
  assert(!e.message.includes("Cannot read feed: Cannot read"), e.message);
});

Deno.test("sources: a URL whose body fails before its first bytes is named", async () => {
  const failing = () =>
    new Response(
      new ReadableStream({
        async pull(c) {
          await new Promise((r) => setTimeout(r, 10));
          c.error(new Error("server gave up"));
        },
      }),
    );
  await withLocalServer(failing, async (base) => {
    const url = `${base}/x.txt`;
    await assertThrowsMsg(() => readExamples(url), TypeError, `Cannot read ${url}: `);
    await assertThrowsMsg(() => loadXcFile(url), TypeError, `Cannot read x.txt: `);
  });
});
