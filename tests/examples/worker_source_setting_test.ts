// The Cloudflare Worker example refuses a MODEL_SOURCE other than kv, r2 or asset and a missing
// or empty MODEL_KEY, as it refuses a bad MODEL_REFRESH_MS: every route answers a 500 naming the
// variable. (A typo such as "R2" silently read the model from KV, so the worker answered 503 "no
// model in Workers KV" while the model sat in R2; a missing key read KV key "undefined", or
// crashed with "Cannot read properties of undefined" for assets.)
import worker, { modelsOf } from "../../examples/cloudflare-worker/src/worker.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";

const file = await Deno.readFile(new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url));
const bytes = () => Promise.resolve(file.slice().buffer);
const env = (source: string | undefined, key: string | undefined) => ({
  ...(source === undefined ? {} : { MODEL_SOURCE: source }),
  ...(key === undefined ? {} : { MODEL_KEY: key }),
  MODELS: { get: () => Promise.resolve(null) },
  MODEL_BUCKET: { get: () => Promise.resolve({ etag: "e", arrayBuffer: bytes }) },
  ASSETS: { fetch: () => Promise.resolve(new Response(file)) },
});
const ctx = { waitUntil: (_p: Promise<unknown>) => {} };

async function routes500(e: ReturnType<typeof env>, name: string): Promise<void> {
  for (const path of ["/health", "/predict"]) {
    const r = await worker.fetch(
      new Request(`https://w${path}`, {
        method: path === "/predict" ? "POST" : "GET",
        body: path === "/predict" ? "{}" : undefined,
      }),
      e as never,
      ctx,
    );
    const text = await r.text();
    assertEquals(r.status, 500, `${path}: ${text}`);
    assert(text.includes(name), text);
  }
}

Deno.test("worker example: a MODEL_SOURCE other than kv, r2 or asset is refused, naming it", async () => {
  for (const bad of ["R2", "s3", "asset ", "KV"]) {
    await assertThrowsMsg(
      () => modelsOf(env(bad, `src-${bad}.tsm`) as never),
      TypeError,
      `MODEL_SOURCE must be kv, r2 or asset, got '${bad}'`,
    );
    await routes500(env(bad, `src-${bad}.tsm`), "MODEL_SOURCE");
  }
  for (const good of ["r2", "asset"]) {
    const r = await worker.fetch(
      new Request("https://w/health"),
      env(good, `ok-${good}.tsm`) as never,
      ctx,
    );
    assertEquals(r.status, 200, await r.text());
  }
  // unset or empty: KV, the default
  for (const unset of [undefined, ""]) modelsOf(env(unset, `kv-${unset}.tsm`) as never);
});

Deno.test("worker example: a missing or empty MODEL_KEY is refused, naming it", async () => {
  for (const source of [undefined, "kv", "r2", "asset"]) {
    for (const key of [undefined, ""]) {
      await assertThrowsMsg(() => modelsOf(env(source, key) as never), TypeError, "MODEL_KEY");
      await routes500(env(source, key), "MODEL_KEY");
    }
  }
});
