/**
 * Cloudflare Workers adapter: a model from a Workers KV namespace, an R2 bucket (revalidated
 * with `etagDoesNotMatch`) or the static-assets binding, decoded once per isolate
 * ({@linkcode sharedModel}). Bindings are typed structurally, so no Workers type package is
 * needed.
 *
 * @module
 */
import {
  type ModelCache,
  type ModelCacheOptions,
  type ModelSource,
  sharedModel,
  urlSource,
} from "./serving.ts";

/**
 * The part of a `KVNamespace` binding the adapter uses.
 *
 * @example
 * ```ts
 * import type { KvNamespaceLike } from "./cloudflare.ts";
 * const ns: KvNamespaceLike = { get: async () => null };
 * console.log(await ns.get("model.tsm", "arrayBuffer")); // null
 * ```
 */
export interface KvNamespaceLike {
  get(key: string, type: "arrayBuffer"): Promise<ArrayBuffer | null>;
}

/**
 * The part of an `R2Bucket` binding the adapter uses: `get` resolves an object with a body
 * (`arrayBuffer`) when the precondition holds, the bare object when it does not, null when
 * missing.
 *
 * @example
 * ```ts
 * import type { R2BucketLike } from "./cloudflare.ts";
 * const bucket: R2BucketLike = { get: async () => null };
 * console.log(await bucket.get("model.tsm")); // null
 * ```
 */
export interface R2BucketLike {
  get(
    key: string,
    options?: { onlyIf?: { etagDoesNotMatch?: string } },
  ): Promise<{ etag: string; arrayBuffer?: () => Promise<ArrayBuffer> } | null>;
}

/**
 * A `Fetcher` binding (e.g. `env.ASSETS`).
 *
 * @example
 * ```ts
 * import type { FetcherLike } from "./cloudflare.ts";
 * const assets: FetcherLike = { fetch: async () => new Response("x") };
 * console.log((await assets.fetch(new Request("https://assets.local/a"))).status); // 200
 * ```
 */
export interface FetcherLike {
  fetch(request: Request): Promise<Response>;
}

/**
 * A model stored as one Workers KV value (up to 25 MiB). KV has no conditional reads:
 * a revalidation reads the value and keeps the model when its content tag is unchanged.
 *
 * @example
 * ```ts
 * import { kvNamespaceSource } from "./cloudflare.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const source = kvNamespaceSource({ get: async () => file.slice().buffer }, "model.tsm");
 * console.log((await source.fetch())?.bytes.length === file.length); // true
 * ```
 */
export function kvNamespaceSource(
  ns: KvNamespaceLike,
  key: string,
  id = `cf-kv:${key}`,
): ModelSource {
  return {
    id,
    async fetch() {
      const value = await ns.get(key, "arrayBuffer");
      if (!value) throw new Error(`no model in Workers KV at "${key}"`);
      return { bytes: new Uint8Array(value) };
    },
  };
}

/**
 * A model stored as an R2 object, revalidated by ETag.
 *
 * @example
 * ```ts
 * import { r2Source } from "./cloudflare.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const bucket = {
 *   get: async (_k: string, o?: { onlyIf?: { etagDoesNotMatch?: string } }) =>
 *     o?.onlyIf?.etagDoesNotMatch === "e1" ? { etag: "e1" } : { etag: "e1", arrayBuffer: async () => file.slice().buffer },
 * };
 * const source = r2Source(bucket, "model.tsm");
 * console.log((await source.fetch())?.etag, await source.fetch("e1")); // e1 null
 * ```
 */
export function r2Source(bucket: R2BucketLike, key: string, id = `cf-r2:${key}`): ModelSource {
  return {
    id,
    async fetch(etag) {
      const obj = await bucket.get(key, etag ? { onlyIf: { etagDoesNotMatch: etag } } : undefined);
      if (!obj) throw new Error(`no model in R2 at "${key}"`);
      if (!obj.arrayBuffer) return null; // the precondition failed: unchanged
      return { bytes: new Uint8Array(await obj.arrayBuffer()), etag: obj.etag };
    },
  };
}

/**
 * A model deployed as a static asset (`[assets]` in wrangler config), read through the assets
 * binding and revalidated by its ETag.
 *
 * @example
 * ```ts
 * import { assetSource } from "./cloudflare.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const source = assetSource({ fetch: async () => new Response(file, { headers: { etag: '"a"' } }) }, "/model.tsm");
 * console.log((await source.fetch())?.etag); // "a"
 * ```
 */
export function assetSource(assets: FetcherLike, path: string): ModelSource {
  return urlSource(new URL(path, "https://assets.local"), {
    fetch: (r) => assets.fetch(r),
    id: `cf-asset:${path}`,
  });
}

/**
 * The isolate's model from a source (decoded once per isolate; see {@linkcode sharedModel}).
 *
 * @example
 * ```ts
 * import { modelFrom, kvNamespaceSource } from "./cloudflare.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const models = modelFrom(kvNamespaceSource({ get: async () => file.slice().buffer }, "doc.tsm"));
 * console.log((await models.get()).kind); // linear-sparse
 * ```
 */
export function modelFrom(source: ModelSource, options: ModelCacheOptions = {}): ModelCache {
  return sharedModel(source, options);
}
