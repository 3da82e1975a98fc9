/**
 * Splits a stream of byte chunks into lines without decoding them, so the XC / LIBSVM byte
 * parser and the NDJSON reader work on the chunk bytes directly. A line that spans chunks is
 * carried over in a growable buffer; `\n` ends a line (a trailing `\r` is left to the parser).
 *
 * @module
 */
import { checkOptionKeys, numberOption, shown } from "./option_check.ts";

/**
 * Called for each line `buf[start, end)` (without its `\n`), numbered from 1.
 *
 * @example
 * ```ts
 * import type { LineHandler } from "./line_splitter.ts";
 * const count: LineHandler = (_buf, start, end, lineNo) => console.log(lineNo, end - start);
 * count(new Uint8Array(3), 0, 3, 1); // 1 3
 * ```
 */
export type LineHandler = (buf: Uint8Array, start: number, end: number, lineNo: number) => void;

/**
 * Options of {@linkcode LineSplitter}.
 *
 * @example
 * ```ts
 * import type { LineSplitterOptions } from "./line_splitter.ts";
 * const o: LineSplitterOptions = { maxLineBytes: 1 << 16 };
 * console.log(o.maxLineBytes); // 65536
 * ```
 */
export interface LineSplitterOptions {
  /**
   * Longest line kept, in bytes (default unbounded). Longer lines are not passed to the line
   * handler: their bytes are dropped and `onTooLong(lineNo, length)` is called once the line ends.
   */
  maxLineBytes?: number;
  /** Called for a line longer than `maxLineBytes`. It may throw to stop the read. */
  onTooLong?: (lineNo: number, length: number) => void;
}

/**
 * Incremental byte-line splitter.
 *
 * @example
 * ```ts
 * import { LineSplitter } from "./line_splitter.ts";
 * const seen: string[] = [];
 * const dec = new TextDecoder();
 * const s = new LineSplitter((b, a, e, n) => seen.push(`${n}:${dec.decode(b.subarray(a, e))}`));
 * const enc = new TextEncoder();
 * s.push(enc.encode("ab\ncd"));
 * s.push(enc.encode("e\n\nf"));
 * s.end();
 * console.log(seen); // [ "1:ab", "2:cde", "3:", "4:f" ]
 * ```
 */
export class LineSplitter {
  /** Lines handed out so far (the number of the last line). */
  lineNo = 0;
  /** Bytes consumed so far. */
  bytesRead = 0;
  readonly #onLine: LineHandler;
  readonly #max: number;
  readonly #onTooLong: ((lineNo: number, length: number) => void) | undefined;
  #carry = new Uint8Array(256);
  #carryLen = 0;
  /** Length of the current over-long line (its bytes are dropped), or -1. */
  #overflow = -1;

  /**
   * @param onLine receives each complete line
   * @param options line-length limit
   * @throws {TypeError} for an unknown option, a non-number limit or an `onTooLong` that is not
   *   a function
   * @throws {RangeError} for a limit that is not an integer >= 1 (nor Infinity)
   */
  constructor(onLine: LineHandler, options: LineSplitterOptions = {}) {
    const where = "LineSplitter";
    checkOptionKeys(where, options, ["maxLineBytes", "onTooLong"]);
    this.#onLine = onLine;
    // an integer (1.5 and "10" were taken as bounds), or Infinity: unbounded
    const max = options.maxLineBytes;
    this.#max = max === Infinity
      ? Infinity
      : numberOption(where, "maxLineBytes", max, Infinity, 1, Number.MAX_SAFE_INTEGER, true);
    const onTooLong = options.onTooLong;
    if (onTooLong !== undefined && typeof onTooLong !== "function") {
      throw new TypeError(`${where}: option onTooLong must be a function, got ${shown(onTooLong)}`);
    }
    this.#onTooLong = onTooLong;
  }

  /** True when a partial line is waiting for more bytes. */
  get hasPartialLine(): boolean {
    return this.#carryLen > 0 || this.#overflow >= 0;
  }

  #append(chunk: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (this.#overflow >= 0) {
      this.#overflow += n;
      return;
    }
    if (this.#carryLen + n > this.#max) {
      this.#overflow = this.#carryLen + n;
      this.#carryLen = 0;
      return;
    }
    if (this.#carryLen + n > this.#carry.length) {
      let cap = this.#carry.length * 2;
      while (cap < this.#carryLen + n) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.#carry.subarray(0, this.#carryLen));
      this.#carry = next;
    }
    this.#carry.set(chunk.subarray(start, end), this.#carryLen);
    this.#carryLen += n;
  }

  #emitCarry(): void {
    const lineNo = ++this.lineNo;
    if (this.#overflow >= 0) {
      const len = this.#overflow;
      this.#overflow = -1;
      this.#onTooLong?.(lineNo, len);
      return;
    }
    const len = this.#carryLen;
    this.#carryLen = 0;
    this.#onLine(this.#carry, 0, len, lineNo);
  }

  /** Feeds a chunk; complete lines are passed to the handler (synchronously). */
  push(chunk: Uint8Array): void {
    const n = chunk.length;
    this.bytesRead += n;
    let p = 0;
    if (this.#carryLen > 0 || this.#overflow >= 0) {
      const e = chunk.indexOf(10);
      if (e < 0) {
        this.#append(chunk, 0, n);
        return;
      }
      this.#append(chunk, 0, e);
      this.#emitCarry();
      p = e + 1;
    }
    const max = this.#max;
    while (p < n) {
      const e = chunk.indexOf(10, p);
      if (e < 0) break;
      if (e - p > max) {
        this.#overflow = e - p;
        this.#emitCarry();
      } else {
        this.#onLine(chunk, p, e, ++this.lineNo);
      }
      p = e + 1;
    }
    if (p < n) this.#append(chunk, p, n);
  }

  /** Ends the input: a last line without `\n` is passed to the handler. */
  end(): void {
    if (this.#carryLen > 0 || this.#overflow >= 0) this.#emitCarry();
  }
}
