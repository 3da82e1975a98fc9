/**
 * Streaming readers: a source (file, stdin, URL, stream or iterable; gzip detected by magic
 * bytes) in the XC, LIBSVM or NDJSON format becomes a `ReadableStream` of {@linkcode Example}s,
 * with optional feature hashing, TF-IDF weighting and row L2 normalisation (in that order).
 * NDJSON events may carry raw `text`, tokenized (option `text`, `sdk/tokenizer.ts`) into named
 * features that are then hashed or indexed like the others; fields the reader does not know are
 * ignored and counted in the report's `ignoredFields` (`strictFields: true` rejects them).
 *
 * Errors: with `onError: "fail"` (default) the stream errors at the first bad line with a
 * message naming the source, line and field
 * (`Cannot parse line 12 of x.txt: feature index 1836 is out of range [0, 1836)`), after every
 * row accepted before it has been delivered. With `"skip"` bad lines are skipped and counted in
 * the reader's {@linkcode ParseReport} (accepted, skipped, first errors). A bad XC header and a
 * broken source (truncated gzip, network failure) always end the stream. A leading UTF-8 byte
 * order mark is skipped. XC: empty lines at the end of the file are ignored, an empty line
 * before a row is a bad line that uses none of the header's rows, and a file with fewer rows than
 * its header is an error (skip: one more skipped problem, `missingRows` in the report).
 *
 * @module
 */
import type { Example, SparseVector } from "./types.ts";
import { weightRow } from "./tfidf_overflow.ts";
import {
  type ByteSource,
  OPEN_SOURCE_OPTION_KEYS,
  openSource,
  type OpenSourceOptions,
  type SourceInput,
} from "./sources.ts";
import { LineSplitter } from "./line_splitter.ts";
import {
  checkTextRowsFormat,
  checkTextRowsValues,
  TEXT_ROWS_OPTION_KEYS,
  TextRowsParser,
} from "./xc_rows.ts";
import {
  errorEntry,
  lineError,
  type OnError,
  type ParseReport,
  recordSkip,
  sourceError,
} from "./parse_report.ts";
import { type NdjsonOptions, NdjsonParser } from "./ndjson.ts";
import { NDJSON_OPTION_KEYS, unusedNdjsonOption } from "./ndjson_options.ts";
import {
  booleanOption,
  checkOptionKeys,
  numberOption,
  pickOptions,
  shown,
} from "./option_check.ts";
import { FeatureHasher, type HashingOptions } from "./hashing.ts";
import { TfIdf } from "./tfidf.ts";
import { l2NormalizeInPlace } from "./normalize.ts";
import type { Vocabulary } from "./vocabulary.ts";
import type { TextSettings } from "../../sdk/mod.ts";
import { startsWithBom } from "./bom.ts";

/**
 * The text formats the readers understand.
 *
 * @example
 * ```ts
 * import type { StreamFormat } from "./readers.ts";
 * const f: StreamFormat = "ndjson";
 * console.log(f); // "ndjson"
 * ```
 */
export type StreamFormat = "xc" | "libsvm" | "ndjson";

/**
 * Options of {@linkcode readExamples}. Each one must be used by the input it is given with,
 * else it is a TypeError naming it and why (the format is known once the source is open): the
 * NDJSON parser's options (`featureKeys`, `labelKeys`, `features`, `labels`, `growFeatures`,
 * `growLabels`, `text`, `strictFields`, `maxNameLength`, `maxFeaturesPerEvent`) apply to NDJSON
 * input only, and there only in the key modes that use them (a feature vocabulary needs named
 * features without hashing, `numFeatures` indexed ones: `unusedNdjsonOption`); the index bases
 * apply to XC/LIBSVM input (`featureIndexBase` to LIBSVM only); XC takes its sizes from its
 * header (no `numFeatures`, `numLabels`). A {@linkcode TfIdf} given must cover the hashed
 * columns (`maxFeatures` ≥ `hashing.dim`, a RangeError).
 *
 * @example
 * ```ts
 * import type { ReadExamplesOptions } from "./readers.ts";
 * const o: ReadExamplesOptions = { format: "xc", onError: "skip", hashing: { dim: 4096 }, l2: true };
 * console.log(o.hashing?.dim); // 4096
 * ```
 */
export interface ReadExamplesOptions
  extends OpenSourceOptions, Omit<NdjsonOptions, "hashing" | "numFeatures" | "numLabels"> {
  /**
   * LIBSVM and NDJSON index keys: exclusive bound on feature indices (default none: the space
   * grows). Not with XC (its header's D is the bound) nor NDJSON names or hashed keys.
   */
  numFeatures?: number;
  /**
   * LIBSVM and NDJSON label indices: exclusive bound on label indices (default none). Not with
   * XC (its header's L is the bound) nor NDJSON label names.
   */
  numLabels?: number;
  /** Format (default: from the name: `.ndjson`/`.jsonl` → ndjson, `.svm`/`.libsvm` → libsvm, else xc). */
  format?: StreamFormat;
  /** `"fail"` (default) or `"skip"` bad lines. */
  onError?: OnError;
  /** Errors kept in the report (default 10; all skipped lines are counted). */
  maxErrors?: number;
  /** LIBSVM only: index of the first feature in the text (default 1; XC indices are 0-based). */
  featureIndexBase?: number;
  /** XC/LIBSVM: index of the first label in the text (default 0). */
  labelIndexBase?: number;
  /** Longest line accepted in bytes (default 64 MiB); longer lines are errors. */
  maxLineBytes?: number;
  /** Hash features into a fixed number of columns. */
  hashing?: HashingOptions;
  /**
   * TF-IDF weighting: `true` for online statistics, or a {@linkcode TfIdf} to use (and update
   * while it is fitting). A row with a feature past its `maxFeatures` (2^24 for `true`) is a bad
   * line (`onError`).
   */
  tfidf?: boolean | TfIdf;
  /** Scale every row to unit L2 norm (after hashing and TF-IDF). */
  l2?: boolean;
}

/** Every key of {@linkcode ReadExamplesOptions}: the source's, the parsers' and the reader's. */
const READ_EXAMPLES_KEYS: readonly string[] = [
  ...OPEN_SOURCE_OPTION_KEYS,
  ...NDJSON_OPTION_KEYS,
  ...TEXT_ROWS_OPTION_KEYS,
  "maxLineBytes",
  "tfidf",
  "l2",
];

/** The NDJSON parser's options that XC/LIBSVM input leaves unused (hashing and the bounds are shared). */
const NDJSON_ONLY_KEYS: readonly string[] = NDJSON_OPTION_KEYS.filter(
  (k) => k !== "hashing" && k !== "numFeatures" && k !== "numLabels",
);

/**
 * Throws a TypeError naming the first option of `options` that input in `format` leaves unused
 * (the NDJSON key modes are checked by the caller, once the parser has checked the values).
 */
function checkFormatUse(where: string, format: StreamFormat, options: ReadExamplesOptions): void {
  checkTextRowsFormat(where, format, options);
  if (format === "ndjson") return;
  const given = NDJSON_ONLY_KEYS.find((k) => (options as Record<string, unknown>)[k] !== undefined);
  if (given !== undefined) {
    throw new TypeError(
      `${where}: option ${given} applies to NDJSON input only; this input is ${format.toUpperCase()}`,
    );
  }
}

/**
 * What {@linkcode readExamples} returns.
 *
 * @example
 * ```ts
 * import { type ExampleReader, readExamples } from "./readers.ts";
 * const r: ExampleReader = await readExamples(["1 3 2\n1 2:1\n"]);
 * for await (const e of r.stream) console.log([...e.labels]); // [ 1 ]
 * console.log(r.report.accepted, r.numLabels); // 1 2
 * ```
 */
export interface ExampleReader {
  /** Source name (file base name, URL, `<stdin>`, `<stream>` or the given name). */
  readonly name: string;
  /** The format being read. */
  readonly format: StreamFormat;
  /** The rows. Iterate with `for await` or pipe through a `Minibatcher`. */
  readonly stream: ReadableStream<Example>;
  /** Accepted/skipped counts, XC header and first errors; final once the stream has ended. */
  readonly report: ParseReport;
  /** NDJSON feature-name vocabulary (`featureKeys: "name"`). */
  readonly featureVocabulary?: Vocabulary;
  /** NDJSON label vocabulary (`labelKeys: "name"`). */
  readonly labelVocabulary?: Vocabulary;
  /** The hasher, when hashing. */
  readonly hasher?: FeatureHasher;
  /** NDJSON: the tokenizer settings of `text` fields, when text is read. */
  readonly text?: TextSettings;
  /** The TF-IDF statistics, when weighting. */
  readonly tfidf?: TfIdf;
  /** Current feature-space size: hashed dimension, XC header D, vocabulary size or largest index + 1. */
  readonly numFeatures: number;
  /** Current label-space size: XC header L, vocabulary size or largest index + 1. */
  readonly numLabels: number;
}

/**
 * The format implied by a file name: `.ndjson`/`.jsonl` → ndjson, `.svm`/`.libsvm` → libsvm,
 * anything else → xc (a trailing `.gz` is ignored). An http(s) or file URL is named by its path
 * (its query and fragment are not part of the name), as {@linkcode readExamples} names it.
 *
 * @example
 * ```ts
 * import { formatFromName } from "./readers.ts";
 * console.log(formatFromName("ev.jsonl.gz"), formatFromName("a.svm"), formatFromName("b.txt")); // ndjson libsvm xc
 * console.log(formatFromName("https://host/ev.ndjson?token=1")); // ndjson
 * ```
 */
export function formatFromName(name: string): StreamFormat {
  const p = nameForFormat(name, name).replace(/\.gz$/i, "");
  if (/\.(ndjson|jsonl)$/i.test(p)) return "ndjson";
  if (/\.(svm|libsvm)$/i.test(p)) return "libsvm";
  return "xc";
}

/** The path part of a URL input (no query), else the input path or the source name. */
function nameForFormat(input: SourceInput, name: string): string {
  if (input instanceof URL) return input.pathname;
  if (typeof input === "string") {
    // (a malformed URL is named as given: opening it says what is wrong)
    return /^(https?|file):\/\//i.test(input) && URL.canParse(input)
      ? new URL(input).pathname
      : input;
  }
  return name;
}

/** Per-row post-processing: hashing, TF-IDF, L2. Rows passed in are owned by the reader. */
interface RowPost {
  (e: Example): Example;
}

function makePost(
  hasher: FeatureHasher | undefined,
  tfidf: TfIdf | undefined,
  l2: boolean,
): RowPost | undefined {
  if (!hasher && !tfidf && !l2) return undefined;
  return (e) => {
    let x = e.x;
    if (hasher) x = hasher.hashIndexed(x);
    if (tfidf) {
      const raw = x;
      x = tfidf.apply(raw);
      // a value near the float32 maximum times an IDF above 1 is Infinity: a row to be
      // normalised is scaled first, as the model file's preprocessing and the SDK do
      if (l2 && !x.values.every(Number.isFinite)) x = unitScaledTfIdf(raw, tfidf);
    }
    if (l2) {
      if (x === e.x) x = { indices: x.indices, values: x.values.slice() };
      l2NormalizeInPlace(x.values);
    }
    return x === e.x ? e : { ...e, x };
  };
}

/**
 * The TF-IDF weighting of `raw` by `tfidf`'s current statistics (the row already counted) for
 * a row about to be L2-normalised whose weighted values overflow a float32: scaled by a power of
 * two first (./tfidf_overflow.ts), the same direction, finite.
 */
function unitScaledTfIdf(raw: SparseVector, tfidf: TfIdf): SparseVector {
  const n = raw.indices.length;
  const entries = new Int32Array(n), idf = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    entries[k] = k;
    idf[k] = tfidf.idf(raw.indices[k]);
  }
  const values = new Float32Array(n);
  weightRow(entries, raw.values, 0, n, idf, values, true);
  return { indices: raw.indices, values };
}

/**
 * Drives a line-based parser over a byte source as a pull stream: each pull reads chunks until
 * at least one row is complete and enqueues all of a chunk's rows at once. A fatal error is held
 * back until every row accepted before it has been read (with `highWaterMark` 0 the next pull
 * only happens once the queue is empty), so no accepted row is lost. `take` hands out the rows
 * parsed so far; it calls `fail` for a row it refuses in fail mode (returning the rows before
 * it), an error on an earlier line than any the parser met.
 */
function driveStream(
  src: ByteSource,
  splitter: LineSplitter,
  take: (fail: (e: Error) => void) => Example[],
  finish: () => void,
): ReadableStream<Example> {
  const reader = src.stream.getReader();
  let failure: Error | undefined;
  let ended = false;
  return new ReadableStream<Example>({
    async pull(controller) {
      while (true) {
        if (failure !== undefined) {
          controller.error(failure);
          return;
        }
        if (ended) {
          controller.close();
          return;
        }
        let r: ReadableStreamReadResult<Uint8Array> | undefined;
        try {
          r = await reader.read();
        } catch (e) {
          failure = sourceError(e, splitter.lineNo + 1, src.name);
        }
        if (r !== undefined) {
          try {
            if (r.done) {
              ended = true;
              splitter.end();
              finish();
            } else {
              splitter.push(r.value);
            }
          } catch (e) {
            if (!(e instanceof Error)) throw e;
            failure = e;
          }
        }
        const rows = take((e) => (failure = e));
        if (failure !== undefined || ended) reader.releaseLock();
        if (failure !== undefined && !ended) src.stream.cancel().catch(() => {});
        for (let i = 0; i < rows.length; i++) controller.enqueue(rows[i]);
        if (rows.length > 0) return;
      }
    },
    async cancel(reason) {
      if (failure === undefined && !ended) {
        ended = true;
        await reader.cancel(reason).catch(() => {});
      }
    },
  }, { highWaterMark: 0 });
}

/** `make()`, closing the opened source when it throws (an option checked once it is open). */
async function closingOnError<T>(src: ByteSource, make: () => T): Promise<T> {
  try {
    return make();
  } catch (e) {
    await src.stream.cancel().catch(() => {});
    throw e;
  }
}

/**
 * Opens `input` and streams its rows as {@linkcode Example}s (see the module doc for sources,
 * formats and errors). Missing files and failed HTTP requests reject here; parse errors error
 * the stream. Options are checked before the source is opened (those of the NDJSON parser and
 * the hasher, and whether the input's format uses each one, once it is, the source then being
 * closed): an unknown key, a value of the wrong type (`l2: "false"`, `tfidf: "yes"`) or an
 * option the input leaves unused (`featureKeys` with XC, `numFeatures` with named NDJSON
 * features: see {@linkcode ReadExamplesOptions}) is a TypeError, a value out of range
 * (`maxErrors: -1`, `maxLineBytes: 0`) a RangeError, each naming the option and what is allowed.
 *
 * @example
 * ```ts
 * import { readExamples } from "./readers.ts";
 * const r = await readExamples(["3 4 2\n0 1:1\n", " 2:0.5\n1 0:1 3:2\n"], { name: "mem.txt" });
 * for await (const e of r.stream) console.log(e.line, [...e.labels], [...e.x.indices]);
 * // 2 [ 0 ] [ 1 ]
 * // 3 [] [ 2 ]
 * // 4 [ 1 ] [ 0, 3 ]
 * console.log(r.report.accepted, r.numFeatures); // 3 4
 * await readExamples(["1 4 2\n0 1:1\n"], { featureKeys: "name" }).catch((e) => console.log(e.message));
 * // readExamples: option featureKeys applies to NDJSON input only; this input is XC
 * ```
 */
export async function readExamples(
  input: SourceInput,
  options: ReadExamplesOptions = {},
): Promise<ExampleReader> {
  const where = "readExamples";
  checkOptionKeys(where, options, READ_EXAMPLES_KEYS);
  // the XC/LIBSVM parser's option values but the format (which may be ndjson, checked below);
  // whether the format uses them once it is known
  const rowsOptions = checkTextRowsValues(
    where,
    pickOptions(options, TEXT_ROWS_OPTION_KEYS.filter((k) => k !== "format")),
  );
  const onError = options.onError ?? "fail";
  const maxErrors = options.maxErrors ?? 10;
  const maxLineBytes = numberOption(
    where,
    "maxLineBytes",
    options.maxLineBytes,
    64 * 1024 * 1024,
    1,
    2 ** 31 - 1,
    true,
  );
  if (
    options.tfidf !== undefined && typeof options.tfidf !== "boolean" &&
    !(options.tfidf instanceof TfIdf)
  ) {
    throw new TypeError(
      `${where}: option tfidf must be true, false or a TfIdf, got ${shown(options.tfidf)}`,
    );
  }
  const l2 = booleanOption(where, "l2", options.l2, false);
  const src = await openSource(input, pickOptions(options, OPEN_SOURCE_OPTION_KEYS));
  const format = options.format ?? formatFromName(nameForFormat(input, src.name));
  if (format !== "xc" && format !== "libsvm" && format !== "ndjson") {
    await src.stream.cancel();
    throw new TypeError(`${where}: unknown format '${format}' (expected xc, libsvm or ndjson)`);
  }
  await closingOnError(src, () => checkFormatUse(where, format, options));
  /** The given TfIdf must take every hashed column (else rows fail at random). */
  const checkTfIdfCovers = (hasher: FeatureHasher | undefined) => {
    const t = options.tfidf;
    if (hasher && t instanceof TfIdf && t.maxFeatures < hasher.dim) {
      throw new RangeError(
        `${where}: option tfidf: the TfIdf's maxFeatures (${t.maxFeatures}) is below ` +
          `hashing.dim (${hasher.dim}), the columns it weights`,
      );
    }
  };
  const weighting = (dim: number | undefined) =>
    options.tfidf === true
      ? new TfIdf({ maxFeatures: dim })
      : options.tfidf instanceof TfIdf
      ? options.tfidf
      : undefined;

  if (format === "ndjson") {
    const parser = await closingOnError(src, () => {
      const p = new NdjsonParser(pickOptions(options, NDJSON_OPTION_KEYS));
      // stricter than the parser: no vocabulary nor index bound the key modes leave unused
      const unused = unusedNdjsonOption(options, false);
      if (unused !== undefined) throw new TypeError(`${where}: ${unused}`);
      checkTfIdfCovers(p.hasher);
      return p;
    });
    const tfidf = weighting(parser.hasher?.dim);
    const post = makePost(undefined, tfidf, l2);
    const report: ParseReport = { source: src.name, accepted: 0, skipped: 0, errors: [] };
    // a BOM is dropped at the start of the input only (decoding each line with ignoreBOM false
    // dropped one from every line; elsewhere it is data, and the parser refuses the line)
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    let rows: Example[] = [];
    const splitter = new LineSplitter((buf, s, e, lineNo) => {
      if (lineNo === 1 && startsWithBom(buf, s, e)) s += 3;
      let p = s;
      while (p < e && (buf[p] === 32 || buf[p] === 9 || buf[p] === 13)) p++;
      if (p === e) return; // blank line
      let ex: Example;
      try {
        let text: string;
        try {
          text = decoder.decode(buf.subarray(s, e));
        } catch {
          throw new TypeError("the line is not valid UTF-8");
        }
        ex = parser.parse(text);
        // (a feature past a given TfIdf's maxFeatures: a bad line)
        if (post) ex = post(ex);
      } catch (err) {
        const wrapped = lineError(err, lineNo, src.name);
        if (onError === "fail") throw wrapped;
        recordSkip(report, lineNo, wrapped, maxErrors);
        return;
      }
      (ex as { line?: number }).line = lineNo;
      rows.push(ex);
      report.accepted++;
    }, {
      maxLineBytes,
      onTooLong: (lineNo, length) => {
        const err = lineError(
          new RangeError(`line is ${length} bytes long, more than the ${maxLineBytes} allowed`),
          lineNo,
          src.name,
        );
        if (onError === "fail") throw err;
        recordSkip(report, lineNo, err, maxErrors);
      },
    });
    const take = () => {
      const out = rows;
      rows = [];
      return out;
    };
    return {
      name: src.name,
      format,
      stream: driveStream(src, splitter, take, () => {
        if (parser.ignoredFields.size > 0) {
          report.ignoredFields = Object.fromEntries(parser.ignoredFields);
        }
      }),
      report,
      featureVocabulary: parser.featureKeys === "name" && !parser.hasher
        ? parser.features
        : undefined,
      labelVocabulary: parser.labelKeys === "name" ? parser.labels : undefined,
      hasher: parser.hasher,
      text: parser.text,
      tfidf,
      get numFeatures() {
        return parser.numFeatures;
      },
      get numLabels() {
        return parser.numLabels;
      },
    };
  }

  // XC / LIBSVM: the shared byte parser
  const hashing = options.hashing;
  const hasher = hashing ? await closingOnError(src, () => new FeatureHasher(hashing)) : undefined;
  await closingOnError(src, () => checkTfIdfCovers(hasher));
  const tfidf = weighting(hasher?.dim);
  // unhashed rows are checked against the TfIdf's columns as they are read: a row past them is
  // a bad line (hashed columns are below hashing.dim, checked above)
  const tfidfLimit = tfidf && !hasher ? tfidf.maxFeatures : Infinity;
  const indexBase = format === "libsvm" ? (rowsOptions.featureIndexBase ?? 1) : 0;
  const rowsParser = new TextRowsParser(src.name, { ...rowsOptions, format });
  const out = rowsParser.out;
  const report = rowsParser.report;
  let lineNos = new Int32Array(1024);
  const splitter = new LineSplitter((buf, s, e, lineNo) => {
    const maxFeature = out.maxFeature, maxLabel = out.maxLabel;
    if (rowsParser.line(buf, s, e, lineNo)) {
      const r = out.numRows - 1;
      if (tfidfLimit !== Infinity) {
        let j = -1;
        for (let p = out.featPtr[r]; p < out.featPtr[r + 1]; p++) {
          if (out.featIdx[p] >= tfidfLimit) {
            j = out.featIdx[p];
            break;
          }
        }
        if (j >= 0) {
          // take the row back: not delivered, not counted, sizes as before it
          out.numRows = r;
          out.rollback();
          out.maxFeature = maxFeature;
          out.maxLabel = maxLabel;
          report.accepted--;
          const err = lineError(
            new RangeError(
              `feature index ${j + indexBase} is out of range [${indexBase}, ${
                tfidfLimit + indexBase
              }) of the TF-IDF weighting (the TfIdf's maxFeatures)`,
            ),
            lineNo,
            src.name,
          );
          if (onError === "fail") throw err;
          recordSkip(report, lineNo, err, maxErrors);
          return;
        }
      }
      if (r >= lineNos.length) {
        const next = new Int32Array(lineNos.length * 2);
        next.set(lineNos);
        lineNos = next;
      }
      lineNos[r] = lineNo;
    }
  }, {
    maxLineBytes,
    onTooLong: (lineNo, length) =>
      rowsParser.reject(
        lineNo,
        new RangeError(`line is ${length} bytes long, more than the ${maxLineBytes} allowed`),
      ),
  });
  const post = makePost(hasher, tfidf, l2);
  const take = (fail: (e: Error) => void): Example[] => {
    const n = out.numRows;
    if (n === 0) return [];
    const fp = out.featPtr, lp = out.labelPtr;
    const fi = out.featIdx.slice(0, out.nnz), fv = out.featVal.slice(0, out.nnz);
    const li = out.labels.slice(0, out.numLabelEntries);
    const rows: Example[] = new Array(n);
    let k = 0;
    for (let r = 0; r < n; r++) {
      const a = fp[r], b = fp[r + 1];
      const e: Example = {
        x: { indices: fi.subarray(a, b), values: fv.subarray(a, b) },
        labels: li.subarray(lp[r], lp[r + 1]),
        line: lineNos[r],
      };
      if (!post) {
        rows[k++] = e;
        continue;
      }
      let posted: Example;
      try {
        posted = post(e);
      } catch (err) {
        // a bad line (values adding up past float32 in a hashed column), as for NDJSON; it
        // escaped the line's error handling and ended the stream with no file nor line
        const wrapped = lineError(err, lineNos[r], src.name);
        if (onError === "fail") {
          report.accepted -= n - r; // this row and those after it are not delivered
          fail(wrapped);
          break;
        }
        report.accepted--;
        report.skipped++;
        // (later lines of the chunk may have been refused already: keep the first errors)
        const errors = report.errors;
        let at = errors.length;
        while (at > 0 && errors[at - 1].line > lineNos[r]) at--;
        if (at < maxErrors) {
          errors.splice(at, 0, errorEntry(lineNos[r], wrapped));
          if (errors.length > maxErrors) errors.pop();
        }
        continue;
      }
      rows[k++] = posted;
    }
    out.clear();
    rows.length = k;
    return rows;
  };
  const xc = format === "xc";
  const bound = (explicit: number | undefined, header: number | undefined, seen: number) =>
    header ?? explicit ?? seen;
  return {
    name: src.name,
    format,
    stream: driveStream(src, splitter, take, () => rowsParser.finish(splitter.lineNo)),
    report,
    hasher,
    tfidf,
    get numFeatures() {
      if (hasher) return hasher.dim;
      return bound(
        options.numFeatures,
        xc ? report.header?.numFeatures : undefined,
        out.maxFeature + 1,
      );
    },
    get numLabels() {
      return bound(options.numLabels, xc ? report.header?.numLabels : undefined, out.maxLabel + 1);
    },
  };
}
