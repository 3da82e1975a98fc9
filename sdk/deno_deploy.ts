/**
 * Deno Deploy adapter: a model from a URL (hot-swapped by ETag when polled) or from Deno KV,
 * stored in chunks under KV's 64 KiB value limit with a manifest that switches versions
 * atomically. Either way the model is decoded once per isolate ({@linkcode sharedModel}).
 *
 * The KV functions take any object with the used subset of `Deno.Kv` ({@linkcode KvLike}), so
 * this module needs no unstable API types: pass `await Deno.openKv()`.
 *
 * @module
 */
import {
  contentTag,
  type ModelCache,
  type ModelCacheOptions,
  type ModelSource,
  sharedModel,
  urlSource,
} from "./serving.ts";

/**
 * A Deno KV key.
 *
 * @example
 * ```ts
 * import type { KvKey } from "./deno_deploy.ts";
 * const key: KvKey = ["models", "bibtex"];
 * console.log(key.length);
 * ```
 */
export type KvKey = readonly (string | number | bigint | boolean | Uint8Array | symbol)[];

/**
 * The part of `Deno.Kv` the adapter uses.
 *
 * @example
 * ```ts
 * import type { KvLike } from "./deno_deploy.ts";
 * const open = (Deno as unknown as { openKv?: (path?: string) => Promise<KvLike> }).openKv;
 * console.log(typeof open); // "function" with --unstable-kv, else "undefined"
 * ```
 */
export interface KvLike {
  get(key: KvKey): Promise<{ value: unknown }>;
  set(key: KvKey, value: unknown): Promise<unknown>;
  delete(key: KvKey): Promise<unknown>;
  list(selector: { prefix: KvKey }): AsyncIterable<{ key: KvKey; value: unknown }>;
  atomic(): { set(key: KvKey, value: unknown): unknown; commit(): Promise<{ ok: boolean }> };
}

/**
 * The manifest stored at `[...key, "manifest"]`: the version in service, its number of chunks
 * (at `[...key, "chunks", version, i]`) and its byte length.
 *
 * @example
 * ```ts
 * import type { KvManifest } from "./deno_deploy.ts";
 * const m: KvManifest = { version: "crc-0a1b2c3d-1234", chunks: 1, byteLength: 1234, chunkBytes: 60000 };
 * console.log(m.chunks);
 * ```
 */
export interface KvManifest {
  version: string;
  chunks: number;
  byteLength: number;
  chunkBytes: number;
}

const TYPE_RANK: Record<string, number> = {
  object: 0,
  string: 1,
  number: 2,
  bigint: 3,
  boolean: 4,
};

/** Deno KV's key order: by part type (bytes, string, number, bigint, boolean), then value. */
function compareKeys(a: KvKey, b: KvKey): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i], y = b[i];
    const d = TYPE_RANK[typeof x] - TYPE_RANK[typeof y];
    if (d !== 0) return d;
    if (x instanceof Uint8Array && y instanceof Uint8Array) {
      const c = compareKeys([...x], [...y]);
      if (c !== 0) return c;
    } else if (x !== y) return (x as number) < (y as number) ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * An in-memory {@linkcode KvLike} with Deno KV's key order, for local development and tests
 * without `--unstable-kv` (values are kept as given, not serialised).
 *
 * @example
 * ```ts
 * import { memoryKv } from "./deno_deploy.ts";
 * const kv = memoryKv();
 * await kv.set(["a", 2], "two");
 * await kv.set(["a", 10], "ten");
 * for await (const e of kv.list({ prefix: ["a"] })) console.log(e.key, e.value); // [a, 2] two, then [a, 10] ten
 * ```
 */
export function memoryKv(): KvLike {
  const entries = new Map<string, { key: KvKey; value: unknown }>();
  const id = (key: KvKey) => JSON.stringify(key, (_k, v) => typeof v === "bigint" ? `${v}n` : v);
  const set = (key: KvKey, value: unknown) => entries.set(id(key), { key: [...key], value });
  return {
    get: (key) => Promise.resolve({ value: entries.get(id(key))?.value ?? null }),
    set: (key, value) => Promise.resolve(set(key, value)),
    delete: (key) => Promise.resolve(entries.delete(id(key))),
    async *list({ prefix }) {
      const hits = [...entries.values()].filter((e) =>
        e.key.length > prefix.length && compareKeys(e.key.slice(0, prefix.length), prefix) === 0
      );
      yield* hits.sort((a, b) => compareKeys(a.key, b.key));
    },
    atomic() {
      const ops: [KvKey, unknown][] = [];
      const op = {
        set: (key: KvKey, value: unknown) => (ops.push([key, value]), op),
        commit: () => Promise.resolve((ops.forEach(([k, v]) => set(k, v)), { ok: true })),
      };
      return op;
    },
  };
}

/**
 * Bytes per KV chunk: under the 64 KiB value limit with room for the value's serialisation.
 *
 * @example
 * ```ts
 * import { KV_CHUNK_BYTES } from "./deno_deploy.ts";
 * console.log(KV_CHUNK_BYTES < 65536); // true
 * ```
 */
export const KV_CHUNK_BYTES = 60_000;

/** Chunks written per atomic operation (≤ 600 KB, inside Deno KV's per-operation limits). */
const CHUNKS_PER_COMMIT = 10;

/**
 * Stores a model file in Deno KV: the chunks of the new version first, then the manifest that
 * points to them (so readers never see a half-written model), then the chunks of the version
 * it replaced are deleted. Saving the same bytes again is a no-op version switch.
 *
 * @example
 * ```ts
 * import { memoryKv, saveModelToKv } from "./deno_deploy.ts";
 * const kv = memoryKv(); // on Deno Deploy: await Deno.openKv()
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/knn-embedding.tsm", import.meta.url));
 * const manifest = await saveModelToKv(kv, ["models", "knn"], file, 300);
 * console.log(manifest.chunks, manifest.byteLength === file.length); // 3 true
 * ```
 */
export async function saveModelToKv(
  kv: KvLike,
  key: KvKey,
  bytes: Uint8Array,
  chunkBytes = KV_CHUNK_BYTES,
): Promise<KvManifest> {
  if (!(chunkBytes > 0 && chunkBytes <= KV_CHUNK_BYTES)) {
    throw new RangeError(`saveModelToKv: chunkBytes must be in (0, ${KV_CHUNK_BYTES}]`);
  }
  const version = contentTag(bytes);
  const chunks = Math.ceil(bytes.length / chunkBytes);
  for (let i = 0; i < chunks; i += CHUNKS_PER_COMMIT) {
    const op = kv.atomic();
    for (let c = i; c < Math.min(chunks, i + CHUNKS_PER_COMMIT); c++) {
      op.set([...key, "chunks", version, c], bytes.slice(c * chunkBytes, (c + 1) * chunkBytes));
    }
    if (!(await op.commit()).ok) throw new Error(`saveModelToKv: writing chunks ${i}+ failed`);
  }
  const old = (await kv.get([...key, "manifest"])).value as KvManifest | null;
  const manifest: KvManifest = { version, chunks, byteLength: bytes.length, chunkBytes };
  await kv.set([...key, "manifest"], manifest);
  if (old && old.version !== version) {
    for await (const e of kv.list({ prefix: [...key, "chunks", old.version] })) {
      await kv.delete(e.key);
    }
  }
  return manifest;
}

/**
 * A model stored by {@linkcode saveModelToKv}; revalidation reads only the manifest.
 *
 * @example
 * ```ts
 * import { kvSource, memoryKv, saveModelToKv } from "./deno_deploy.ts";
 * const kv = memoryKv();
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const { version } = await saveModelToKv(kv, ["m"], file, 100);
 * const source = kvSource(kv, ["m"]);
 * console.log((await source.fetch())?.bytes.length === file.length, await source.fetch(version)); // true null
 * ```
 */
export function kvSource(
  kv: KvLike,
  key: KvKey,
  id = `deno-kv:${JSON.stringify(key)}`,
): ModelSource {
  return {
    id,
    async fetch(etag) {
      const m = (await kv.get([...key, "manifest"])).value as KvManifest | null;
      if (!m) throw new Error(`no model in Deno KV at ${JSON.stringify(key)}`);
      if (m.version === etag) return null;
      const bytes = new Uint8Array(m.byteLength);
      let n = 0, at = 0;
      for await (const e of kv.list({ prefix: [...key, "chunks", m.version] })) {
        const chunk = e.value as Uint8Array;
        if (e.key[e.key.length - 1] !== n || at + chunk.length > bytes.length) break;
        bytes.set(chunk, at);
        at += chunk.length;
        n++;
      }
      if (n !== m.chunks || at !== m.byteLength) {
        throw new Error(`Deno KV model ${m.version}: read ${n}/${m.chunks} chunks, ${at} bytes`);
      }
      return { bytes, etag: m.version };
    },
  };
}

/**
 * The isolate's model from a URL; with `refreshMs`, polled with `If-None-Match` and hot-swapped
 * when its ETag changes.
 *
 * @example
 * ```ts
 * import { modelFromUrl } from "./deno_deploy.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * // any URL fetch() can read: https://…, or here a data: URL
 * const url = `data:application/octet-stream;base64,${btoa(String.fromCharCode(...file))}`;
 * const models = modelFromUrl(url, { refreshMs: 60_000 });
 * console.log((await models.get()).numLabels); // 3
 * ```
 */
export function modelFromUrl(url: string | URL, options: ModelCacheOptions = {}): ModelCache {
  return sharedModel(urlSource(url), options);
}

/**
 * The isolate's model from Deno KV; with `refreshMs`, the manifest is polled and a new version
 * hot-swapped.
 *
 * @example
 * ```ts
 * import { memoryKv, modelFromKv, saveModelToKv } from "./deno_deploy.ts";
 * const kv = memoryKv(); // on Deno Deploy: await Deno.openKv()
 * await saveModelToKv(kv, ["models", "lowrank"], await Deno.readFile(new URL("../tests/fixtures/v1/linear-lowrank.tsm", import.meta.url)));
 * const models = modelFromKv(kv, ["models", "lowrank"]);
 * console.log((await models.get()).kind); // linear-lowrank
 * ```
 */
export function modelFromKv(kv: KvLike, key: KvKey, options: ModelCacheOptions = {}): ModelCache {
  return sharedModel(kvSource(kv, key), options);
}
