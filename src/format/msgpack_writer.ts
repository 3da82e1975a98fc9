/**
 * A minimal msgpack writer that tracks its byte offset, so binary blobs can be placed at aligned
 * file offsets (see docs/model-format.md). Writes only core msgpack types (never extensions).
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Growable msgpack byte writer.
 *
 * @example
 * ```ts
 * import { MsgpackWriter } from "./msgpack_writer.ts";
 * const w = new MsgpackWriter();
 * w.mapHeader(1);
 * w.str("a");
 * w.value([1, "x", true, null, 2.5]);
 * console.log(w.finish().length); // 16
 * ```
 */
export class MsgpackWriter {
  private buf: Uint8Array;
  private view: DataView;
  /** Current write offset = number of bytes written so far. */
  pos = 0;

  constructor(initialCapacity = 4096) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  private ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  /** Writes one raw byte. */
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** Writes raw bytes. */
  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Writes a uint32 (0xce) in its fixed 5-byte form; returns the offset of its 4 data bytes. */
  uint32Fixed(v: number): number {
    this.ensure(5);
    this.buf[this.pos] = 0xce;
    this.view.setUint32(this.pos + 1, v >>> 0);
    this.pos += 5;
    return this.pos - 4;
  }

  /** Overwrites the 4 big-endian bytes at `at` (as returned by {@linkcode uint32Fixed}). */
  patchUint32(at: number, v: number): void {
    this.view.setUint32(at, v >>> 0);
  }

  /** Map header (fixmap, map16 or map32). */
  mapHeader(n: number): void {
    if (n < 16) this.byte(0x80 | n);
    else if (n < 0x10000) this.tagU16(0xde, n);
    else this.tagU32(0xdf, n);
  }

  /** Array header (fixarray, array16 or array32). */
  arrayHeader(n: number): void {
    if (n < 16) this.byte(0x90 | n);
    else if (n < 0x10000) this.tagU16(0xdc, n);
    else this.tagU32(0xdd, n);
  }

  /** bin32 header (always the 5-byte form, so blob offsets are easy to predict). */
  bin32Header(n: number): void {
    this.tagU32(0xc6, n);
  }

  private tagU16(tag: number, n: number): void {
    this.ensure(3);
    this.buf[this.pos] = tag;
    this.view.setUint16(this.pos + 1, n);
    this.pos += 3;
  }

  private tagU32(tag: number, n: number): void {
    this.ensure(5);
    this.buf[this.pos] = tag;
    this.view.setUint32(this.pos + 1, n);
    this.pos += 5;
  }

  /** A UTF-8 string (fixstr, str8, str16 or str32). */
  str(s: string): void {
    // a short ASCII string (label names, keys) byte by byte: calling the TextEncoder for each
    // made a checkpoint's 10⁶ label names 4 times slower to write than msgpackr's pack did
    if (s.length < 32) {
      this.ensure(1 + s.length);
      const b = this.buf, p = this.pos + 1;
      let i = 0;
      for (let c; i < s.length && (c = s.charCodeAt(i)) < 0x80; i++) b[p + i] = c;
      if (i === s.length) {
        b[p - 1] = 0xa0 | i;
        this.pos = p + i;
        return;
      }
    }
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    this.ensure(5 + s.length * 3);
    const start = this.pos + 5;
    const { written } = encoder.encodeInto(s, this.buf.subarray(start));
    const n = written;
    let h = 5;
    if (n < 32) h = 1;
    else if (n < 0x100) h = 2;
    else if (n < 0x10000) h = 3;
    if (h !== 5) this.buf.copyWithin(this.pos + h, start, start + n);
    const p = this.pos;
    if (h === 1) this.buf[p] = 0xa0 | n;
    else if (h === 2) {
      this.buf[p] = 0xd9;
      this.buf[p + 1] = n;
    } else if (h === 3) {
      this.buf[p] = 0xda;
      this.view.setUint16(p + 1, n);
    } else {
      this.buf[p] = 0xdb;
      this.view.setUint32(p + 1, n);
    }
    this.pos += h + n;
  }

  /** A number: the smallest integer form for safe integers, else float64. */
  number(v: number): void {
    this.ensure(9);
    const p = this.pos;
    const b = this.buf;
    if (Number.isSafeInteger(v) && !Object.is(v, -0)) {
      if (v >= 0) {
        if (v < 128) {
          b[p] = v;
          this.pos += 1;
        } else if (v < 0x100) {
          b[p] = 0xcc;
          b[p + 1] = v;
          this.pos += 2;
        } else if (v < 0x10000) {
          b[p] = 0xcd;
          this.view.setUint16(p + 1, v);
          this.pos += 3;
        } else if (v < 0x100000000) {
          b[p] = 0xce;
          this.view.setUint32(p + 1, v);
          this.pos += 5;
        } else {
          b[p] = 0xcf;
          this.view.setUint32(p + 1, Math.floor(v / 0x100000000));
          this.view.setUint32(p + 5, v >>> 0);
          this.pos += 9;
        }
      } else if (v >= -32) {
        b[p] = v & 0xff;
        this.pos += 1;
      } else if (v >= -128) {
        b[p] = 0xd0;
        this.view.setInt8(p + 1, v);
        this.pos += 2;
      } else if (v >= -32768) {
        b[p] = 0xd1;
        this.view.setInt16(p + 1, v);
        this.pos += 3;
      } else if (v >= -2147483648) {
        b[p] = 0xd2;
        this.view.setInt32(p + 1, v);
        this.pos += 5;
      } else {
        const hi = Math.floor(v / 0x100000000);
        b[p] = 0xd3;
        this.view.setInt32(p + 1, hi);
        this.view.setUint32(p + 5, (v - hi * 0x100000000) >>> 0);
        this.pos += 9;
      }
    } else {
      b[p] = 0xcb;
      this.view.setFloat64(p + 1, v);
      this.pos += 9;
    }
  }

  /**
   * Any JSON-like value: null/undefined (nil), boolean, number, string, array, typed array (as an
   * array of numbers), plain object (map; undefined members are skipped), objects with `toJSON`.
   */
  value(v: unknown, path = "value", depth = 0): void {
    if (depth > 64) throw new RangeError(`Cannot encode ${path}: nested more than 64 levels`);
    if (v === null || v === undefined) this.byte(0xc0);
    else if (typeof v === "boolean") this.byte(v ? 0xc3 : 0xc2);
    else if (typeof v === "number") this.number(v);
    else if (typeof v === "string") this.str(v);
    else if (Array.isArray(v)) {
      this.arrayHeader(v.length);
      for (let i = 0; i < v.length; i++) this.value(v[i], `${path}[${i}]`, depth + 1);
    } else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      const a = v as unknown as ArrayLike<number | bigint>;
      this.arrayHeader(a.length);
      for (let i = 0; i < a.length; i++) this.value(a[i], `${path}[${i}]`, depth + 1);
    } else if (typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (typeof o.toJSON === "function") return this.value(o.toJSON(), path, depth + 1);
      const keys = Object.keys(o).filter((k) => o[k] !== undefined);
      this.mapHeader(keys.length);
      for (const k of keys) {
        this.str(k);
        this.value(o[k], `${path}.${k}`, depth + 1);
      }
    } else {
      throw new TypeError(`Cannot encode ${path}: unsupported ${typeof v} value`);
    }
  }

  /**
   * Writes two map entries: `padKey` → a bin of 0..align-1 zero bytes, then `key` → bin32 of
   * `data`, such that `data` starts at a multiple of `align` from the start of the output.
   * Returns the offset of the data.
   */
  alignedBin(padKey: string, key: string, data: Uint8Array, align = 8): number {
    this.str(padKey);
    const keyLen = new TextEncoder().encode(key).length;
    if (keyLen >= 32) throw new RangeError(`alignedBin: key "${key}" is too long`);
    // pad entry: 2-byte bin8 header + n bytes; then key (1 + keyLen) and bin32 header (5).
    const after = this.pos + 2 + 1 + keyLen + 5;
    const n = (align - (after % align)) % align;
    this.ensure(2 + n);
    this.buf[this.pos] = 0xc4;
    this.buf[this.pos + 1] = n;
    this.buf.fill(0, this.pos + 2, this.pos + 2 + n);
    this.pos += 2 + n;
    this.str(key);
    this.bin32Header(data.length);
    const at = this.pos;
    this.raw(data);
    return at;
  }

  /**
   * The bytes written, as an exactly sized array whose buffer starts at offset 0: the writer's
   * own array when it is full (no copy: write nothing more), else a copy.
   */
  finish(): Uint8Array {
    return this.pos === this.buf.length ? this.buf : this.buf.slice(0, this.pos);
  }
}
