/**
 * Turns a raw input row into model columns and values: `{indices, values}` rows are taken as
 * column indices; `{name: value}` records are mapped through the model's feature space (index,
 * vocabulary or hashing). Values are rounded to float32 (what the trainers see); features unknown
 * to the model are dropped. Then the model's
 * preprocessing: TF-IDF (value × idf, rounded to float32 as the trainer's pipeline does) and L2
 * normalisation (in float64, as the BR trainer does).
 *
 * @module
 */
import type { DecodedModel } from "./kinds/types.ts";

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
  readonly indices: ArrayLike<number>;
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
 * Either input form.
 *
 * @example
 * ```ts
 * import type { ModelInput } from "./features.ts";
 * const rows: ModelInput[] = [{ indices: [0], values: [1] }, { "0": 1 }];
 * console.log(rows.length); // 2
 * ```
 */
export type ModelInput = SparseInput | FeatureRecord;

const enc = new TextEncoder();

/**
 * MurmurHash3 (x86, 32-bit) of `bytes` with `seed`: the hash of the `hashing` feature space
 * (column = hash of the name's UTF-8 bytes modulo `dim`).
 *
 * @example
 * ```ts
 * import { murmur3 } from "./features.ts";
 * const bytes = new TextEncoder().encode("The quick brown fox jumps over the lazy dog");
 * console.log(murmur3(bytes, 0).toString(16)); // "2e4ff723"
 * ```
 */
export function murmur3(bytes: Uint8Array, seed: number): number {
  const n = bytes.length, nb = n & ~3;
  let h = seed | 0, k = 0;
  const mix = (k: number) => Math.imul(rotl(Math.imul(k, 0xcc9e2d51), 15), 0x1b873593);
  for (let i = 0; i < nb; i += 4) {
    h ^= mix(bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    h = (Math.imul(rotl(h, 13), 5) + 0xe6546b64) | 0;
  }
  for (let i = n - 1; i >= nb; i--) k = (k << 8) | bytes[i];
  if (n & 3) h ^= mix(k);
  h ^= n;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/**
 * The row preprocessor of a model: returns a function that maps an input row to model columns
 * and values (views into scratch buffers reused by the next call). Unknown features are dropped;
 * values are rounded to float32; then TF-IDF and L2 normalisation when the model asks for them.
 *
 * @throws {TypeError} (from the returned function) when `x` is not an object, or its indices
 * and values differ in length.
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
export function featurizer(m: DecodedModel): (x: ModelInput) => [Int32Array, Float64Array] {
  const D = m.numFeatures, fs = m.featureSpace, pre = m.preprocess;
  const idf = pre?.tfidf ? m.tensors.idf?.data : undefined;
  if (idf && !(idf instanceof Float32Array)) throw new TypeError("idf must be a float tensor");
  if (fs?.type === "vocabulary" && !Array.isArray(fs.names)) throw new TypeError("featureSpace");
  let idx = new Int32Array(64), val = new Float64Array(64), names: Map<string, number>;
  const column = (name: string): number => {
    if (fs?.type === "vocabulary") {
      return (names ??= new Map(fs.names.map((s, i) => [s, i]))).get(name) ?? -1;
    }
    if (fs?.type === "hashing") return murmur3(enc.encode(name), fs.seed) % fs.dim;
    return name ? +name : -1;
  };
  return (x) => {
    const sp = x as SparseInput, rec = x as FeatureRecord;
    if (typeof x !== "object" || !x) throw new TypeError("predictTopK: x must be an object");
    const sparse = typeof sp.indices === "object" && typeof sp.values === "object";
    if (sparse && sp.values.length !== sp.indices.length) {
      throw new TypeError("predictTopK: x.indices/values lengths differ");
    }
    // named features: sorted by column, collisions (hashing) added up
    const sum = sparse ? undefined : new Map<number, number>();
    if (sum) {
      for (const k in rec) {
        const j = column(k);
        if (typeof rec[k] === "number") sum.set(j, (sum.get(j) ?? 0) + rec[k]);
      }
    }
    const cols = sum ? [...sum.keys()].sort((a, b) => a - b) : sp.indices;
    if (cols.length > idx.length) {
      idx = new Int32Array(cols.length);
      val = new Float64Array(cols.length);
    }
    let n = 0, ss = 0;
    for (let p = 0; p < cols.length; p++) {
      const j = cols[p];
      if (j >= 0 && j < D && Number.isInteger(j)) {
        let v = Math.fround(sum ? sum.get(j)! : sp.values[p]);
        if (idf) v = Math.fround(v * idf[j]);
        ss += v * v;
        idx[n] = j;
        val[n++] = v;
      }
    }
    const f = ss > 0 ? 1 / Math.sqrt(ss) : 0;
    if (pre?.l2Normalize) { for (let p = 0; p < n; p++) val[p] *= f; }
    return [idx.subarray(0, n), val.subarray(0, n)];
  };
}
