/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as in zlib/PNG), slicing-by-8.
 *
 * @module
 */

let tables: Uint32Array | undefined;

function makeTables(): Uint32Array {
  const t = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n];
    for (let s = 1; s < 8; s++) {
      c = t[c & 0xff] ^ (c >>> 8);
      t[s * 256 + n] = c;
    }
  }
  return t;
}

/**
 * CRC-32 of `bytes[start, end)`.
 *
 * @example
 * ```ts
 * import { crc32 } from "./crc32.ts";
 * const crc = crc32(new TextEncoder().encode("123456789"));
 * console.log(crc.toString(16)); // "cbf43926"
 * ```
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = tables ??= makeTables();
  let c = ~0;
  let i = start;
  const end8 = end - 8;
  while (i <= end8) {
    c ^= bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    c = t[1792 + (c & 0xff)] ^ t[1536 + ((c >>> 8) & 0xff)] ^ t[1280 + ((c >>> 16) & 0xff)] ^
      t[1024 + (c >>> 24)] ^ t[768 + bytes[i + 4]] ^ t[512 + bytes[i + 5]] ^
      t[256 + bytes[i + 6]] ^ t[bytes[i + 7]];
    i += 8;
  }
  while (i < end) c = t[(c ^ bytes[i++]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
