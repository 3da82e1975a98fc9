/**
 * Loading datasets into memory: whole XC (or LIBSVM) texts, from bytes or from a file (plain
 * or gzip), the `${dataDir}/${name}.${split}.txt` layout of the benchmark datasets, and their
 * name lists.
 *
 * @module
 */
import type { Dataset } from "./types.ts";
import { baseName, openSource } from "./sources.ts";
import { LineSplitter } from "./line_splitter.ts";
import { decodeNameLines } from "./name_lines.ts";
import { type OnError, type ParseReport, sourceError } from "./parse_report.ts";
import { checkTextRowsOptions, type TextRowsOptions, TextRowsParser } from "./xc_rows.ts";
import { checkOptionKeys, shown } from "./option_check.ts";
import { SparseRowBuffer } from "./xc_line.ts";

/**
 * A dataset returned by a loader, with its parse report (skipped lines, first errors).
 *
 * @example
 * ```ts
 * import { type LoadedDataset, loadXcBytes } from "./dataset_load.ts";
 * const ds: LoadedDataset = loadXcBytes(new TextEncoder().encode("1 2 1\n0 1:1\n"), "t.txt");
 * console.log(ds.report.accepted); // 1
 * ```
 */
export interface LoadedDataset extends Dataset {
  /** Accepted/skipped counts, header and first errors. */
  report: ParseReport;
}

/**
 * Options of {@link loadXcFile} and {@link loadXcBytes}, checked when they are called: an unknown
 * key, a bad format or onError, or a `featureIndexBase` with XC input (its indices are 0-based)
 * is a TypeError, a `featureIndexBase` that is not an integer in [0, 2^31 − 1] a RangeError.
 *
 * @example
 * ```ts
 * import type { LoadOptions } from "./dataset.ts";
 * const o: LoadOptions = { format: "libsvm", onError: "skip" };
 * console.log(o.format); // "libsvm"
 * ```
 */
export interface LoadOptions {
  /** `"fail"` (default): throw on the first bad line; `"skip"`: skip and count bad lines. */
  onError?: OnError;
  /** Text format: `"xc"` (default, header line) or `"libsvm"`. */
  format?: "xc" | "libsvm";
  /** LIBSVM only: index of the first feature in the text (default 1); a TypeError with XC. */
  featureIndexBase?: number;
}

/** The keys of {@linkcode LoadOptions}. */
const LOAD_OPTION_KEYS: readonly (keyof LoadOptions)[] = ["onError", "format", "featureIndexBase"];

/** `options` checked (keys and values, O(1)) for the parser, before anything is read. */
function checkedLoadOptions(where: string, options: LoadOptions): TextRowsOptions {
  return checkTextRowsOptions(where, checkOptionKeys(where, options, LOAD_OPTION_KEYS));
}

function stripExt(name: string): string {
  return name.replace(/\.gz$/, "").replace(/\.(txt|svm|libsvm)$/, "");
}

/**
 * Builds a {@link Dataset} from a filled {@link SparseRowBuffer} (copies to exact-size arrays).
 *
 * @example
 * ```ts
 * import { datasetFromBuffer } from "./dataset_load.ts";
 * import { SparseRowBuffer } from "./xc_line.ts";
 * const b = new SparseRowBuffer();
 * b.commitRow();
 * console.log(datasetFromBuffer(b, "e", 3, 2).x.numRows); // 1
 * ```
 */
export function datasetFromBuffer(
  b: SparseRowBuffer,
  name: string,
  numFeatures: number,
  numLabels: number,
): Dataset {
  const n = b.numRows;
  return {
    name,
    numFeatures,
    numLabels,
    x: {
      numRows: n,
      numCols: numFeatures,
      indptr: b.featPtr.slice(0, n + 1),
      indices: b.featIdx.slice(0, b.nnz),
      values: b.featVal.slice(0, b.nnz),
    },
    y: {
      numRows: n,
      numCols: numLabels,
      indptr: b.labelPtr.slice(0, n + 1),
      indices: b.labels.slice(0, b.numLabelEntries),
    },
  };
}

/**
 * Parses a whole XC (or LIBSVM) text held in memory. `source` names it in errors. Gzip data must
 * be decompressed first (see {@link loadXcFile}).
 *
 * @example
 * ```ts
 * import { loadXcBytes } from "./dataset_load.ts";
 * const ds = loadXcBytes(new TextEncoder().encode("2 4 3\n0,2 1:1 3:0.5\n 0:2\n"), "t.txt");
 * console.log(ds.x.numRows, ds.x.indices.length, ds.y.indices.length); // 2 3 2
 * ```
 */
export function loadXcBytes(
  bytes: Uint8Array,
  source: string,
  options: LoadOptions = {},
): LoadedDataset {
  const rowsOptions = checkedLoadOptions("loadXcBytes", options);
  const est = Math.max(1024, Math.ceil(bytes.length / 8));
  const out = new SparseRowBuffer(Math.ceil(est / 64), est, Math.ceil(est / 32));
  const rows = new TextRowsParser(source, rowsOptions, out);
  let p = 0, line = 0;
  const n = bytes.length;
  while (p < n) {
    let e = bytes.indexOf(10, p);
    if (e < 0) e = n;
    line++;
    rows.line(bytes, p, e, line);
    p = e + 1;
  }
  rows.finish(line);
  const h = rows.report.header;
  const ds = datasetFromBuffer(
    out,
    stripExt(baseName(source)),
    h ? h.numFeatures : out.maxFeature + 1,
    h ? h.numLabels : out.maxLabel + 1,
  );
  return { ...ds, report: rows.report };
}

/**
 * Loads a whole XC (or LIBSVM) text file (plain or gzip, detected by magic bytes) into memory.
 * The file is read in chunks and parsed straight from the bytes by the same parser as the
 * streaming readers (no whole-file buffer). Errors name the file's base name and line:
 * `Cannot parse line 12 of bibtex.train.txt: feature index 1836 is out of range [0, 1836)`.
 *
 * @example
 * ```ts
 * import { loadXcFile } from "./dataset_load.ts";
 * const path = await Deno.makeTempFile({ suffix: ".txt" });
 * await Deno.writeTextFile(path, "1 3 2\n1 0:1 2:3\n");
 * const ds = await loadXcFile(path);
 * console.log(ds.numFeatures, ds.y.indices[0], ds.x.values[1]); // 3 1 3
 * await Deno.remove(path);
 * ```
 */
export async function loadXcFile(
  path: string,
  options: LoadOptions = {},
): Promise<LoadedDataset> {
  const rowsOptions = checkedLoadOptions("loadXcFile", options);
  const src = await openSource(path, { name: baseName(path) });
  let size = 1 << 20;
  try {
    size = (await Deno.stat(path)).size * (src.gzip ? 4 : 1);
  } catch {
    // a file: URL or a race: keep the default estimate
  }
  const est = Math.max(1024, Math.ceil(size / 8));
  const out = new SparseRowBuffer(Math.ceil(est / 64), est, Math.ceil(est / 32));
  const rows = new TextRowsParser(src.name, rowsOptions, out);
  const splitter = new LineSplitter((buf, s, e, n) => {
    rows.line(buf, s, e, n);
  });
  const reader = src.stream.getReader();
  try {
    while (true) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        throw sourceError(e, splitter.lineNo + 1, src.name);
      }
      if (r.done) break;
      splitter.push(r.value);
    }
  } catch (e) {
    await reader.cancel().catch(() => {});
    throw e;
  }
  splitter.end();
  rows.finish(splitter.lineNo);
  const h = rows.report.header;
  const ds = datasetFromBuffer(
    out,
    stripExt(src.name),
    h ? h.numFeatures : out.maxFeature + 1,
    h ? h.numLabels : out.maxLabel + 1,
  );
  return { ...ds, report: rows.report };
}

/**
 * Loads `${dataDir}/${name}.${split}.txt` (XC format). The dataset's `name` is `name`.
 *
 * @example
 * ```ts
 * import { loadDataset } from "./dataset_load.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/toy.train.txt`, "1 2 2\n0 1:1\n");
 * const ds = await loadDataset(dir, "toy", "train");
 * console.log(ds.name, ds.x.numRows); // "toy" 1
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function loadDataset(
  dataDir: string,
  name: string,
  split: "train" | "test",
): Promise<LoadedDataset> {
  if (split !== "train" && split !== "test") {
    throw new TypeError(`loadDataset: split must be "train" or "test", got '${split}'`);
  }
  for (const [what, v] of [["dataDir", dataDir], ["name", name]]) {
    if (typeof v !== "string" || v === "") {
      throw new TypeError(`loadDataset: ${what} must be a non-empty string, got ${shown(v)}`);
    }
  }
  const ds = await loadXcFile(`${dataDir}/${name}.${split}.txt`);
  return { ...ds, name };
}

/**
 * Reads `${dataDir}/${name}.${what}.txt`: one name per line, line k is index k (a leading UTF-8
 * byte order mark is skipped, `\r\n` line ends are read as `\n`). The text must be UTF-8: a
 * line that is not is a TypeError naming the file and the line
 * (`data/toy.labels.txt line 3: not valid UTF-8 (save the file as UTF-8)`), not a name with
 * U+FFFD in it. A file that cannot be read throws the `Deno.readFile` error (e.g.
 * `Deno.errors.NotFound`).
 *
 * @throws {TypeError} when `what` is not `"labels"` or `"features"`, or a line is not UTF-8
 *
 * @example
 * ```ts
 * import { loadNames } from "./dataset_load.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/toy.labels.txt`, "sports\nnews\n");
 * console.log(await loadNames(dir, "toy", "labels")); // [ "sports", "news" ]
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function loadNames(
  dataDir: string,
  name: string,
  what: "labels" | "features",
): Promise<string[]> {
  if (what !== "labels" && what !== "features") {
    throw new TypeError(`loadNames: what must be "labels" or "features", got '${what}'`);
  }
  const file = `${dataDir}/${name}.${what}.txt`;
  return decodeNameLines(await Deno.readFile(file), file);
}
