// The Cloudflare worker's GET /health while its model cannot be loaded: a 503 whose `error` is
// the reason itself, as /predict's 503 says it. It was `String(e)`, which put the error class
// before it ("ModelFormatError: Cannot read model file (bad-magic) ...").
import worker from "../../examples/cloudflare-worker/src/worker.ts";
import { assertEquals } from "../helpers.ts";

Deno.test("worker /health: a model that cannot be loaded is a 503 with the reason's message", async () => {
  const notAModel = new TextEncoder().encode('{"features": {"0": 1}, "labels": ["a"]}\n');
  const env = {
    MODEL_SOURCE: "r2",
    MODEL_KEY: "health-error-test.tsm",
    MODEL_REFRESH_MS: "0",
    MODELS: { get: () => Promise.resolve(null) },
    MODEL_BUCKET: {
      get: () =>
        Promise.resolve({
          etag: "e",
          arrayBuffer: () => Promise.resolve(notAModel.slice().buffer),
        }),
    },
    ASSETS: { fetch: () => Promise.resolve(new Response(null, { status: 404 })) },
  };
  const ctx = { waitUntil: (_p: Promise<unknown>) => {} };
  const res = await worker.fetch(new Request("https://w/health"), env as never, ctx);
  assertEquals([res.status, await res.json()], [503, {
    ok: false,
    error: "Cannot read model file (bad-magic) at byte 0: not a Tagstream model file",
  }]);
});
