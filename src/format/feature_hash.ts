/**
 * The `hashing` feature space of the model file (docs/model-format.md): a feature name's column
 * is MurmurHash3 (x86, 32-bit) of its UTF-8 bytes with the file's seed, modulo `dim`. The SDK
 * has its own copy (sdk/features.ts); tests check that both agree.
 *
 * @module
 */

const encoder = new TextEncoder();

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function mixK(k: number): number {
  return Math.imul(rotl(Math.imul(k, 0xcc9e2d51), 15), 0x1b873593);
}

/**
 * MurmurHash3, x86 32-bit variant, of `bytes` with `seed` (an unsigned 32-bit result).
 *
 * @example
 * ```ts
 * import { murmur3 } from "./feature_hash.ts";
 * console.log(murmur3(new TextEncoder().encode("hello"), 0).toString(16)); // "248bfa47"
 * ```
 */
export function murmur3(bytes: Uint8Array, seed: number): number {
  const n = bytes.length;
  const blocks = n - (n % 4);
  let h = seed | 0;
  for (let i = 0; i < blocks; i += 4) {
    h ^= mixK(bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    h = (Math.imul(rotl(h, 13), 5) + 0xe6546b64) | 0;
  }
  const rest = n - blocks;
  if (rest > 0) {
    let k = bytes[blocks];
    if (rest > 1) k |= bytes[blocks + 1] << 8;
    if (rest > 2) k |= bytes[blocks + 2] << 16;
    h ^= mixK(k);
  }
  h ^= n;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The column of feature `name` in a hashing feature space of `dim` columns with `seed`.
 *
 * @throws {RangeError} when `dim` is not a positive integer.
 *
 * @example
 * ```ts
 * import { hashFeature } from "./feature_hash.ts";
 * const j = hashFeature("word:cat", 1 << 18, 0);
 * console.log(j >= 0 && j < 1 << 18); // true
 * ```
 */
export function hashFeature(name: string, dim: number, seed: number): number {
  if (!Number.isInteger(dim) || dim < 1) {
    throw new RangeError(`hashFeature: dim must be a positive integer, got ${dim}`);
  }
  return murmur3(encoder.encode(name), seed) % dim;
}
