/**
 * The SDK's model-file reader (format version 1, docs/model-format.md): checks the frame (magic,
 * format version, byteLength, CRC-32) byte by byte exactly as src/format does, decodes the map
 * with `msgpackr`, validates every field, and gives tensors as typed arrays: aligned f32, i32,
 * u16 and u8 tensors are zero-copy views into the file bytes; f16, i8 and f64 tensors are
 * converted to float32 once.
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

const MAGIC = "TAGSTREAM";
const enc = new TextEncoder();
const utf8 = new TextDecoder("utf-8", { fatal: true });
// fixstr "magic", fixstr "TAGSTREAM"
const MAGIC_BYTES = [0xa5, ...enc.encode("magic"), 0xa9, ...enc.encode(MAGIC)];
// fixstr "crc32" key + uint32 tag: the last 11 bytes are these 7 and the big-endian CRC
const CRC_TAIL = [0xa5, 0x63, 0x72, 0x63, 0x33, 0x32, 0xce];
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
const unpackr = new Packr({ useRecords: false, mapsAsObjects: true, int64AsType: "number" });

let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE, as zlib) of `b[0, end)`, slicing-by-8. */
function crc32(b: Uint8Array, end: number): number {
  let t = crcTable;
  if (!t) {
    t = crcTable = new Uint32Array(2048);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      t[n] = c;
    }
    for (let n = 256; n < 2048; n++) t[n] = t[t[n - 256] & 255] ^ (t[n - 256] >>> 8);
  }
  let c = ~0, i = 0;
  for (; i + 8 <= end; i += 8) {
    c ^= b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
    c = t[1792 + (c & 255)] ^ t[1536 + ((c >>> 8) & 255)] ^ t[1280 + ((c >>> 16) & 255)] ^
      t[1024 + (c >>> 24)] ^ t[768 + b[i + 4]] ^ t[512 + b[i + 5]] ^ t[256 + b[i + 6]] ^
      t[b[i + 7]];
  }
  for (; i < end; i++) c = t[(c ^ b[i]) & 255] ^ (c >>> 8);
  return ~c >>> 0;
}

/**
 * Checks the frame and returns the format version. Mirrors `checkFrame` of
 * src/format/model_file.ts: same reasons, messages and offsets.
 */
function readFrame(b: Uint8Array, dv: DataView): number {
  const len = b.length;
  let version = 0, pos = 0;
  const fail = (reason: ModelFormatErrorReason, detail: string, offset: number): never => {
    throw new ModelFormatError(reason, detail, { offset, formatVersion: version });
  };
  if (!len) fail("truncated", "the file is empty", 0);
  const t0 = b[0];
  pos = t0 === 0xde ? 3 : t0 === 0xdf ? 5 : (t0 & 0xf0) === 0x80 ? 1 : fail(
    "bad-magic",
    "not a Tagstream model file (does not start with a msgpack map)",
    0,
  );
  for (const c of MAGIC_BYTES) {
    if (pos >= len) fail("truncated", `the file ends at byte ${len} inside the magic`, len);
    if (b[pos] !== c) {
      fail("bad-magic", `not a Tagstream model file (magic "${MAGIC}" expected)`, pos);
    }
    pos++;
  }
  // Running out of bytes before the file's byteLength is known: the file was cut short.
  const need = (n: number) => {
    if (n > len - pos) fail("truncated", `the file ends at byte ${len} inside the header`, len);
  };
  const uint = (n: number): number => {
    need(n);
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + b[pos++];
    return v;
  };
  // A number of any msgpack form; undefined (nothing consumed after the tag) for other types.
  const num = (): number | undefined => {
    const at = pos, t = uint(1);
    if (t < 0x80) return t;
    if (t >= 0xe0) return t - 256;
    if (t >= 0xcc && t <= 0xcf) {
      const v = uint(1 << (t - 0xcc));
      return t === 0xcf && !Number.isSafeInteger(v)
        ? fail("corrupt", "uint64 value beyond 2^53", at)
        : v;
    }
    if (t >= 0xd0 && t <= 0xd3) {
      const n = 1 << (t - 0xd0), v = uint(n), half = 2 ** (8 * n - 1);
      const r = v >= half ? v - 2 * half : v;
      return t === 0xd3 && !Number.isSafeInteger(r)
        ? fail("corrupt", "int64 value beyond 2^53", at)
        : r;
    }
    if (t === 0xca || t === 0xcb) {
      need(t === 0xca ? 4 : 8);
      pos += t === 0xca ? 4 : 8;
      return t === 0xca ? dv.getFloat32(pos - 4) : dv.getFloat64(pos - 8);
    }
    return undefined;
  };
  const str = (): string => {
    const at = pos, t = uint(1);
    const n = t >= 0xa0 && t < 0xc0
      ? t & 31
      : t === 0xd9
      ? uint(1)
      : t === 0xda
      ? uint(2)
      : t === 0xdb
      ? uint(4)
      : fail("corrupt", "expected a msgpack string", at);
    need(n);
    const s = pos;
    pos += n;
    try {
      return utf8.decode(b.subarray(s, pos));
    } catch {
      return fail("corrupt", "string is not valid UTF-8", s);
    }
  };
  let key = str();
  if (key !== "formatVersion") {
    fail("corrupt", `second entry must be formatVersion, found "${key}"`, pos);
  }
  let at = pos;
  const v = num();
  if (v === undefined || !Number.isInteger(v) || v < 1) {
    fail("corrupt", "formatVersion must be a positive integer", at);
  }
  version = v!;
  if (version > FORMAT_VERSION) {
    fail(
      "newer-version",
      `format version ${version} is newer than this reader (reads up to ${FORMAT_VERSION})`,
      at,
    );
  }
  key = str();
  at = pos;
  const size = num();
  if (key !== "byteLength") fail("corrupt", `third entry must be byteLength, found "${key}"`, at);
  if (size === undefined || !Number.isSafeInteger(size) || size < 0) {
    fail("corrupt", "byteLength must be a non-negative integer", at);
  }
  if (len < size!) fail("truncated", `the file has ${len} of its ${size} bytes`, len);
  if (len > size!) fail("corrupt", `${len - size!} unexpected bytes after the model`, size!);
  const tail = len - 11;
  if (tail < pos) fail("corrupt", "no room for the crc32 entry", pos);
  for (let i = 0; i < 7; i++) {
    if (b[tail + i] !== CRC_TAIL[i]) {
      fail("corrupt", "the file does not end with its crc32 entry", tail + i);
    }
  }
  const stored = dv.getUint32(tail + 7), actual = crc32(b, tail);
  if (stored !== actual) {
    fail(
      "corrupt",
      `CRC-32 mismatch (stored ${stored.toString(16)}, computed ${actual.toString(16)})`,
      tail + 7,
    );
  }
  return version;
}

type Map = Record<string, unknown>;
const isMap = (v: unknown): v is Map =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const SIZES: Record<string, number> = { f32: 4, f64: 8, i32: 4, u8: 1, i8: 1, f16: 2, u16: 2 };

type ViewCtor<T> = { new (b: ArrayBuffer, offset: number, length: number): T };

/** A typed-array view of a bin (zero-copy when aligned, else a copy). */
function view<T>(C: ViewCtor<T>, blob: Uint8Array, size: number): T {
  const aligned = blob.byteOffset % size === 0;
  const src = aligned ? blob : blob.slice();
  return new C(src.buffer as ArrayBuffer, src.byteOffset, blob.length / size);
}

let halfTable: Float32Array | undefined;

function f16Table(): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) {
      const e = (h >>> 10) & 31, m = h & 1023, s = h & 0x8000 ? -1 : 1;
      halfTable[h] = e === 0
        ? s * m * 2 ** -24
        : e === 31
        ? (m ? NaN : s * Infinity)
        : s * (1 + m / 1024) * 2 ** (e - 15);
    }
  }
  return halfTable;
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
  if (!(bytes instanceof Uint8Array)) throw new TypeError("loadModel: bytes must be a Uint8Array");
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = readFrame(bytes, dv);
  const fail = (detail: string, reason: ModelFormatErrorReason = "corrupt"): never => {
    throw new ModelFormatError(reason, detail, { formatVersion: version });
  };
  if (!LITTLE_ENDIAN) fail("big-endian hosts are not supported", "unsupported");
  let root: unknown;
  try {
    root = unpackr.unpack(bytes);
  } catch (e) {
    fail(`malformed msgpack (${(e as Error)?.message})`);
  }
  if (!isMap(root)) return fail("the file is not a msgpack map");
  const { kind, numFeatures: D, numLabels: L, labelNames, featureSpace: fs, preprocess: pre } =
    root;
  if (typeof kind !== "string" || !kind) fail("kind must be a non-empty string");
  if (!isCount(D)) fail("numFeatures must be a non-negative integer");
  if (!isCount(L)) fail("numLabels must be a non-negative integer");
  if (
    labelNames !== undefined &&
    !(Array.isArray(labelNames) && labelNames.length === L &&
      labelNames.every((s) => typeof s === "string"))
  ) fail(`labelNames must be ${L} strings`);
  if (fs !== undefined) {
    if (!isMap(fs)) fail("featureSpace must be a map");
    const f = fs as Map;
    if (f.type === "vocabulary") {
      const names = f.names;
      if (!Array.isArray(names) || names.length !== D) {
        fail(`featureSpace.names must list ${D} feature names`);
      }
      (names as unknown[]).forEach((s, i) =>
        typeof s !== "string" && fail(`featureSpace.names[${i}] is not a string`)
      );
    } else if (f.type === "hashing") {
      if (f.dim !== D) fail(`featureSpace.dim (${f.dim}) must equal numFeatures (${D})`);
      const seed = f.seed as number;
      if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
        fail(`featureSpace.seed must be an integer in [0, 2^32), got ${seed}`);
      }
    } else if (f.type !== "index") {
      fail(`featureSpace.type must be "index", "vocabulary" or "hashing"`);
    }
  }
  if (pre !== undefined) {
    if (!isMap(pre)) fail("preprocess must be a map");
    for (const k of ["tfidf", "l2Normalize"]) {
      const v = (pre as Map)[k];
      if (v !== undefined && typeof v !== "boolean") fail(`preprocess.${k} must be a boolean`);
    }
  }
  const params = root.params ?? {};
  if (!isMap(params)) return fail("params must be a map");
  for (const [k, v] of Object.entries(params)) {
    const ok = typeof v === "number" || typeof v === "string" || typeof v === "boolean" ||
      (Array.isArray(v) && v.every((x) => typeof x === "number"));
    if (!ok) fail(`params.${k} must be a number, string, boolean or number array`);
  }
  if (root.meta !== undefined && !isMap(root.meta)) fail("meta must be a map");
  const raw = root.tensors;
  if (!isMap(raw)) return fail("tensors must be a map");
  const tensors: Record<string, SdkTensor> = {};
  for (const [name, t] of Object.entries(raw)) {
    if (!isMap(t)) return fail(`tensor ${name} must be a map`);
    const { dtype, shape, data, scale } = t;
    const size = SIZES[dtype as string];
    if (typeof dtype !== "string" || !Object.hasOwn(SIZES, dtype)) {
      fail(`tensor ${name} has unknown dtype ${String(dtype)}`, "unsupported");
    }
    if (!Array.isArray(shape) || !shape.every(isCount)) {
      fail(`tensor ${name}: shape must be an array of non-negative integers`);
    }
    const dims = shape as number[], n = dims.reduce((a, d) => a * d, 1);
    if (!Number.isSafeInteger(n)) fail(`tensor ${name}: shape is too large`);
    if (!(data instanceof Uint8Array)) return fail(`tensor ${name}: data must be a bin`);
    if (data.length !== n * size) {
      fail(
        `tensor ${name}: data has ${data.length} bytes, shape [${shape}] of ${dtype} needs ${
          n * size
        }`,
      );
    }
    let out: SdkTensor["data"];
    if (dtype === "f32") out = view(Float32Array, data, 4);
    else if (dtype === "i32") out = view(Int32Array, data, 4);
    else if (dtype === "u16") out = view(Uint16Array, data, 2);
    else if (dtype === "u8") out = data;
    else if (dtype === "f64") out = Float32Array.from(view(Float64Array, data, 8));
    else if (dtype === "f16") {
      const bits = view(Uint16Array, data, 2), tab = f16Table(), f = new Float32Array(n);
      for (let i = 0; i < n; i++) f[i] = tab[bits[i]];
      out = f;
    } else {
      // i8: value = q × scale, one scale or one per row (first dimension)
      const q = new Int8Array(data.buffer, data.byteOffset, n), f = new Float32Array(n);
      const rows = dims.length ? dims[0] : 1;
      if (typeof scale === "number") {
        for (let i = 0; i < n; i++) f[i] = q[i] * scale;
      } else if (scale instanceof Uint8Array) {
        if (scale.length !== rows * 4) {
          fail(`tensor ${name}: scale must hold ${rows} float32 values`);
        }
        const s = view(Float32Array, scale, 4), width = n / rows;
        for (let i = 0; i < n; i++) f[i] = q[i] * s[Math.floor(i / width)];
      } else fail(`tensor ${name}: i8 needs a scale`);
      out = f;
    }
    tensors[name] = { shape: dims, data: out };
  }
  if (pre && (pre as Map).tfidf && tensors.idf?.data.length !== D) {
    fail(`preprocess.tfidf needs a tensor idf of ${D} values`);
  }
  return {
    kind: kind as string,
    formatVersion: version,
    numFeatures: D as number,
    numLabels: L as number,
    labelNames: labelNames as string[] | undefined,
    featureSpace: fs as FeatureSpace | undefined,
    preprocess: pre as DecodedModel["preprocess"],
    params,
    meta: root.meta as Map | undefined,
    tensors,
  };
}
