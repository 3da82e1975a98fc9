/**
 * The fingerprint of a read position: the last bytes before it (at most {@linkcode FINGERPRINT}),
 * kept with a saved position (as hex) so that a reader resuming there can tell the file still
 * holds them, and was not replaced, truncated or rewritten meanwhile.
 *
 * @module
 */

/**
 * How many bytes before a position make its fingerprint: 64.
 *
 * @example
 * ```ts
 * import { FINGERPRINT } from "./fingerprint.ts";
 * console.log(FINGERPRINT); // 64
 * ```
 */
export const FINGERPRINT = 64;

/**
 * The last {@linkcode FINGERPRINT} bytes of `prev` followed by `chunk[0, end)` (a copy).
 *
 * @example
 * ```ts
 * import { lastBytes } from "./fingerprint.ts";
 * console.log(lastBytes(Uint8Array.of(1, 2), Uint8Array.of(3, 4, 5), 2)); // Uint8Array(4) [ 1, 2, 3, 4 ]
 * ```
 */
export function lastBytes(prev: Uint8Array, chunk: Uint8Array, end: number): Uint8Array {
  if (end >= FINGERPRINT) return chunk.slice(end - FINGERPRINT, end);
  const k = Math.min(prev.length, FINGERPRINT - end);
  const out = new Uint8Array(k + end);
  out.set(prev.subarray(prev.length - k), 0);
  out.set(chunk.subarray(0, end), k);
  return out;
}

/**
 * Bytes as lower-case hex (as a saved position holds them).
 *
 * @example
 * ```ts
 * import { toHex } from "./fingerprint.ts";
 * console.log(toHex(Uint8Array.of(0x7b, 10))); // 7b0a
 * ```
 */
export function toHex(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += b[i].toString(16).padStart(2, "0");
  return s;
}

/**
 * The bytes of a hex string of at most {@linkcode FINGERPRINT} bytes, or undefined for anything
 * else (a saved position from an older version, or damaged: then nothing is checked).
 *
 * @example
 * ```ts
 * import { fromHex } from "./fingerprint.ts";
 * console.log(fromHex("7b0a"), fromHex("7b0"), fromHex(7)); // Uint8Array(2) [ 123, 10 ] undefined undefined
 * ```
 */
export function fromHex(s: unknown): Uint8Array | undefined {
  if (typeof s !== "string" || s.length > 2 * FINGERPRINT || !/^(?:[0-9a-f]{2})+$/.test(s)) {
    return undefined;
  }
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * Whether two byte arrays hold the same bytes.
 *
 * @example
 * ```ts
 * import { sameBytes } from "./fingerprint.ts";
 * console.log(sameBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2)), sameBytes(Uint8Array.of(1), Uint8Array.of(2))); // true false
 * ```
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
