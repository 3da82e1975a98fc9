/**
 * Byte sources for the streaming readers: a file path, `"-"` (stdin), an `http(s)://` URL (or a
 * `URL` object), a `ReadableStream`, or any (async) iterable of strings / bytes. Gzip input is
 * recognised by its magic bytes `1f 8b` (not by the name) and decompressed as a stream.
 *
 * @module
 */
import { gunzipStream, isGzip } from "./gzip.ts";
import { concatBytes } from "./bytes.ts";
import { checkOptionKeys, oneOfOption, shown } from "./option_check.ts";

/**
 * One chunk of a source: bytes or text (text is encoded as UTF-8).
 *
 * @example
 * ```ts
 * import type { SourceChunk } from "./sources.ts";
 * const c: SourceChunk = "0 1:1\n";
 * console.log(typeof c); // "string"
 * ```
 */
export type SourceChunk = Uint8Array | ArrayBuffer | string;

/**
 * Where bytes come from: a file path, `"-"` for stdin, an `http://` / `https://` URL (string or
 * `URL`; `file:` URLs read files), a `ReadableStream`, or an (async) iterable of chunks.
 *
 * @example
 * ```ts
 * import type { SourceInput } from "./sources.ts";
 * const inputs: SourceInput[] = ["data/bibtex.train.txt", "-", new URL("https://example.com/x.txt"), ["1 2 1\n", "0 1:1\n"]];
 * console.log(inputs.length); // 4
 * ```
 */
export type SourceInput =
  | string
  | URL
  | ReadableStream<SourceChunk>
  | AsyncIterable<SourceChunk>
  | Iterable<SourceChunk>;

/**
 * Options of {@linkcode openSource}.
 *
 * @example
 * ```ts
 * import type { OpenSourceOptions } from "./sources.ts";
 * const o: OpenSourceOptions = { name: "events", decompress: "none" };
 * console.log(o.name); // "events"
 * ```
 */
export interface OpenSourceOptions {
  /** Name used in messages (default: file base name, the URL, `<stdin>` or `<stream>`). */
  name?: string;
  /** `"auto"` (default): gunzip when the data starts with the gzip magic; `"none"`: never. */
  decompress?: "auto" | "none";
  /** Aborts a URL fetch (takes the place of a `fetchInit.signal`). */
  signal?: AbortSignal;
  /** Extra `fetch` options for URLs (headers...). */
  fetchInit?: RequestInit;
}

/**
 * The keys of {@linkcode OpenSourceOptions} (what `openSource` accepts; `readExamples` hands
 * these on to it).
 *
 * @example
 * ```ts
 * import { OPEN_SOURCE_OPTION_KEYS } from "./sources.ts";
 * console.log(OPEN_SOURCE_OPTION_KEYS.includes("decompress")); // true
 * ```
 */
export const OPEN_SOURCE_OPTION_KEYS: readonly (keyof OpenSourceOptions)[] = [
  "name",
  "decompress",
  "signal",
  "fetchInit",
];

/**
 * An opened byte source.
 *
 * @example
 * ```ts
 * import { type ByteSource, openSource } from "./sources.ts";
 * const s: ByteSource = await openSource(["abc"], { name: "mem" });
 * console.log(s.name, s.gzip, await new Response(s.stream).text()); // mem false abc
 * ```
 */
export interface ByteSource {
  /** Name used in messages. */
  readonly name: string;
  /** The (decompressed) bytes. */
  readonly stream: ReadableStream<Uint8Array>;
  /** True when the data was gzip and is being decompressed. */
  readonly gzip: boolean;
}

/**
 * The base name of a path (after the last `/` or `\`).
 *
 * @example
 * ```ts
 * import { baseName } from "./sources.ts";
 * console.log(baseName("/data/bibtex.train.txt")); // "bibtex.train.txt"
 * ```
 */
export function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return i >= 0 ? path.slice(i + 1) : path;
}

const encoder = new TextEncoder();

function toBytes(chunk: SourceChunk, name: string): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === "string") return encoder.encode(chunk);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new TypeError(
    `Cannot read ${name}: chunks must be strings, Uint8Arrays or ArrayBuffers, got ${
      chunk === null ? "null" : typeof chunk
    }`,
  );
}

/** A byte stream over an (async) iterable or a stream of mixed chunks. */
function iterableStream(
  it: AsyncIterable<SourceChunk> | Iterable<SourceChunk>,
  name: string,
): ReadableStream<Uint8Array> {
  let iter: AsyncIterator<SourceChunk> | Iterator<SourceChunk> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      iter ??= Symbol.asyncIterator in it
        ? (it as AsyncIterable<SourceChunk>)[Symbol.asyncIterator]()
        : (it as Iterable<SourceChunk>)[Symbol.iterator]();
      while (true) {
        const r = await iter.next();
        if (r.done) {
          controller.close();
          return;
        }
        const b = toBytes(r.value, name);
        if (b.length > 0) {
          controller.enqueue(b);
          return;
        }
      }
    },
    async cancel(reason) {
      await iter?.return?.(reason);
    },
  }, { highWaterMark: 0 });
}

function isUrlString(s: string): boolean {
  return /^(https?|file):\/\//i.test(s);
}

async function openFile(path: string): Promise<ReadableStream<Uint8Array>> {
  let file: Deno.FsFile | undefined;
  try {
    file = await Deno.open(path, { read: true });
    if ((await file.stat()).isDirectory) throw new Deno.errors.IsADirectory(path);
    return file.readable;
  } catch (e) {
    // (a file opened, then refused or failing: closed, not leaked)
    file?.close();
    if (e instanceof Deno.errors.NotFound) throw new TypeError(`Cannot read ${path}: no such file`);
    if (e instanceof Deno.errors.PermissionDenied) {
      throw new TypeError(`Cannot read ${path}: permission denied`);
    }
    if (e instanceof Deno.errors.IsADirectory) {
      throw new TypeError(`Cannot read ${path}: it is a directory`);
    }
    throw e;
  }
}

async function openUrl(
  url: URL,
  name: string,
  options: OpenSourceOptions,
): Promise<ReadableStream<Uint8Array>> {
  let res: Response;
  try {
    // (`signal: options.signal` alone replaced a signal given in fetchInit by undefined)
    res = await fetch(url, {
      ...options.fetchInit,
      signal: options.signal ?? options.fetchInit?.signal,
    });
  } catch (e) {
    throw new TypeError(`Cannot read ${name}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new TypeError(`Cannot read ${name}: HTTP ${res.status} ${res.statusText}`.trimEnd());
  }
  return res.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
}

/**
 * Reads the first chunks of `stream` until at least 2 bytes are known, and returns them with a
 * stream that replays them followed by the rest.
 */
async function peek(
  stream: ReadableStream<Uint8Array>,
): Promise<{ head: Uint8Array; stream: ReadableStream<Uint8Array> }> {
  const reader = stream.getReader();
  const first: Uint8Array[] = [];
  let have = 0;
  let ended = false;
  while (have < 2) {
    const r = await reader.read();
    if (r.done) {
      ended = true;
      break;
    }
    if (r.value.length === 0) continue;
    first.push(r.value);
    have += r.value.length;
  }
  const head = concatBytes(first, have);
  let replayed = false;
  const out = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!replayed) {
        replayed = true;
        if (head.length > 0) {
          controller.enqueue(head);
          return;
        }
      }
      if (ended) {
        controller.close();
        return;
      }
      const r = await reader.read();
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return { head, stream: out };
}

/**
 * Opens a byte source, detecting and decompressing gzip by its magic bytes. Missing files and
 * failed HTTP requests throw a `TypeError` naming the source; truncated gzip data errors the
 * stream with a `TypeError` naming it.
 *
 * @example
 * ```ts
 * import { openSource } from "./sources.ts";
 * const gz = new Blob(["1 2 1\n0 1:1\n"]).stream().pipeThrough(new CompressionStream("gzip"));
 * const src = await openSource(gz, { name: "mem.gz" });
 * console.log(src.gzip, await new Response(src.stream).text()); // true "1 2 1\n0 1:1\n"
 * ```
 */
export async function openSource(
  input: SourceInput,
  options: OpenSourceOptions = {},
): Promise<ByteSource> {
  checkOpenSourceOptions(options);
  let name: string;
  let raw: ReadableStream<Uint8Array>;
  if (typeof input === "string" || input instanceof URL) {
    if (input === "-") {
      name = options.name ?? "<stdin>";
      raw = Deno.stdin.readable;
    } else if (input instanceof URL || isUrlString(input)) {
      const url = input instanceof URL ? input : new URL(input);
      if (url.protocol === "file:") {
        name = options.name ?? baseName(decodeURIComponent(url.pathname));
        raw = await openFile(decodeURIComponent(url.pathname));
      } else if (url.protocol === "http:" || url.protocol === "https:") {
        name = options.name ?? url.href;
        raw = await openUrl(url, name, options);
      } else {
        throw new TypeError(`Cannot read ${url.href}: unsupported protocol ${url.protocol}`);
      }
    } else {
      if (input.length === 0) throw new TypeError("Cannot read a source with an empty path");
      name = options.name ?? baseName(input);
      raw = await openFile(input);
    }
  } else if (input instanceof ReadableStream) {
    name = options.name ?? "<stream>";
    raw = iterableStream(input as ReadableStream<SourceChunk>, name);
  } else if (
    input !== null && typeof input === "object" &&
    (Symbol.asyncIterator in input || Symbol.iterator in input)
  ) {
    name = options.name ?? "<stream>";
    raw = iterableStream(input, name);
  } else {
    throw new TypeError(
      "openSource: expected a path, '-', a URL, a ReadableStream or an iterable of chunks",
    );
  }
  if (options.decompress === "none") return { name, stream: raw, gzip: false };
  let peeked: Awaited<ReturnType<typeof peek>>;
  try {
    peeked = await peek(raw);
  } catch (e) {
    // (a source failing in its first bytes, e.g. a connection lost before the body, threw its
    // own error, which named no source)
    const prefix = `Cannot read ${name}: `;
    const detail = e instanceof Error ? e.message : String(e);
    throw new TypeError(detail.startsWith(prefix) ? detail : prefix + detail);
  }
  const { head, stream } = peeked;
  if (!isGzip(head)) return { name, stream, gzip: false };
  return { name, stream: gunzipStream(stream, name), gzip: true };
}

/** Keys and values of `openSource`'s options (O(1); before anything is opened). */
function checkOpenSourceOptions(options: OpenSourceOptions): void {
  const where = "openSource";
  const { name, signal, fetchInit } = checkOptionKeys(where, options, OPEN_SOURCE_OPTION_KEYS);
  oneOfOption(where, "decompress", options.decompress, "auto", ["auto", "none"]);
  const fail = (option: string, what: string, v: unknown) => {
    throw new TypeError(`${where}: option ${option} must be ${what}, got ${shown(v)}`);
  };
  if (name !== undefined && typeof name !== "string") fail("name", "a string", name);
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    fail("signal", "an AbortSignal", signal);
  }
  if (fetchInit !== undefined && (typeof fetchInit !== "object" || fetchInit === null)) {
    fail("fetchInit", "an object (fetch's RequestInit)", fetchInit);
  }
}
