/**
 * The report every reader keeps: accepted and skipped line counts and the first few errors.
 *
 * @module
 */

/**
 * One recorded parse error.
 *
 * @example
 * ```ts
 * import type { ParseErrorEntry } from "./parse_report.ts";
 * const e: ParseErrorEntry = { line: 3, message: "Cannot parse line 3 of x.txt: bad" };
 * console.log(e.line); // 3
 * ```
 */
export interface ParseErrorEntry {
  /** 1-based line number in the source (0 when the error is about the whole source). */
  readonly line: number;
  /** The full message (`Cannot parse line 12 of x.txt: ...`). */
  readonly message: string;
  /**
   * The error itself, when the reader kept it (not enumerable: JSON and `console.log` show
   * `line` and `message` only). Its `cause` is the parser's own error, so that a caller tells
   * a kind of refusal by its class rather than by its message.
   */
  readonly error?: Error;
}

/**
 * The entry of `error` at `line`: `{ line, message }`, with `error` kept as a property that is
 * not enumerable.
 *
 * @example
 * ```ts
 * import { errorEntry } from "./parse_report.ts";
 * const e = errorEntry(3, new RangeError("Cannot parse line 3 of x.txt: bad"));
 * console.log(JSON.stringify(e), e.error instanceof RangeError); // {"line":3,"message":"Cannot parse line 3 of x.txt: bad"} true
 * ```
 */
export function errorEntry(line: number, error: Error): ParseErrorEntry {
  const entry = { line, message: error.message };
  Object.defineProperty(entry, "error", { value: error, writable: false, enumerable: false });
  return entry;
}

/**
 * What to do with a bad line: throw (`"fail"`, the default) or skip it and count it.
 *
 * @example
 * ```ts
 * import type { OnError } from "./parse_report.ts";
 * const o: OnError = "skip";
 * console.log(o); // "skip"
 * ```
 */
export type OnError = "fail" | "skip";

/**
 * Accepted/skipped counts and the first errors of one read. Readers mutate it as they go, so it
 * is final once the stream has ended.
 *
 * @example
 * ```ts
 * import { newParseReport } from "./parse_report.ts";
 * const r = newParseReport("x.txt");
 * console.log(r.accepted, r.skipped, r.errors.length); // 0 0 0
 * ```
 */
export interface ParseReport {
  /** Source name (file base name, URL, `<stdin>`...). */
  readonly source: string;
  /** Rows delivered. */
  accepted: number;
  /**
   * Problems skipped (`onError: "skip"`): bad lines, plus one for an XC input that ends before
   * the rows its header declares (see `missingRows`).
   */
  skipped: number;
  /** The first errors (at most `maxErrors`, default 10); `skipped` counts them all. */
  readonly errors: ParseErrorEntry[];
  /** The XC header, when the format has one. */
  header?: { numRows: number; numFeatures: number; numLabels: number };
  /** XC, skip mode: rows the header declares that the input ended without (unset when none). */
  missingRows?: number;
  /** NDJSON: fields the events carried that the reader ignored, with how many events had each. */
  ignoredFields?: Record<string, number>;
}

/**
 * A fresh, empty report.
 *
 * @example
 * ```ts
 * import { newParseReport } from "./parse_report.ts";
 * console.log(newParseReport("<stdin>").source); // "<stdin>"
 * ```
 */
export function newParseReport(source: string): ParseReport {
  return { source, accepted: 0, skipped: 0, errors: [] };
}

/**
 * Counts a skipped line in `report` and keeps its error when fewer than `maxErrors` are kept.
 *
 * @example
 * ```ts
 * import { newParseReport, recordSkip } from "./parse_report.ts";
 * const r = newParseReport("x.txt");
 * recordSkip(r, 3, new RangeError("Cannot parse line 3 of x.txt: bad"), 10);
 * console.log(r.skipped, r.errors[0].line); // 1 3
 * ```
 */
export function recordSkip(
  report: ParseReport,
  line: number,
  error: Error,
  maxErrors: number,
): void {
  report.skipped++;
  if (report.errors.length < maxErrors) report.errors.push(errorEntry(line, error));
}

/**
 * Builds the library's standard parse error: same class as `cause` (`SyntaxError`,
 * `RangeError` or `TypeError`), message `Cannot parse line N of SOURCE: DETAIL`, and `cause`
 * kept as its `cause` (a caller tells a refusal by the class of the cause, not by the message).
 *
 * @example
 * ```ts
 * import { lineError } from "./parse_report.ts";
 * const detail = new RangeError("feature index 9 is out of range [0, 9)");
 * const e = lineError(detail, 12, "x.txt");
 * console.log(e.message); // "Cannot parse line 12 of x.txt: feature index 9 is out of range [0, 9)"
 * console.log(e instanceof RangeError, e.cause === detail); // true true
 * ```
 */
export function lineError(cause: unknown, line: number, source: string): Error {
  const detail = cause instanceof Error ? cause.message : String(cause);
  const message = `Cannot parse line ${line} of ${source}: ${detail}`;
  if (cause instanceof RangeError) return new RangeError(message, { cause });
  if (cause instanceof TypeError) return new TypeError(message, { cause });
  if (cause instanceof SyntaxError) return new SyntaxError(message, { cause });
  throw cause; // not a parse error: an internal bug, keep its stack
}

/**
 * A failure of the byte source itself (truncated gzip, network error) while reading line
 * `line`, as the standard `TypeError`: `Cannot parse line N of SOURCE: DETAIL` (a leading
 * `Cannot read SOURCE: ` of the cause is dropped).
 *
 * @example
 * ```ts
 * import { sourceError } from "./parse_report.ts";
 * const e = sourceError(new TypeError("Cannot read a.gz: truncated or corrupt gzip data"), 7, "a.gz");
 * console.log(e.message); // "Cannot parse line 7 of a.gz: truncated or corrupt gzip data"
 * ```
 */
export function sourceError(cause: unknown, line: number, source: string): TypeError {
  let detail = cause instanceof Error ? cause.message : String(cause);
  const prefix = `Cannot read ${source}: `;
  if (detail.startsWith(prefix)) detail = detail.slice(prefix.length);
  return new TypeError(`Cannot parse line ${line} of ${source}: ${detail}`);
}
