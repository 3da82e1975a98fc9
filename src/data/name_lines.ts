/**
 * Strict reading of a names file (label or feature names, one per line): each line decoded as
 * UTF-8 on its own, so invalid bytes are an error naming the file and the line, not names with
 * U+FFFD in them. Shared by `loadNames` (dataset_load.ts) and the CLI's label-name files.
 *
 * @module
 */
import { LineSplitter } from "./line_splitter.ts";
import { startsWithBom } from "./bom.ts";

/**
 * The lines of a names file held in memory, each decoded strictly as UTF-8: a leading UTF-8
 * byte-order mark is dropped (a mark anywhere else is kept), `\n` ends a line, a `\r` before it
 * is dropped, and the newline that ends the file starts no line (a blank line before it does:
 * `"a\n\n"` is `["a", ""]`). `where` names the file in errors.
 *
 * @throws {TypeError} when a line is not valid UTF-8:
 *   `${where} line 3: not valid UTF-8 (save the file as UTF-8)`
 *
 * @example
 * ```ts
 * import { decodeNameLines } from "./name_lines.ts";
 * const enc = new TextEncoder();
 * console.log(decodeNameLines(enc.encode("\uFEFFsports\r\nnews\n"), "t.txt")); // [ "sports", "news" ]
 * try {
 *   decodeNameLines(Uint8Array.of(0x61, 0x0a, 0xff, 0x0a), "t.txt");
 * } catch (e) {
 *   console.log((e as Error).message); // t.txt line 2: not valid UTF-8 (save the file as UTF-8)
 * }
 * ```
 */
export function decodeNameLines(bytes: Uint8Array, where: string): string[] {
  // (ignoreBOM: a mark that starts a later line is part of that name, as in the other readers)
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const names: string[] = [];
  const splitter = new LineSplitter((buf, start, end, lineNo) => {
    if (end > start && buf[end - 1] === 13) end--; // CRLF
    try {
      names.push(decoder.decode(buf.subarray(start, end)));
    } catch {
      throw new TypeError(`${where} line ${lineNo}: not valid UTF-8 (save the file as UTF-8)`);
    }
  });
  splitter.push(startsWithBom(bytes) ? bytes.subarray(3) : bytes);
  splitter.end();
  return names;
}
