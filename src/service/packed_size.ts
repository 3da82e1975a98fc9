/**
 * Msgpack of a plain value into one array sized exactly beforehand: the checkpoint encoder's
 * writer. A checkpoint of a model with 10⁶ labels holds ~1.5 GB of tensors; msgpackr's `pack`
 * grows its buffer by doubling and the header was then prepended by another copy, so encoding
 * took up to three times the state's bytes at once (the scale benchmark's LEML at L = 10⁶ passed
 * 8 GiB of RSS). Sizing first makes it one allocation of the file's size and one copy of each
 * blob.
 *
 * @module
 */
import { MsgpackWriter } from "../format/msgpack_writer.ts";

/**
 * Bytes of `s` in UTF-8 (a lone surrogate counts 3, as `TextEncoder` writes U+FFFD for it).
 *
 * @example
 * ```ts
 * import { utf8Length } from "./packed_size.ts";
 * console.log(utf8Length("aé€😀"), new TextEncoder().encode("aé€😀").length); // 10 10
 * ```
 */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) n += 4, i++;
      else n += 3;
    } else n += 3;
  }
  return n;
}

/** Header bytes of a map or array of n entries (fix, 16-bit, 32-bit), as MsgpackWriter writes. */
const countHeader = (n: number) => n < 16 ? 1 : n < 0x10000 ? 3 : 5;

/** Bytes MsgpackWriter.number writes for `v`. */
function numberBytes(v: number): number {
  if (!Number.isSafeInteger(v) || Object.is(v, -0)) return 9;
  if (v >= 0) return v < 128 ? 1 : v < 0x100 ? 2 : v < 0x10000 ? 3 : v < 0x100000000 ? 5 : 9;
  return v >= -32 ? 1 : v >= -128 ? 2 : v >= -32768 ? 3 : v >= -2147483648 ? 5 : 9;
}

/** Defined entries of a plain object (undefined ones are left out, as JSON does). */
const entries = (o: Record<string, unknown>) =>
  Object.entries(o).filter(([, x]) => x !== undefined);

/**
 * The msgpack bytes {@linkcode packSized} writes for `v`.
 *
 * @throws {TypeError} for a value msgpack cannot hold here (a function, bigint, symbol, a typed
 * array other than Uint8Array), naming its path.
 *
 * @example
 * ```ts
 * import { packedSize } from "./packed_size.ts";
 * console.log(packedSize({ a: [1, "x"], b: new Uint8Array(3) })); // 17
 * ```
 */
export function packedSize(v: unknown): number {
  try {
    return sizeOf(v);
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    throw new TypeError(`Cannot pack value${e.at.reverse().join("")}: unsupported ${e.type} value`);
  }
}

/** Thrown by sizeOf for a value msgpack cannot hold here; each level adds its step to `at`. */
class Unsupported {
  readonly at: string[] = [];
  constructor(readonly type: string) {}
}

/** `e` with the step `at` added to its path when it is an {@linkcode Unsupported}. */
function step(e: unknown, at: string): unknown {
  if (e instanceof Unsupported) e.at.push(at);
  return e;
}

// the path is built only when a value is refused (a template string per array element made
// sizing 10⁶ label names several times slower)
function sizeOf(v: unknown): number {
  if (v === null || v === undefined || typeof v === "boolean") return 1;
  if (typeof v === "number") return numberBytes(v);
  if (typeof v === "string") {
    const n = utf8Length(v);
    return n + (n < 32 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);
  }
  if (v instanceof Uint8Array) return 5 + v.length;
  if (Array.isArray(v)) {
    let n = countHeader(v.length), i = 0;
    try {
      for (; i < v.length; i++) n += sizeOf(v[i]);
    } catch (e) {
      throw step(e, `[${i}]`);
    }
    return n;
  }
  if (typeof v === "object" && !ArrayBuffer.isView(v)) {
    const es = entries(v as Record<string, unknown>);
    let n = countHeader(es.length), key = "";
    try {
      for (const [k, x] of es) key = k, n += sizeOf(k) + sizeOf(x);
    } catch (e) {
      throw step(e, `.${key}`);
    }
    return n;
  }
  throw new Unsupported(typeof v);
}

const f64 = new Uint8Array(9), f64View = new DataView(f64.buffer);

/**
 * `v` (a string or a number) on its own: MsgpackWriter's `str` and `number` reserve their
 * worst case (5 + 3 bytes per code unit, 9 bytes) before writing, which within that distance of
 * the end of the exactly sized array would regrow it (twice the size, then a copy to trim it).
 */
function alone(v: string | number): Uint8Array {
  const w = new MsgpackWriter(typeof v === "string" ? 5 + 3 * v.length : 9);
  w.value(v);
  return w.finish();
}

function write(w: MsgpackWriter, v: unknown, end: number): void {
  if (typeof v === "string") {
    if (w.pos + 5 + 3 * v.length > end) w.raw(alone(v));
    else w.str(v);
  } else if (typeof v === "number" && (v >= 2 ** 32 || v < -(2 ** 31)) && Number.isSafeInteger(v)) {
    // integers beyond 32 bits as float64 (exact), as msgpackr's pack writes them: its default
    // decoder reads 64-bit integers as BigInts
    f64[0] = 0xcb;
    f64View.setFloat64(1, v);
    w.raw(f64);
  } else if (v instanceof Uint8Array) {
    w.bin32Header(v.length);
    w.raw(v);
  } else if (Array.isArray(v)) {
    w.arrayHeader(v.length);
    for (const x of v) write(w, x, end);
  } else if (v !== null && typeof v === "object") {
    const es = entries(v as Record<string, unknown>);
    w.mapHeader(es.length);
    for (const [k, x] of es) {
      write(w, k, end);
      write(w, x, end);
    }
  } else if (typeof v === "number" && w.pos + 9 > end) w.raw(alone(v));
  else w.value(v);
}

/**
 * Standard msgpack of `v` (objects, arrays, numbers, strings, booleans, null; Uint8Arrays as
 * bin) from byte `offset` of a new array of exactly `offset` + {@linkcode packedSize}(v) bytes
 * (the first `offset` bytes zero, for the caller's header): one allocation, never regrown.
 *
 * @throws {TypeError} as {@linkcode packedSize}.
 *
 * @example
 * ```ts
 * import { unpack } from "msgpackr/unpack";
 * import { packSized } from "./packed_size.ts";
 * const bytes = packSized({ a: [1, "x"], b: Uint8Array.of(7) }, 2);
 * console.log(bytes.length, unpack(bytes.subarray(2))); // 17 { a: [ 1, "x" ], b: Uint8Array(1) [ 7 ] }
 * ```
 */
export function packSized(v: unknown, offset = 0): Uint8Array {
  const size = offset + packedSize(v);
  const w = new MsgpackWriter(size);
  w.pos = offset;
  write(w, v, size);
  if (w.pos !== size) throw new Error(`packSized: wrote ${w.pos} bytes, sized ${size}`);
  return w.finish();
}
