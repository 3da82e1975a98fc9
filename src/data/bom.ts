/**
 * The UTF-8 byte-order mark (EF BB BF): meaningful only as the first bytes of an input (a file, a
 * request body), where the readers drop it; anywhere else it is data.
 *
 * @module
 */

/**
 * Whether `buf[start, end)` begins with the UTF-8 byte-order mark `EF BB BF`.
 *
 * @example
 * ```ts
 * import { startsWithBom } from "./bom.ts";
 * const b = Uint8Array.of(0xef, 0xbb, 0xbf, 0x7b);
 * console.log(startsWithBom(b), startsWithBom(b, 1)); // true false
 * ```
 */
export function startsWithBom(buf: Uint8Array, start = 0, end = buf.length): boolean {
  return end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb &&
    buf[start + 2] === 0xbf;
}
