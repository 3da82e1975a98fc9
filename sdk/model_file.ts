/**
 * The model file as the trainer sees it (spec: docs/model-format.md): its types (what the
 * trainer's writer, src/format/model_file.ts, takes) and the strict reader, `decodeModelFile`,
 * which keeps every tensor as stored (f16 as bits, i8 with its scale, f64) for the trainer's
 * tools (inspect, prune, the service's reload). It runs the frame check of ./frame.ts, decodes
 * with the bounded msgpack reader of ./msgpack_reader.ts (no extension types, no duplicate keys,
 * a nesting limit) and validates every field. Float32/int32 tensors are zero-copy views into the
 * file bytes when aligned. The serving reader is `decodeModel` (./decode.ts).
 *
 * Not part of the SDK's public API: the trainer reaches it through ./internal.ts.
 *
 * @module
 */
import { ModelFormatError } from "./errors.ts";
import { checkFrame, LITTLE_ENDIAN, maxDimension, TENSOR_ARRAYS } from "./frame.ts";
import { MsgpackReader, type MsgpackValue } from "./msgpack_reader.ts";
import { textSettingsError } from "./tokenizer.ts";
import type { FeatureSpace } from "./kinds/types.ts";

export type { TextSettings } from "./tokenizer.ts";
export type { FeatureSpace } from "./kinds/types.ts";

/**
 * Kinds of inference model a file can hold.
 *
 * @example
 * ```ts
 * import type { ModelKind } from "./model_file.ts";
 * const k: ModelKind = "linear-sparse";
 * console.log(k);
 * ```
 */
export type ModelKind = "linear-sparse" | "linear-lowrank" | "knn-embedding" | "random-features";

/**
 * A tensor as stored: element type, shape, and the typed array holding it.
 * `f16` data is carried as `Uint16Array`; `i8` as `Int8Array` with a per-tensor (or per-row)
 * `scale` so that value = int8 × scale.
 *
 * @example
 * ```ts
 * import type { Tensor } from "./model_file.ts";
 * const t: Tensor = { dtype: "f32", shape: [2, 2], data: new Float32Array(4) };
 * console.log(t.shape);
 * ```
 */
export interface Tensor {
  /** Element type as stored. */
  dtype: "f32" | "f64" | "i32" | "u8" | "i8" | "f16" | "u16";
  /** Dimensions, row-major. */
  shape: number[];
  /** The elements (f16 as raw bits in a Uint16Array). */
  data: Float32Array | Float64Array | Int32Array | Uint8Array | Int8Array | Uint16Array;
  /** For `i8`: one scale for the whole tensor, or one per row (a Float32Array). */
  scale?: number | Float32Array;
}

/**
 * Preprocessing the model was trained with; the SDK applies it to raw input rows.
 *
 * @example
 * ```ts
 * import type { Preprocess } from "./model_file.ts";
 * const p: Preprocess = { l2Normalize: true };
 * console.log(p.l2Normalize);
 * ```
 */
export interface Preprocess {
  /** Multiply feature j by idf[j] (tensor `idf`) before normalisation. */
  tfidf?: boolean;
  /** Scale the row to unit L2 norm (after TF-IDF). */
  l2Normalize?: boolean;
}

/**
 * The content of a model file, as written by the trainer and read back.
 *
 * @example
 * ```ts
 * import type { ModelFileContent } from "./model_file.ts";
 * const c: ModelFileContent = {
 *   kind: "linear-lowrank",
 *   numFeatures: 3,
 *   numLabels: 2,
 *   params: { rank: 1 },
 *   tensors: {
 *     W: { dtype: "f32", shape: [3, 1], data: new Float32Array(3) },
 *     H: { dtype: "f32", shape: [2, 1], data: new Float32Array(2) },
 *   },
 * };
 * console.log(c.kind);
 * ```
 */
export interface ModelFileContent {
  /** Which scorer reads the tensors. */
  kind: ModelKind;
  /** Number of model columns (D). */
  numFeatures: number;
  /** Number of labels (L). */
  numLabels: number;
  /** One name per label, in label-index order. */
  labelNames?: string[];
  /** How raw features map to columns (default: indices). */
  featureSpace?: FeatureSpace;
  /** Preprocessing applied to a row before scoring. */
  preprocess?: Preprocess;
  /** Kind-specific scalar parameters (rank, k of kNN, number of learners, ...). */
  params: Record<string, number | string | boolean | number[]>;
  /** Training metadata and metrics (free-form, JSON-able). */
  meta?: Record<string, unknown>;
  /** The kind's tensors by name (see docs/model-format.md). */
  tensors: Record<string, Tensor>;
}

/**
 * `v` as an error message shows it, readably and briefly: a string quoted, an array or object as
 * JSON (not `[object Object]`; a bigint as `5n`), a typed array by its type and length, a symbol
 * or function by kind, cut to `max` characters (ending in `...` when cut). The model-file
 * messages of the SDK and the trainer's writer show values with it.
 *
 * @example
 * ```ts
 * import { shownValue } from "./model_file.ts";
 * console.log(shownValue({ size: 8 }), shownValue("8"), shownValue(new Float32Array(3)), shownValue(5n)); // {"size":8} "8" Float32Array(3) 5n
 * console.log(shownValue("x".repeat(50), 10)); // "xxxxxx...
 * ```
 */
export function shownValue(v: unknown, max = 60): string {
  let s: string;
  if (typeof v === "bigint") s = `${v}n`;
  else if (typeof v === "function") s = "a function";
  else if (typeof v === "symbol") s = String(v);
  else if (ArrayBuffer.isView(v)) {
    s = `${v.constructor.name}(${"length" in v ? v.length : v.byteLength})`;
  } else if (typeof v === "string" || (typeof v === "object" && v !== null)) {
    try {
      s = JSON.stringify(v, (_k, x) => typeof x === "bigint" ? `${x}n` : x) ?? String(v);
    } catch {
      s = Object.prototype.toString.call(v); // a cycle, or a throwing toJSON
    }
  } else s = String(v);
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

/** The longest value {@linkcode checkFeatureSpace}'s messages show, in characters. */
const FEATURE_SPACE_SHOWN_MAX = 40;
const shown = (v: unknown): string => shownValue(v, FEATURE_SPACE_SHOWN_MAX);

/**
 * Checks a feature space against the model's `numFeatures` (the rules of the writer and of the
 * strict reader): throws `err(message)` naming the field and showing the value it got.
 *
 * @example
 * ```ts
 * import { checkFeatureSpace } from "./model_file.ts";
 * try {
 *   checkFeatureSpace({ type: "hashing", dim: 2, seed: 0 }, 3, (m) => new RangeError(m));
 * } catch (e) {
 *   console.log((e as Error).message); // featureSpace.dim must be an integer in [numFeatures = 3, 2^31), got 2
 * }
 * ```
 */
export function checkFeatureSpace(
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
        `featureSpace.dim must be an integer in [numFeatures = ${numFeatures}, 2^31), got ${
          shown(fs.dim)
        }`,
      );
    }
    if (!Number.isInteger(fs.seed) || fs.seed < 0 || fs.seed > 0xffffffff) {
      throw err(`featureSpace.seed must be an integer in [0, 2^32), got ${shown(fs.seed)}`);
    }
    if (fs.signed !== undefined && typeof fs.signed !== "boolean") {
      throw err(`featureSpace.signed must be a boolean, got ${shown(fs.signed)}`);
    }
    return;
  }
  throw err(
    `featureSpace.type must be "index", "vocabulary" or "hashing", got ${
      shown((fs as { type: unknown }).type)
    }`,
  );
}

/**
 * Decodes a model file (any version up to `FORMAT_VERSION` of ./frame.ts).
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
 * import { decodeModelFile } from "./model_file.ts";
 * import type { ModelFormatError } from "./errors.ts";
 * const bytes = await Deno.readFile(new URL("../tests/fixtures/v1/linear-lowrank.tsm", import.meta.url));
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
  // readers size per-feature and per-label scratch by them: at most 2^24, or the file's length
  const most = maxDimension(bytes.length);
  for (const [name, v] of [["numFeatures", numFeatures], ["numLabels", numLabels]] as const) {
    if ((v as number) > most) {
      fail(
        `${name} ${v} is above ${most}, the most a file of ${bytes.length} bytes may declare (2^24, or its length in bytes)`,
      );
    }
  }
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
  if (typeof dtype !== "string" || !Object.hasOwn(TENSOR_ARRAYS, dtype)) {
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
  if (data.length !== n * TENSOR_ARRAYS[dtype].BYTES_PER_ELEMENT) {
    fail(
      `tensor ${name}: data has ${data.length} bytes, shape [${shape}] of ${dtype} needs ${
        n * TENSOR_ARRAYS[dtype].BYTES_PER_ELEMENT
      }`,
    );
  }
  const out: Tensor = {
    dtype,
    shape: shape as number[],
    data: view(bytes, data, TENSOR_ARRAYS[dtype]),
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

type Ctor = (typeof TENSOR_ARRAYS)[keyof typeof TENSOR_ARRAYS];

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
