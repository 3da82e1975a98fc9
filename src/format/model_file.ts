/**
 * The Tagstream model file, format versions 1 to 3 (spec: docs/model-format.md): encoder and strict
 * decoder. Float32/int32 tensors are decoded as zero-copy views into the file bytes when aligned.
 *
 * @module
 */
import { crc32 } from "./crc32.ts";
import { ModelFormatError, type ModelFormatErrorReason } from "./errors.ts";
import { MsgpackReader, type MsgpackValue } from "./msgpack_reader.ts";
import { MsgpackWriter } from "./msgpack_writer.ts";
import { float32ToFloat16, quantizeInt8 } from "./quantize.ts";
import type { FeatureSpace, ModelFileContent, ModelKind, Preprocess, Tensor } from "./types.ts";
import { textSettingsError } from "../../sdk/tokenizer.ts";

/**
 * The newest format version this module reads and writes. Version 2 adds signed feature hashing
 * (`featureSpace.signed`), version 3 text input (`featureSpace.text`, the tokenizer settings); a file is written with the lowest version that holds its content
 * ({@linkcode formatVersionOf}), so readers of version 1 keep reading every file they can read
 * correctly and reject the others as `newer-version`.
 *
 * @example
 * ```ts
 * import { FORMAT_VERSION } from "./model_file.ts";
 * console.log(FORMAT_VERSION); // 3
 * ```
 */
export const FORMAT_VERSION = 3;

/**
 * The format version a content is written with: 3 when its feature space takes text
 * (`featureSpace.text`: an older reader would ignore the tokenizer and answer text queries
 * wrongly), else 2 when it uses signed feature hashing (which a version-1 reader would silently
 * misread), else 1.
 *
 * @example
 * ```ts
 * import { formatVersionOf } from "./model_file.ts";
 * const base = { kind: "linear-lowrank" as const, numFeatures: 4, numLabels: 1, params: {}, tensors: {} };
 * console.log(formatVersionOf(base)); // 1
 * console.log(formatVersionOf({ ...base, featureSpace: { type: "hashing", dim: 4, seed: 0, signed: true } })); // 2
 * console.log(formatVersionOf({ ...base, featureSpace: { type: "hashing", dim: 4, seed: 0, text: { ngrams: 2 } } })); // 3
 * ```
 */
export function formatVersionOf(content: ModelFileContent): number {
  const fs = content.featureSpace;
  if (fs && fs.type !== "index" && fs.text !== undefined) return 3;
  return fs?.type === "hashing" && fs.signed === true ? 2 : 1;
}

/**
 * The value of the `magic` field, the first entry of every model file.
 *
 * @example
 * ```ts
 * import { MAGIC } from "./model_file.ts";
 * console.log(MAGIC); // "TAGSTREAM"
 * ```
 */
export const MAGIC = "TAGSTREAM";

/**
 * Options of {@linkcode encodeModelFile}.
 *
 * @example
 * ```ts
 * import type { EncodeOptions } from "./model_file.ts";
 * const o: EncodeOptions = { quantize: "f16", keepF32: ["bias", "idf", "omega"] };
 * console.log(o.quantize);
 * ```
 */
export interface EncodeOptions {
  /** Store f32 tensors as f32 (default), f16, or i8 with per-row (2-D) or per-tensor scales. */
  quantize?: "f32" | "f16" | "i8";
  /** Names of f32 tensors never quantised. Default `["bias", "idf"]`. */
  keepF32?: readonly string[];
}

const ELEMENT_BYTES: Record<Tensor["dtype"], number> = {
  f32: 4,
  f64: 8,
  i32: 4,
  u8: 1,
  i8: 1,
  f16: 2,
  u16: 2,
};

const ARRAY_TYPES = {
  f32: Float32Array,
  f64: Float64Array,
  i32: Int32Array,
  u8: Uint8Array,
  i8: Int8Array,
  f16: Uint16Array,
  u16: Uint16Array,
} as const;

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** Bytes of a typed array in little-endian order (a view on little-endian hosts). */
function leBytes(data: Tensor["data"]): Uint8Array {
  const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const size = data.BYTES_PER_ELEMENT;
  if (LITTLE_ENDIAN || size === 1) return raw;
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += size) {
    for (let b = 0; b < size; b++) out[i + b] = raw[i + size - 1 - b];
  }
  return out;
}

function shapeSize(shape: readonly number[], where: string): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new RangeError(`${where}: shape entry ${d} is not a non-negative integer`);
    }
    n *= d;
  }
  if (!Number.isSafeInteger(n)) throw new RangeError(`${where}: shape is too large`);
  return n;
}

function checkCount(v: unknown, where: string): void {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    throw new RangeError(`${where} must be a non-negative integer, got ${v}`);
  }
}

/**
 * Encodes a model as a model file of version {@linkcode formatVersionOf}(content).
 *
 * @throws {TypeError | RangeError} when the content is inconsistent (naming the field).
 *
 * @example
 * ```ts
 * import { decodeModelFile, encodeModelFile } from "./model_file.ts";
 * const bytes = encodeModelFile({
 *   kind: "linear-sparse",
 *   numFeatures: 2,
 *   numLabels: 2,
 *   params: {},
 *   tensors: {
 *     featPtr: { dtype: "i32", shape: [3], data: Int32Array.of(0, 1, 2) },
 *     labelIdx: { dtype: "i32", shape: [2], data: Int32Array.of(1, 0) },
 *     weights: { dtype: "f32", shape: [2], data: Float32Array.of(0.5, -1) },
 *   },
 * });
 * console.log(decodeModelFile(bytes).tensors.weights.data); // Float32Array [ 0.5, -1 ]
 * ```
 */
export function encodeModelFile(
  content: ModelFileContent,
  options: EncodeOptions = {},
): Uint8Array {
  const where = "encodeModelFile";
  if (typeof content.kind !== "string" || content.kind.length === 0) {
    throw new TypeError(`${where}: kind must be a non-empty string`);
  }
  checkCount(content.numFeatures, `${where}: numFeatures`);
  checkCount(content.numLabels, `${where}: numLabels`);
  if (content.labelNames !== undefined) {
    if (content.labelNames.length !== content.numLabels) {
      throw new RangeError(
        `${where}: labelNames has ${content.labelNames.length} names for ${content.numLabels} labels`,
      );
    }
    content.labelNames.forEach((s, i) => {
      if (typeof s !== "string") throw new TypeError(`${where}: labelNames[${i}] is not a string`);
    });
  }
  checkFeatureSpace(
    content.featureSpace,
    content.numFeatures,
    (m) => new RangeError(`${where}: ${m}`),
  );
  if (content.preprocess?.tfidf) {
    const idf = content.tensors.idf;
    if (!idf || idf.data.length !== content.numFeatures) {
      throw new RangeError(
        `${where}: preprocess.tfidf needs a tensor idf of ${content.numFeatures} values`,
      );
    }
  }
  for (const [k, v] of Object.entries(content.params ?? {})) {
    const ok = v === undefined || typeof v === "number" || typeof v === "string" ||
      typeof v === "boolean" || (Array.isArray(v) && v.every((x) => typeof x === "number"));
    if (!ok) {
      throw new TypeError(
        `${where}: params.${k} must be a number, string, boolean or number array`,
      );
    }
  }
  const quantize = options.quantize ?? "f32";
  if (!["f32", "f16", "i8"].includes(quantize)) {
    throw new RangeError(`${where}: quantize must be "f32", "f16" or "i8", got ${quantize}`);
  }
  const keep = new Set(options.keepF32 ?? ["bias", "idf"]);

  const w = new MsgpackWriter(1024 + estimateBytes(content));
  const entries: [string, unknown][] = [
    ["kind", content.kind],
    ["numFeatures", content.numFeatures],
    ["numLabels", content.numLabels],
  ];
  if (content.labelNames) entries.push(["labelNames", content.labelNames]);
  if (content.featureSpace) entries.push(["featureSpace", content.featureSpace]);
  if (content.preprocess) entries.push(["preprocess", content.preprocess]);
  entries.push(["params", content.params ?? {}]);
  if (content.meta) entries.push(["meta", content.meta]);
  // magic, formatVersion, byteLength, ...entries, tensors, crc32
  w.mapHeader(3 + entries.length + 2);
  w.str("magic");
  w.str(MAGIC);
  w.str("formatVersion");
  w.number(formatVersionOf(content));
  w.str("byteLength");
  const lengthAt = w.uint32Fixed(0);
  for (const [k, v] of entries) {
    w.str(k);
    w.value(v, k);
  }
  w.str("tensors");
  const names = Object.keys(content.tensors);
  w.mapHeader(names.length);
  for (const name of names) {
    writeTensor(w, name, content.tensors[name], keep.has(name) ? "f32" : quantize);
  }
  w.str("crc32");
  const crcAt = w.uint32Fixed(0);
  const total = w.pos;
  if (total > 0xffffffff) throw new RangeError(`${where}: model file would exceed 4 GiB`);
  w.patchUint32(lengthAt, total);
  const out = w.finish();
  const crc = crc32(out, 0, crcAt - 1 - 6);
  new DataView(out.buffer).setUint32(crcAt, crc);
  return out;
}

function estimateBytes(content: ModelFileContent): number {
  let n = 0;
  for (const t of Object.values(content.tensors)) n += t.data.byteLength + 64;
  return n;
}

function checkFeatureSpace(
  fs: FeatureSpace | undefined,
  numFeatures: number,
  err: (m: string) => Error,
): void {
  if (fs === undefined) return;
  if (fs.type === "index") {
    if ((fs as { text?: unknown }).text !== undefined) {
      throw err(`featureSpace.text needs a vocabulary or hashing feature space`);
    }
    return;
  }
  if (fs.type === "vocabulary" || fs.type === "hashing") {
    const bad = fs.text === undefined ? undefined : textSettingsError(fs.text);
    if (bad !== undefined) throw err(`featureSpace.text: ${bad}`);
  }
  if (fs.type === "vocabulary") {
    if (!Array.isArray(fs.names) || fs.names.length !== numFeatures) {
      throw err(`featureSpace.names must list ${numFeatures} feature names`);
    }
    for (let i = 0; i < fs.names.length; i++) {
      if (typeof fs.names[i] !== "string") throw err(`featureSpace.names[${i}] is not a string`);
    }
    return;
  }
  if (fs.type === "hashing") {
    // a model that grows with the columns it has seen may be narrower than the hash: columns
    // at or beyond numFeatures have no weights (readers drop them, as the trainer does)
    if (!Number.isInteger(fs.dim) || fs.dim < numFeatures || fs.dim > 0x7fffffff) {
      throw err(
        `featureSpace.dim must be an integer in [numFeatures = ${numFeatures}, 2^31), got ${fs.dim}`,
      );
    }
    if (!Number.isInteger(fs.seed) || fs.seed < 0 || fs.seed > 0xffffffff) {
      throw err(`featureSpace.seed must be an integer in [0, 2^32), got ${fs.seed}`);
    }
    if (fs.signed !== undefined && typeof fs.signed !== "boolean") {
      throw err(`featureSpace.signed must be a boolean, got ${fs.signed}`);
    }
    return;
  }
  throw err(`featureSpace.type must be "index", "vocabulary" or "hashing"`);
}

function writeTensor(w: MsgpackWriter, name: string, t: Tensor, quantize: string): void {
  const where = `encodeModelFile: tensor ${name}`;
  const ctor = ARRAY_TYPES[t.dtype];
  if (!ctor) throw new TypeError(`${where}: unknown dtype ${t.dtype}`);
  if (!(t.data instanceof ctor)) {
    throw new TypeError(`${where}: dtype ${t.dtype} needs a ${ctor.name}`);
  }
  const n = shapeSize(t.shape, where);
  if (n !== t.data.length) {
    throw new RangeError(
      `${where}: shape [${t.shape}] has ${n} elements but data has ${t.data.length}`,
    );
  }
  let dtype = t.dtype;
  let data: Tensor["data"] = t.data;
  let scale = t.scale;
  if (dtype === "f32" && quantize === "f16") {
    dtype = "f16";
    data = float32ToFloat16(t.data as Float32Array);
  } else if (dtype === "f32" && quantize === "i8") {
    const rows = t.shape.length >= 2 && t.shape[0] > 0 ? t.shape[0] : 1;
    const q = quantizeInt8(t.data as Float32Array, rows);
    dtype = "i8";
    data = q.data;
    scale = q.scale;
  }
  if (dtype === "i8") {
    if (scale === undefined) scale = 1;
    if (typeof scale !== "number") {
      const rows = t.shape.length >= 1 ? t.shape[0] : 1;
      if (!(scale instanceof Float32Array) || scale.length !== rows) {
        throw new RangeError(`${where}: i8 scale must be a number or ${rows} per-row scales`);
      }
    }
  } else if (scale !== undefined) {
    throw new TypeError(`${where}: scale is only allowed for i8 tensors`);
  }
  w.str(name);
  w.mapHeader(dtype === "i8" ? (typeof scale === "number" ? 5 : 6) : 4);
  w.str("dtype");
  w.str(dtype);
  w.str("shape");
  w.value(t.shape);
  if (dtype === "i8") {
    if (typeof scale === "number") {
      w.str("scale");
      w.number(scale);
    } else {
      w.alignedBin("scalePad", "scale", leBytes(scale as Float32Array));
    }
  }
  w.alignedBin("pad", "data", leBytes(data));
}

// ---------------------------------------------------------------------------------------------
// Decoding

const ENC = new TextEncoder();
/** The fixed header bytes after the map tag: "magic" → "TAGSTREAM", then the "formatVersion" key. */
const MAGIC_BYTES = [0xa5, ...ENC.encode("magic"), 0xa9, ...ENC.encode(MAGIC)];
const VERSION_KEY = [0xad, ...ENC.encode("formatVersion")];
/** The "byteLength" key and the uint32 tag of its value. */
const LENGTH_KEY = [0xaa, ...ENC.encode("byteLength"), 0xce];
/** The last 11 bytes: the "crc32" key, the uint32 tag and the big-endian CRC. */
const CRC_TAIL = [0xa5, ...ENC.encode("crc32"), 0xce];

/**
 * Checks the frame of a model file and returns its format version. The header has a fixed
 * layout (docs/model-format.md): a map tag, "magic": "TAGSTREAM", "formatVersion": a positive
 * fixint, "byteLength": a uint32 (0xce) — so a reader knows the version without decoding the
 * rest, which later versions may change. Then the length and the trailing CRC-32 are checked.
 * The SDK (sdk/decode.ts) implements the same rules; tests check both give the same reason and
 * offset on every broken file.
 */
function checkFrame(bytes: Uint8Array): number {
  const len = bytes.length;
  let version = 0, pos = 0;
  const fail = (reason: ModelFormatErrorReason, detail: string, offset = pos): never => {
    throw new ModelFormatError(reason, detail, { offset, formatVersion: version });
  };
  const expect = (want: number[], reason: ModelFormatErrorReason, detail: string) => {
    for (const c of want) {
      if (pos >= len) fail("truncated", `the file ends at byte ${len} inside the header`, len);
      if (bytes[pos] !== c) fail(reason, detail);
      pos++;
    }
  };
  if (len === 0) fail("truncated", "the file is empty");
  const t = bytes[0];
  if (t === 0xde) pos = 3;
  else if (t === 0xdf) pos = 5;
  else if ((t & 0xf0) === 0x80) pos = 1;
  else fail("bad-magic", "not a Tagstream model file (does not start with a msgpack map)");
  expect(MAGIC_BYTES, "bad-magic", `not a Tagstream model file (magic "${MAGIC}" expected)`);
  expect(VERSION_KEY, "corrupt", "the second header entry must be formatVersion");
  if (pos >= len) fail("truncated", `the file ends at byte ${len} inside the header`, len);
  const v = bytes[pos];
  if (v < 1 || v > 0x7f) fail("corrupt", "formatVersion must be a positive fixint");
  version = v;
  if (v > FORMAT_VERSION) {
    fail(
      "newer-version",
      `format version ${v} is newer than this reader (reads up to ${FORMAT_VERSION})`,
    );
  }
  pos++;
  expect(LENGTH_KEY, "corrupt", "the third header entry must be byteLength (uint32)");
  if (pos + 4 > len) fail("truncated", `the file ends at byte ${len} inside the header`, len);
  const byteLength = new DataView(bytes.buffer, bytes.byteOffset, len).getUint32(pos);
  pos += 4;
  if (len < byteLength) {
    fail("truncated", `the file has ${len} of its ${byteLength} bytes`, len);
  }
  if (len > byteLength) {
    fail("corrupt", `${len - byteLength} unexpected bytes after the model`, byteLength);
  }
  const tail = len - 11;
  if (tail < pos) fail("corrupt", "no room for the crc32 entry");
  pos = tail;
  expect(CRC_TAIL, "corrupt", "the file does not end with its crc32 entry");
  const stored = new DataView(bytes.buffer, bytes.byteOffset, len).getUint32(pos);
  const actual = crc32(bytes, 0, tail);
  if (stored !== actual) {
    fail(
      "corrupt",
      `CRC-32 mismatch (stored ${stored.toString(16)}, computed ${actual.toString(16)})`,
    );
  }
  return version;
}

/**
 * Decodes a model file (any version up to {@linkcode FORMAT_VERSION}).
 *
 * Tensors: f32, f64, i32, u16, f16 (as `Uint16Array` bits) and i8 (with `scale`) data are
 * typed-array views into `bytes` (no copy) when the blob's address is aligned for the element
 * size on a little-endian host, otherwise copies. Keep `bytes` unchanged while you use them.
 *
 * @throws {ModelFormatError} `bad-magic`, `truncated`, `newer-version`, `corrupt` or
 * `unsupported`, with the byte offset of the problem.
 *
 * @example
 * ```ts
 * import { decodeModelFile, encodeModelFile } from "./model_file.ts";
 * import { ModelFormatError, type ModelFormatErrorReason } from "./errors.ts";
 * const bytes = encodeModelFile({
 *   kind: "linear-lowrank",
 *   numFeatures: 1,
 *   numLabels: 1,
 *   params: { rank: 1 },
 *   tensors: {
 *     W: { dtype: "f32", shape: [1, 1], data: Float32Array.of(2) },
 *     H: { dtype: "f32", shape: [1, 1], data: Float32Array.of(3) },
 *   },
 * });
 * console.log(decodeModelFile(bytes).formatVersion); // 1
 * try {
 *   decodeModelFile(bytes.subarray(0, 40));
 * } catch (e) {
 *   console.log((e as ModelFormatError).reason); // "truncated"
 * }
 * ```
 */
export function decodeModelFile(bytes: Uint8Array): ModelFileContent & { formatVersion: number } {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError("decodeModelFile: bytes must be a Uint8Array");
  }
  const version = checkFrame(bytes);
  const r = new MsgpackReader(bytes, 0, bytes.length, version);
  const root = r.value();
  if (r.pos !== bytes.length) r.fail("bytes after the top-level map");
  const fail = (detail: string): never => {
    throw new ModelFormatError("corrupt", detail, { offset: 0, formatVersion: version });
  };
  if (!isMap(root)) return fail("the file is not a msgpack map");
  const kind = root.kind;
  if (typeof kind !== "string" || kind.length === 0) fail("kind must be a non-empty string");
  const numFeatures = root.numFeatures;
  const numLabels = root.numLabels;
  if (!isCount(numFeatures)) fail("numFeatures must be a non-negative integer");
  if (!isCount(numLabels)) fail("numLabels must be a non-negative integer");
  const out: ModelFileContent & { formatVersion: number } = {
    formatVersion: version,
    kind: kind as ModelKind,
    numFeatures: numFeatures as number,
    numLabels: numLabels as number,
    params: {},
    tensors: {},
  };
  if (root.labelNames !== undefined) {
    const names = root.labelNames;
    if (
      !Array.isArray(names) || names.length !== numLabels ||
      !names.every((s) => typeof s === "string")
    ) {
      fail(`labelNames must be ${numLabels} strings`);
    }
    out.labelNames = names as string[];
  }
  if (root.featureSpace !== undefined) {
    const fs = root.featureSpace;
    if (!isMap(fs)) return fail("featureSpace must be a map");
    try {
      checkFeatureSpace(fs as unknown as FeatureSpace, out.numFeatures, (m) => new RangeError(m));
    } catch (e) {
      fail((e as Error).message);
    }
    out.featureSpace = fs as unknown as FeatureSpace;
  }
  if (root.preprocess !== undefined) {
    const p = root.preprocess;
    if (!isMap(p)) return fail("preprocess must be a map");
    for (const k of ["tfidf", "l2Normalize"]) {
      if (p[k] !== undefined && typeof p[k] !== "boolean") {
        fail(`preprocess.${k} must be a boolean`);
      }
    }
    out.preprocess = p as Preprocess;
  }
  const params = root.params ?? {};
  if (!isMap(params)) return fail("params must be a map");
  for (const [k, v] of Object.entries(params)) {
    const ok = typeof v === "number" || typeof v === "string" || typeof v === "boolean" ||
      (Array.isArray(v) && v.every((x) => typeof x === "number"));
    if (!ok) fail(`params.${k} must be a number, string, boolean or number array`);
  }
  out.params = params as ModelFileContent["params"];
  if (root.meta !== undefined) {
    if (!isMap(root.meta)) return fail("meta must be a map");
    out.meta = root.meta;
  }
  const tensors = root.tensors;
  if (!isMap(tensors)) return fail("tensors must be a map");
  for (const [name, t] of Object.entries(tensors)) {
    out.tensors[name] = readTensor(bytes, name, t, fail, version);
  }
  if (out.preprocess?.tfidf && out.tensors.idf?.data.length !== out.numFeatures) {
    fail(`preprocess.tfidf needs a tensor idf of ${out.numFeatures} values`);
  }
  return out;
}

function isMap(v: MsgpackValue | undefined): v is { [key: string]: MsgpackValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function isCount(v: unknown): boolean {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

function readTensor(
  bytes: Uint8Array,
  name: string,
  t: MsgpackValue,
  fail: (detail: string) => never,
  formatVersion: number,
): Tensor {
  if (!isMap(t)) return fail(`tensor ${name} must be a map`);
  const dtype = t.dtype as Tensor["dtype"];
  if (typeof dtype !== "string" || !Object.hasOwn(ELEMENT_BYTES, dtype)) {
    throw new ModelFormatError(
      "unsupported",
      `tensor ${name} has unknown dtype ${String(dtype)}`,
      { formatVersion },
    );
  }
  const shape = t.shape;
  if (!Array.isArray(shape) || !shape.every(isCount)) {
    return fail(`tensor ${name}: shape must be an array of non-negative integers`);
  }
  let n = 1;
  for (const d of shape as number[]) n *= d;
  if (!Number.isSafeInteger(n)) fail(`tensor ${name}: shape is too large`);
  const data = t.data;
  if (!(data instanceof Uint8Array)) return fail(`tensor ${name}: data must be a bin`);
  if (data.length !== n * ELEMENT_BYTES[dtype]) {
    fail(
      `tensor ${name}: data has ${data.length} bytes, shape [${shape}] of ${dtype} needs ${
        n * ELEMENT_BYTES[dtype]
      }`,
    );
  }
  const out: Tensor = {
    dtype,
    shape: shape as number[],
    data: view(bytes, data, ARRAY_TYPES[dtype]),
  };
  if (dtype === "i8") {
    const s = t.scale;
    if (typeof s === "number") out.scale = s;
    else if (s instanceof Uint8Array) {
      const rows = shape.length ? (shape[0] as number) : 1;
      if (s.length !== rows * 4) fail(`tensor ${name}: scale must hold ${rows} float32 values`);
      out.scale = view(bytes, s, Float32Array) as Float32Array;
    } else fail(`tensor ${name}: i8 needs a scale`);
  }
  return out;
}

type Ctor = (typeof ARRAY_TYPES)[keyof typeof ARRAY_TYPES];

function view(bytes: Uint8Array, blob: Uint8Array, ctor: Ctor): Tensor["data"] {
  const size = ctor.BYTES_PER_ELEMENT;
  const n = blob.length / size;
  if (size === 1) return new ctor(blob.buffer as ArrayBuffer, blob.byteOffset, n);
  if (LITTLE_ENDIAN && blob.byteOffset % size === 0) {
    return new ctor(blob.buffer as ArrayBuffer, blob.byteOffset, n);
  }
  const copy = new Uint8Array(blob.length);
  if (LITTLE_ENDIAN) copy.set(blob);
  else {
    for (let i = 0; i < blob.length; i += size) {
      for (let b = 0; b < size; b++) copy[i + b] = blob[i + size - 1 - b];
    }
  }
  void bytes;
  return new ctor(copy.buffer, 0, n);
}
