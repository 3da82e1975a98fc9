/**
 * Feature hashing of the trainer's readers, on the SDK's hash (`murmur3` of sdk/features.ts, the
 * one MurmurHash3 of the project, through sdk/internal.ts), so the trainer and the edge map
 * feature names alike.
 *
 * The hash of a feature is MurmurHash3 x86 32-bit of the UTF-8 bytes of its key, with a 32-bit
 * seed. The key of a named feature is its name; the key of an integer feature index `j` (XC,
 * LIBSVM after the index-base shift, NDJSON index keys) is the decimal text of `j` with no sign
 * and no leading zeros (`"0"`, `"17"`), so the same feature hashes alike in every format.
 *
 * With `h` the unsigned 32-bit hash and `dim` the hashed dimension:
 * - bucket (column) = `h % dim` (unsigned remainder);
 * - sign = `+1` when `signed` is false; else `-1` when bit 31 of `h` is set, `+1` otherwise.
 *
 * A row's hashed value in a bucket is the sum of `sign * value` over its features landing there.
 *
 * @module
 */

import { murmur3 } from "../../sdk/internal.ts";

/** Reusable scratch for the UTF-8 bytes of a key. */
let scratch = new Uint8Array(256);

/** UTF-8 encodes `s` into the scratch buffer, returning the byte length (lone surrogates → U+FFFD). */
function utf8(s: string): number {
  if (scratch.length < s.length * 3) scratch = new Uint8Array(s.length * 3 + 16);
  const b = scratch;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      b[n++] = c;
    } else if (c < 0x800) {
      b[n++] = 0xc0 | (c >> 6);
      b[n++] = 0x80 | (c & 63);
    } else {
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          b[n++] = 0xf0 | (c >> 18);
          b[n++] = 0x80 | ((c >> 12) & 63);
          b[n++] = 0x80 | ((c >> 6) & 63);
          b[n++] = 0x80 | (c & 63);
          continue;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      b[n++] = 0xe0 | (c >> 12);
      b[n++] = 0x80 | ((c >> 6) & 63);
      b[n++] = 0x80 | (c & 63);
    }
  }
  return n;
}

/**
 * The 32-bit hash of a feature name (MurmurHash3 x86 32 of its UTF-8 bytes).
 *
 * @example
 * ```ts
 * import { hashName } from "./feature_hash.ts";
 * console.log(hashName("hello", 0) === 0x248bfa47, hashName("héllo", 1) === hashName("héllo", 1)); // true true
 * ```
 */
export function hashName(name: string, seed: number): number {
  const n = utf8(name); // may replace the scratch buffer: read it after
  return murmur3(scratch, seed, n);
}

/**
 * The 32-bit hash of an integer feature index `j >= 0`: the hash of its decimal text, computed
 * without building a string.
 *
 * @example
 * ```ts
 * import { hashIndex, hashName } from "./feature_hash.ts";
 * console.log(hashIndex(1836, 7) === hashName("1836", 7), hashIndex(0, 7) === hashName("0", 7)); // true true
 * ```
 */
export function hashIndex(j: number, seed: number): number {
  let n = 0;
  let v = j;
  do {
    n++;
    v = Math.floor(v / 10);
  } while (v > 0);
  v = j;
  for (let p = n - 1; p >= 0; p--) {
    scratch[p] = 48 + (v % 10);
    v = Math.floor(v / 10);
  }
  return murmur3(scratch, seed, n);
}

/**
 * The column of a hash in a space of `dim` columns: `h % dim`.
 *
 * @example
 * ```ts
 * import { hashBucket } from "./feature_hash.ts";
 * console.log(hashBucket(0xffffffff, 1000)); // 295
 * ```
 */
export function hashBucket(h: number, dim: number): number {
  return (h >>> 0) % dim;
}

/**
 * The sign of a hash: `-1` when bit 31 is set, else `+1` (used when hashing is `signed`).
 *
 * @example
 * ```ts
 * import { hashSign } from "./feature_hash.ts";
 * console.log(hashSign(0x80000000), hashSign(5)); // -1 1
 * ```
 */
export function hashSign(h: number): number {
  return (h & 0x80000000) !== 0 ? -1 : 1;
}
