/**
 * The feature-hashing option of the readers: maps feature names or indices into a fixed number
 * of columns with the hash of `feature_hash.ts` (MurmurHash3 x86 32 of the key's UTF-8 bytes,
 * bucket `h % dim`, optional sign from bit 31). Colliding features of a row are summed (a sum
 * past the float32 range is a RangeError, as the SDK refuses such a row).
 *
 * @module
 */
import type { SparseVector } from "./types.ts";
import { hashBucket, hashIndex, hashName, hashSign } from "./feature_hash.ts";
import { RowBuilder } from "./sparse_row.ts";
import type { FeatureSpace } from "../format/types.ts";
import { booleanOption, checkOptionKeys, shown } from "./option_check.ts";

/**
 * Feature hashing settings.
 *
 * @example
 * ```ts
 * import type { HashingOptions } from "./hashing.ts";
 * const h: HashingOptions = { dim: 1 << 18, seed: 7, signed: true };
 * console.log(h.dim); // 262144
 * ```
 */
export interface HashingOptions {
  /** Number of columns (the hashed dimension), 1 ≤ dim ≤ 2^31 - 1. */
  dim: number;
  /** Hash seed, an integer taken mod 2^32 (default 0). */
  seed?: number;
  /**
   * Signed hashing: a feature's value is multiplied by `-1` when bit 31 of its hash is set, so
   * collisions cancel out in expectation (default false: every sign is `+1`).
   */
  signed?: boolean;
}

/**
 * The JSON description of a hasher, enough to reproduce it (e.g. in the SDK).
 *
 * @example
 * ```ts
 * import { FeatureHasher, type HashingJSON } from "./hashing.ts";
 * const j: HashingJSON = new FeatureHasher({ dim: 64 }).toJSON();
 * console.log(j.hash); // "murmur3_x86_32"
 * ```
 */
export interface HashingJSON {
  /** Always "hashing". */
  type: "hashing";
  /** The hash function. */
  hash: "murmur3_x86_32";
  /** Number of columns. */
  dim: number;
  /** Hash seed. */
  seed: number;
  /** Whether bit 31 of the hash gives the value's sign. */
  signed: boolean;
}

/**
 * Maps rows into a hashed feature space.
 *
 * @example
 * ```ts
 * import { FeatureHasher } from "./hashing.ts";
 * const h = new FeatureHasher({ dim: 16, seed: 1 });
 * const byName = h.hashNamed(["17", "4"], [1, 2]);
 * const byIndex = h.hashIndexed({ indices: Int32Array.of(4, 17), values: Float32Array.of(2, 1) });
 * console.log(byName.indices.join() === byIndex.indices.join(), byName.indices.every((j) => j < 16)); // true true
 * ```
 */
export class FeatureHasher {
  /** Hashed dimension. */
  readonly dim: number;
  /** Seed (uint32). */
  readonly seed: number;
  /** Whether signs are taken from the hash. */
  readonly signed: boolean;
  readonly #row = new RowBuilder();

  /**
   * A hasher into `options.dim` columns.
   *
   * @param options dimension, seed and sign mode
   * @throws {TypeError} for an unknown option or a value of the wrong type
   * @throws {RangeError} for a dimension or seed out of range
   */
  constructor(options: HashingOptions) {
    if (options === undefined) {
      throw new TypeError("FeatureHasher: options { dim } are required");
    }
    checkOptionKeys("FeatureHasher", options, ["dim", "seed", "signed"]);
    const dim = options.dim;
    if (!(Number.isInteger(dim) && dim >= 1 && dim <= 2147483647)) {
      const Err = typeof dim === "number" ? RangeError : TypeError;
      throw new Err(`hashing: dim must be an integer in [1, 2^31-1], got ${shown(dim)}`);
    }
    const seed = options.seed ?? 0;
    if (!Number.isInteger(seed)) {
      const Err = typeof seed === "number" ? RangeError : TypeError;
      throw new Err(`hashing: seed must be an integer, got ${seed}`);
    }
    this.dim = dim;
    this.seed = seed >>> 0;
    this.signed = booleanOption("FeatureHasher", "signed", options.signed, false);
  }

  /**
   * Rebuilds a hasher from {@linkcode FeatureHasher.toJSON} (checked like the constructor's
   * options, plus `type` "hashing" and `hash` "murmur3_x86_32").
   *
   * @throws {TypeError} for JSON that is not a hasher's (another `type` or `hash`, a missing
   * field, an unknown key)
   *
   * @example
   * ```ts
   * import { FeatureHasher } from "./hashing.ts";
   * const h = FeatureHasher.fromJSON(new FeatureHasher({ dim: 32, seed: 2 }).toJSON());
   * console.log(h.dim, h.seed, h.signed); // 32 2 false
   * ```
   */
  static fromJSON(json: HashingJSON): FeatureHasher {
    const { type, hash, ...options } = checkOptionKeys(
      "FeatureHasher.fromJSON",
      json,
      ["type", "hash", "dim", "seed", "signed"],
    );
    if (type !== "hashing" || hash !== "murmur3_x86_32") {
      throw new TypeError(
        `FeatureHasher.fromJSON: expected {type: "hashing", hash: "murmur3_x86_32", dim, seed, ` +
          `signed}, got type ${JSON.stringify(type)} and hash ${JSON.stringify(hash)}`,
      );
    }
    return new FeatureHasher(options);
  }

  /** The column and sign of a named feature. */
  bucketOfName(name: string): { index: number; sign: number } {
    const h = hashName(name, this.seed);
    return { index: hashBucket(h, this.dim), sign: this.signed ? hashSign(h) : 1 };
  }

  /**
   * Hashes a row with integer feature indices (keys are their decimal text).
   *
   * @throws {RangeError} when the values landing in one column add up past the float32 range
   */
  hashIndexed(x: SparseVector): SparseVector {
    const b = this.#row;
    b.clear();
    const dim = this.dim, seed = this.seed, signed = this.signed;
    for (let k = 0; k < x.indices.length; k++) {
      const h = hashIndex(x.indices[k], seed);
      b.push(hashBucket(h, dim), signed ? hashSign(h) * x.values[k] : x.values[k]);
    }
    return this.#finite(
      b.build(),
      "hashIndexed",
      x.indices.length,
      (k) => String(x.indices[k]),
      x.values,
    );
  }

  /**
   * Hashes a row given as feature names and values (same length).
   *
   * @throws {RangeError} when the values landing in one column add up past the float32 range
   * (the SDK refuses such a row too)
   */
  hashNamed(names: readonly string[], values: ArrayLike<number>): SparseVector {
    if (names.length !== values.length) {
      throw new RangeError(`hashNamed: ${names.length} names but ${values.length} values`);
    }
    const b = this.#row;
    b.clear();
    const dim = this.dim, seed = this.seed, signed = this.signed;
    for (let k = 0; k < names.length; k++) {
      const h = hashName(names[k], seed);
      b.push(hashBucket(h, dim), signed ? hashSign(h) * values[k] : values[k]);
    }
    return this.#finite(b.build(), "hashNamed", names.length, (k) => names[k], values);
  }

  /**
   * `r` when its values are finite; else (features landing in one column whose values add up
   * past the float32 range, which the row would hold as ±Infinity, or a NaN value) a RangeError
   * naming the column, its features (of the `n` keys `key(k)` with `values[k]`) and their sum.
   */
  #finite(
    r: SparseVector,
    where: string,
    n: number,
    key: (k: number) => string,
    values: ArrayLike<number>,
  ): SparseVector {
    const v = r.values;
    let p = 0;
    while (p < v.length && Number.isFinite(v[p])) p++;
    if (p === v.length) return r;
    // the error path: the features of that column and their sum (in float64, as summed)
    const col = r.indices[p], keys: string[] = [];
    let sum = 0;
    for (let k = 0; k < n; k++) {
      const b = this.bucketOfName(key(k));
      if (b.index !== col) continue;
      keys.push(JSON.stringify(key(k)));
      sum += b.sign * values[k];
    }
    throw new RangeError(
      `FeatureHasher.${where}: features ${keys.slice(0, 4).join(", ")}${
        keys.length > 4 ? ", ..." : ""
      } hash into column ${col} and add up to ${sum}, not a finite 32-bit float ` +
        `(its largest magnitude is 3.4028234663852886e+38)`,
    );
  }

  /**
   * The JSON description.
   *
   * @example
   * ```ts
   * import { FeatureHasher } from "./hashing.ts";
   * console.log(new FeatureHasher({ dim: 1024 }).toJSON());
   * // { type: "hashing", hash: "murmur3_x86_32", dim: 1024, seed: 0, signed: false }
   * ```
   */
  toJSON(): HashingJSON {
    return {
      type: "hashing",
      hash: "murmur3_x86_32",
      dim: this.dim,
      seed: this.seed,
      signed: this.signed,
    };
  }

  /**
   * The model-file feature space of this hasher (pass it as `toModelFile({ featureSpace })` so
   * the SDK hashes named features the same way).
   *
   * @example
   * ```ts
   * import { FeatureHasher } from "./hashing.ts";
   * console.log(new FeatureHasher({ dim: 64, seed: 3, signed: true }).featureSpace());
   * // { type: "hashing", dim: 64, seed: 3, signed: true }
   * ```
   */
  featureSpace(): FeatureSpace {
    return this.signed
      ? { type: "hashing", dim: this.dim, seed: this.seed, signed: true }
      : { type: "hashing", dim: this.dim, seed: this.seed };
  }
}
