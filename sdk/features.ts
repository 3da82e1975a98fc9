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
 * Preprocesses rows for one model into reusable scratch buffers (not shared between threads;
 * one per model).
 *
 * @example
 * ```ts
 * import { Featurizer } from "./features.ts";
 * const f = new Featurizer({
 *   kind: "k", formatVersion: 1, numFeatures: 3, numLabels: 1, params: {}, tensors: {},
 *   featureSpace: { type: "vocabulary", names: ["a", "b", "c"] }, preprocess: { l2Normalize: true },
 * });
 * const n = f.load({ c: 3, a: 4, zzz: 1 });
 * console.log([...f.indices.subarray(0, n)], [...f.values.subarray(0, n)]); // [ 0, 2 ] [ 0.8, 0.6 ]
 * ```
 */
export class Featurizer {
  /** Column indices of the last row loaded (first `n` entries). */
  indices = new Int32Array(64);
  /** Values of the last row loaded. */
  values = new Float64Array(64);
  readonly #D: number;
  readonly #m: DecodedModel;
  readonly #idf?: Float32Array;
  readonly #l2: boolean;
  #names?: Map<string, number>;

  constructor(m: DecodedModel) {
    this.#m = m;
    this.#D = m.numFeatures;
    if (m.preprocess?.tfidf) {
      const idf = m.tensors.idf?.data;
      if (!(idf instanceof Float32Array)) {
        throw new TypeError(`tensor "idf" must be a float tensor`);
      }
      this.#idf = idf;
    }
    this.#l2 = m.preprocess?.l2Normalize === true;
  }

  #grow(n: number): void {
    if (n <= this.indices.length) return;
    const cap = Math.max(n, 2 * this.indices.length);
    const i = new Int32Array(cap), v = new Float64Array(cap);
    i.set(this.indices);
    v.set(this.values);
    this.indices = i;
    this.values = v;
  }

  /** The column of a feature name, or -1 when the model does not know it. */
  #column(name: string): number {
    const fs = this.#m.featureSpace;
    if (fs?.type === "vocabulary") {
      if (!this.#names) this.#names = new Map(fs.names.map((s, i) => [s, i]));
      return this.#names.get(name) ?? -1;
    }
    if (fs?.type === "hashing") return murmur3(enc.encode(name), fs.seed) % fs.dim;
    const j = Number(name);
    return name !== "" && Number.isInteger(j) ? j : -1;
  }

  /**
   * Loads one row; returns its number of entries `n` (`indices`/`values` hold them).
   *
   * @throws {TypeError} when `x` is neither form, or indices and values differ in length.
   */
  load(x: ModelInput): number {
    const D = this.#D;
    let n = 0;
    if (typeof x !== "object" || x === null) {
      throw new TypeError("predictTopK: x must be {indices, values} or a {name: value} record");
    }
    const sp = x as SparseInput;
    if (typeof sp.indices === "object" && typeof sp.values === "object") {
      const m = sp.indices.length;
      if (sp.values.length !== m) {
        throw new TypeError(
          `predictTopK: x.indices has ${m} entries but x.values has ${sp.values.length}`,
        );
      }
      this.#grow(m);
      const idx = this.indices, val = this.values;
      for (let p = 0; p < m; p++) {
        const j = sp.indices[p];
        if (j >= 0 && j < D && Number.isInteger(j)) {
          idx[n] = j;
          val[n++] = Math.fround(sp.values[p]);
        }
      }
    } else {
      // named features: sorted by column, collisions (hashing) added up
      const cols: [number, number][] = [];
      for (const name in x) {
        const j = this.#column(name), v = (x as FeatureRecord)[name];
        if (j >= 0 && j < D && typeof v === "number") cols.push([j, v]);
      }
      cols.sort((a, b) => a[0] - b[0]);
      this.#grow(cols.length);
      for (const [j, v] of cols) {
        if (n > 0 && this.indices[n - 1] === j) this.values[n - 1] += v;
        else {
          this.indices[n] = j;
          this.values[n++] = v;
        }
      }
      for (let p = 0; p < n; p++) this.values[p] = Math.fround(this.values[p]);
    }
    const val = this.values, idf = this.#idf;
    if (idf) { for (let p = 0; p < n; p++) val[p] = Math.fround(val[p] * idf[this.indices[p]]); }
    if (this.#l2) {
      let ss = 0;
      for (let p = 0; p < n; p++) ss += val[p] * val[p];
      const f = ss > 0 ? 1 / Math.sqrt(ss) : 0;
      for (let p = 0; p < n; p++) val[p] *= f;
    }
    return n;
  }
}
