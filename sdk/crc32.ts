/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as in zlib and PNG): the checksum that
 * ends every model file (docs/model-format.md). The one implementation in the project: the SDK's
 * reader, the trainer's writer (src/format) and the service's WAL and checkpoints use it.
 *
 * @module
 */

let crcTable: Uint32Array | undefined;

/**
 * 1 on a little-endian host (typed arrays read the file's little-endian tensors as they are),
 * else 0.
 *
 * @example
 * ```ts
 * import { LITTLE_ENDIAN } from "./crc32.ts";
 * console.log(LITTLE_ENDIAN); // 1
 * ```
 */
export const LITTLE_ENDIAN: number = new Uint8Array(Uint16Array.of(1).buffer)[0];

/**
 * CRC-32 of `b[start, end)`: slicing-by-16 over aligned 32-bit words on little-endian hosts (V8
 * unrolls the loop over the 4 words of a block), byte by byte elsewhere.
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
    // entry s·256 + n: the bit-wise CRC register after byte n and s zero bytes
    for (t = crcTable = new Uint32Array(4096); i < 4096; t[i++] = c) {
      c = i & 255;
      for (let k = (i >> 8) * 8 + 8; k--;) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
  }
  for (c = ~0, i = start; i < end;) {
    // byte by byte up to a 4-byte boundary and after the last 16-byte block
    if ((b.byteOffset + i) & 3 || end - i < 16 || !LITTLE_ENDIAN) {
      c = t[(c ^ b[i++]) & 255] ^ (c >>> 8);
      continue;
    }
    const w = new Uint32Array(b.buffer, b.byteOffset + i, (end - i) >>> 4 << 2);
    for (let p = 0; p < w.length;) {
      let x = 0;
      // the block's words: the first xor the register (d = c, then 0)
      for (let o = 3840, d = c; o > 0; o -= 1024, d = 0) {
        d ^= w[p++];
        x ^= t[o + (d & 255)] ^ t[o - 256 + ((d >>> 8) & 255)] ^
          t[o - 512 + ((d >>> 16) & 255)] ^ t[o - 768 + (d >>> 24)];
      }
      c = x;
    }
    i += w.length * 4;
  }
  return ~c >>> 0;
};
