/**
 * The SDK's model reader for serving (format versions 1 to 4, docs/model-format.md): checks the
 * frame (`checkFrame` of ./frame.ts: header, length, CRC-32), decodes the map with msgpackr's
 * decoder alone (`Unpackr` from `msgpackr/unpack`, so bundles leave out the encoder), validates
 * the fields it uses, and gives tensors as typed arrays: aligned f32, i32, u16 and u8 tensors are
 * zero-copy views into the file bytes; f16, i8 and f64 tensors are converted to float32 once.
 * (The trainer's strict reader, `decodeModelFile` of ./model_file.ts, keeps every dtype as stored.)
 *
 * @module
 */
import { Unpackr } from "msgpackr/unpack";
import { formatError, type ModelFormatErrorReason } from "./errors.ts";
import { checkFrame, LITTLE_ENDIAN, TENSOR_ARRAYS } from "./frame.ts";
import {
  entries,
  F32,
  f32s,
  hasOwn,
  isArray,
  isNumber,
  isSafeInteger,
  isString,
  max,
  range,
  U8,
} from "./vector.ts";
import { KINDS } from "./kinds/mod.ts";
import { isMap, textSettingsError } from "./tokenizer.ts";
import type { DecodedModel, SdkTensor } from "./kinds/types.ts";

// maps decode as objects (the default without records); 64-bit integers as numbers
const unpackr = new Unpackr({ useRecords: false, int64AsType: "number" });
type Typed = (typeof TENSOR_ARRAYS)[keyof typeof TENSOR_ARRAYS];

let halfTable: Float32Array | undefined; // the float32 value of every float16 bit pattern

/**
 * Float16 bit patterns to float32 (through a table of all 65536 values, built once).
 * The one f16 decoder of the project: the trainer's reader (src/format/quantize.ts) uses it too.
 *
 * @example
 * ```ts
 * import { halfFloats } from "./decode.ts";
 * console.log(halfFloats(Uint16Array.of(0x3c00, 0xc000, 0x7c00))); // Float32Array(3) [ 1, -2, Infinity ]
 * ```
 */
export const halfFloats = (bits: Uint16Array): Float32Array => {
  const tab = halfTable ??= f32s(65536).map((_, h) => {
    const e = (h >> 10) & 31, m = h & 1023;
    return (h >> 15 ? -1 : 1) *
      (e > 30 ? m ? NaN : Infinity : ((e && 1024) + m) * 2 ** ((e || 1) - 25));
  });
  const out = f32s(bits.length);
  for (let i = bits.length; i--;) out[i] = tab[bits[i]];
  return out;
};

type Obj = Record<string, unknown>;
const isCount = (v: unknown): v is number => isSafeInteger(v) && (v as number) >= 0;

/**
 * A typed-array view of a bin (zero-copy when aligned, else a copy: `new U8`, as a Node Buffer's
 * `slice` is a view at the same odd offset).
 */
const view = (C: Typed, bin: Uint8Array) => {
  const size = C.BYTES_PER_ELEMENT, src = bin.byteOffset % size ? new U8(bin) : bin;
  return new C(src.buffer as ArrayBuffer, src.byteOffset, bin.length / size);
};

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
export const decodeModel = (bytes: Uint8Array): DecodedModel => {
  let version = 0;
  const unsupported = "unsupported";
  // a field's problem is reported at offset 0 (msgpackr gives no offsets)
  const check = (ok: unknown, detail: string, reason: ModelFormatErrorReason = "corrupt") =>
    ok || formatError(reason, detail, version);
  // typed-array views are little-endian
  check(LITTLE_ENDIAN, "big-endian", unsupported);
  version = checkFrame(bytes);

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
  check(
    isString(kind) && hasOwn(KINDS, kind),
    `unknown model kind "${kind}"`,
    unsupported,
  );
  // at most 2^24, or the file's bytes (`maxDimension` of ./frame.ts, inline): scorers size
  // scratch by them (docs/model-format.md)
  const most = max(2 ** 24, bytes.length);
  check(
    isCount(D) && isCount(L) && max(D, L) <= most,
    range("numFeatures, numLabels", 0, most),
  );
  check(
    names === undefined ||
      isArray(names) && names.length === L && names.every(isString),
    `labelNames must be ${L} strings`,
  );
  for (const f of ["featureSpace", "preprocess", "params", "meta", "tensors"]) {
    check(isMap(m[f]) || m[f] === undefined && f !== "tensors", f);
  }
  const tensors: Record<string, SdkTensor> = {};
  for (const [name, t] of entries(m.tensors as Obj)) {
    // (a tensor that is not a map has no dtype: refused below)
    const { dtype, shape, data: bin, scale } = (t ?? {}) as {
      dtype: string;
      shape: number[];
      data: Uint8Array;
      scale?: number | Uint8Array;
    };
    const C: Typed = TENSOR_ARRAYS[dtype as "f32"], what = `tensor ${name}`;
    check(hasOwn(TENSOR_ARRAYS, dtype), `${what}: dtype ${dtype}`, unsupported);
    const n = isArray(shape) && shape.every(isCount) ? shape.reduce((a, d) => a * d, 1) : NaN;
    check(bin instanceof U8 && bin.length === n * C.BYTES_PER_ELEMENT, what);
    let data: ArrayLike<number> = view(C, bin);
    // to float32, once: f16 through a table of all 65536 values (built once); i8 as q × scale,
    // one scale or one float32 per row; f64 rounded
    if (dtype === "f16") data = halfFloats(data as Uint16Array);
    else if (dtype === "i8" || dtype === "f64") {
      const rows = shape[0] ?? 1, w = n / rows, f = f32s(n);
      const s = scale instanceof U8 && scale.length === rows * 4 &&
        view(F32, scale);
      check(dtype === "f64" || isNumber(scale) || s, what + ": i8 scale");
      // row by row (a division per value took a third of a large knn file's load)
      for (let i = 0, k = 0, q; i < rows; i++) {
        for (q = s ? s[i] : scale as number ?? 1; k < i * w + w;) f[k] = data[k++] * q;
      }
      data = f;
    }
    tensors[name] = { shape, data: data as SdkTensor["data"] };
  }
  const { preprocess: pre, featureSpace: fs } = m as Partial<DecodedModel>, idf = tensors.idf?.data;
  check(fs?.type !== "vocabulary" || isArray(fs.names), "featureSpace names");
  const text = (fs as { text?: unknown } | undefined)?.text, bad = text && textSettingsError(text);
  check(
    text === undefined || fs?.type !== "index" && !bad,
    `featureSpace.text: ${bad || "needs names"}`,
  );
  check(
    !pre?.tfidf || idf instanceof F32 && idf.length === D,
    "idf must be a float tensor",
  );
  m.tensors = tensors;
  return m as unknown as DecodedModel;
};
