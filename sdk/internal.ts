/**
 * The trainer's one entry into the SDK: the model-file contract and the helpers both sides share.
 * `sdk/` owns reading, validating, the frame (format version, magic, CRC-32), the error class,
 * feature hashing, top-k and the text tokenizer; the trainer (`src/`, `mod.ts`) imports them from
 * here or from `sdk/mod.ts` and nowhere else (tests/sdk/imports_test.ts checks it), and writes
 * files with its own encoder (src/format/model_file.ts) on these definitions.
 *
 * Not part of the SDK's public API (sdk/deno.json does not export it): names here may change with
 * the trainer. Nothing in `sdk/` imports this module, so it never reaches an edge bundle.
 *
 * @example
 * ```ts
 * import { crc32, decodeModelFile, FORMAT_VERSION, ModelFormatError, topKDense } from "./internal.ts";
 * console.log(FORMAT_VERSION, crc32(new TextEncoder().encode("123456789")).toString(16)); // 3 "cbf43926"
 * console.log([...topKDense(Float32Array.of(0.1, 0.7, 0.4), 2).labels]); // [ 1, 2 ]
 * try {
 *   decodeModelFile(new Uint8Array(0));
 * } catch (e) {
 *   console.log(e instanceof ModelFormatError); // true
 * }
 * ```
 *
 * @module
 */
export { crc32 } from "./crc32.ts";
export { halfFloats } from "./decode.ts";
export { ModelFormatError, type ModelFormatErrorReason } from "./errors.ts";
export { murmur3 } from "./features.ts";
export { mipsIndex, type MipsSearch } from "./kinds/mips_index.ts";
export {
  checkFrame,
  FORMAT_VERSION,
  LITTLE_ENDIAN,
  MAGIC,
  maxDimension,
  TENSOR_ARRAYS,
} from "./frame.ts";
export {
  checkFeatureSpace,
  decodeModelFile,
  type FeatureSpace,
  type ModelFileContent,
  type ModelKind,
  type Preprocess,
  shownValue,
  type Tensor,
} from "./model_file.ts";
export type { MsgpackValue } from "./msgpack_reader.ts";
export {
  columnOverflow,
  jsonScore,
  parsePredictBody,
  PREDICT_LIMITS,
  predictBody,
  PredictError,
  type PredictRequest,
  schemaResponse,
} from "./predict_protocol.ts";
export { textFeatures, type TextSettings, textSettingsError } from "./tokenizer.ts";
export { pushTop, type TopK, topK, topKDense, topKSparse, topKTouched } from "./topk.ts";
