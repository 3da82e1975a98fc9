/**
 * The SDK's model-file reader (format version 1, docs/model-format.md): checks the fixed-layout
 * header, the length and the CRC-32 with the same rules as src/format (same reasons and offsets),
 * decodes the map with `msgpackr`, validates the fields it uses, and gives tensors as typed
 * arrays: aligned f32, i32, u16 and u8 tensors are zero-copy views into the file bytes; f16, i8
 * and f64 tensors are converted to float32 once.
 *
 * @module
 */
import { Packr } from "msgpackr/pack";
import { ModelFormatError, type ModelFormatErrorReason } from "./errors.ts";
import type { DecodedModel, FeatureSpace, SdkTensor } from "./kinds/types.ts";

/**
 * The newest model-file format version this SDK reads.
 *
 * @example
 * ```ts
 * import { FORMAT_VERSION } from "./decode.ts";
 * console.log(FORMAT_VERSION); // 1
 * ```
 */
export const FORMAT_VERSION = 1;

const bytesOf = (s: string) => [0xa0 + s.length, ...new TextEncoder().encode(s)];
const MAGIC = [...bytesOf("magic"), ...bytesOf("TAGSTREAM")];
const VERSION_KEY = bytesOf("formatVersion");
const LENGTH_KEY = [...bytesOf("byteLength"), 0xce];
const CRC_TAIL = [...bytesOf("crc32"), 0xce];
const NOT_A_MODEL = "not a Tagstream model file";
const unpackr = new Packr({ useRecords: false, mapsAsObjects: true, int64AsType: "number" });
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

/** CRC-32 (IEEE, as zlib) of `b[0, end)`, slicing-by-8. */
function crc32(b: Uint8Array, end: number): number {
  let t = crcTable, c = ~0, i = 0;
  if (!t) {
    t = crcTable = new Uint32Array(2048);
    for (let n = 0; n < 2048; n++) {
      c = n < 256 ? n : t[n - 256];
      if (n < 256) { for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; }
      else c = t[c & 255] ^ (c >>> 8);
      t[n] = c;
    }
    c = ~0;
  }
  for (; i + 8 <= end; i += 8) {
    c ^= b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
    c = t[1792 + (c & 255)] ^ t[1536 + ((c >>> 8) & 255)] ^ t[1280 + ((c >>> 16) & 255)] ^
      t[1024 + (c >>> 24)] ^ t[768 + b[i + 4]] ^ t[512 + b[i + 5]] ^ t[256 + b[i + 6]] ^
      t[b[i + 7]];
  }
  for (; i < end; i++) c = t[(c ^ b[i]) & 255] ^ (c >>> 8);
  return ~c >>> 0;
}

/** Checks the frame (the rules of `checkFrame` in src/format/model_file.ts); returns the version. */
function readFrame(b: Uint8Array, dv: DataView): number {
  const len = b.length;
  let version = 0, pos = 0;
  const fail = (reason: ModelFormatErrorReason, detail: string, offset = pos): never => {
    throw new ModelFormatError(reason, detail, { offset, formatVersion: version });
  };
  const cut = () => fail("truncated", "ends inside the header", len);
  const expect = (want: number[], reason: ModelFormatErrorReason, detail: string) => {
    for (const c of want) {
      if (pos >= len) cut();
      if (b[pos] !== c) fail(reason, detail);
      pos++;
    }
  };
  if (!len) fail("truncated", "empty file");
  const t = b[0];
  pos = t === 0xde ? 3 : t === 0xdf ? 5 : t >> 4 === 8 ? 1 : fail("bad-magic", NOT_A_MODEL);
  expect(MAGIC, "bad-magic", NOT_A_MODEL);
  expect(VERSION_KEY, "corrupt", "bad formatVersion");
  if (pos >= len) cut();
  const v = b[pos];
  if (v < 1 || v > 127) fail("corrupt", "bad formatVersion");
  version = v;
  if (v > FORMAT_VERSION) {
    fail("newer-version", `format version ${v} is newer than ${FORMAT_VERSION}`);
  }
  pos++;
  expect(LENGTH_KEY, "corrupt", "bad byteLength");
  if (pos + 4 > len) cut();
  const size = dv.getUint32(pos);
  pos += 4;
  if (len < size) fail("truncated", `${len} of ${size} bytes`, len);
  if (len > size) fail("corrupt", "trailing bytes", size);
  if (len - 11 < pos) fail("corrupt", "no crc32");
  pos = len - 11;
  expect(CRC_TAIL, "corrupt", "no crc32");
  if (dv.getUint32(pos) !== crc32(b, len - 11)) fail("corrupt", "CRC-32 mismatch");
  return version;
}

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

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
  const version = readFrame(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.length));
  const check = (ok: unknown, detail: string, reason: ModelFormatErrorReason = "corrupt") => {
    if (!ok) throw new ModelFormatError(reason, detail, { formatVersion: version });
  };
  check(new Uint8Array(Uint16Array.of(1).buffer)[0], "big-endian", "unsupported");
  let root: unknown;
  try {
    root = unpackr.unpack(bytes);
  } catch (e) {
    check(0, `msgpack: ${(e as Error)?.message}`);
  }
  check(isMap(root), "not a map");
  const {
    kind,
    numFeatures: D,
    numLabels: L,
    labelNames: names,
    featureSpace: fs,
    preprocess: pre,
    params = {},
    meta,
    tensors: raw,
  } = root as Obj;
  check(typeof kind === "string" && kind, "kind");
  check(isCount(D) && isCount(L), "numFeatures, numLabels");
  check(
    names === undefined ||
      Array.isArray(names) && names.length === L && names.every((s) => typeof s === "string"),
    `labelNames must be ${L} strings`,
  );
  check(fs === undefined || isMap(fs), "featureSpace");
  check(pre === undefined || isMap(pre), "preprocess");
  check(
    isMap(params) && (meta === undefined || isMap(meta)) && isMap(raw),
    "params, meta, tensors",
  );
  const tensors: Record<string, SdkTensor> = {};
  for (const [name, t] of Object.entries(raw as Obj)) {
    const { dtype, shape, data: bin, scale } = isMap(t) ? t : {} as Obj;
    const C = TYPES[dtype as string], dims = shape as number[];
    check(
      Object.hasOwn(TYPES, dtype as string),
      `tensor ${name}: unknown dtype ${dtype}`,
      "unsupported",
    );
    const n = Array.isArray(dims) && dims.every(isCount) ? dims.reduce((a, d) => a * d, 1) : NaN;
    check(
      bin instanceof Uint8Array && bin.length === n * C.BYTES_PER_ELEMENT,
      `tensor ${name}: size`,
    );
    let data = view(C, bin as Uint8Array);
    if (dtype === "f16" || dtype === "i8" || dtype === "f64") {
      // converted to float32 once: f16 through a table, i8 as q × scale (one, or one per row)
      const rows = dims[0] ?? 1, w = n / rows, f = new Float32Array(n);
      const s = scale instanceof Uint8Array && scale.length === rows * 4 &&
        view(Float32Array, scale);
      check(dtype !== "i8" || typeof scale === "number" || s, `tensor ${name}: i8 scale`);
      if (dtype === "f16" && !halfTable) {
        halfTable = new Float32Array(65536);
        for (let h = 0; h < 65536; h++) {
          const e = (h >> 10) & 31, m = h & 1023;
          halfTable[h] = (h >> 15 ? -1 : 1) *
            (e ? e === 31 ? (m ? NaN : Infinity) : (1 + m / 1024) * 2 ** (e - 15) : m * 2 ** -24);
        }
      }
      const tab = dtype === "f16" && halfTable;
      for (let i = 0; i < n; i++) {
        f[i] = tab ? tab[data[i]] : data[i] * (s ? s[Math.floor(i / w)] : (scale as number ?? 1));
      }
      data = f;
    }
    tensors[name] = { shape: dims, data: data as SdkTensor["data"] };
  }
  check(!(pre as Obj)?.tfidf || tensors.idf?.data.length === D, "idf");
  return {
    kind: kind as string,
    formatVersion: version,
    numFeatures: D as number,
    numLabels: L as number,
    labelNames: names as string[] | undefined,
    featureSpace: fs as FeatureSpace | undefined,
    preprocess: pre as DecodedModel["preprocess"],
    params: params as Obj,
    meta: meta as Obj | undefined,
    tensors,
  };
}
