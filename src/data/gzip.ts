/**
 * Gzip detection (magic bytes) and decompression of every member (node:zlib), with errors naming
 * the source when the data is truncated or corrupt.
 *
 * @module
 */
import { createGunzip } from "node:zlib";

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
 * Decompresses a gzip byte stream, every member of it (`cat a.gz b.gz`, bgzip: as `zcat`
 * reads them; the Web `DecompressionStream` stops after the first member and refused the rest),
 * with node:zlib's gunzip, one input chunk at a time while the reader asks for more. A truncated
 * or corrupt input errors the output with a `TypeError` naming `source`.
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
  // (output in chunks of 256 KiB: the default 16 KiB made many small events)
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  const input = stream.getReader();
  const out: Uint8Array[] = [];
  let ended = false, failure: unknown, inputDone = false;
  let wake: (() => void) | undefined;
  const woken = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  gunzip.on("data", (c: Uint8Array) => {
    out.push(new Uint8Array(c.buffer, c.byteOffset, c.byteLength));
    woken();
  });
  gunzip.on("end", () => {
    ended = true;
    woken();
  });
  gunzip.on("error", (e: unknown) => {
    failure ??= e;
    woken();
  });
  const corrupt = (e: unknown) =>
    new TypeError(
      `Cannot read ${source}: truncated or corrupt gzip data (${
        e instanceof Error ? e.message : String(e)
      })`,
    );
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (out.length === 0 && !ended && failure === undefined) {
        if (inputDone) {
          // the input is all written: the rest comes with 'end' (or an error)
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        const r = await input.read();
        if (r.done) {
          inputDone = true;
          gunzip.end();
          continue;
        }
        // the chunk's output (if any) is emitted before the write's callback
        await new Promise<void>((resolve) => gunzip.write(r.value, () => resolve()));
      }
      if (out.length > 0) return controller.enqueue(out.shift()!);
      // input left unread (corrupt data, or zero padding after the last member, where zlib
      // ends as zcat does): close it, else the file stayed open
      if (!inputDone) {
        inputDone = true;
        await input.cancel().catch(() => {});
      }
      if (failure !== undefined) controller.error(corrupt(failure));
      else controller.close();
    },
    async cancel(reason) {
      gunzip.destroy();
      await input.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
