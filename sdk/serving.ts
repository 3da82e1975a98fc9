/**
 * Serving a model in an edge isolate: a {@linkcode ModelCache} decodes the model once per isolate
 * and, optionally, revalidates its source in the background and hot-swaps a changed model (by
 * ETag, or by the file's own CRC-32 when the source has no ETag). Requests keep being answered
 * by the current model while a new one loads; a failed refresh keeps the current model.
 *
 * @module
 */
import { loadModel, type Model } from "./model.ts";

/**
 * Model bytes from a source, with the validator (ETag) they were served with.
 *
 * @example
 * ```ts
 * import type { ModelBytes } from "./serving.ts";
 * const b: ModelBytes = { bytes: new Uint8Array(0), etag: '"v1"' };
 * console.log(b.etag);
 * ```
 */
export interface ModelBytes {
  readonly bytes: Uint8Array;
  readonly etag?: string;
}

/**
 * Where a model comes from: `fetch(etag)` resolves the bytes, or null when the model is
 * unchanged since `etag`. `id` names the source (one cached model per id and isolate).
 *
 * @example
 * ```ts
 * import type { ModelSource } from "./serving.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const source: ModelSource = { id: "memory", fetch: async () => ({ bytes: file }) };
 * console.log((await source.fetch())?.bytes.length === file.length); // true
 * ```
 */
export interface ModelSource {
  readonly id: string;
  fetch(etag?: string): Promise<ModelBytes | null>;
}

/**
 * Options of {@linkcode ModelCache}.
 *
 * @example
 * ```ts
 * import type { ModelCacheOptions } from "./serving.ts";
 * const o: ModelCacheOptions = { refreshMs: 30_000, onError: (e) => console.error(e) };
 * console.log(o.refreshMs);
 * ```
 */
export interface ModelCacheOptions {
  /** Revalidate the source at most this often, in ms (default 0: load once per isolate). */
  refreshMs?: number;
  /** Called when a background refresh fails (the current model stays in service). */
  onError?: (error: unknown) => void;
  /**
   * Give up on a source's fetch after this many ms (default 30000; 0: wait for ever): a load or
   * refresh that never settles fails instead, and the next request asks again (a hung first
   * fetch held every request of the isolate, a hung refresh stopped all later ones).
   */
  timeoutMs?: number;
}

/** The default of {@linkcode ModelCacheOptions.timeoutMs}. */
const FETCH_TIMEOUT_MS = 30_000;

/**
 * Reads a `MODEL_REFRESH_MS`-style setting (an environment variable's text) as
 * {@linkcode ModelCacheOptions.refreshMs}: absent or empty is 0 (load once); anything but a whole
 * number of milliseconds is refused, naming `name` (a bad value must not quietly mean "never
 * refresh").
 *
 * @throws {RangeError} when `text` is not a whole number of milliseconds
 *
 * @example
 * ```ts
 * import { refreshMsSetting } from "./serving.ts";
 * console.log(refreshMsSetting("60000"), refreshMsSetting(undefined)); // 60000 0
 * try {
 *   refreshMsSetting("-1");
 * } catch (e) {
 *   console.log((e as Error).message); // MODEL_REFRESH_MS must be a whole number of milliseconds (0: load once), got '-1'
 * }
 * ```
 */
export function refreshMsSetting(text: string | undefined, name = "MODEL_REFRESH_MS"): number {
  const t = text || "0", ms = Number(t);
  if (!/^\d+$/.test(t) || !Number.isSafeInteger(ms)) {
    throw new RangeError(
      `${name} must be a whole number of milliseconds (0: load once), got '${t}'`,
    );
  }
  return ms;
}

/**
 * A content validator for model bytes: the file's stored CRC-32 (its last 4 bytes) and length.
 *
 * @example
 * ```ts
 * import { contentTag } from "./serving.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * console.log(/^crc-[0-9a-f]{8}-\d+$/.test(contentTag(file))); // true
 * ```
 */
export function contentTag(bytes: Uint8Array): string {
  const crc = bytes.length >= 4
    ? new DataView(bytes.buffer, bytes.byteOffset, bytes.length).getUint32(bytes.length - 4)
    : 0;
  return `crc-${crc.toString(16).padStart(8, "0")}-${bytes.length}`;
}

/**
 * A model decoded once from a source, optionally revalidated and hot-swapped.
 *
 * @example
 * ```ts
 * import { ModelCache } from "./serving.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * let fetches = 0;
 * const cache = new ModelCache({ id: "memory", fetch: async () => (fetches++, { bytes: file }) });
 * const [a, b] = await Promise.all([cache.get(), cache.get()]);
 * console.log(a === b, fetches, a.numLabels); // true 1 3
 * ```
 */
export class ModelCache {
  readonly source: ModelSource;
  readonly #options: ModelCacheOptions;
  #model?: Model;
  #etag?: string;
  #checkedAt = 0;
  #loading?: Promise<Model>;
  #refreshing?: Promise<boolean>;

  constructor(source: ModelSource, options: ModelCacheOptions = {}) {
    const t = options.timeoutMs;
    if (t !== undefined && !(Number.isInteger(t) && t >= 0 && t <= 2 ** 31 - 1)) {
      throw new RangeError(
        `ModelCache: timeoutMs must be an integer in [0, ${2 ** 31 - 1}] (0: no timeout), got ${t}`,
      );
    }
    this.source = source;
    this.#options = options;
  }

  /** Validator of the model in service (the source's ETag, or its content tag). */
  get etag(): string | undefined {
    return this.#etag;
  }

  /** The model in service, if one has been loaded. */
  get current(): Model | undefined {
    return this.#model;
  }

  /**
   * The model: loaded on first use (concurrent callers share one load; a failed load is retried
   * by the next call). When `refreshMs` has passed since the last check, starts a background
   * revalidation and hands its promise to `waitUntil` (e.g. a Worker's `ctx.waitUntil`).
   */
  get(waitUntil?: (p: Promise<unknown>) => void): Promise<Model> {
    const model = this.#model;
    if (!model) {
      this.#loading ??= this.refresh().then(() => {
        // "unchanged" (null) before any load: no model; an error, retried like a failed load
        if (this.#model) return this.#model;
        throw new Error(`the model source answered "unchanged" with no model loaded`);
      }).catch((e) => {
        this.#loading = undefined;
        throw e;
      });
      return this.#loading;
    }
    const every = this.#options.refreshMs ?? 0;
    if (every > 0 && !this.#refreshing && Date.now() - this.#checkedAt >= every) {
      const p = this.refresh().catch((e) => this.#options.onError?.(e));
      waitUntil?.(p);
    }
    return Promise.resolve(model);
  }

  /**
   * Checks the source now and swaps in a changed model; resolves true when it swapped.
   *
   * @throws whatever the source or {@linkcode loadModel} throws (the current model stays).
   */
  refresh(): Promise<boolean> {
    // cleared by a callback, which runs after the assignment even when the check fails at once
    // (a source whose `fetch` throws before returning a promise): a failure is not kept forever
    return this.#refreshing ??= this.#check().finally(() => {
      this.#refreshing = undefined;
    });
  }

  async #check(): Promise<boolean> {
    // a failed fetch counts as a check too: a source that is down is asked again after
    // `refreshMs`, not on every request until it is back
    let got: ModelBytes | null;
    const ms = this.#options.timeoutMs ?? FETCH_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const fetched = this.source.fetch(this.#etag);
      got = await (ms === 0 ? fetched : Promise.race([
        fetched,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new Error(`the model source "${this.source.id}" did not answer within ${ms} ms`),
              ),
            ms,
          );
        }),
      ]));
    } finally {
      clearTimeout(timer);
      this.#checkedAt = Date.now();
    }
    if (!got) return false;
    const tag = got.etag ?? contentTag(got.bytes);
    if (this.#model && tag === this.#etag) return false;
    this.#model = loadModel(got.bytes);
    this.#etag = tag;
    return true;
  }
}

const isolateCaches = new Map<string, ModelCache>();

/**
 * The isolate-wide cache of a source (created on first use, by `source.id`): the model is
 * decoded once per isolate however many requests ask for it.
 *
 * @example
 * ```ts
 * import { sharedModel } from "./serving.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const source = { id: "doc:shared", fetch: async () => ({ bytes: file }) };
 * console.log(sharedModel(source) === sharedModel(source)); // true
 * ```
 */
export function sharedModel(source: ModelSource, options: ModelCacheOptions = {}): ModelCache {
  let cache = isolateCaches.get(source.id);
  if (!cache) isolateCaches.set(source.id, cache = new ModelCache(source, options));
  return cache;
}

/**
 * A model served over HTTP(S), revalidated with `If-None-Match` (a 304 keeps the current model).
 * `fetch` may be replaced, e.g. by a Workers static-assets binding.
 *
 * @example
 * ```ts
 * import { urlSource } from "./serving.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const source = urlSource("https://models.example/m.tsm", {
 *   fetch: async (req) =>
 *     req.headers.get("if-none-match") === '"v1"'
 *       ? new Response(null, { status: 304 })
 *       : new Response(file, { headers: { etag: '"v1"' } }),
 * });
 * console.log((await source.fetch())?.etag, await source.fetch('"v1"')); // "v1" null
 * ```
 */
export function urlSource(
  url: string | URL,
  init: { fetch?: (request: Request) => Promise<Response>; id?: string } = {},
): ModelSource {
  const href = String(url), get = init.fetch ?? ((r: Request) => fetch(r));
  // the URL as errors show it: without credentials, query or fragment (a presigned URL's
  // signature, a token), since the handler's 503 tells clients why the model is unavailable
  let shown = "the model URL";
  const secret = [href];
  try {
    const u = new URL(href);
    secret.push(u.href);
    Object.assign(u, { username: "", password: "", search: "", hash: "" });
    shown = u.protocol === "data:" ? "a data: URL" : u.href;
  } catch { /* an invalid URL: its request fails below, shown as "the model URL" */ }
  const hide = (e: unknown) => {
    let why = `${(e as Error)?.message ?? e}`;
    for (const s of secret) if (s) why = why.split(s).join(shown);
    return new Error(`GET ${shown}: ${why}`, { cause: e });
  };
  return {
    id: init.id ?? `url:${href}`,
    async fetch(etag) {
      let res: Response;
      try {
        res = await get(new Request(href, { headers: etag ? { "if-none-match": etag } : {} }));
      } catch (e) {
        throw hide(e);
      }
      if (res.status === 304) return null;
      if (!res.ok) throw new Error(`GET ${shown}: ${res.status} ${res.statusText}`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      return { bytes, etag: res.headers.get("etag") ?? undefined };
    },
  };
}
