/**
 * Small byte-level helpers over JSON text held as UTF-8 bytes, shared by the NDJSON parser's
 * fast paths: whitespace, string bodies without escapes (ASCII, or well-formed UTF-8), `null`,
 * canonical index keys, and quoting a name for an error message. None of them allocates except
 * {@linkcode latin1} and {@linkcode showName}.
 *
 * @module
 */

/** The largest feature or label index (2^31 − 1). */
export const MAX_INDEX = 2147483647;

const QUOTE = 34;

/**
 * The value of a canonical decimal index key (`0`, `17`; no sign, no leading zero, at most
 * {@linkcode MAX_INDEX}), else -1.
 *
 * @example
 * ```ts
 * import { parseIndexKey } from "./json_text.ts";
 * console.log(parseIndexKey("17"), parseIndexKey("017"), parseIndexKey("-1")); // 17 -1 -1
 * ```
 */
export function parseIndexKey(key: string): number {
  const n = key.length;
  if (n === 0 || n > 10 || (n > 1 && key.charCodeAt(0) === 48)) return -1;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = key.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v <= MAX_INDEX ? v : -1;
}

/**
 * First index at or after `p` (and before `end`) that is not JSON whitespace (space, tab, LF,
 * CR); `end` when there is none.
 *
 * @example
 * ```ts
 * import { skipJsonWhitespace } from "./json_text.ts";
 * const b = new TextEncoder().encode(" \t{}");
 * console.log(skipJsonWhitespace(b, 0, b.length)); // 2
 * ```
 */
export function skipJsonWhitespace(b: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = b[p];
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
    p++;
  }
  return p;
}

/**
 * End (the closing quote) of a string body starting at `p` made of printable ASCII without
 * backslash, or -1 (escapes, control or non-ASCII characters, no closing quote).
 *
 * @example
 * ```ts
 * import { endOfPlainString } from "./json_text.ts";
 * const b = new TextEncoder().encode('"red" "a\\"b"');
 * console.log(endOfPlainString(b, 1, b.length), endOfPlainString(b, 7, b.length)); // 4 -1
 * ```
 */
export function endOfPlainString(b: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = b[p];
    if (c === QUOTE) return p;
    if (c < 32 || c > 126 || c === 92) return -1;
    p++;
  }
  return -1;
}

/**
 * End (the closing quote) of a string body starting at `p` without escapes or control
 * characters, whose bytes are well-formed UTF-8 (exactly what a fatal `TextDecoder` accepts:
 * no overlong forms, surrogates or code points over U+10FFFF), or -1.
 *
 * @example
 * ```ts
 * import { endOfUtf8String } from "./json_text.ts";
 * const b = new TextEncoder().encode('"größe"');
 * console.log(endOfUtf8String(b, 1, b.length), endOfUtf8String(Uint8Array.of(34, 0xc0, 0x80, 34), 1, 4)); // 8 -1
 * ```
 */
export function endOfUtf8String(b: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = b[p];
    if (c < 0x80) {
      if (c === QUOTE) return p;
      if (c < 32 || c === 92) return -1;
      p++;
      continue;
    }
    // continuation bytes after the lead byte, and the range of the first of them
    let need: number, lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0; // no overlong 3-byte forms
      else if (c === 0xed) hi = 0x9f; // no surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90; // no overlong 4-byte forms
      else if (c === 0xf4) hi = 0x8f; // nothing over U+10FFFF
    } else {
      return -1;
    }
    if (p + need >= end) return -1;
    if (b[p + 1] < lo || b[p + 1] > hi) return -1;
    for (let i = 2; i <= need; i++) if (b[p + i] < 0x80 || b[p + i] > 0xbf) return -1;
    p += need + 1;
  }
  return -1;
}

/**
 * Whether the bytes at `p` spell `null`.
 *
 * @example
 * ```ts
 * import { isJsonNull } from "./json_text.ts";
 * const b = new TextEncoder().encode("[null]");
 * console.log(isJsonNull(b, 1, b.length), isJsonNull(b, 0, b.length)); // true false
 * ```
 */
export function isJsonNull(b: Uint8Array, p: number, end: number): boolean {
  return p + 4 <= end && b[p] === 110 && b[p + 1] === 117 && b[p + 2] === 108 && b[p + 3] === 108;
}

/**
 * The ASCII (or Latin-1) bytes `[a, e)` as a string.
 *
 * @example
 * ```ts
 * import { latin1 } from "./json_text.ts";
 * console.log(latin1(new TextEncoder().encode('"cat"'), 1, 4)); // cat
 * ```
 */
export function latin1(b: Uint8Array, a: number, e: number): string {
  let s = "";
  for (let i = a; i < e; i++) s += String.fromCharCode(b[i]);
  return s;
}

/**
 * A name quoted for an error message (as JSON; over 40 characters: cut to 37 and `...`).
 *
 * @example
 * ```ts
 * import { showName } from "./json_text.ts";
 * console.log(showName("red"), showName("x".repeat(50)).length); // "red" 42
 * ```
 */
export function showName(s: string): string {
  return JSON.stringify(s.length > 40 ? s.slice(0, 37) + "..." : s);
}
