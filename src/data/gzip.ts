/**
 * Gzip detection (magic bytes) and decompression with the Web `DecompressionStream`, with errors
 * naming the source when the data is truncated or corrupt.
 *
 * @module
 */

/**
 * True when `head` starts with the gzip magic bytes `1f 8b`.
 *
 * @example
 * ```ts
 * import { isGzip } from "./gzip.ts";
 * console.log(isGzip(Uint8Array.of(0x1f, 0x8b, 8)), isGzip(Uint8Array.of(49))); // true false
 * ```
 */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * Pipes a gzip byte stream through `DecompressionStream("gzip")`; a truncated or corrupt input
 * errors the output with a `TypeError` naming `source`.
 *
 * @example
 * ```ts
 * import { gunzipStream } from "./gzip.ts";
 * const gz = new Blob(["hi"]).stream().pipeThrough(new CompressionStream("gzip"));
 * const text = await new Response(gunzipStream(gz, "x.gz")).text();
 * console.log(text); // "hi"
 * ```
 */
export function gunzipStream(
  stream: ReadableStream<Uint8Array>,
  source: string,
): ReadableStream<Uint8Array> {
  const inner = stream.pipeThrough(
    new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
  );
  const reader = inner.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        controller.error(
          new TypeError(`Cannot read ${source}: truncated or corrupt gzip data (${why})`),
        );
        return;
      }
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
