/**
 * A strict, bounded msgpack reader for model files (the trainer's reader, `decodeModelFile` of
 * ./model_file.ts; the serving reader uses msgpackr's decoder, see ./decode.ts): core types only (extension types are
 * rejected), string map keys, no duplicate keys, a nesting limit, and length checks before any
 * allocation, so malformed input fails fast with a {@linkcode ModelFormatError}. `bin` values
 * are returned as zero-copy `Uint8Array` views into the input.
 *
 * @module
 */
import { ModelFormatError } from "./errors.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * A decoded msgpack value.
 *
 * @example
 * ```ts
 * import type { MsgpackValue } from "./msgpack_reader.ts";
 * const v: MsgpackValue = { a: [1, true, null] };
 * console.log(JSON.stringify(v)); // {"a":[1,true,null]}
 * ```
 */
export type MsgpackValue =
  | null
  | boolean
  | number
  | string
  | Uint8Array
  | MsgpackValue[]
  | { [key: string]: MsgpackValue };

/**
 * Reads msgpack values from `bytes[pos, end)`.
 *
 * @example
 * ```ts
 * import { MsgpackReader } from "./msgpack_reader.ts";
 * const r = new MsgpackReader(Uint8Array.of(0x81, 0xa1, 0x61, 0x93, 1, 0xc3, 0xc0));
 * console.log(r.value()); // { a: [ 1, true, null ] }
 * ```
 */
export class MsgpackReader {
  /** The input. */
  readonly bytes: Uint8Array;
  /** A big-endian view of the input. */
  readonly view: DataView;
  /** Offset of the next value. */
  pos: number;
  /** End of the readable range. */
  readonly end: number;
  /** Format version reported in errors. */
  formatVersion: number;
  /** A reader of `bytes[pos, end)` that reports errors with `formatVersion`. */
  constructor(bytes: Uint8Array, pos = 0, end = bytes.length, formatVersion = 0) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = pos;
    this.end = end;
    this.formatVersion = formatVersion;
  }

  /** Throws a `corrupt` ModelFormatError at the current offset (or `at`). */
  fail(detail: string, at = this.pos): never {
    throw new ModelFormatError("corrupt", detail, {
      offset: at,
      formatVersion: this.formatVersion,
    });
  }

  private need(n: number): void {
    if (n > this.end - this.pos) {
      this.fail(`msgpack value needs ${n} bytes but only ${this.end - this.pos} remain`);
    }
  }

  private u8(): number {
    this.need(1);
    return this.bytes[this.pos++];
  }

  private u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  private u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  /** Reads one value of any core type. */
  value(depth = 0): MsgpackValue {
    if (depth > 32) this.fail("msgpack nesting deeper than 32 levels");
    const at = this.pos;
    const t = this.u8();
    if (t < 0x80) return t;
    if (t >= 0xe0) return t - 0x100;
    if (t < 0x90) return this.map(t & 0x0f, depth);
    if (t < 0xa0) return this.array(t & 0x0f, depth);
    if (t < 0xc0) return this.strBody(t & 0x1f);
    const v = this.view;
    let r: number;
    switch (t) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4:
        return this.binBody(this.u8());
      case 0xc5:
        return this.binBody(this.u16());
      case 0xc6:
        return this.binBody(this.u32());
      case 0xca:
        this.need(4);
        r = v.getFloat32(this.pos);
        this.pos += 4;
        return r;
      case 0xcb:
        this.need(8);
        r = v.getFloat64(this.pos);
        this.pos += 8;
        return r;
      case 0xcc:
        return this.u8();
      case 0xcd:
        return this.u16();
      case 0xce:
        return this.u32();
      case 0xcf: {
        const hi = this.u32();
        const lo = this.u32();
        r = hi * 0x100000000 + lo;
        if (!Number.isSafeInteger(r)) this.fail("uint64 value beyond 2^53", at);
        return r;
      }
      case 0xd0:
        this.need(1);
        return v.getInt8(this.pos++);
      case 0xd1:
        this.need(2);
        r = v.getInt16(this.pos);
        this.pos += 2;
        return r;
      case 0xd2:
        this.need(4);
        r = v.getInt32(this.pos);
        this.pos += 4;
        return r;
      case 0xd3: {
        this.need(8);
        const hi = v.getInt32(this.pos);
        const lo = v.getUint32(this.pos + 4);
        this.pos += 8;
        r = hi * 0x100000000 + lo;
        if (!Number.isSafeInteger(r)) this.fail("int64 value beyond 2^53", at);
        return r;
      }
      case 0xd9:
        return this.strBody(this.u8());
      case 0xda:
        return this.strBody(this.u16());
      case 0xdb:
        return this.strBody(this.u32());
      case 0xdc:
        return this.array(this.u16(), depth);
      case 0xdd:
        return this.array(this.u32(), depth);
      case 0xde:
        return this.map(this.u16(), depth);
      case 0xdf:
        return this.map(this.u32(), depth);
      default:
        return this.fail(
          `msgpack type 0x${t.toString(16)} is not allowed (extension or reserved)`,
          at,
        );
    }
  }

  /** Reads a string value (any str form). */
  string(): string {
    const at = this.pos;
    const t = this.u8();
    if (t >= 0xa0 && t < 0xc0) return this.strBody(t & 0x1f);
    if (t === 0xd9) return this.strBody(this.u8());
    if (t === 0xda) return this.strBody(this.u16());
    if (t === 0xdb) return this.strBody(this.u32());
    return this.fail("expected a msgpack string", at);
  }

  private strBody(n: number): string {
    this.need(n);
    const at = this.pos;
    this.pos += n;
    if (n === 0) return "";
    try {
      return decoder.decode(this.bytes.subarray(at, at + n));
    } catch {
      return this.fail("string is not valid UTF-8", at);
    }
  }

  private binBody(n: number): Uint8Array {
    this.need(n);
    const at = this.pos;
    this.pos += n;
    return this.bytes.subarray(at, at + n);
  }

  private array(n: number, depth: number): MsgpackValue[] {
    this.need(n); // every element takes at least one byte
    const out = new Array<MsgpackValue>(n);
    for (let i = 0; i < n; i++) out[i] = this.value(depth + 1);
    return out;
  }

  private map(n: number, depth: number): { [key: string]: MsgpackValue } {
    this.need(2 * n);
    const out: { [key: string]: MsgpackValue } = {};
    for (let i = 0; i < n; i++) {
      const at = this.pos;
      const key = this.string();
      if (Object.prototype.hasOwnProperty.call(out, key)) {
        this.fail(`duplicate map key "${key}"`, at);
      }
      Object.defineProperty(out, key, {
        value: this.value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
}
