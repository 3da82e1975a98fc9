/**
 * Tagstream predictions on Cloudflare Workers: `GET /health`, `POST /predict` (see
 * sdk/http.ts: the same protocol as the learning service) and `GET /schema/predict.json`. The model comes from Workers KV, R2 or a static asset (`MODEL_SOURCE`), is
 * decoded once per isolate and, with `MODEL_REFRESH_MS`, revalidated in the background.
 *
 * @module
 */
import {
  assetSource,
  type FetcherLike,
  type KvNamespaceLike,
  kvNamespaceSource,
  modelFrom,
  type R2BucketLike,
  r2Source,
} from "../../../sdk/cloudflare.ts";
import { predictHandler, schemaResponse } from "../../../sdk/http.ts";
import { type ModelCache, refreshMsSetting } from "../../../sdk/serving.ts";

/**
 * The worker's bindings and variables (wrangler.toml).
 *
 * @example
 * ```ts
 * import type { Env } from "./worker.ts";
 * const env: Partial<Env> = { MODEL_SOURCE: "r2", MODEL_KEY: "bibtex.tsm" };
 * console.log(env.MODEL_SOURCE);
 * ```
 */
export interface Env {
  MODEL_SOURCE?: string;
  MODEL_KEY: string;
  MODEL_REFRESH_MS?: string;
  MODELS: KvNamespaceLike;
  MODEL_BUCKET: R2BucketLike;
  ASSETS: FetcherLike;
}

/**
 * The isolate's model cache for these bindings.
 *
 * @throws {RangeError} when `MODEL_REFRESH_MS` is not a whole number of milliseconds
 * @throws {TypeError} when `MODEL_SOURCE` is not `kv` (the default), `r2` or `asset`,
 * `MODEL_KEY` is missing or empty, or the binding of the source (`MODELS`, `MODEL_BUCKET`,
 * `ASSETS`) is missing
 *
 * @example
 * ```ts
 * import { modelsOf } from "./worker.ts";
 * const file = await Deno.readFile(new URL("../../../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const models = modelsOf({
 *   MODEL_SOURCE: "kv", MODEL_KEY: "doc.tsm",
 *   MODELS: { get: () => Promise.resolve(file.slice().buffer) },
 *   MODEL_BUCKET: { get: () => Promise.resolve(null) },
 *   ASSETS: { fetch: () => Promise.resolve(new Response(null, { status: 404 })) },
 * });
 * console.log((await models.get()).kind); // linear-sparse
 * ```
 */
export function modelsOf(env: Env): ModelCache {
  const key = env.MODEL_KEY, from = env.MODEL_SOURCE || "kv";
  // a typo ("R2") must not read another binding, nor a missing key the key "undefined"
  if (!["kv", "r2", "asset"].includes(from)) {
    throw new TypeError(`MODEL_SOURCE must be kv, r2 or asset, got '${from}'`);
  }
  if (typeof key !== "string" || !key) {
    throw new TypeError(`MODEL_KEY must name the model's key, object or asset path, got '${key}'`);
  }
  // a source without its binding failed each load with "Cannot read properties of undefined"
  const [name, method] = from === "r2"
    ? ["MODEL_BUCKET", "get"] as const
    : from === "asset"
    ? ["ASSETS", "fetch"] as const
    : ["MODELS", "get"] as const;
  if (
    typeof (env[name] as unknown as Record<string, unknown> | undefined)?.[method] !== "function"
  ) {
    throw new TypeError(
      `MODEL_SOURCE ${from} reads the ${name} binding, which this worker does not have ` +
        `(see wrangler.toml)`,
    );
  }
  const source = from === "r2"
    ? r2Source(env.MODEL_BUCKET, key)
    : from === "asset"
    ? assetSource(env.ASSETS, key.startsWith("/") ? key : `/${key}`)
    : kvNamespaceSource(env.MODELS, key);
  // a bad value is refused, as the Deno Deploy example refuses it at start
  const refreshMs = refreshMsSetting(env.MODEL_REFRESH_MS);
  return modelFrom(source, {
    refreshMs,
    onError: (e) => console.error(`model refresh failed: ${e}`),
  });
}

const handlers = new WeakMap<ModelCache, ReturnType<typeof predictHandler>>();

/**
 * The Workers module entry point: `GET /health`, `POST /predict`.
 *
 * @example
 * ```ts
 * import worker from "./worker.ts";
 * const file = await Deno.readFile(new URL("../../../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const env = {
 *   MODEL_SOURCE: "r2", MODEL_KEY: "doc-entry.tsm",
 *   MODELS: { get: () => Promise.resolve(null) },
 *   MODEL_BUCKET: { get: () => Promise.resolve({ etag: "e", arrayBuffer: () => Promise.resolve(file.slice().buffer) }) },
 *   ASSETS: { fetch: () => Promise.resolve(new Response(null, { status: 404 })) },
 * };
 * const ctx = { waitUntil: (_p: Promise<unknown>) => {} };
 * const res = await worker.fetch(
 *   new Request("https://w/predict", { method: "POST", body: JSON.stringify({ features: { "0": 1 }, k: 1 }) }),
 *   env,
 *   ctx,
 * );
 * console.log(res.status, res.headers.get("x-model-etag")); // 200 e
 * ```
 */
export default {
  /** Routes a request. */
  async fetch(
    request: Request,
    env: Env,
    ctx: { waitUntil(p: Promise<unknown>): void },
  ): Promise<Response> {
    let models: ModelCache;
    try {
      models = modelsOf(env);
    } catch (e) {
      // the worker's own configuration is wrong: say so on every route
      return Response.json({ error: (e as Error).message }, { status: 500 });
    }
    const path = new URL(request.url).pathname;
    if (path === "/predict") {
      let handle = handlers.get(models);
      if (!handle) handlers.set(models, handle = predictHandler(models));
      return handle(request, (p) => ctx.waitUntil(p));
    }
    if (path === "/schema/predict.json" && request.method === "GET") return schemaResponse();
    if (path === "/health" && (request.method === "GET" || request.method === "HEAD")) {
      try {
        const m = await models.get((p) => ctx.waitUntil(p));
        return Response.json({ ok: true, kind: m.kind, numLabels: m.numLabels, etag: models.etag });
      } catch (e) {
        // the message, as /predict's 503 says it (`String(e)` put "ModelFormatError: " before it)
        const error = e instanceof Error ? e.message : String(e);
        return Response.json({ ok: false, error }, { status: 503 });
      }
    }
    return Response.json({ error: `no route for ${request.method} ${path}` }, { status: 404 });
  },
};
