/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as in zlib and PNG): the checksum that
 * ends every model file (docs/model-format.md), as the SDK's reader checks it with Web APIs only.
 * The trainer computes the same values with the runtime's native zlib (src/format/crc32.ts: the
 * model files it writes, the service's WAL and checkpoints); tests check that the two agree.
 *
 * @module
 */

let crcTable: Uint32Array | undefined;

/**
 * CRC-32 of `b[start, end)`: slicing-by-4, the 4 bytes of a step read one by one (so any
 * alignment and either byte order), then byte by byte for the last 0-3. 25 MiB take ~20 ms
 * (slicing-by-8 took ~13 ms in 62 more bytes of SDK code, which now pay for the SDK's check of
 * finite query values; the SDK's 25 MiB load stays well inside its 50 ms budget).
 *
 * @example
 * ```ts
 * import { crc32 } from "./crc32.ts";
 * const bytes = new TextEncoder().encode("123456789");
 * console.log(crc32(bytes).toString(16)); // "cbf43926"
 * console.log(crc32(bytes, 0, 9) === crc32(bytes.subarray(0, 9))); // true
 * ```
 */
export const crc32 = (b: Uint8Array, start = 0, end: number = b.length): number => {
  let t = crcTable, c = 0, i = 0;
  if (!t) {
    // entry s·256 + n (s < 4): the bit-wise CRC register after byte n and s zero bytes
    for (t = crcTable = new Uint32Array(1024); i < 1024; t[i++] = c) {
      c = i & 255;
      for (let k = (i >> 8) * 8 + 8; k--;) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
  }
  for (c = ~0, i = start; i < end;) {
    if (end - i < 4) c = t[(c ^ b[i++]) & 255] ^ (c >>> 8);
    else {
      // the 4 bytes xor the register, then each through table 3 − j
      c ^= b[i++] | b[i++] << 8 | b[i++] << 16 | b[i++] << 24;
      c = t[768 + (c & 255)] ^ t[512 + ((c >>> 8) & 255)] ^ t[256 + ((c >>> 16) & 255)] ^
        t[c >>> 24];
    }
  }
  return ~c >>> 0;
};
