/**
 * The edge serving layer under bad requests and bad sources: a query the protocol lets through
 * but the model refuses is a 400, not a 500; a body without a length is refused once it passes
 * the limit (not buffered whole first) and a body that breaks off is a 400; a source that throws
 * at once is retried, not failed forever; a failed background refresh counts as a check, so a
 * source that is down is not asked again on every request.
 */
import { murmur3 } from "../../sdk/features.ts";
import { predictHandler } from "../../sdk/http.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { loadModel } from "../../sdk/mod.ts";
import { PREDICT_LIMITS, readPredictBody } from "../../sdk/predict_protocol.ts";
import { ModelCache, urlSource } from "../../sdk/serving.ts";
import { assert } from "./helpers.ts";

const FIXTURES = new URL("../fixtures/", import.meta.url);
const sparse = await Deno.readFile(new URL("v1/linear-sparse.tsm", FIXTURES));
const hashedFile = await Deno.readFile(new URL("v2/linear-sparse-signed-hashing.tsm", FIXTURES));

const post = (body: BodyInit, headers: HeadersInit = {}) =>
  new Request("http://x/predict", { method: "POST", body, headers });

Deno.test("predictHandler: names that add up beyond float32 in one hashed column are a 400", async () => {
  const fs = decodeModelFile(hashedFile).featureSpace as {
    type: string;
    dim: number;
    seed: number;
    signed?: boolean;
  };
  assert(fs.type === "hashing", fs.type);
  // two names in one column with the same sign: their values add up
  const enc = new TextEncoder(), seen = new Map<string, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; !pair; i++) {
    const h = murmur3(enc.encode(`n${i}`), fs.seed);
    const at = `${h % fs.dim}/${fs.signed ? h >>> 31 : 0}`;
    const other = seen.get(at);
    if (other !== undefined) pair = [other, `n${i}`];
    seen.set(at, `n${i}`);
  }
  const model = loadModel(hashedFile);
  const handle = predictHandler({ get: () => Promise.resolve(model) });
  const features = { [pair[0]]: 3e38, [pair[1]]: 3e38 }; // each a finite float32; 6e38 is not
  for (
    const [body, where] of [
      [{ features }, "features: "],
      [{ rows: [{ features: { [pair[0]]: 1 } }, { features }] }, "rows[1]: features: "],
    ] as const
  ) {
    const res = await handle(post(JSON.stringify(body)));
    const got = await res.json();
    assert(
      res.status === 400 && got.error.startsWith(where) && got.error.includes("finite"),
      `${res.status} ${JSON.stringify(got)}`,
    );
  }
  // the same names with small values are answered
  const ok = await handle(post(JSON.stringify({ features: { [pair[0]]: 1, [pair[1]]: 1 } })));
  assert(ok.status === 200, `${ok.status} ${await ok.text()}`);
});

/** A body without a length: `chunks` chunks of 64 KiB, counting what was read, and a cancel. */
function chunked(chunks: number) {
  const state = { pulled: 0, cancelled: false };
  let n = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (n++ === chunks) return c.close();
      state.pulled += 65536;
      c.enqueue(new Uint8Array(65536).fill(32));
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

Deno.test("readPredictBody: a body without a length is refused once past the limit, not read whole", async () => {
  const limit = PREDICT_LIMITS.maxBodyBytes;
  const { stream, state } = chunked(256); // 16 MiB
  const req = post(stream);
  assert(req.headers.get("content-length") === null, "no declared length");
  const handle = predictHandler({ get: () => Promise.resolve(loadModel(sparse)) });
  const res = await handle(req);
  const got = await res.json();
  assert(res.status === 413 && got.error.includes(`${limit} bytes`), JSON.stringify(got));
  assert(
    state.pulled <= limit + 2 * 65536 && state.cancelled,
    `${state.pulled} bytes read of a 16 MiB body, cancelled: ${state.cancelled}`,
  );
  // a body of a few chunks within the limit is read whole, in order
  const small = chunked(3);
  const bytes = await readPredictBody(post(small.stream));
  assert(bytes.length === 3 * 65536 && bytes.every((b) => b === 32), `${bytes.length} bytes`);
});

Deno.test("predictHandler: a body that breaks off is a 400, not an internal error", async () => {
  const handle = predictHandler({ get: () => Promise.resolve(loadModel(sparse)) });
  // without a length (read chunk by chunk) and with one (read in one go)
  for (const headers of [{}, { "content-length": "40" }] as Record<string, string>[]) {
    let sent = false;
    const broken = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent) return c.error(new Error("connection reset"));
        sent = true;
        c.enqueue(new TextEncoder().encode('{"features": {"alpha"'));
      },
    });
    const res = await handle(post(broken, headers));
    const got = await res.json();
    assert(
      res.status === 400 && got.error.includes("body could not be read"),
      `${JSON.stringify(headers)}: ${res.status} ${JSON.stringify(got)}`,
    );
  }
});

Deno.test("ModelCache: a source that throws at once is retried by the next get, not failed forever", async () => {
  let calls = 0;
  const cache = new ModelCache({
    id: "sync-throw",
    fetch: () => {
      if (calls++ === 0) throw new Error("no binding yet"); // before returning a promise
      return Promise.resolve({ bytes: sparse });
    },
  });
  let first: unknown;
  try {
    await cache.get();
  } catch (e) {
    first = e;
  }
  assert(first instanceof Error && first.message === "no binding yet", `${first}`);
  const model = await cache.get();
  assert(model.kind === "linear-sparse" && calls === 2, `${calls} fetches`);
});

Deno.test("ModelCache: a failed background refresh counts as a check (refreshMs apart, not every request)", async () => {
  const realNow = Date.now;
  let now = 1_000_000, fetches = 0, down = false;
  Date.now = () => now;
  try {
    const errors: unknown[] = [], pending: Promise<unknown>[] = [];
    const cache = new ModelCache({
      id: "down",
      fetch: () => {
        fetches++;
        return down ? Promise.reject(new Error("down")) : Promise.resolve({ bytes: sparse });
      },
    }, { refreshMs: 1000, onError: (e) => errors.push(e) });
    const model = await cache.get();
    down = true;
    now += 1000; // due: one revalidation, which fails
    assert((await cache.get((p) => pending.push(p))) === model, "served while revalidating");
    await Promise.all(pending.splice(0));
    assert(fetches === 2 && errors.length === 1, `${fetches} fetches, ${errors.length} errors`);
    // the same instant: the failed check was a check
    for (let i = 0; i < 5; i++) await cache.get((p) => pending.push(p));
    await Promise.all(pending.splice(0));
    assert(fetches === 2, `${fetches} fetches after a failed refresh within refreshMs`);
    now += 1000; // due again
    await cache.get((p) => pending.push(p));
    await Promise.all(pending.splice(0));
    assert((fetches as number) === 3 && cache.current === model, `${fetches} fetches`);
  } finally {
    Date.now = realNow;
  }
});

Deno.test("ModelCache: a source answering 'unchanged' before any load is an error, retried, not a model of undefined", async () => {
  let calls = 0;
  const cache = new ModelCache({
    id: "null-first",
    // e.g. a 304 to a request without If-None-Match from a cache in front of the model's URL
    fetch: () => Promise.resolve(calls++ === 0 ? null : { bytes: sparse }),
  });
  const handle = predictHandler(cache);
  const body = JSON.stringify({ features: { alpha: 1 }, k: 1 });
  const first = await handle(post(body));
  const got = await first.json();
  assert(
    first.status === 503 && got.error.includes(`"unchanged" with no model loaded`),
    `${first.status} ${JSON.stringify(got)}`,
  );
  const second = await handle(post(body));
  assert(second.status === 200 && calls === 2, `${second.status} after ${calls} fetches`);
});

Deno.test("urlSource: a 503 does not show the model URL's credentials or query", async () => {
  const url = "https://reader:pw-123@models.example/m.tsm?X-Amz-Signature=sig-456#frag";
  for (
    const [fetch, why] of [
      [
        () => Promise.resolve(new Response("no", { status: 403, statusText: "Forbidden" })),
        "403 Forbidden",
      ],
      [
        (r: Request) => Promise.reject(new TypeError(`error sending request for url (${r.url})`)),
        "error sending request for url (https://models.example/m.tsm)",
      ],
    ] as const
  ) {
    const handle = predictHandler(new ModelCache(urlSource(url, { fetch })));
    const res = await handle(post(JSON.stringify({ features: { alpha: 1 } })));
    const got = await res.json();
    assert(
      res.status === 503 && got.error.includes("https://models.example/m.tsm") &&
        got.error.includes(why) && !/pw-123|sig-456|frag/.test(got.error),
      `${res.status} ${JSON.stringify(got)}`,
    );
  }
});
