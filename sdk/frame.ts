/**
 * The frame of a model file (docs/model-format.md), written down once for both sides of the
 * contract: the format version, the magic, the tensor element types, and the check of the fixed
 * header, the length and the trailing CRC-32 that every reader runs before decoding anything.
 *
 * @module
 */
import { crc32 } from "./crc32.ts";
import { enc } from "./features.ts";
import { formatError, type ModelFormatErrorReason } from "./errors.ts";
import { F32, F64, I32, max, U16, U8 } from "./vector.ts";

/**
 * The newest model-file format version: what this SDK reads and the trainer writes. Version 2
 * adds signed feature hashing (`featureSpace.signed`), version 3 text input (`featureSpace.text`,
 * the tokenizer settings), version 4 the `knn-embedding` vote power (param `votePower`). A file is written with the lowest version that holds its content, so
 * readers of version 1 keep reading every file they can read correctly and reject the others as
 * `newer-version`.
 *
 * @example
 * ```ts
 * import { FORMAT_VERSION } from "./frame.ts";
 * console.log(FORMAT_VERSION); // 4
 * ```
 */
export const FORMAT_VERSION = 4;

/**
 * The value of the `magic` field, the first entry of every model file.
 *
 * @example
 * ```ts
 * import { MAGIC } from "./frame.ts";
 * console.log(MAGIC); // "TAGSTREAM"
 * ```
 */
export const MAGIC = "TAGSTREAM";

/**
 * True on a little-endian host: typed arrays then read the file's little-endian tensors as they
 * are (the SDK refuses other hosts; the trainer's reader and writer swap bytes there).
 *
 * @example
 * ```ts
 * import { LITTLE_ENDIAN } from "./frame.ts";
 * console.log(LITTLE_ENDIAN); // true
 * ```
 */
export const LITTLE_ENDIAN: boolean = new U8(U16.of(1).buffer)[0] === 1;

/**
 * The typed array of each tensor element type as stored (`f16` as raw bits in a `Uint16Array`).
 *
 * @example
 * ```ts
 * import { TENSOR_ARRAYS } from "./frame.ts";
 * console.log(TENSOR_ARRAYS.f16.name, TENSOR_ARRAYS.i8.BYTES_PER_ELEMENT); // Uint16Array 1
 * ```
 */
export const TENSOR_ARRAYS = {
  f32: F32,
  f64: F64,
  i32: I32,
  u8: U8,
  i8: Int8Array,
  f16: U16,
  u16: U16,
} as const;

/**
 * The most `numFeatures` and `numLabels` a file of `byteLength` bytes may declare: 2²⁴, or the
 * file's length in bytes when greater (a tensor with a row per feature or label, or `labelNames`,
 * holds at least one byte a row). Readers size per-label and per-feature scratch by them: a
 * 500-byte file declaring 2³⁰ labels made the trainer's kNN predictor use 12.6 GB per query.
 *
 * @example
 * ```ts
 * import { maxDimension } from "./frame.ts";
 * console.log(maxDimension(100), maxDimension(2 ** 25)); // 16777216 33554432
 * ```
 */
export const maxDimension = (byteLength: number): number => max(2 ** 24, byteLength);

/**
 * Checks the frame of a model file and returns its format version. The header has a fixed
 * layout: a map tag, "magic": "TAGSTREAM", "formatVersion": a positive fixint, "byteLength": a
 * uint32 (0xce), so a reader knows the version without decoding the rest, which later versions
 * may change. Then the length, and the trailing "crc32" entry: the CRC-32 of every byte before it.
 *
 * @throws {ModelFormatError} `bad-magic`, `truncated`, `newer-version` or `corrupt`, with the
 * byte offset of the problem.
 *
 * @example
 * ```ts
 * import { checkFrame } from "./frame.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v2/linear-sparse-signed-hashing.tsm", import.meta.url));
 * console.log(checkFrame(file)); // 2
 * try {
 *   checkFrame(file.subarray(0, 40));
 * } catch (e) {
 *   console.log((e as Error).name, (e as { reason: string }).reason); // ModelFormatError truncated
 * }
 * ```
 */
export const checkFrame = (bytes: Uint8Array): number => {
  const len = bytes.length, notModel = "not a Tagstream model file";
  const badVersion = "bad formatVersion", noCrc = "no crc32 entry";
  const corrupt = "corrupt", badMagic = "bad-magic", truncated = "truncated";
  let version = 0, pos = 0;
  const fail = (reason: ModelFormatErrorReason, detail: string, offset = pos) =>
    formatError(reason, detail, version, offset);
  const cut = (need: number) => pos + need > len && fail(truncated, "ends in the header", len);
  /** The uint32 (big-endian) at `pos`, then past it. */
  const u32 = () => {
    cut(4);
    return (bytes[pos++] << 24 | bytes[pos++] << 16 | bytes[pos++] << 8 | bytes[pos++]) >>> 0;
  };
  /** The key `s` (a fixstr), then the `tag` bytes. */
  const expect = (s: string, reason: ModelFormatErrorReason, detail: string, ...tag: number[]) => {
    for (const c of [0xa0 + s.length, ...enc.encode(s), ...tag]) {
      cut(1);
      if (bytes[pos] !== c) fail(reason, detail);
      pos++;
    }
  };
  cut(1);
  const t = bytes[0];
  pos = t === 0xde ? 3 : t === 0xdf ? 5 : t >> 4 === 8 ? 1 : fail(badMagic, notModel);
  expect("magic", badMagic, notModel);
  expect(MAGIC, badMagic, notModel);
  expect("formatVersion", corrupt, badVersion);
  cut(1);
  const v = bytes[pos];
  if (!v || v > 127) fail(corrupt, badVersion);
  version = v;
  if (v > FORMAT_VERSION) {
    fail("newer-version", `format version ${v} is newer than ${FORMAT_VERSION}`);
  }
  pos++;
  expect("byteLength", corrupt, "bad byteLength", 0xce);
  const size = u32();
  if (len < size) fail(truncated, `has ${len} of its ${size} bytes`, len);
  if (len > size) fail(corrupt, "trailing bytes", size);
  if (len - 11 < pos) fail(corrupt, noCrc);
  pos = len - 11;
  expect("crc32", corrupt, noCrc, 0xce);
  if (u32() !== crc32(bytes, 0, len - 11)) fail(corrupt, "CRC-32 mismatch", len - 4);
  return version;
};
