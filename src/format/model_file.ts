/**
 * The Tagstream model file's writer, format versions 1 to 4 (spec: docs/model-format.md). The
 * contract itself (format version, magic, dtypes, feature-space rules, CRC-32, the file types and
 * the strict reader `decodeModelFile`) is the SDK's: this module takes it from sdk/internal.ts.
 *
 * @module
 */
import {
  checkFeatureSpace,
  LITTLE_ENDIAN,
  MAGIC,
  maxDimension,
  type ModelFileContent,
  shownValue,
  type Tensor,
  TENSOR_ARRAYS,
} from "../../sdk/internal.ts";
import { crc32 } from "./crc32.ts";
import { MsgpackWriter } from "./msgpack_writer.ts";
import { quantizedTensor } from "./quantize.ts";

/**
 * The format version a content is written with: 4 when a `knn-embedding` model weighs its votes
 * by a power of the similarity (param `votePower` other than 1: an older reader would weigh them
 * by the similarity itself), else 3 when its feature space takes text
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
  const power = content.params.votePower;
  if (content.kind === "knn-embedding" && power !== undefined && power !== 1) return 4;
  const fs = content.featureSpace;
  if (fs && fs.type !== "index" && fs.text !== undefined) return 3;
  return fs?.type === "hashing" && fs.signed === true ? 2 : 1;
}

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
  if (!Array.isArray(shape)) {
    throw new TypeError(`${where}: shape must be an array of sizes, got ${shownValue(shape)}`);
  }
  let n = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new RangeError(`${where}: shape entry ${shownValue(d)} is not a non-negative integer`);
    }
    n *= d;
  }
  if (!Number.isSafeInteger(n)) throw new RangeError(`${where}: shape is too large`);
  return n;
}

function checkCount(v: unknown, where: string): void {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    throw new RangeError(`${where} must be a non-negative integer, got ${shownValue(v)}`);
  }
}

/**
 * Encodes a model as a model file of version {@linkcode formatVersionOf}(content).
 *
 * @throws {TypeError | RangeError} when the content is inconsistent (naming the field), for
 * an unknown option or a value of the wrong type (e.g. `keepF32` not an array of names), or,
 * with `quantize: "f16"`, for a finite value float16 cannot hold (beyond ±65504).
 *
 * @example
 * ```ts
 * import { encodeModelFile } from "./model_file.ts";
 * import { decodeModelFile } from "../../sdk/internal.ts";
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
  if (typeof content !== "object" || content === null) {
    throw new TypeError(`${where}: content must be a model file's content object`);
  }
  if (typeof content.tensors !== "object" || content.tensors === null) {
    throw new TypeError(`${where}: tensors must be an object of named tensors`);
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`${where}: options must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (
      key !== "quantize" && key !== "keepF32" && options[key as keyof EncodeOptions] !== undefined
    ) {
      throw new TypeError(
        `${where}: unknown option ${shownValue(key)} (known: quantize, keepF32)`,
      );
    }
  }
  if (typeof content.kind !== "string" || content.kind.length === 0) {
    throw new TypeError(
      `${where}: kind must be a non-empty string, got ${shownValue(content.kind)}`,
    );
  }
  checkCount(content.numFeatures, `${where}: numFeatures`);
  checkCount(content.numLabels, `${where}: numLabels`);
  if (content.labelNames !== undefined) {
    if (!Array.isArray(content.labelNames)) {
      throw new TypeError(
        `${where}: labelNames must be an array of names, got ${shownValue(content.labelNames)}`,
      );
    }
    if (content.labelNames.length !== content.numLabels) {
      throw new RangeError(
        `${where}: labelNames has ${content.labelNames.length} names for ${content.numLabels} labels`,
      );
    }
    content.labelNames.forEach((s, i) => {
      if (typeof s !== "string") {
        throw new TypeError(`${where}: labelNames[${i}] is not a string, got ${shownValue(s)}`);
      }
    });
  }
  checkFeatureSpace(
    content.featureSpace,
    content.numFeatures,
    (m) => new RangeError(`${where}: ${m}`),
  );
  const pre = content.preprocess;
  if (pre !== undefined) {
    // (written as given, a non-boolean made a file the strict reader refuses as corrupt)
    if (typeof pre !== "object" || pre === null || Array.isArray(pre)) {
      throw new TypeError(`${where}: preprocess must be an object {tfidf?, l2Normalize?}`);
    }
    for (const k of ["tfidf", "l2Normalize"] as const) {
      if (pre[k] !== undefined && typeof pre[k] !== "boolean") {
        // (a string unquoted, as this message has always shown it)
        const v: unknown = pre[k];
        const got = typeof v === "string"
          ? (v.length > 60 ? `${v.slice(0, 57)}...` : v)
          : shownValue(v);
        throw new TypeError(`${where}: preprocess.${k} must be a boolean, got ${got}`);
      }
    }
  }
  const meta = content.meta as unknown;
  if (
    meta !== undefined &&
    (typeof meta !== "object" || meta === null || Array.isArray(meta) || ArrayBuffer.isView(meta))
  ) {
    // (written as given, an array made a file both readers refuse: "meta must be a map")
    throw new TypeError(`${where}: meta must be an object (a map of training metadata)`);
  }
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
        `${where}: params.${k} must be a number, string, boolean or number array, got ${
          shownValue(v)
        }`,
      );
    }
  }
  const quantize = options.quantize ?? "f32";
  if (!["f32", "f16", "i8"].includes(quantize)) {
    const Err = typeof quantize === "string" ? RangeError : TypeError;
    throw new Err(`${where}: quantize must be "f32", "f16" or "i8", got ${shownValue(quantize)}`);
  }
  const keepF32 = options.keepF32 ?? ["bias", "idf"];
  if (!Array.isArray(keepF32) || !keepF32.every((n) => typeof n === "string")) {
    throw new TypeError(
      `${where}: keepF32 must be an array of tensor names, got ${shownValue(keepF32)}`,
    );
  }
  const keep = new Set(keepF32);

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
  // what the readers accept (they size per-feature and per-label scratch by these)
  for (const name of ["numFeatures", "numLabels"] as const) {
    if (content[name] > maxDimension(total)) {
      throw new RangeError(
        `${where}: ${name} ${content[name]} is above ${
          maxDimension(total)
        }, the most a file of ${total} bytes may declare (2^24, or its length in bytes)`,
      );
    }
  }
  w.patchUint32(lengthAt, total);
  const out = w.finish();
  const crc = crc32(out, 0, crcAt - 1 - 6);
  new DataView(out.buffer).setUint32(crcAt, crc);
  return out;
}

function estimateBytes(content: ModelFileContent): number {
  let n = 0;
  for (const [name, t] of Object.entries(content.tensors)) {
    if (!ArrayBuffer.isView(t?.data)) {
      throw new TypeError(`encodeModelFile: tensor ${name} must be { dtype, shape, data }`);
    }
    n += t.data.byteLength + 64;
  }
  return n;
}

/** Refuses a finite value that float16 rounds to ±Infinity (|v| ≥ 65520), naming it. */
function checkHalfRange(values: Float32Array, bits: Uint16Array, where: string): void {
  for (let i = 0; i < bits.length; i++) {
    if ((bits[i] & 0x7fff) === 0x7c00 && Number.isFinite(values[i])) {
      throw new RangeError(
        `${where}: value ${values[i]} at index ${i} is beyond the float16 range ±65504 (it ` +
          `would be stored as ±Infinity): keep the tensor f32 (keepF32) or quantise to i8`,
      );
    }
  }
}

function writeTensor(w: MsgpackWriter, name: string, t: Tensor, quantize: string): void {
  const where = `encodeModelFile: tensor ${name}`;
  // (own keys only: "constructor" or "toString" is no dtype)
  const ctor = Object.hasOwn(TENSOR_ARRAYS, t.dtype) ? TENSOR_ARRAYS[t.dtype] : undefined;
  if (!ctor) throw new TypeError(`${where}: unknown dtype ${shownValue(t.dtype)}`);
  if (!(t.data instanceof ctor)) {
    throw new TypeError(`${where}: dtype ${t.dtype} needs a ${ctor.name}`);
  }
  const n = shapeSize(t.shape, where);
  if (n !== t.data.length) {
    throw new RangeError(
      `${where}: shape ${shownValue(t.shape)} has ${n} elements but data has ${t.data.length}`,
    );
  }
  let { dtype, data, scale } = t;
  if (dtype === "f32" && (quantize === "f16" || quantize === "i8")) {
    ({ dtype, data, scale } = quantizedTensor(t.data as Float32Array, t.shape, quantize));
    if (dtype === "f16") checkHalfRange(t.data as Float32Array, data as Uint16Array, where);
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
