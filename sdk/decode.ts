/**
 * The SDK's model-file reader (format versions 1 to 3, docs/model-format.md): checks the fixed-layout
 * header, the length and the CRC-32 with the same rules as src/format (same reasons and offsets),
 * decodes the map with msgpackr's decoder alone (`Unpackr` from `msgpackr/unpack`, so bundles
 * leave out the encoder), validates the fields it uses, and gives tensors as typed arrays: aligned
 * f32, i32, u16 and u8 tensors are zero-copy views into the file bytes; f16, i8 and f64 tensors
 * are converted to float32 once.
 *
 * @module
 */
import { Unpackr } from "msgpackr/unpack";
import { ModelFormatError, type ModelFormatErrorReason } from "./errors.ts";
import { enc } from "./features.ts";
import { KINDS } from "./kinds/mod.ts";
import { textSettingsError } from "./tokenizer.ts";
import type { DecodedModel, SdkTensor } from "./kinds/types.ts";

/**
 * The newest model-file format version this SDK reads (2: signed feature hashing; 3: text
 * input, `featureSpace.text`).
 *
 * @example
 * ```ts
 * import { FORMAT_VERSION } from "./decode.ts";
 * console.log(FORMAT_VERSION); // 3
 * ```
 */
export const FORMAT_VERSION = 3;

const NOT_A_MODEL = "not a Tagstream model file";
// maps decode as objects (the default without records); 64-bit integers as numbers
const unpackr = new Unpackr({ useRecords: false, int64AsType: "number" });
type Typed = typeof Float32Array | typeof Float64Array | typeof Int32Array | typeof Uint16Array;
const TYPES: Record<string, Typed | typeof Uint8Array | typeof Int8Array> = {
  f32: Float32Array,
  f64: Float64Array,
  i32: Int32Array,
  u8: Uint8Array,
  i8: Int8Array,
  f16: Uint16Array,
  u16: Uint16Array,
};

let crcTable: Uint32Array | undefined;
let halfTable: Float32Array | undefined;

/**
 * CRC-32 (IEEE, as zlib) of `b[0, end)` on a little-endian host: slicing-by-16 over aligned
 * 32-bit words (V8 unrolls the loop over the 4 words of a block). The copy of
 * src/format/crc32.ts; tests check both against a bit-by-bit reference.
 *
 * @example
 * ```ts
 * import { crc32 } from "./decode.ts";
 * const bytes = new TextEncoder().encode("123456789");
 * console.log(crc32(bytes, bytes.length).toString(16)); // "cbf43926"
 * ```
 */
export function crc32(b: Uint8Array, end: number): number {
  let t = crcTable, c = 0, i = 0;
  if (!t) {
    // entry s·256 + n: the bit-wise CRC register after byte n and s zero bytes
    for (t = crcTable = new Uint32Array(4096); i < 4096; t[i++] = c) {
      c = i & 255;
      for (let k = (i >> 8) * 8 + 8; k--;) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
    i = 0;
  }
  for (c = ~0; i < end;) {
    // byte by byte up to a 4-byte boundary and after the last 16-byte block
    if ((b.byteOffset + i) & 3 || end - i < 16) {
      c = t[(c ^ b[i++]) & 255] ^ (c >>> 8);
      continue;
    }
    const w = new Uint32Array(b.buffer, b.byteOffset + i, (end - i) >>> 4 << 2);
    for (let p = 0; p < w.length;) {
      let x = 0;
      for (let o = 3840; o > 0; o -= 1024) {
        const d = o === 3840 ? c ^ w[p++] : w[p++];
        x ^= t[o + (d & 255)] ^ t[o - 256 + ((d >>> 8) & 255)] ^
          t[o - 512 + ((d >>> 16) & 255)] ^ t[o - 768 + (d >>> 24)];
      }
      c = x;
    }
    i += w.length * 4;
  }
  return ~c >>> 0;
}

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** The float32 value of every float16 bit pattern. */
function halfFloats(): Float32Array {
  const tab = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const e = (h >> 10) & 31, m = h & 1023;
    tab[h] = (h >> 15 ? -1 : 1) *
      (e > 30 ? m ? NaN : Infinity : ((e && 1024) + m) * 2 ** ((e || 1) - 25));
  }
  return tab;
}

/** A typed-array view of a bin (zero-copy when aligned, else a copy). */
function view(C: Typed | typeof Uint8Array | typeof Int8Array, bin: Uint8Array) {
  const size = C.BYTES_PER_ELEMENT, src = bin.byteOffset % size ? bin.slice() : bin;
  return new C(src.buffer as ArrayBuffer, src.byteOffset, bin.length / size);
}

/**
 * Decodes and validates a model file.
 *
 * @throws {ModelFormatError} `bad-magic`, `truncated`, `newer-version`, `corrupt` or
 * `unsupported` (unknown dtype, big-endian host), with the byte offset of the problem.
 *
 * @example
 * ```ts
 * import { decodeModel } from "./decode.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-lowrank.tsm", import.meta.url));
 * const m = decodeModel(file);
 * console.log(m.kind, m.tensors.W.shape); // linear-lowrank [ 4, 2 ]
 * ```
 */
export function decodeModel(bytes: Uint8Array): DecodedModel {
  const len = bytes.length, badVersion = "bad formatVersion", noCrc = "no crc32";
  let version = 0, pos = 0;
  const fail = (reason: ModelFormatErrorReason, detail: string, offset = pos): never => {
    throw new ModelFormatError(reason, detail, { offset, formatVersion: version });
  };
  const check = (ok: unknown, detail: string, reason: ModelFormatErrorReason = "corrupt") =>
    ok || fail(reason, detail, 0);
  // typed-array views (and the CRC's 32-bit words) are little-endian
  check(new Uint8Array(Uint16Array.of(1).buffer)[0], "big-endian", "unsupported");

  // the frame, with the rules (reasons and offsets) of `checkFrame` in src/format/model_file.ts
  const cut = (need: number) => pos + need > len && fail("truncated", "ends in the header", len);
  const u32 = () => new DataView(bytes.buffer, bytes.byteOffset + pos).getUint32(0);
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
  pos = t === 0xde ? 3 : t === 0xdf ? 5 : t >> 4 === 8 ? 1 : fail("bad-magic", NOT_A_MODEL);
  expect("magic", "bad-magic", NOT_A_MODEL);
  expect("TAGSTREAM", "bad-magic", NOT_A_MODEL);
  expect("formatVersion", "corrupt", badVersion);
  cut(1);
  const v = bytes[pos];
  if (v < 1 || v > 127) fail("corrupt", badVersion);
  version = v;
  if (v > FORMAT_VERSION) {
    fail("newer-version", `format version ${v} is newer than ${FORMAT_VERSION}`);
  }
  pos++;
  expect("byteLength", "corrupt", "bad byteLength", 0xce);
  cut(4);
  const size = u32();
  pos += 4;
  if (len < size) fail("truncated", `${len} of ${size} bytes`, len);
  if (len > size) fail("corrupt", "trailing bytes", size);
  if (len - 11 < pos) fail("corrupt", noCrc);
  pos = len - 11;
  expect("crc32", "corrupt", noCrc, 0xce);
  if (u32() !== crc32(bytes, len - 11)) fail("corrupt", "CRC-32 mismatch");

  // the content
  let root: unknown;
  try {
    root = unpackr.unpack(bytes);
  } catch (e) {
    check(0, `msgpack: ${(e as Error)?.message}`);
  }
  check(isMap(root), "not a map");
  // the decoded file: its fields (checked below), with defaults
  const m: Obj = { ...root as Obj, formatVersion: version, params: (root as Obj).params ?? {} };
  const { kind, numFeatures: D, numLabels: L, labelNames: names } = m;
  check(typeof kind === "string", "kind");
  check(Object.hasOwn(KINDS, kind as string), `unknown model kind "${kind}"`, "unsupported");
  check(isCount(D) && isCount(L), "numFeatures, numLabels");
  check(
    names === undefined ||
      Array.isArray(names) && names.length === L && names.every((s) => typeof s === "string"),
    `labelNames must be ${L} strings`,
  );
  for (const f of ["featureSpace", "preprocess", "params", "meta", "tensors"]) {
    check(isMap(m[f]) || m[f] === undefined && f !== "tensors", f);
  }
  const tensors: Record<string, SdkTensor> = {};
  for (const [name, t] of Object.entries(m.tensors as Obj)) {
    const { dtype, shape, data: bin, scale } = (isMap(t) ? t : {}) as {
      dtype: string;
      shape: number[];
      data: Uint8Array;
      scale?: number | Uint8Array;
    };
    const C = TYPES[dtype];
    check(Object.hasOwn(TYPES, dtype), `tensor ${name}: dtype ${dtype}`, "unsupported");
    const n = Array.isArray(shape) && shape.every(isCount) ? shape.reduce((a, d) => a * d, 1) : NaN;
    check(bin instanceof Uint8Array && bin.length === n * C.BYTES_PER_ELEMENT, `tensor ${name}`);
    let data = view(C, bin);
    if (dtype === "f16" || dtype === "i8" || dtype === "f64") {
      // to float32, once: f16 through a table of all 65536 values (built once); i8 as
      // q × scale, one scale or one float32 per row; f64 rounded
      const rows = shape[0] ?? 1, w = n / rows, f = new Float32Array(n);
      const s = scale instanceof Uint8Array && scale.length === rows * 4 &&
        view(Float32Array, scale);
      if (dtype === "f16") {
        const tab = halfTable ??= halfFloats();
        for (let i = 0; i < n; i++) f[i] = tab[data[i]];
      } else {
        check(dtype === "f64" || typeof scale === "number" || s, `tensor ${name}: i8 scale`);
        for (let i = 0; i < n; i++) {
          f[i] = data[i] * (s ? s[Math.floor(i / w)] : scale as number ?? 1);
        }
      }
      data = f;
    }
    tensors[name] = { shape, data: data as SdkTensor["data"] };
  }
  const { preprocess: pre, featureSpace: fs } = m as Partial<DecodedModel>, idf = tensors.idf?.data;
  check(fs?.type !== "vocabulary" || Array.isArray(fs.names), "featureSpace names");
  const text = (fs as { text?: unknown } | undefined)?.text, bad = text && textSettingsError(text);
  check(
    text === undefined || fs?.type !== "index" && !bad,
    `featureSpace.text: ${bad || "needs names"}`,
  );
  check(
    !pre?.tfidf || idf instanceof Float32Array && idf.length === D,
    "idf must be a float tensor",
  );
  m.tensors = tensors;
  return m as unknown as DecodedModel;
}
