/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as in zlib/PNG), slicing-by-16: 16 bytes
 * per step through 16 lookup tables, read as four aligned 32-bit words on little-endian hosts.
 * The SDK has its own copy (sdk/decode.ts); tests check both against a bit-by-bit reference.
 *
 * @module
 */

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
let tables: Uint32Array | undefined;

/** Table s (entries s·256 … s·256 + 255): the CRC register after byte n and s zero bytes. */
function makeTables(): Uint32Array {
  const t = new Uint32Array(16 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let i = 256; i < t.length; i++) {
    const c = t[i - 256];
    t[i] = t[c & 0xff] ^ (c >>> 8);
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
  let c = ~0, i = start;
  // bytes one at a time up to a 4-byte address boundary
  while (i < end && (bytes.byteOffset + i) & 3) c = t[(c ^ bytes[i++]) & 0xff] ^ (c >>> 8);
  if (LITTLE_ENDIAN && end - i >= 16) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (end - i) >>> 4 << 2);
    for (let p = 0; p < words.length; p += 4) {
      const a = c ^ words[p], b = words[p + 1], d = words[p + 2], e = words[p + 3];
      c = t[3840 + (a & 0xff)] ^ t[3584 + ((a >>> 8) & 0xff)] ^ t[3328 + ((a >>> 16) & 0xff)] ^
        t[3072 + (a >>> 24)] ^ t[2816 + (b & 0xff)] ^ t[2560 + ((b >>> 8) & 0xff)] ^
        t[2304 + ((b >>> 16) & 0xff)] ^ t[2048 + (b >>> 24)] ^ t[1792 + (d & 0xff)] ^
        t[1536 + ((d >>> 8) & 0xff)] ^ t[1280 + ((d >>> 16) & 0xff)] ^ t[1024 + (d >>> 24)] ^
        t[768 + (e & 0xff)] ^ t[512 + ((e >>> 8) & 0xff)] ^ t[256 + ((e >>> 16) & 0xff)] ^
        t[e >>> 24];
    }
    i += words.length * 4;
  }
  while (i < end) c = t[(c ^ bytes[i++]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
