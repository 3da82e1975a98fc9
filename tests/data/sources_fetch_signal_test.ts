// openSource spread `fetchInit` and then set `signal: options.signal`, so a signal given in
// fetchInit (one of fetch's own options, which fetchInit is documented to carry) was replaced
// by undefined: the request could not be aborted that way and went on regardless.
import { openSource } from "../../src/data/sources.ts";
import { readExamples } from "../../src/data/readers.ts";
import { assert, assertThrowsMsg, withLocalServer } from "../helpers.ts";

const withServer = (fn: (base: string) => Promise<void>) =>
  withLocalServer(() => new Response("1 2 1\n0 1:1\n"), fn);

Deno.test("sources: a signal given in fetchInit aborts the request", async () => {
  await withServer(async (base) => {
    const signal = AbortSignal.abort(new Error("stopped by the caller"));
    await assertThrowsMsg(
      () => openSource(`${base}/data.txt`, { fetchInit: { signal } }),
      TypeError,
      `Cannot read ${base}/data.txt: `,
    );
    await assertThrowsMsg(
      () => readExamples(`${base}/data.txt`, { fetchInit: { signal } }),
      TypeError,
      `Cannot read ${base}/data.txt: `,
    );
    // the option `signal` still works, and wins over fetchInit's
    await assertThrowsMsg(
      () => openSource(`${base}/data.txt`, { signal, fetchInit: { headers: { a: "b" } } }),
      TypeError,
      `Cannot read ${base}/data.txt: `,
    );
    const live = new AbortController();
    const src = await openSource(`${base}/data.txt`, {
      signal: live.signal,
      fetchInit: { signal },
    });
    assert(
      (await new Response(src.stream).text()) === "1 2 1\n0 1:1\n",
      "read with the option's live signal",
    );
  });
});
