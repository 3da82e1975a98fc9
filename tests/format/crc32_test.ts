/**
 * Both CRC-32s — the SDK's portable one (sdk/crc32.ts: slicing-by-4; the reader's check of the
 * model file's checksum) and the trainer's (src/format/crc32.ts: native zlib; the model files it
 * writes, the WAL's and the checkpoints') — equal a plain bit-by-bit CRC-32 on the standard check
 * value and on random buffers of every length up to 100 bytes and larger ones, at every address
 * alignment and sub-range; so they equal each other.
 */
import { crc32 as sdkCrc32 } from "../../sdk/internal.ts";
import { crc32 as trainerCrc32 } from "../../src/format/crc32.ts";
import { assert, mulberry32 } from "../sdk/helpers.ts";

/** The textbook CRC-32 (reflected 0xEDB88320), one bit at a time. */
function reference(b: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of b) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

for (const [name, crc32] of [["SDK", sdkCrc32], ["trainer", trainerCrc32]] as const) {
  Deno.test(`${name} CRC-32 of '123456789' is the standard check value 0xCBF43926`, () => {
    const b = new TextEncoder().encode("123456789");
    assert(reference(b) === 0xcbf43926, "reference");
    assert(crc32(b) === 0xcbf43926, `crc32 ${crc32(b).toString(16)}`);
    assert(crc32(b, 0, b.length) === 0xcbf43926, "explicit range");
    const empty = new Uint8Array(0);
    assert(crc32(empty) === 0 && crc32(b, 4, 4) === 0, "empty input");
  });

  Deno.test(`${name} CRC-32 equals the bit-by-bit reference on random buffers, lengths, alignments and sub-ranges`, () => {
    const rand = mulberry32(42);
    const pool = Uint8Array.from({ length: 70_000 }, () => rand() * 256);
    const lengths = [...Array.from({ length: 101 }, (_, n) => n), 255, 1023, 4096, 65_537];
    let checked = 0;
    for (const n of lengths) {
      for (let offset = 0; offset < 8; offset++) {
        const b = pool.subarray(offset, offset + n); // byteOffset 0..7: every alignment
        const want = reference(b);
        assert(crc32(b) === want, `length ${n}, offset ${offset}`);
        // a sub-range [start, end) of a larger view, as the readers, the WAL and checkpoints use it
        if (n > 2) {
          const start = 1 + Math.floor(rand() * (n - 2)),
            end = start + Math.floor(rand() * (n - start));
          assert(crc32(b, start, end) === reference(b.subarray(start, end)), `[${start}, ${end})`);
          assert(crc32(b, 0, end) === reference(b.subarray(0, end)), `[0, ${end}) of ${n}`);
        }
        checked++;
      }
    }
    assert(checked === lengths.length * 8, `${checked} cases`);
    // the result depends on every byte
    const b = pool.slice(0, 1000);
    const before = crc32(b);
    b[999] ^= 1;
    assert(crc32(b) !== before && crc32(b) === reference(b), "a flipped last bit");
  });
}
