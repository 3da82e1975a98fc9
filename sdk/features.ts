/**
 * Turns a raw input row into model columns and values: `{indices, values}` rows are taken as
 * column indices (strictly increasing integers, as the trainers' rows: any other is a
 * `RangeError` naming the entry); `{name: value}` records are mapped through the model's feature
 * space (index, vocabulary or hashing, signed or not; colliding names add up and zero sums are
 * dropped, as in the trainer's row builder); `{text, features?}` (models trained on text) goes
 * through the model's tokenizer (`./tokenizer.ts`) into named features first. Values are rounded
 * to float32 (what the trainers see); features unknown to the model are dropped. Then the model's
 * preprocessing: TF-IDF (value × idf, rounded to float32 as the trainer's pipeline does; before L2
 * normalisation, a row whose weighted values would overflow float32 is scaled by a power of two
 * first, as the trainer's) and L2 normalisation (in float64, as the BR trainer does).
 *
 * @module
 */
import type { DecodedModel } from "./kinds/types.ts";
import {
  abs,
  ceil,
  entries,
  fround,
  i32s,
  imul,
  invNorm,
  isNumber,
  isString,
  max,
  range,
  zeros,
} from "./vector.ts";
import { textFeatures, type TextSettings } from "./tokenizer.ts";

/**
 * A sparse row: column indices and their values (same length).
 *
 * @example
 * ```ts
 * import type { SparseInput } from "./features.ts";
 * const x: SparseInput = { indices: [3, 7], values: [1, 0.5] };
 * console.log(x.indices.length); // 2
 * ```
 */
export interface SparseInput {
  /**
   * Model column indices, strictly increasing integers in [0, 2³²) (any other is a
   * `RangeError`); those at or past the model's `numFeatures` are dropped.
   */
  readonly indices: ArrayLike<number>;
  /**
   * The value of each listed column. (A row that leaves it out at run time is binary, every
   * value 1, as in the `/predict` protocol.)
   */
  readonly values: ArrayLike<number>;
}

/**
 * A row as named features (`{"word:cat": 1, "len": 3}`); names are resolved by the model's
 * feature space (for an `index` space, names are decimal column numbers).
 *
 * @example
 * ```ts
 * import type { FeatureRecord } from "./features.ts";
 * const x: FeatureRecord = { cat: 1, dog: 2 };
 * console.log(Object.keys(x).length); // 2
 * ```
 */
export type FeatureRecord = Readonly<Record<string, number>>;

/**
 * A raw text, alone or beside named features, for a model trained on text (its file's
 * `featureSpace.text` says how to tokenize it; see `./tokenizer.ts`).
 *
 * @example
 * ```ts
 * import type { TextInput } from "./features.ts";
 * const x: TextInput = { text: "A fast JSON parser", features: { "lang:c": 1 } };
 * console.log(x.text.length); // 18
 * ```
 */
export interface TextInput {
  /** The raw text. */
  readonly text: string;
  /**
   * Named features beside the text (their values, numbers, add to the text's counts by name; any
   * other value is a `TypeError`).
   */
  readonly features?: FeatureRecord;
}

/**
 * A binary sparse row: column indices only, every value 1 (as in the `/predict` protocol).
 *
 * @example
 * ```ts
 * import type { BinaryInput } from "./features.ts";
 * const x: BinaryInput = { indices: [3, 7] };
 * console.log(x.indices.length); // 2
 * ```
 */
export interface BinaryInput {
  /** Model column indices (as in {@linkcode SparseInput}), each with the value 1. */
  readonly indices: ArrayLike<number>;
}

/**
 * Any input form.
 *
 * @example
 * ```ts
 * import type { ModelInput } from "./features.ts";
 * const rows: ModelInput[] = [{ indices: [0], values: [1] }, { indices: [2] }, { "0": 1 }, { text: "hello" }];
 * console.log(rows.length); // 4
 * ```
 */
export type ModelInput = SparseInput | BinaryInput | FeatureRecord | TextInput;

/**
 * The SDK's UTF-8 encoder.
 *
 * @example
 * ```ts
 * import { enc } from "./features.ts";
 * console.log(enc.encode("é")); // Uint8Array(2) [ 195, 169 ]
 * ```
 */
export const enc: { encode(input?: string): Uint8Array } = new TextEncoder();
const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));
const mix = (k: number) => imul(rotl(imul(k, 0xcc9e2d51), 15), 0x1b873593);

/**
 * MurmurHash3 (x86, 32-bit) of `bytes[offset, offset + length)` with `seed`, unsigned: the hash
 * of the `hashing` feature space (column = hash of the name's UTF-8 bytes modulo `dim`; with
 * `signed`, bit 31 of the hash set negates the value). The one implementation in the project:
 * the trainer's feature hashing (src/data/feature_hash.ts) uses it too.
 *
 * @example
 * ```ts
 * import { murmur3 } from "./features.ts";
 * const bytes = new TextEncoder().encode("The quick brown fox jumps over the lazy dog");
 * console.log(murmur3(bytes, 0).toString(16)); // "2e4ff723"
 * console.log(murmur3(new TextEncoder().encode("> hello"), 0, 5, 2).toString(16)); // "248bfa47"
 * ```
 */
export const murmur3 = (
  bytes: Uint8Array,
  seed: number,
  length = bytes.length,
  offset = 0,
): number => {
  let h = seed | 0, k = 0, i = offset;
  const end = offset + length, blocks = end - (length & 3);
  // each 4-byte block (little-endian) is mixed into h, then h rotates; then the 1-3 tail bytes
  for (; i < blocks; i += 4) {
    h ^= mix(bytes[i] | bytes[i + 1] << 8 | bytes[i + 2] << 16 | bytes[i + 3] << 24);
    h = (imul(rotl(h, 13), 5) + 0xe6546b64) | 0;
  }
  for (let s = 0; i < end; s += 8) k |= bytes[i++] << s;
  h ^= mix(k) ^ length; // without tail bytes k = 0, and mix(0) = 0
  h = imul(h ^ (h >>> 16), 0x85ebca6b);
  h = imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
};

/**
 * Throws the `TypeError` (or `Type`) "`where`: `what`" (a malformed query; `where` defaults to
 * "predictTopK").
 *
 * @example
 * ```ts
 * import { badInput } from "./features.ts";
 * try { badInput("x is odd"); } catch (e) { console.log(`${e}`); } // TypeError: predictTopK: x is odd
 * try { badInput("l is odd", RangeError, "labelName"); } catch (e) { console.log(`${e}`); } // RangeError: labelName: l is odd
 * ```
 */
export const badInput: (what: string, Type?: typeof TypeError, where?: string) => never = (
  what,
  Type = TypeError,
  where = "predictTopK",
) => {
  throw new Type(where + ": " + what);
};

/**
 * Whether `v` is an integer in [`lo`, `hi`] (`hi` defaults to 2³² − 1); else throws the
 * `RangeError` "`where`: `what` must be an integer in [`lo`, `hi`], got `v`" (`where` defaults to
 * "predictTopK").
 *
 * @example
 * ```ts
 * import { int } from "./features.ts";
 * console.log(int(3, "k", 0)); // true
 * try { int(1.5, "k", 0, 9); } catch (e) { console.log(`${e}`); } // RangeError: predictTopK: k must be an integer in [0, 9], got 1.5
 * ```
 */
export const int = (
  v: number,
  what: string,
  lo: number,
  hi = 2 ** 32 - 1,
  where?: string,
): true =>
  v >>> 0 === v && v >= lo && v <= hi ||
  badInput(range(what, lo, hi) + ", got " + v, RangeError, where);

/**
 * The row preprocessor of a model: returns a function that maps an input row to model columns
 * and values (fresh arrays). Records are mapped through
 * the feature space, colliding names added up (in float64) and zero sums dropped, as the
 * trainer's row builder does. Unknown features are dropped (one by one, their values checked
 * like the others); values are rounded to float32; then
 * TF-IDF and L2 normalisation when the model asks for them.
 *
 * `{indices}` without `values` is a binary row (every value 1), as in the `/predict` protocol.
 * Its indices are strictly increasing integers in [0, 2³²), as the trainers' rows (a repeated
 * index is not summed, nor a negative or fractional one dropped: each is refused); those at or
 * past D are dropped (a suffix of the row). In an index feature space a record's names are plain
 * decimal column numbers (`"7"`; `"07"`, `" 7"`, `"7e0"`, `"-1"` or `"1.5"` name no column and
 * are dropped like other unknown names).
 *
 * @throws {TypeError} (from the returned function) when `x` is not an object, its indices
 * and values differ in length, a value (or a named feature's sum) is not a number or is NaN or
 * infinite as a float32, or it has a `text` the model was not trained on (or that is not a
 * string), or a value of the `features` beside a text is not a number; {RangeError} when an
 * index is not an integer above the one before it, in [0, 2³²) (the message names the entry,
 * the range and the value).
 *
 * @example
 * ```ts
 * import { featurizer } from "./features.ts";
 * const rows = featurizer({
 *   kind: "k", formatVersion: 1, numFeatures: 3, numLabels: 1, params: {}, tensors: {},
 *   featureSpace: { type: "vocabulary", names: ["a", "b", "c"] }, preprocess: { l2Normalize: true },
 * });
 * const [indices, values] = rows({ c: 3, a: 4, zzz: 1 });
 * console.log([...indices], [...values]); // [ 0, 2 ] [ 0.8, 0.6 ]
 * ```
 */
export const featurizer = (m: DecodedModel): (x: ModelInput) => [Int32Array, Float64Array] => {
  const D = m.numFeatures, fs = m.featureSpace, pre = m.preprocess, l2 = pre?.l2Normalize;
  const idf = pre?.tfidf && m.tensors.idf?.data;
  // tokenizer settings: only on a vocabulary or hashing space (the reader checks it)
  const settings = (fs as { text?: TextSettings } | undefined)?.text;
  let names: Map<string, number>;
  // a value must be finite as a float32 (each value of a record, each column's sum)
  const finite = (v: number) =>
    isFinite(fround(v)) || badInput("x values must be finite, got " + v);
  return (x) => {
    if (typeof x !== "object" || !x) badInput("x must be an object");
    let { indices: cols, values: vs, text, features } = x as SparseInput & TextInput;
    if (typeof cols !== "object") {
      // named features: sorted by column, collisions added up, zero sums dropped
      let rec: Iterable<[string, unknown]> = entries(x);
      if (text !== undefined && !isNumber(text)) {
        if (!isString(text)) badInput("text must be a string");
        if (!settings) badInput("this model was not trained on text");
        // the values of `features` are numbers, as in a record (textFeatures skips the others)
        for (const k in features) {
          isNumber(features[k]) || badInput(`features["${k}"] is not a number`);
        }
        rec = textFeatures(text, settings, features);
      }
      const sum = new Map<number, number>();
      for (const [name, raw] of rec) {
        // the column in an index space (a plain decimal: "01", " 1", "1e0" name no column); a
        // value that is not a number fails the finiteness check
        let j = +name + "" == name ? +name : -1, v = isNumber(raw) ? raw : NaN;
        if (fs?.type === "vocabulary") {
          j = (names ??= new Map(fs.names.map((s, i) => [s, i]))).get(name) ?? -1;
        } else if (fs?.type === "hashing") {
          const h = murmur3(enc.encode(name), fs.seed);
          j = h % fs.dim;
          if (fs.signed && h >> 31) v = -v;
        }
        // (unknown names, j = -1, and in an index space a name like "1.5" or "-1", add up
        // nowhere: they are dropped)
        finite(v) && j >>> 0 != j || sum.set(j, (sum.get(j) ?? 0) + v);
      }
      vs = (cols = [...sum.keys()].filter((j) => sum.get(j) != 0).sort((a, b) => a - b))
        .map((j) => sum.get(j)!);
    } else if (vs && vs.length != cols.length) { // (no values: binary, every value 1)
      badInput("x.indices/values lengths differ");
    }
    const len = cols.length, idx = i32s(len), val = zeros(len);
    let n = 0;
    for (let p = 0, j, i = -1, v; p < len; i = j, p++) {
      finite(v = vs ? vs[p] : 1);
      // strictly increasing integers in [0, 2³²) (as the trainers' rows; a record's columns are),
      // the message built only for a refusal; those at or past D (a suffix) are dropped
      (j = cols[p]) >>> 0 === j && j > i || int(j, `x.indices[${p}]`, i + 1);
      idx[p] = j;
      val[p] = fround(v);
      if (j < D) n++;
    }
    if (idf) {
      // value × idf, rounded to float32; before L2, a row whose weighted values would pass
      // float32 is scaled by a power of two, its largest at most 1 (src/data/tfidf_overflow.ts)
      let m = 0, s = 1, p = n;
      if (l2) {
        while (p--) m = max(m, abs(val[p] * idf[idx[p]]));
        if (!isFinite(fround(m))) s = 2 ** -ceil(Math.log2(m));
      }
      for (p = n; p--;) val[p] = fround(fround(val[p] * s) * idf[idx[p]]);
    }
    if (l2) { for (let p = n, f = invNorm(val, n); p--;) val[p] *= f; }
    return [idx.subarray(0, n), val.subarray(0, n)];
  };
};
