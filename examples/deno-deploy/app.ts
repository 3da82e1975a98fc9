/**
 * The Deno Deploy example's app: the model cache from the environment, and the Hono routes.
 *
 * @module
 */
import { Hono } from "hono";
import { type KvLike, modelFromKv, modelFromUrl } from "../../sdk/deno_deploy.ts";
import { predictHandler, schemaResponse } from "../../sdk/http.ts";
import { type ModelCache, refreshMsSetting } from "../../sdk/serving.ts";

/**
 * The isolate's model cache, from the environment. A `MODEL_REFRESH_MS` that is not a whole
 * number of milliseconds (a RangeError) or a `MODEL_URL` that is not an absolute http(s), data: or
 * file: URL (a TypeError) is refused, naming the variable.
 *
 * @example
 * ```ts
 * import { modelsFromEnv } from "./app.ts";
 * const file = await Deno.readFile(new URL("../../tests/fixtures/v1/linear-lowrank.tsm", import.meta.url));
 * const env: Record<string, string> = {
 *   MODEL_URL: `data:application/octet-stream;base64,${btoa(String.fromCharCode(...file))}`,
 * };
 * const models = await modelsFromEnv((name) => env[name]);
 * console.log((await models.get()).kind); // linear-lowrank
 * ```
 */
export async function modelsFromEnv(
  env: (name: string) => string | undefined,
): Promise<ModelCache> {
  // a bad value is refused here, at start, not served as a model that never loads or refreshes
  const refreshMs = refreshMsSetting(env("MODEL_REFRESH_MS"));
  const onError = (e: unknown) => console.error(`model refresh failed: ${e}`);
  const url = env("MODEL_URL"), key = env("MODEL_KV_KEY");
  if (url) {
    if (!/^(https?|data|file):$/.test(URL.parse(url)?.protocol ?? "")) {
      throw new TypeError(
        `MODEL_URL must be an absolute http(s), data: or file: URL, got '${url}'`,
      );
    }
    return modelFromUrl(url, { refreshMs, onError });
  }
  if (key) {
    const openKv = (Deno as unknown as { openKv?: (path?: string) => Promise<KvLike> }).openKv;
    if (!openKv) throw new Error("MODEL_KV_KEY needs Deno KV: run with --unstable-kv");
    const path = env("MODEL_KV_PATH") || undefined;
    let kv: KvLike;
    try {
      kv = await openKv(path);
    } catch (e) {
      // "file is not a database": which one
      const what = path === undefined ? "the default Deno KV database" : `MODEL_KV_PATH ${path}`;
      throw new TypeError(`Cannot open ${what}: ${(e as Error).message}`);
    }
    return modelFromKv(kv, key.split(","), { refreshMs, onError });
  }
  throw new Error("set MODEL_URL or MODEL_KV_KEY");
}

/**
 * The Hono app: `GET /health`, `POST /predict` (the protocol of sdk/predict_protocol.ts, as the
 * learning service speaks it) and its JSON Schema at `GET /schema/predict.json`. While no model
 * can be loaded, `/health` is a 503 `{"ok": false, "error": "..."}` saying why.
 *
 * @example
 * ```ts
 * import { appFor } from "./app.ts";
 * import { ModelCache } from "../../sdk/serving.ts";
 * const file = await Deno.readFile(new URL("../../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const app = appFor(new ModelCache({ id: "doc", fetch: () => Promise.resolve({ bytes: file }) }));
 * const res = await app.request("/predict", { method: "POST", body: JSON.stringify({ features: { alpha: 1 }, k: 1 }) });
 * console.log(res.status, (await res.json()).labels[0]); // 200 tag-0
 * ```
 */
export function appFor(models: ModelCache): Hono {
  const predict = predictHandler(models);
  const app = new Hono();
  app.get("/health", async (c) => {
    try {
      const m = await models.get();
      return c.json({ ok: true, kind: m.kind, numLabels: m.numLabels, etag: models.etag });
    } catch (e) {
      // the message, not `String(e)`'s "Error: …"; a 401 from a URL most likely comes from a
      // learning service started without --public-read (MODEL_URL sends no token)
      let error = e instanceof Error ? e.message : String(e);
      if (/^GET \S+: 401\b/.test(error)) {
        error += " (MODEL_URL sends no token: start tagstream serve with --public-read)";
      }
      return c.json({ ok: false, error }, 503);
    }
  });
  app.all("/predict", (c) => predict(c.req.raw));
  app.get("/schema/predict.json", () => schemaResponse());
  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));
  return app;
}
