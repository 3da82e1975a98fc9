/**
 * The byte-level line parser shared by the whole-file loader and the streaming readers of the XC
 * (Extreme Classification Repository) and LIBSVM multi-label text formats.
 *
 * A line is `l1,l2,... f:v f:v ...`: a comma-separated list of label indices (empty list: the
 * line starts with a space), then space-separated `index:value` pairs. Integers and plain
 * decimals are parsed straight from the bytes with no substring; only exotic tokens (exponents,
 * more than 15 significant digits) fall back to `Number()`. Output goes into growable typed
 * arrays ({@link SparseRowBuffer}), doubled when full.
 *
 * @module
 */

/** Exact powers of ten used by the fast decimal path. */
const POW10 = new Float64Array(16);
for (let i = 0, p = 1; i < 16; i++, p *= 10) POW10[i] = p;

const MAX_INDEX = 2147483647;
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Growable CSR storage for parsed rows: feature indices/values and label indices, plus row
 * pointers. Arrays are doubled when full; `nnz`, `numLabelEntries` and `numRows` are the used
 * lengths.
 *
 * @example
 * ```ts
 * import { SparseRowBuffer } from "./xc_line.ts";
 * const b = new SparseRowBuffer(4, 8, 2);
 * console.log(b.numRows, b.nnz); // 0 0
 * ```
 */
export class SparseRowBuffer {
  /** Feature indices (first `nnz` used). */
  featIdx: Int32Array;
  /** Feature values (first `nnz` used). */
  featVal: Float32Array;
  /** Label indices (first `numLabelEntries` used). */
  labels: Int32Array;
  /** Feature row pointers (first `numRows + 1` used). */
  featPtr: Int32Array;
  /** Label row pointers (first `numRows + 1` used). */
  labelPtr: Int32Array;
  /** Used entries of `featIdx`/`featVal`. */
  nnz = 0;
  /** Used entries of `labels`. */
  numLabelEntries = 0;
  /** Committed rows. */
  numRows = 0;
  /** Largest feature index seen in a committed row (-1 when none). */
  maxFeature = -1;
  /** Largest label index seen in a committed row (-1 when none). */
  maxLabel = -1;

  /**
   * @param rows initial row capacity
   * @param nnz initial feature-entry capacity
   * @param labels initial label-entry capacity
   */
  constructor(rows = 1024, nnz = 16384, labels = 4096) {
    this.featIdx = new Int32Array(Math.max(16, nnz));
    this.featVal = new Float32Array(Math.max(16, nnz));
    this.labels = new Int32Array(Math.max(16, labels));
    this.featPtr = new Int32Array(Math.max(16, rows + 1));
    this.labelPtr = new Int32Array(Math.max(16, rows + 1));
  }

  /** Doubles the feature arrays. */
  growFeatures(): void {
    const n = this.featIdx.length * 2;
    const i = new Int32Array(n);
    i.set(this.featIdx);
    const v = new Float32Array(n);
    v.set(this.featVal);
    this.featIdx = i;
    this.featVal = v;
  }

  /** Doubles the label array. */
  growLabels(): void {
    const l = new Int32Array(this.labels.length * 2);
    l.set(this.labels);
    this.labels = l;
  }

  /**
   * Closes the current row (entries appended since the previous commit).
   *
   * @example
   * ```ts
   * import { SparseRowBuffer } from "./xc_line.ts";
   * const b = new SparseRowBuffer();
   * b.commitRow();
   * console.log(b.numRows); // 1
   * ```
   */
  commitRow(): void {
    const r = this.numRows + 1;
    if (r >= this.featPtr.length) {
      const n = this.featPtr.length * 2;
      const f = new Int32Array(n);
      f.set(this.featPtr);
      const l = new Int32Array(n);
      l.set(this.labelPtr);
      this.featPtr = f;
      this.labelPtr = l;
    }
    const f0 = this.featPtr[r - 1], l0 = this.labelPtr[r - 1];
    if (this.nnz > f0) {
      const last = this.featIdx[this.nnz - 1];
      if (last > this.maxFeature) this.maxFeature = last;
    }
    if (this.numLabelEntries > l0) {
      const last = this.labels[this.numLabelEntries - 1];
      if (last > this.maxLabel) this.maxLabel = last;
    }
    this.featPtr[r] = this.nnz;
    this.labelPtr[r] = this.numLabelEntries;
    this.numRows = r;
  }

  /** Drops entries appended since the last committed row. */
  rollback(): void {
    this.nnz = this.featPtr[this.numRows];
    this.numLabelEntries = this.labelPtr[this.numRows];
  }

  /**
   * Forgets all rows (keeps capacity and the max-index statistics).
   *
   * @example
   * ```ts
   * import { SparseRowBuffer } from "./xc_line.ts";
   * const b = new SparseRowBuffer();
   * b.commitRow();
   * b.clear();
   * console.log(b.numRows); // 0
   * ```
   */
  clear(): void {
    this.numRows = 0;
    this.nnz = 0;
    this.numLabelEntries = 0;
  }
}

/**
 * Options of {@link XcLineParser}.
 *
 * @example
 * ```ts
 * import type { XcLineParserOptions } from "./xc_line.ts";
 * const o: XcLineParserOptions = { numFeatures: 100, libsvm: true, featureIndexBase: 1 };
 * console.log(o.libsvm); // true
 * ```
 */
export interface XcLineParserOptions {
  /** Exclusive bound on feature indices (after the base shift); -1 for no bound. Default -1. */
  numFeatures?: number;
  /** Exclusive bound on label indices (after the base shift); -1 for no bound. Default -1. */
  numLabels?: number;
  /** Index of the first feature in the text (0 for XC, usually 1 for LIBSVM). Default 0. */
  featureIndexBase?: number;
  /** Index of the first label in the text. Default 0. */
  labelIndexBase?: number;
  /**
   * LIBSVM mode: a line whose first token contains `:` has no labels (no leading space needed),
   * and `qid:N` tokens are ignored. Default false (strict XC).
   */
  libsvm?: boolean;
}

const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** `buf[start, end)` decoded as UTF-8 (invalid bytes become U+FFFD), for messages only. */
function utf8Text(buf: Uint8Array, start: number, end: number): string {
  return utf8.decode(buf.subarray(start, end));
}

/** The byte or UTF-8 character at `p` as shown in messages (`end of line` past `end`). */
function describeAt(buf: Uint8Array, p: number, end: number): string {
  if (p >= end) return "end of line";
  const c = buf[p];
  if (c === 32) return "' '";
  if (c === 9) return "a tab";
  if (c >= 33 && c < 127) return `'${String.fromCharCode(c)}'`;
  const len = c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
  const ch = len > 1 && p + len <= end ? utf8Text(buf, p, p + len) : "\ufffd";
  if (ch.length > 0 && !ch.includes("\ufffd")) {
    // an invisible character (BOM, no-break space...) by its code point
    return /^[\p{L}\p{M}\p{N}\p{P}\p{S}]+$/u.test(ch)
      ? `'${ch}'`
      : `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return `byte 0x${c.toString(16).padStart(2, "0")}`;
}

/** 1-based character column of byte `p` in the line starting at `start` (UTF-8 aware). */
function column(buf: Uint8Array, start: number, p: number): number {
  let n = 1;
  for (let i = start; i < p; i++) if ((buf[i] & 0xc0) !== 0x80) n++;
  return n;
}

function latin1(buf: Uint8Array, start: number, end: number): string {
  let s = "";
  for (let i = start; i < end; i++) s += String.fromCharCode(buf[i]);
  return s;
}

function shorten(s: string): string {
  return s.length > 40 ? s.slice(0, 37) + "..." : s;
}

/**
 * The index as written in the text, the run of digits ending at `end` (for messages, off the hot
 * path: a parsed index past 2^31 − 1 is rounded, 99999999999999999999 showed as
 * 100000000000000020000).
 */
function digitsBefore(buf: Uint8Array, end: number): string {
  let s = end;
  while (s > 0 && buf[s - 1] >= 48 && buf[s - 1] <= 57) s--;
  return shorten(latin1(buf, s, end));
}

/**
 * The message for an index beyond 2^31 − 1 written as `digits`, with the limit: the bound when
 * there is one, in the text's terms, else 2^31 − 1.
 */
function tooLarge(what: string, digits: string, base: number, bound: number): string {
  return bound >= 0
    ? `${what} index ${digits} is out of range [${base}, ${bound + base})`
    : `${what} index ${digits} is too large (at most ${MAX_INDEX})`;
}

/**
 * Parses one text line of the XC / LIBSVM format from bytes into a {@link SparseRowBuffer}.
 * Errors are thrown as `SyntaxError` (malformed text) or `RangeError` (bad index or value) with
 * a message naming the field, without the "Cannot parse line N of FILE" prefix, which the caller
 * adds; on error nothing of the line is kept. Messages show indices as written in the text (before
 * the index base is subtracted), ranges in the same terms (`[1, 6)` for 5 LIBSVM features), and
 * text decoded as UTF-8. A bad or missing value is reported before the checks of its index.
 *
 * @example
 * ```ts
 * import { SparseRowBuffer, XcLineParser } from "./xc_line.ts";
 * const out = new SparseRowBuffer();
 * const p = new XcLineParser(out, { numFeatures: 10, numLabels: 5 });
 * const line = new TextEncoder().encode("1,3 0:1 7:0.25");
 * p.parseLine(line, 0, line.length);
 * console.log(out.numRows, out.nnz, out.featVal[1]); // 1 2 0.25
 * ```
 */
export class XcLineParser {
  /** Output buffer. */
  readonly out: SparseRowBuffer;
  /** Feature bound (-1: none). */
  numFeatures: number;
  /** Label bound (-1: none). */
  numLabels: number;
  readonly #featureBase: number;
  readonly #labelBase: number;
  readonly #libsvm: boolean;

  /**
   * @param out buffer receiving the rows
   * @param options bounds, index bases and LIBSVM mode
   */
  constructor(out: SparseRowBuffer, options: XcLineParserOptions = {}) {
    this.out = out;
    this.numFeatures = options.numFeatures ?? -1;
    this.numLabels = options.numLabels ?? -1;
    this.#featureBase = options.featureIndexBase ?? 0;
    this.#labelBase = options.labelIndexBase ?? 0;
    this.#libsvm = options.libsvm ?? false;
  }

  /**
   * Parses `buf[start, end)` (one line without its `\n`; a trailing `\r` is ignored) and commits
   * it as a row of {@link out}. Throws (and keeps nothing of the line) on malformed input.
   *
   * @example
   * ```ts
   * import { SparseRowBuffer, XcLineParser } from "./xc_line.ts";
   * const p = new XcLineParser(new SparseRowBuffer(), { numFeatures: 3 });
   * const bad = new TextEncoder().encode("0 5:1");
   * try { p.parseLine(bad, 0, bad.length); } catch (e) { console.log((e as Error).message); }
   * // feature index 5 is out of range [0, 3)
   * ```
   */
  parseLine(buf: Uint8Array, start: number, end: number): void {
    if (end > start && buf[end - 1] === 13) end--;
    try {
      this.#parse(buf, start, end);
    } catch (e) {
      this.out.rollback();
      throw e;
    }
    this.out.commitRow();
  }

  #parse(buf: Uint8Array, start: number, end: number): void {
    const out = this.out;
    let p = start;
    let c = 0;
    let hasLabels = p < end && buf[p] !== 32 && buf[p] !== 9;
    if (hasLabels && this.#libsvm) {
      for (let q = p; q < end; q++) {
        const d = buf[q];
        if (d === 32 || d === 9) break;
        if (d === 58) {
          hasLabels = false;
          break;
        }
      }
    }
    if (hasLabels) {
      const lb = this.#labelBase, nL = this.numLabels;
      let prev = -1;
      while (true) {
        // (past `end` after a trailing ',': the bytes there are not this line's)
        c = p < end ? buf[p] : -1;
        if (c < 48 || c > 57) {
          throw new SyntaxError(
            `expected a label index at column ${column(buf, start, p)}, found ${
              describeAt(buf, p, end)
            }`,
          );
        }
        let v = 0;
        do {
          v = v * 10 + (c - 48);
          p++;
        } while (p < end && (c = buf[p]) >= 48 && c <= 57);
        if (v > MAX_INDEX) throw new RangeError(tooLarge("label", digitsBefore(buf, p), lb, nL));
        v -= lb;
        if (v < 0) throw new RangeError(`label index ${v + lb} is below the index base ${lb}`);
        if (nL >= 0 && v >= nL) {
          throw new RangeError(`label index ${v + lb} is out of range [${lb}, ${nL + lb})`);
        }
        if (v <= prev) {
          throw new RangeError(
            `label indices must be strictly increasing: ${v + lb} comes after ${prev + lb}`,
          );
        }
        if (out.numLabelEntries === out.labels.length) out.growLabels();
        out.labels[out.numLabelEntries++] = v;
        prev = v;
        if (p >= end) break;
        c = buf[p];
        if (c === 44) {
          p++;
          continue;
        }
        if (c === 32 || c === 9) break;
        throw new SyntaxError(
          `expected ',' or ' ' after label ${v + lb}, found ${describeAt(buf, p, end)}` +
            (c === 58 ? " (a row with no labels must start with a space)" : ""),
        );
      }
    }
    const fb = this.#featureBase, nF = this.numFeatures;
    let prevF = -1;
    while (true) {
      while (p < end && ((c = buf[p]) === 32 || c === 9)) p++;
      if (p >= end) break;
      if (c < 48 || c > 57) {
        if (
          this.#libsvm && c === 113 && p + 3 < end && buf[p + 1] === 105 &&
          buf[p + 2] === 100 && buf[p + 3] === 58
        ) {
          while (p < end && buf[p] !== 32 && buf[p] !== 9) p++;
          continue;
        }
        throw new SyntaxError(
          `expected a feature index at column ${column(buf, start, p)}, found ${
            describeAt(buf, p, end)
          }`,
        );
      }
      let idx = 0;
      do {
        idx = idx * 10 + (c - 48);
        p++;
      } while (p < end && (c = buf[p]) >= 48 && c <= 57);
      if (p >= end || c !== 58) {
        throw new SyntaxError(
          `missing ':' after feature index ${digitsBefore(buf, p)} (found ${
            describeAt(buf, p, end)
          })`,
        );
      }
      p++;
      // value first: a missing or bad value is reported before the index checks
      const vs = p;
      let neg = false;
      c = p < end ? buf[p] : -1;
      if (c === 45) {
        neg = true;
        p++;
      } else if (c === 43) p++;
      let m = 0, digits = 0, scale = 0;
      while (p < end && (c = buf[p]) >= 48 && c <= 57) {
        m = m * 10 + (c - 48);
        digits++;
        p++;
      }
      if (p < end && c === 46) {
        p++;
        while (p < end && (c = buf[p]) >= 48 && c <= 57) {
          m = m * 10 + (c - 48);
          digits++;
          scale++;
          p++;
        }
      }
      let val: number;
      if (digits > 0 && digits <= 15 && (p >= end || (c = buf[p]) === 32 || c === 9)) {
        val = scale === 0 ? m : m / POW10[scale];
        if (neg) val = -val;
      } else {
        while (p < end && (c = buf[p]) !== 32 && c !== 9) p++;
        val = this.#exotic(buf, vs, p);
      }
      if (idx > MAX_INDEX) {
        throw new RangeError(tooLarge("feature", digitsBefore(buf, vs - 1), fb, nF));
      }
      idx -= fb;
      if (idx < 0) throw new RangeError(`feature index ${idx + fb} is below the index base ${fb}`);
      if (nF >= 0 && idx >= nF) {
        throw new RangeError(`feature index ${idx + fb} is out of range [${fb}, ${nF + fb})`);
      }
      if (idx <= prevF) {
        throw new RangeError(
          `feature indices must be strictly increasing: ${idx + fb} comes after ${prevF + fb}`,
        );
      }
      prevF = idx;
      if (out.nnz === out.featIdx.length) out.growFeatures();
      out.featIdx[out.nnz] = idx;
      out.featVal[out.nnz++] = val;
    }
  }

  /** Parses an exotic value token `buf[start, end)` (after its index and ':'). */
  #exotic(buf: Uint8Array, start: number, end: number): number {
    const tok = latin1(buf, start, end);
    if (tok.length === 0) {
      throw new SyntaxError(`missing value after '${digitsBefore(buf, start - 1)}:'`);
    }
    if (!PLAIN_NUMBER.test(tok)) {
      const shown = shorten(utf8Text(buf, start, end));
      if (/^[+-]?(nan|inf|infinity)$/i.test(tok)) {
        throw new RangeError(
          `value '${shown}' of feature ${digitsBefore(buf, start - 1)} is not a finite number`,
        );
      }
      throw new SyntaxError(
        `value '${shown}' of feature ${digitsBefore(buf, start - 1)} is not a number`,
      );
    }
    const v = Number(tok);
    if (!Number.isFinite(Math.fround(v))) {
      throw new RangeError(
        `value '${shorten(tok)}' of feature ${
          digitsBefore(buf, start - 1)
        } is not a finite 32-bit float`,
      );
    }
    return v;
  }
}
