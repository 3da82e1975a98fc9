/**
 * Online TF-IDF weighting for streams: document frequencies are counted as rows arrive, and a
 * row is weighted with the IDF of all rows seen so far, itself included:
 * `idf(j) = ln((1 + n) / (1 + df(j))) + 1` (the smoothed IDF of scikit-learn), `x'_j = x_j idf(j)`.
 * Freeze it (`fit: false`, or {@linkcode TfIdf.freeze}) to weight test rows with the training
 * statistics only.
 *
 * @module
 */
import type { SparseVector } from "./types.ts";
import { booleanOption, checkOptionKeys, numberOption } from "./option_check.ts";

/** Default largest feature space of a {@linkcode TfIdf} (its counts take 8 bytes a column). */
const DEFAULT_MAX_FEATURES = 2 ** 24;

/**
 * The JSON (checkpoint) form of a {@linkcode TfIdf}.
 *
 * @example
 * ```ts
 * import type { TfIdfJSON } from "./tfidf.ts";
 * const j: TfIdfJSON = { numDocs: 2, df: [2, 1], fit: true };
 * console.log(j.df.length); // 2
 * ```
 */
export interface TfIdfJSON {
  /** Rows counted. */
  numDocs: number;
  /** Document frequency of each feature column. */
  df: number[];
  /** Whether counting continues. */
  fit: boolean;
  /** Feature indices must be below it (written when it is not the default, 2^24). */
  maxFeatures?: number;
}

/**
 * Document-frequency counts and IDF weights.
 *
 * @example
 * ```ts
 * import { TfIdf } from "./tfidf.ts";
 * const t = new TfIdf();
 * t.apply({ indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) });
 * const r = t.apply({ indices: Int32Array.of(0), values: Float32Array.of(2) });
 * // feature 0 is in both rows: idf = ln(3/3) + 1 = 1; feature 1 in one of two: ln(3/2) + 1
 * console.log(r.values[0], t.idf(1).toFixed(4)); // 2 "1.4055"
 * ```
 */
export class TfIdf {
  #df = new Float64Array(64);
  #numDocs = 0;
  #fit: boolean;
  readonly #maxFeatures: number;

  /**
   * Empty statistics.
   *
   * @param options `fit` (default true): count the rows passed to {@linkcode TfIdf.apply};
   *   `maxFeatures` (default 2^24, at most 2^31 − 1): feature indices must be below it (the
   *   counts take 8 bytes a column)
   * @throws {TypeError} for an unknown option or a value of the wrong type
   * @throws {RangeError} for a `maxFeatures` out of range
   */
  constructor(options: { fit?: boolean; maxFeatures?: number } = {}) {
    checkOptionKeys("TfIdf", options, ["fit", "maxFeatures"]);
    this.#fit = booleanOption("TfIdf", "fit", options.fit, true);
    this.#maxFeatures = numberOption(
      "TfIdf",
      "maxFeatures",
      options.maxFeatures,
      DEFAULT_MAX_FEATURES,
      1,
      2 ** 31 - 1,
      true,
    );
  }

  /** Feature indices must be below it. */
  get maxFeatures(): number {
    return this.#maxFeatures;
  }

  /** Rows counted so far. */
  get numDocs(): number {
    return this.#numDocs;
  }

  /** True while rows are being counted. */
  get fitting(): boolean {
    return this.#fit;
  }

  /** Stops counting: later rows are weighted with the current statistics. */
  freeze(): void {
    this.#fit = false;
  }

  /**
   * Counts a row (its indices) without weighting it.
   *
   * @throws {RangeError} for an index that is not an integer in [0, maxFeatures) (nothing is
   * counted then)
   */
  observe(x: SparseVector): void {
    const idx = x.indices, max = this.#maxFeatures;
    let top = -1;
    for (let k = 0; k < idx.length; k++) {
      const j = idx[k];
      if (!(Number.isInteger(j) && j >= 0 && j < max)) {
        throw new RangeError(
          `TfIdf.observe: feature index ${j} (entry ${k}) is not an integer in [0, ${max}) ` +
            `(maxFeatures)`,
        );
      }
      if (j > top) top = j;
    }
    if (top >= this.#df.length) {
      let n = this.#df.length * 2;
      while (n <= top) n *= 2;
      const next = new Float64Array(Math.min(n, max));
      next.set(this.#df);
      this.#df = next;
    }
    for (let k = 0; k < idx.length; k++) this.#df[idx[k]]++;
    this.#numDocs++;
  }

  /**
   * The IDF of column `j` (a column never counted has df 0), rounded to float32: the value the
   * model file stores (`idfVector`) and the SDK weighs by, so that the rows learned from are
   * weighted exactly as the served model weighs a query (in float64 they differed by an ulp).
   *
   * @throws {RangeError} unless `j` is a non-negative integer (-1 gave NaN)
   *
   * @example
   * ```ts
   * import { TfIdf } from "./tfidf.ts";
   * const t = TfIdf.fromJSON({ numDocs: 1, df: [1], fit: false });
   * console.log(t.idf(0), t.idf(5).toFixed(3)); // 1 "1.693"
   * ```
   */
  idf(j: number): number {
    if (!(Number.isInteger(j) && j >= 0)) {
      throw new RangeError(`TfIdf.idf: column ${j} is not a non-negative integer`);
    }
    const df = j < this.#df.length ? this.#df[j] : 0;
    return Math.fround(Math.log((1 + this.#numDocs) / (1 + df)) + 1);
  }

  /**
   * The weighted row (new values array, same indices); counts it first while fitting.
   */
  apply(x: SparseVector): SparseVector {
    if (x.values.length !== x.indices.length) {
      throw new RangeError(
        `TfIdf.apply: x has ${x.indices.length} indices but ${x.values.length} values`,
      );
    }
    if (this.#fit) this.observe(x);
    const values = new Float32Array(x.values.length);
    for (let k = 0; k < values.length; k++) values[k] = x.values[k] * this.idf(x.indices[k]);
    return { indices: x.indices, values };
  }

  /**
   * The IDF of columns `0 .. numFeatures - 1` (for a model file's preprocessing block).
   *
   * @example
   * ```ts
   * import { TfIdf } from "./tfidf.ts";
   * const t = new TfIdf();
   * t.observe({ indices: Int32Array.of(1), values: Float32Array.of(1) });
   * console.log([...t.idfVector(2)].map((v) => v.toFixed(3))); // [ "2.099", "1.000" ]
   * ```
   */
  idfVector(numFeatures: number): Float32Array {
    numberOption("TfIdf.idfVector", "numFeatures", numFeatures, 0, 0, this.#maxFeatures, true);
    const out = new Float32Array(numFeatures);
    for (let j = 0; j < numFeatures; j++) out[j] = this.idf(j);
    return out;
  }

  /** The JSON form (for checkpoints). */
  toJSON(): TfIdfJSON {
    let last = this.#df.length - 1;
    while (last >= 0 && this.#df[last] === 0) last--;
    const max = this.#maxFeatures;
    return {
      numDocs: this.#numDocs,
      df: Array.from(this.#df.subarray(0, last + 1)),
      fit: this.#fit,
      ...(max === DEFAULT_MAX_FEATURES ? {} : { maxFeatures: max }),
    };
  }

  /**
   * Rebuilds from {@linkcode TfIdf.toJSON} (with its `maxFeatures`).
   *
   * @throws {TypeError} for JSON that is not a TfIdf's (a missing or unknown field, counts that
   * are not integers in [0, numDocs], more counts than `maxFeatures`)
   * @throws {RangeError} for a `maxFeatures` out of range
   *
   * @example
   * ```ts
   * import { TfIdf } from "./tfidf.ts";
   * const t = TfIdf.fromJSON({ numDocs: 4, df: [4, 1], fit: false });
   * console.log(t.idf(0), t.fitting); // 1 false
   * ```
   */
  static fromJSON(json: TfIdfJSON): TfIdf {
    const where = "TfIdf.fromJSON";
    const { numDocs, df, fit, maxFeatures } = checkOptionKeys(
      where,
      json,
      ["numDocs", "df", "fit", "maxFeatures"],
    );
    const expected = "(expected {numDocs, df: counts <= numDocs, fit, maxFeatures?})";
    if (!Number.isSafeInteger(numDocs) || numDocs < 0) {
      throw new TypeError(
        `${where}: numDocs must be a non-negative integer, got ${numDocs} ${expected}`,
      );
    }
    // (checks maxFeatures; the restored statistics keep it)
    const t = new TfIdf({ fit: booleanOption(where, "fit", fit, true), maxFeatures });
    if (!Array.isArray(df) || df.length > t.#maxFeatures) {
      throw new TypeError(
        `${where}: df must be an array of at most maxFeatures = ${t.#maxFeatures} counts ` +
          expected,
      );
    }
    const bad = df.findIndex((d) => !(Number.isInteger(d) && d >= 0 && d <= numDocs));
    if (bad >= 0) {
      throw new TypeError(
        `${where}: df[${bad}] must be an integer count in [0, numDocs = ${numDocs}], got ` +
          `${df[bad]} ${expected}`,
      );
    }
    t.#numDocs = numDocs;
    t.#df = new Float64Array(Math.max(64, df.length));
    t.#df.set(df);
    return t;
  }
}
