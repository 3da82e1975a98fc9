/**
 * Durable checkpoints: msgpack encoding of plain objects holding typed arrays, and atomic file
 * replacement (write a temporary file, fsync it, rename it over the target, fsync the directory).
 *
 * File format 2: a 16-byte header — the magic `TSCKPT02`, the payload length (u32 LE) and the
 * payload's CRC-32 (u32 LE) — then the msgpack payload. {@linkcode decodeCheckpoint} verifies
 * both and throws a {@linkcode CheckpointDamageError} naming the offset on a mismatch. Format 1
 * (the bare msgpack payload, written before checksums) is still read, unverified
 * ({@linkcode checkpointFormat} tells them apart), and is rewritten in format 2 by the next
 * checkpoint.
 *
 * @module
 */
import { namedWriteError } from "./named_write_error.ts";
import { unpack } from "msgpackr/unpack";
import { packSized } from "./packed_size.ts";
import { crc32 } from "../format/crc32.ts";
import { writeAllChecked } from "./storage_faults.ts";

const MAGIC = "TSCKPT02";
const HEADER_BYTES = 16;

/**
 * A checkpoint whose bytes do not match its checksum or length: the offset and what is wrong.
 *
 * @example
 * ```ts
 * import { CheckpointDamageError } from "./checkpoint.ts";
 * const e = new CheckpointDamageError(16, "payload checksum mismatch");
 * console.log(e.offset); // 16
 * ```
 */
export class CheckpointDamageError extends SyntaxError {
  /** Byte offset of the damaged part. */
  readonly offset: number;

  constructor(offset: number, reason: string) {
    super(`checkpoint is damaged at byte ${offset}: ${reason}`);
    this.name = "CheckpointDamageError";
    this.offset = offset;
  }
}

/**
 * The format of checkpoint bytes: 2 (checksummed) or 1 (bare msgpack, older versions).
 *
 * @example
 * ```ts
 * import { checkpointFormat, encodeCheckpoint } from "./checkpoint.ts";
 * console.log(checkpointFormat(encodeCheckpoint({ a: 1 }))); // 2
 * ```
 */
export function checkpointFormat(bytes: Uint8Array): 1 | 2 {
  if (bytes.length < 8) return 1;
  for (let i = 0; i < 8; i++) if (bytes[i] !== MAGIC.charCodeAt(i)) return 1;
  return 2;
}

type AnyTyped =
  | Float32Array
  | Float64Array
  | Int32Array
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Uint32Array
  | Int16Array;

const CTORS = {
  f32: Float32Array,
  f64: Float64Array,
  i32: Int32Array,
  u8: Uint8Array,
  i8: Int8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  i16: Int16Array,
} as const;
type Dtype = keyof typeof CTORS;

function dtypeOf(v: unknown): Dtype | undefined {
  if (v instanceof Float32Array) return "f32";
  if (v instanceof Float64Array) return "f64";
  if (v instanceof Int32Array) return "i32";
  if (v instanceof Uint8Array) return "u8";
  if (v instanceof Int8Array) return "i8";
  if (v instanceof Uint16Array) return "u16";
  if (v instanceof Uint32Array) return "u32";
  if (v instanceof Int16Array) return "i16";
  return undefined;
}

const TAG = "__typed";

function toPlain(v: unknown): unknown {
  const dt = dtypeOf(v);
  if (dt !== undefined) {
    const a = v as AnyTyped;
    return { [TAG]: dt, bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength) };
  }
  if (Array.isArray(v)) return v.map(toPlain);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (x !== undefined) out[k] = toPlain(x);
    }
    return out;
  }
  return v;
}

function fromPlain(v: unknown): unknown {
  if (v instanceof Uint8Array) return new Uint8Array(v);
  if (Array.isArray(v)) return v.map(fromPlain);
  if (v !== null && typeof v === "object") {
    const r = v as Record<string, unknown>;
    if (typeof r[TAG] === "string" && r.bytes instanceof Uint8Array) {
      const ctor = CTORS[r[TAG] as Dtype];
      if (ctor === undefined) throw new TypeError(`checkpoint: unknown typed array '${r[TAG]}'`);
      const bytes = r.bytes;
      if (bytes.byteLength % ctor.BYTES_PER_ELEMENT !== 0) {
        throw new RangeError(
          `checkpoint: ${r[TAG]} blob of ${bytes.byteLength} bytes is truncated`,
        );
      }
      const buf = new ArrayBuffer(bytes.byteLength);
      new Uint8Array(buf).set(bytes);
      return new ctor(buf);
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(r)) out[k] = fromPlain(x);
    return out;
  }
  return v;
}

/**
 * Encodes a plain object (nested objects, arrays, numbers, strings and typed arrays) with msgpack;
 * typed arrays become tagged little-endian byte blobs.
 *
 * @example
 * ```ts
 * import { decodeCheckpoint, encodeCheckpoint } from "./checkpoint.ts";
 * const back = decodeCheckpoint(encodeCheckpoint({ w: Float32Array.of(1.5, -2), n: 3 })) as {
 *   w: Float32Array;
 *   n: number;
 * };
 * console.log(back.w instanceof Float32Array, back.w[1], back.n); // true -2 3
 * ```
 */
export function encodeCheckpoint(obj: unknown): Uint8Array {
  // the payload written after the header's room in one exactly sized array (packed_size.ts)
  const out = packSized(toPlain(obj), HEADER_BYTES);
  for (let i = 0; i < 8; i++) out[i] = MAGIC.charCodeAt(i);
  const v = new DataView(out.buffer);
  v.setUint32(8, out.length - HEADER_BYTES, true);
  v.setUint32(12, crc32(out, HEADER_BYTES, out.length), true);
  return out;
}

/**
 * Decodes {@linkcode encodeCheckpoint} output (typed arrays are fresh, aligned copies), after
 * checking its length and checksum ({@linkcode CheckpointDamageError} on a mismatch). Bytes
 * without the header (format 1) are decoded unverified.
 *
 * @example
 * ```ts
 * import { decodeCheckpoint, encodeCheckpoint } from "./checkpoint.ts";
 * console.log(decodeCheckpoint(encodeCheckpoint({ a: [1, "x"] }))); // { a: [ 1, "x" ] }
 * ```
 */
export function decodeCheckpoint(bytes: Uint8Array): unknown {
  let payload = bytes;
  if (checkpointFormat(bytes) === 2) {
    if (bytes.length < HEADER_BYTES) {
      throw new CheckpointDamageError(bytes.length, "the header is cut short");
    }
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const length = v.getUint32(8, true), stored = v.getUint32(12, true);
    if (length !== bytes.length - HEADER_BYTES) {
      throw new CheckpointDamageError(
        Math.min(bytes.length, HEADER_BYTES + length),
        `the header says ${length} payload bytes, the file holds ${bytes.length - HEADER_BYTES}`,
      );
    }
    const computed = crc32(bytes, HEADER_BYTES, bytes.length);
    if (computed !== stored) {
      throw new CheckpointDamageError(
        HEADER_BYTES,
        `payload checksum mismatch (stored ${stored.toString(16).padStart(8, "0")}, computed ${
          computed.toString(16).padStart(8, "0")
        }) over bytes [${HEADER_BYTES}, ${bytes.length})`,
      );
    }
    payload = bytes.subarray(HEADER_BYTES);
  }
  let raw: unknown;
  try {
    raw = unpack(payload);
  } catch (e) {
    // (bytes without the header that are not msgpack either, such as a text file, were
    // reported only by the decoder's "Data read, but end of buffer not reached 103")
    const what = payload === bytes
      ? `no "${MAGIC}" header, and not an older (format 1) msgpack checkpoint either: `
      : "";
    throw new SyntaxError(
      `Cannot decode checkpoint (${bytes.length} bytes): ${what}${(e as Error).message}`,
    );
  }
  return fromPlain(raw);
}

function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "." : i === 0 ? "/" : path.slice(0, i);
}

/**
 * Replaces `path` atomically: writes `path.tmp`, fsyncs it, renames it over `path`, fsyncs the
 * directory. After it resolves the new content survives a crash; before, the old one does. When
 * it fails (a full disk, `path` a directory) it removes `path.tmp` and leaves `path` as it was.
 *
 * @example
 * ```ts
 * import { writeFileAtomic } from "./checkpoint.ts";
 * const dir = await Deno.makeTempDir();
 * await writeFileAtomic(`${dir}/a.bin`, Uint8Array.of(1, 2, 3));
 * console.log((await Deno.readFile(`${dir}/a.bin`)).length); // 3
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${path}.tmp`;
  const f = await Deno.open(tmp, { write: true, create: true, truncate: true });
  try {
    await writeAllChecked(f, tmp, bytes);
    await f.sync();
  } catch (e) {
    // a full disk: do not leave the partial temporary file taking space
    f.close();
    await Deno.remove(tmp).catch(() => {});
    throw namedWriteError(e, tmp);
  }
  f.close();
  try {
    await Deno.rename(tmp, path);
  } catch (e) {
    // e.g. `path` is a directory: the temporary file must not stay behind
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  try {
    const d = await Deno.open(dirOf(path), { read: true });
    try {
      await d.sync();
    } finally {
      d.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename itself is still atomic.
  }
}

/**
 * Reads a file, or undefined when it does not exist.
 *
 * @example
 * ```ts
 * import { readFileIfExists } from "./checkpoint.ts";
 * console.log(await readFileIfExists("/nonexistent/tagstream/file")); // undefined
 * ```
 */
export async function readFileIfExists(path: string): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}
