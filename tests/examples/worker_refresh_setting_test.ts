// The Cloudflare Worker example refuses a MODEL_REFRESH_MS that is not a whole number of
// milliseconds, as the Deno Deploy example does at start ("abc" and "-1" were read as "never
// refresh", silently): every route answers a 500 naming the variable.
import worker, { modelsOf } from "../../examples/cloudflare-worker/src/worker.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";

const file = await Deno.readFile(new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url));
const env = (refresh?: string) => ({
  MODEL_SOURCE: "r2",
  MODEL_KEY: "m.tsm",
  ...(refresh === undefined ? {} : { MODEL_REFRESH_MS: refresh }),
  MODELS: { get: () => Promise.resolve(null) },
  MODEL_BUCKET: {
    get: () =>
      Promise.resolve({ etag: "e", arrayBuffer: () => Promise.resolve(file.slice().buffer) }),
  },
  ASSETS: { fetch: () => Promise.resolve(new Response(null, { status: 404 })) },
});
const ctx = { waitUntil: (_p: Promise<unknown>) => {} };

Deno.test("worker example: a MODEL_REFRESH_MS that is not a whole number of ms is refused, naming it", async () => {
  for (const bad of ["abc", "-1", "1.5", "1e3", " 5"]) {
    await assertThrowsMsg(() => modelsOf(env(bad) as never), RangeError, `got '${bad}'`);
    for (const path of ["/health", "/predict"]) {
      const r = await worker.fetch(
        new Request(`https://w${path}`, {
          method: path === "/predict" ? "POST" : "GET",
          body: path === "/predict" ? "{}" : undefined,
        }),
        env(bad) as never,
        ctx,
      );
      const text = await r.text();
      assertEquals(r.status, 500, text);
      assert(text.includes("MODEL_REFRESH_MS"), text);
    }
  }
  for (const good of [undefined, "", "0", "60000"]) {
    const r = await worker.fetch(new Request("https://w/health"), env(good) as never, ctx);
    assertEquals(r.status, 200, await r.text());
  }
});
