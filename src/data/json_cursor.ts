/**
 * Reading JSON numbers straight from UTF-8 bytes, as `JSON.parse` reads them, for the NDJSON
 * parser's fast paths: a {@linkcode JsonCursor} over one buffer reads a number, a canonical
 * index, the value of a `"key": number` member, the step to the next member of an object, and a
 * whole array of numbers.
 *
 * @module
 */
import { latin1, MAX_INDEX, skipJsonWhitespace as skipWs } from "./json_text.ts";

const CLOSE_BRACE = 125, OPEN_BRACKET = 91, CLOSE_BRACKET = 93;
const COLON = 58, COMMA = 44;
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/**
 * A cursor over the bytes `[0, end)` of one buffer (set with {@linkcode JsonCursor.reset}): each
 * read returns its value and leaves the position after it in `numEnd`. Reused across lines (no
 * allocation per number).
 *
 * @example
 * ```ts
 * import { JsonCursor } from "./json_cursor.ts";
 * const c = new JsonCursor();
 * const b = new TextEncoder().encode('-2.5e1, 7');
 * c.reset(b, b.length);
 * console.log(c.number(0), c.numEnd, c.index(8)); // -25 6 7
 * ```
 */
export class JsonCursor {
  /** The buffer read. */
  bytes: Uint8Array = new Uint8Array(0);
  /** Exclusive end of the readable bytes. */
  end = 0;
  /** The position after the last number (or index) read. */
  numEnd = 0;
  /** Set by {@linkcode JsonCursor.nextMember}: the object closed. */
  atClose = false;

  /** Reads `bytes[0, end)` from now on. */
  reset(bytes: Uint8Array, end: number): void {
    this.bytes = bytes;
    this.end = end;
  }

  /**
   * A canonical index at `p` (0, or 1-9 then digits; at most 10 digits, <= 2^31 - 1): its value,
   * with `numEnd` after its digits; -1 for anything else.
   */
  index(p: number): number {
    const bytes = this.bytes, end = this.end;
    let q = p, v = 0;
    while (q < end && bytes[q] >= 48 && bytes[q] <= 57) v = v * 10 + (bytes[q++] - 48);
    const nd = q - p;
    this.numEnd = q;
    return nd === 0 || nd > 10 || (nd > 1 && bytes[p] === 48) || v > MAX_INDEX ? -1 : v;
  }

  /**
   * The value of a `"key": number` member whose key's closing quote is at `q`: NaN when the
   * colon or the number is missing or the number is not a finite 32-bit float (its end goes to
   * `numEnd`).
   */
  memberValue(q: number): number {
    const bytes = this.bytes, end = this.end;
    let p = skipWs(bytes, q + 1, end);
    if (p >= end || bytes[p] !== COLON) return NaN;
    p = skipWs(bytes, p + 1, end);
    const v = this.number(p);
    return Number.isFinite(Math.fround(v)) ? v : NaN;
  }

  /**
   * After a member's value (from `numEnd`): the position of the next key after a comma, or the
   * position after the closing brace with `atClose` set; -1 for anything else.
   */
  nextMember(): number {
    const bytes = this.bytes, end = this.end;
    const p = skipWs(bytes, this.numEnd, end);
    if (p >= end) return -1;
    this.atClose = bytes[p] === CLOSE_BRACE;
    if (this.atClose) return p + 1;
    return bytes[p] === COMMA ? skipWs(bytes, p + 1, end) : -1;
  }

  /**
   * A JSON number at `p` (its end in `numEnd`), as `JSON.parse` reads it; NaN when there is
   * none. Up to 15 significant digits and a power of ten within 10^±22 are exact in one
   * multiplication or division (so correctly rounded); other numbers go through `Number`.
   */
  number(p: number): number {
    const bytes = this.bytes, end = this.end;
    const p0 = p;
    let neg = false;
    if (p < end && bytes[p] === 45) {
      neg = true;
      p++;
    }
    if (p >= end) return NaN;
    let m = 0, digits = 0, exp = 0;
    if (bytes[p] === 48) {
      p++;
    } else if (bytes[p] >= 49 && bytes[p] <= 57) {
      while (p < end && bytes[p] >= 48 && bytes[p] <= 57) {
        m = m * 10 + (bytes[p++] - 48);
        digits++;
      }
    } else return NaN;
    if (p < end && bytes[p] === 46) {
      p++;
      const f0 = p;
      while (p < end && bytes[p] >= 48 && bytes[p] <= 57) {
        m = m * 10 + (bytes[p++] - 48);
        if (m !== 0) digits++;
        exp--;
      }
      if (p === f0) return NaN;
    }
    if (p < end && (bytes[p] === 101 || bytes[p] === 69)) {
      p++;
      let eneg = false;
      if (p < end && (bytes[p] === 43 || bytes[p] === 45)) eneg = bytes[p++] === 45;
      const e0 = p;
      let e = 0;
      while (p < end && bytes[p] >= 48 && bytes[p] <= 57) {
        if (e < 100000) e = e * 10 + (bytes[p] - 48);
        p++;
      }
      if (p === e0) return NaN;
      exp += eneg ? -e : e;
    }
    this.numEnd = p;
    let v: number;
    if (digits <= 15 && exp >= -22 && exp <= 22) {
      v = exp === 0 ? m : exp < 0 ? m / POW10[-exp] : m * POW10[exp];
    } else {
      v = Number(latin1(bytes, p0, p));
      return v;
    }
    return neg ? -v : v;
  }

  /**
   * A JSON array of numbers from `start` (its `[`): the numbers (as `JSON.parse` reads them)
   * and the position after the array; with `indices`, only plain non-negative integers up to
   * 2^31 − 1 in strictly increasing order are taken. `undefined` for anything else. Reads the
   * buffer given to {@linkcode JsonCursor.reset}.
   */
  numberArray(start: number, indices: boolean): { values: number[]; next: number } | undefined {
    const bytes = this.bytes, end = this.end;
    if (bytes[start] !== OPEN_BRACKET) return undefined;
    const values: number[] = [];
    let p = skipWs(bytes, start + 1, end);
    if (p < end && bytes[p] === CLOSE_BRACKET) return { values, next: p + 1 };
    let prev = -1;
    while (true) {
      let v: number;
      if (indices) {
        v = this.index(p);
        if (v < 0 || v <= prev) return undefined;
        prev = v;
        p = this.numEnd;
      } else {
        v = this.number(p);
        if (v !== v) return undefined;
        p = this.numEnd;
      }
      values.push(v);
      p = skipWs(bytes, p, end);
      if (p >= end) return undefined;
      if (bytes[p] === COMMA) {
        p = skipWs(bytes, p + 1, end);
        continue;
      }
      if (bytes[p] !== CLOSE_BRACKET) return undefined;
      return { values, next: p + 1 };
    }
  }
}
