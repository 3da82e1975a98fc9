/**
 * Durable checkpoints: msgpack encoding of plain objects holding typed arrays, and atomic file
 * replacement (write a temporary file, fsync it, rename it over the target, fsync the directory).
 *
 * @module
 */
import { pack, unpack } from "msgpackr/pack";

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
  return pack(toPlain(obj));
}

/**
 * Decodes {@linkcode encodeCheckpoint} output (typed arrays are fresh, aligned copies).
 *
 * @example
 * ```ts
 * import { decodeCheckpoint, encodeCheckpoint } from "./checkpoint.ts";
 * console.log(decodeCheckpoint(encodeCheckpoint({ a: [1, "x"] }))); // { a: [ 1, "x" ] }
 * ```
 */
export function decodeCheckpoint(bytes: Uint8Array): unknown {
  let raw: unknown;
  try {
    raw = unpack(bytes);
  } catch (e) {
    throw new SyntaxError(
      `Cannot decode checkpoint (${bytes.length} bytes): ${(e as Error).message}`,
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
 * directory. After it resolves the new content survives a crash; before, the old one does.
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
    let off = 0;
    while (off < bytes.length) off += await f.write(bytes.subarray(off));
    await f.sync();
  } finally {
    f.close();
  }
  await Deno.rename(tmp, path);
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
