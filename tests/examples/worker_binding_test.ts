// The Cloudflare Worker example refuses a MODEL_SOURCE whose binding the worker does not have
// (`r2` without MODEL_BUCKET, `asset` without ASSETS, `kv` without MODELS: a wrangler.toml without
// that section) as it refuses a bad MODEL_SOURCE: every route answers a 500 naming the binding.
// (Each request answered 503 "model unavailable: Cannot read properties of undefined (reading
// 'get')", which names neither the variable nor the binding.)
import worker, { modelsOf } from "../../examples/cloudflare-worker/src/worker.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";

const file = await Deno.readFile(new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url));
const bindings = {
  MODELS: { get: () => Promise.resolve(file.slice().buffer) },
  MODEL_BUCKET: {
    get: () =>
      Promise.resolve({ etag: "e", arrayBuffer: () => Promise.resolve(file.slice().buffer) }),
  },
  ASSETS: { fetch: () => Promise.resolve(new Response(file)) },
};
const ctx = { waitUntil: (_p: Promise<unknown>) => {} };

Deno.test("worker example: a MODEL_SOURCE whose binding is missing is refused, naming the binding", async () => {
  const cases = [["kv", "MODELS"], ["r2", "MODEL_BUCKET"], ["asset", "ASSETS"]] as const;
  for (const [source, binding] of cases) {
    const env: Record<string, unknown> = {
      ...bindings,
      MODEL_SOURCE: source,
      MODEL_KEY: `h3-binding-${source}.tsm`,
    };
    delete env[binding];
    await assertThrowsMsg(() => modelsOf(env as never), TypeError, binding);
    for (const path of ["/health", "/predict"]) {
      const r = await worker.fetch(
        new Request(`https://w${path}`, {
          method: path === "/predict" ? "POST" : "GET",
          body: path === "/predict" ? '{"indices": [0]}' : undefined,
        }),
        env as never,
        ctx,
      );
      const text = await r.text();
      assertEquals(r.status, 500, `${source} ${path}: ${text}`);
      assert(text.includes(binding) && text.includes("MODEL_SOURCE"), text);
    }
    // with the binding back, the same key serves
    const ok = await worker.fetch(
      new Request("https://w/health"),
      { ...bindings, MODEL_SOURCE: source, MODEL_KEY: `h3-binding-ok-${source}.tsm` } as never,
      ctx,
    );
    assertEquals(ok.status, 200, `${source}: ${await ok.text()}`);
  }
});
