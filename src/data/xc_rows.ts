/**
 * Line-level driver of the XC / LIBSVM text formats: header handling, row counting against the
 * header, `onError` policy and the {@link ParseReport}. Used both by the whole-file loader
 * (`dataset.ts`) and by the streaming readers (`readers.ts`), so both share the byte parser.
 *
 * @module
 */
import { SparseRowBuffer, XcLineParser } from "./xc_line.ts";
import {
  lineError,
  newParseReport,
  type OnError,
  type ParseReport,
  recordSkip,
} from "./parse_report.ts";
import { checkOptionKeys, numberOption } from "./option_check.ts";
import { startsWithBom } from "./bom.ts";

const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Options of {@link TextRowsParser}.
 *
 * @example
 * ```ts
 * import type { TextRowsOptions } from "./xc_rows.ts";
 * const o: TextRowsOptions = { format: "libsvm", onError: "skip", maxErrors: 5 };
 * console.log(o.maxErrors); // 5
 * ```
 */
export interface TextRowsOptions {
  /** `"xc"` (header `N D L` on line 1, strict) or `"libsvm"` (no header). Default `"xc"`. */
  format?: "xc" | "libsvm";
  /** `"fail"` (default) throws on the first bad line; `"skip"` skips and counts it. */
  onError?: OnError;
  /** How many errors the report keeps (default 10). */
  maxErrors?: number;
  /** LIBSVM only: feature index of the first feature in the text (default 1; XC's are 0-based). */
  featureIndexBase?: number;
  /** Label index of the first label in the text (default 0). */
  labelIndexBase?: number;
  /** LIBSVM only: bound on feature indices (default: none, grows). XC uses the header's D. */
  numFeatures?: number;
  /** LIBSVM only: bound on label indices (default: none, grows). XC uses the header's L. */
  numLabels?: number;
}

/**
 * The keys of {@linkcode TextRowsOptions}.
 *
 * @example
 * ```ts
 * import { TEXT_ROWS_OPTION_KEYS } from "./xc_rows.ts";
 * console.log(TEXT_ROWS_OPTION_KEYS.includes("maxErrors")); // true
 * ```
 */
export const TEXT_ROWS_OPTION_KEYS: readonly (keyof TextRowsOptions)[] = [
  "format",
  "onError",
  "maxErrors",
  "featureIndexBase",
  "labelIndexBase",
  "numFeatures",
  "numLabels",
];

/**
 * Checks {@linkcode TextRowsOptions} and returns them: known keys only (TypeError naming the
 * known ones), format `"xc"` or `"libsvm"` and onError `"fail"` or `"skip"` (TypeError),
 * `maxErrors` and the index bases integers in [0, 2^31 − 1], the index bounds `numFeatures` and
 * `numLabels` integers in [0, 2^31] (RangeError, TypeError for a non-number), and none the format
 * leaves unused (TypeError, {@linkcode checkTextRowsFormat}: XC, the default, takes no
 * `featureIndexBase`, `numFeatures` or `numLabels`). O(1). `where` names the caller in messages.
 *
 * @example
 * ```ts
 * import { checkTextRowsOptions } from "./xc_rows.ts";
 * console.log(checkTextRowsOptions("demo", { maxErrors: 5 }).maxErrors); // 5
 * try {
 *   checkTextRowsOptions("demo", { maxErrors: -1 });
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option maxErrors must be an integer in [0, 2147483647], got -1
 * }
 * try {
 *   checkTextRowsOptions("demo", { featureIndexBase: 1 });
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option featureIndexBase applies to LIBSVM input only; XC feature indices are 0-based
 * }
 * ```
 */
export function checkTextRowsOptions(where: string, options: TextRowsOptions): TextRowsOptions {
  checkTextRowsValues(where, options);
  checkTextRowsFormat(where, options.format ?? "xc", options);
  return options;
}

/**
 * The value checks of {@linkcode checkTextRowsOptions}, whatever the format (for a caller that
 * learns the format later, e.g. from the file name, and then calls
 * {@linkcode checkTextRowsFormat}). Returns `options`.
 *
 * @example
 * ```ts
 * import { checkTextRowsValues } from "./xc_rows.ts";
 * console.log(checkTextRowsValues("demo", { numFeatures: 10 }).numFeatures); // 10
 * try {
 *   checkTextRowsValues("demo", { onError: "ignore" as "skip" });
 * } catch (e) {
 *   console.log((e as Error).message); // demo: onError must be "fail" or "skip", got 'ignore'
 * }
 * ```
 */
export function checkTextRowsValues(where: string, options: TextRowsOptions): TextRowsOptions {
  checkOptionKeys(where, options, TEXT_ROWS_OPTION_KEYS);
  const format = options.format ?? "xc";
  if (format !== "xc" && format !== "libsvm") {
    throw new TypeError(`${where}: unknown format '${format}' (expected xc or libsvm)`);
  }
  const onError = options.onError ?? "fail";
  if (onError !== "fail" && onError !== "skip") {
    throw new TypeError(`${where}: onError must be "fail" or "skip", got '${onError}'`);
  }
  const MAX = 2 ** 31 - 1;
  for (const name of ["maxErrors", "featureIndexBase", "labelIndexBase"] as const) {
    numberOption(where, name, options[name], 0, 0, MAX, true);
  }
  for (const name of ["numFeatures", "numLabels"] as const) {
    numberOption(where, name, options[name], 0, 0, MAX + 1, true);
  }
  return options;
}

/**
 * Throws a TypeError naming the first option of `options` that input in `format` leaves unused:
 * XC takes its sizes from the header `N D L` and its feature indices are 0-based (no
 * `featureIndexBase`, `numFeatures`, `numLabels`); NDJSON has no index bases (no
 * `featureIndexBase`, `labelIndexBase`); LIBSVM uses them all. Only the keys of
 * {@linkcode TextRowsOptions} are looked at. O(1).
 *
 * @example
 * ```ts
 * import { checkTextRowsFormat } from "./xc_rows.ts";
 * checkTextRowsFormat("demo", "libsvm", { featureIndexBase: 0, numFeatures: 10 }); // fine
 * try {
 *   checkTextRowsFormat("demo", "xc", { numFeatures: 10 });
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option numFeatures applies to LIBSVM and NDJSON input only; XC input takes its sizes from the header 'N D L'
 * }
 * ```
 */
export function checkTextRowsFormat(
  where: string,
  format: "xc" | "libsvm" | "ndjson",
  options: Omit<TextRowsOptions, "format">,
): void {
  const refuse = (key: Exclude<keyof TextRowsOptions, "format">, applies: string, why: string) => {
    if (options[key] !== undefined) {
      throw new TypeError(`${where}: option ${key} applies to ${applies} input only; ${why}`);
    }
  };
  if (format === "xc") {
    refuse("featureIndexBase", "LIBSVM", "XC feature indices are 0-based");
    for (const key of ["numFeatures", "numLabels"] as const) {
      refuse(key, "LIBSVM and NDJSON", "XC input takes its sizes from the header 'N D L'");
    }
  } else if (format === "ndjson") {
    refuse("featureIndexBase", "LIBSVM", "this input is NDJSON");
    refuse("labelIndexBase", "XC/LIBSVM", "this input is NDJSON");
  }
}

/**
 * Reads an XC header line `N D L` from bytes.
 *
 * @example
 * ```ts
 * import { parseXcHeader } from "./xc_rows.ts";
 * const h = parseXcHeader(new TextEncoder().encode("10 5 3"), 0, 6);
 * console.log(h.numRows, h.numFeatures, h.numLabels); // 10 5 3
 * ```
 */
export function parseXcHeader(
  buf: Uint8Array,
  start: number,
  end: number,
): { numRows: number; numFeatures: number; numLabels: number } {
  if (end > start && buf[end - 1] === 13) end--;
  if (startsWithBom(buf, start, end)) start += 3;
  const text = utf8.decode(buf.subarray(start, Math.min(end, start + 200)));
  const m = /^\s*(\d+)[ \t]+(\d+)[ \t]+(\d+)\s*$/.exec(text);
  if (m === null || end - start > 200) {
    // control bytes escaped: a binary file (a model file, say) would write them to a terminal
    const cut = text.length > 40 ? text.slice(0, 37) + "..." : text;
    const shown = cut.replace(
      // deno-lint-ignore no-control-regex
      /[\x00-\x1f\x7f]/g,
      (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
    );
    throw new SyntaxError(
      `expected the header 'N D L' (three non-negative integers), found '${shown}'`,
    );
  }
  const numRows = Number(m[1]), numFeatures = Number(m[2]), numLabels = Number(m[3]);
  if (numRows > 2147483647 || numFeatures > 2147483647 || numLabels > 2147483647) {
    throw new RangeError(`header '${text.trim()}' declares sizes beyond 2^31-1`);
  }
  return { numRows, numFeatures, numLabels };
}

/**
 * Feeds lines (with their 1-based numbers) to the shared byte parser, applying the header, the
 * row-count check and the `onError` policy. Accepted rows land in {@link out}.
 *
 * @example
 * ```ts
 * import { TextRowsParser } from "./xc_rows.ts";
 * const enc = new TextEncoder();
 * const p = new TextRowsParser("x.txt", { format: "xc" });
 * for (const [i, s] of ["1 3 2", "0,1 2:1"].entries()) {
 *   const b = enc.encode(s);
 *   p.line(b, 0, b.length, i + 1);
 * }
 * p.finish(2);
 * console.log(p.report.accepted, p.out.nnz); // 1 1
 * ```
 */
export class TextRowsParser {
  /** Source name used in messages. */
  readonly source: string;
  /** Accepted rows. */
  readonly out: SparseRowBuffer;
  /** Counts and first errors. */
  readonly report: ParseReport;
  readonly #parser: XcLineParser;
  readonly #xc: boolean;
  readonly #skip: boolean;
  readonly #maxErrors: number;
  #needHeader: boolean;
  #rowsSeen = 0;
  /** Empty XC lines not yet known to be followed by a row: their count and first number. */
  #blankCount = 0;
  #blankFirst = 0;

  /**
   * @param source name used in error messages
   * @param options format, error policy, index bases
   * @param out buffer to fill (a fresh one by default)
   * @throws {TypeError | RangeError} for bad options (see {@linkcode checkTextRowsOptions})
   */
  constructor(source: string, options: TextRowsOptions = {}, out?: SparseRowBuffer) {
    this.source = source;
    this.out = out ?? new SparseRowBuffer();
    this.report = newParseReport(source);
    checkTextRowsOptions("TextRowsParser", options);
    this.#xc = (options.format ?? "xc") === "xc";
    this.#skip = options.onError === "skip";
    this.#maxErrors = options.maxErrors ?? 10;
    this.#needHeader = this.#xc;
    this.#parser = new XcLineParser(this.out, {
      featureIndexBase: this.#xc ? 0 : (options.featureIndexBase ?? 1),
      labelIndexBase: options.labelIndexBase ?? 0,
      numFeatures: this.#xc ? -1 : (options.numFeatures ?? -1),
      numLabels: this.#xc ? -1 : (options.numLabels ?? -1),
      libsvm: !this.#xc,
    });
  }

  /** True once the header line (XC) has been read. */
  get hasHeader(): boolean {
    return !this.#needHeader;
  }

  /**
   * Handles one line `buf[start, end)` numbered `lineNo`. Returns true when a row was accepted.
   * Throws the standard parse error in fail mode. A UTF-8 byte order mark before line 1 is
   * skipped. An empty XC line is held back: it is an error (fail) or skipped (skip) once a later
   * line shows it is not part of the blank tail of the file, which is ignored; it never counts
   * as one of the header's rows.
   */
  line(buf: Uint8Array, start: number, end: number, lineNo: number): boolean {
    if (lineNo === 1 && startsWithBom(buf, start, end)) start += 3;
    if (this.#needHeader) {
      try {
        const h = parseXcHeader(buf, start, end);
        this.report.header = h;
        this.#parser.numFeatures = h.numFeatures;
        this.#parser.numLabels = h.numLabels;
        this.#needHeader = false;
      } catch (e) {
        // A bad header is fatal even in skip mode: nothing after it can be checked.
        throw lineError(e, lineNo, this.source);
      }
      return false;
    }
    if (!this.#xc) {
      // LIBSVM: blank lines and '#' comments are ignored.
      let p = start;
      while (p < end && (buf[p] === 32 || buf[p] === 9 || buf[p] === 13)) p++;
      if (p === end || buf[p] === 35) return false;
    } else {
      if (end === start || (end === start + 1 && buf[start] === 13)) {
        if (this.#blankCount++ === 0) this.#blankFirst = lineNo;
        return false;
      }
      if (this.#blankCount > 0) this.#flushBlanks();
    }
    this.#rowsSeen++;
    try {
      if (this.#xc) {
        const n = this.report.header!.numRows;
        if (this.#rowsSeen > n) {
          throw new RangeError(`more rows than the ${n} declared in the header`);
        }
      }
      this.#parser.parseLine(buf, start, end);
    } catch (e) {
      const err = lineError(e, lineNo, this.source);
      if (!this.#skip) throw err;
      recordSkip(this.report, lineNo, err, this.#maxErrors);
      return false;
    }
    this.report.accepted++;
    return true;
  }

  /** Empty lines followed by a non-empty one: thrown (fail) or skipped (skip). */
  #flushBlanks(): void {
    const first = this.#blankFirst, count = this.#blankCount;
    this.#blankCount = 0;
    for (let i = 0; i < count; i++) {
      const err = lineError(
        new SyntaxError(
          "empty line (a row with no labels and no features is written as a single space)",
        ),
        first + i,
        this.source,
      );
      if (!this.#skip) throw err;
      recordSkip(this.report, first + i, err, this.#maxErrors);
    }
  }

  /**
   * Rejects line `lineNo` for a reason found outside the byte parser (e.g. it is too long): it
   * counts as a data row of the header, then is thrown (fail) or skipped and counted (skip).
   * A line before the XC header is always fatal.
   *
   * @example
   * ```ts
   * import { TextRowsParser } from "./xc_rows.ts";
   * const p = new TextRowsParser("x.txt", { format: "libsvm", onError: "skip" });
   * p.reject(3, new RangeError("line is too long"));
   * console.log(p.report.skipped, p.report.errors[0].message); // 1 "Cannot parse line 3 of x.txt: line is too long"
   * ```
   */
  reject(lineNo: number, cause: Error): void {
    const err = lineError(cause, lineNo, this.source);
    if (this.#needHeader) throw err;
    if (this.#blankCount > 0) this.#flushBlanks();
    this.#rowsSeen++;
    if (!this.#skip) throw err;
    recordSkip(this.report, lineNo, err, this.#maxErrors);
  }

  /**
   * Ends the input (`lastLine` = number of lines read). Empty lines at the end are ignored.
   * Checks that an XC source had a header and as many rows as declared: a shortfall is thrown
   * (fail) or, in skip mode, counted as one skipped problem in the report, with its message
   * among the errors and the number of missing rows in `missingRows`.
   *
   * @example
   * ```ts
   * import { TextRowsParser } from "./xc_rows.ts";
   * const enc = new TextEncoder();
   * const p = new TextRowsParser("x.txt", { onError: "skip" });
   * for (const [i, s] of ["3 4 2", "0 1:1"].entries()) p.line(enc.encode(s), 0, s.length, i + 1);
   * p.finish(2);
   * console.log(p.report.skipped, p.report.missingRows); // 1 2
   * ```
   */
  finish(lastLine: number): void {
    if (!this.#xc) return;
    if (this.#needHeader) {
      throw new SyntaxError(
        `Cannot parse ${this.source}: empty input, expected the header 'N D L'`,
      );
    }
    this.#blankCount = 0; // the blank tail of the file
    const n = this.report.header!.numRows;
    if (this.#rowsSeen < n) {
      const err = new RangeError(
        `Cannot parse line ${
          lastLine + 1
        } of ${this.source}: unexpected end of input after ${this.#rowsSeen} rows, the header declares ${n}`,
      );
      if (!this.#skip) throw err;
      this.report.missingRows = n - this.#rowsSeen;
      recordSkip(this.report, lastLine + 1, err, this.#maxErrors);
    }
  }
}
