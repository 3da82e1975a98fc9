/**
 * In-memory datasets: fast whole-file loading of XC text files, row views, subsets, splits,
 * concatenation, batching and label statistics.
 *
 * @module
 */
import type { Batch, BinaryCsr, CsrMatrix, SparseVector } from "./types.ts";
import { baseName, openSource } from "./sources.ts";
import { LineSplitter } from "./line_splitter.ts";
import { type OnError, type ParseReport, sourceError } from "./parse_report.ts";
import { TextRowsParser } from "./xc_rows.ts";
import { SparseRowBuffer } from "./xc_line.ts";
import { Rng } from "./random.ts";

/**
 * A dataset held in memory: features as CSR, positive labels as binary CSR.
 *
 * @example
 * ```ts
 * import type { Dataset } from "./dataset.ts";
 * const ds: Dataset = {
 *   name: "tiny", numFeatures: 2, numLabels: 1,
 *   x: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) },
 * };
 * console.log(ds.x.numRows); // 1
 * ```
 */
export interface Dataset {
  /** Name (file base name without `.txt`/`.gz` for {@link loadXcFile}; the dataset name for
   * {@link loadDataset}). */
  name: string;
  /** Feature-space size (D). */
  numFeatures: number;
  /** Label-space size (L). */
  numLabels: number;
  /** Features, `numRows x numFeatures`. */
  x: CsrMatrix;
  /** Positive labels, `numRows x numLabels`. */
  y: BinaryCsr;
}

/**
 * A dataset returned by a loader, with its parse report (skipped lines, first errors).
 *
 * @example
 * ```ts
 * import { type LoadedDataset, loadXcBytes } from "./dataset.ts";
 * const ds: LoadedDataset = loadXcBytes(new TextEncoder().encode("1 2 1\n0 1:1\n"), "t.txt");
 * console.log(ds.report.accepted); // 1
 * ```
 */
export interface LoadedDataset extends Dataset {
  /** Accepted/skipped counts, header and first errors. */
  report: ParseReport;
}

/**
 * Options of {@link loadXcFile} and {@link loadXcBytes}.
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
  /** LIBSVM only: index of the first feature in the text (default 1). */
  featureIndexBase?: number;
}

function stripExt(name: string): string {
  return name.replace(/\.gz$/, "").replace(/\.(txt|svm|libsvm)$/, "");
}

/**
 * Builds a {@link Dataset} from a filled {@link SparseRowBuffer} (copies to exact-size arrays).
 *
 * @example
 * ```ts
 * import { datasetFromBuffer } from "./dataset.ts";
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
 * import { loadXcBytes } from "./dataset.ts";
 * const ds = loadXcBytes(new TextEncoder().encode("2 4 3\n0,2 1:1 3:0.5\n 0:2\n"), "t.txt");
 * console.log(ds.x.numRows, ds.x.indices.length, ds.y.indices.length); // 2 3 2
 * ```
 */
export function loadXcBytes(
  bytes: Uint8Array,
  source: string,
  options: LoadOptions = {},
): LoadedDataset {
  const est = Math.max(1024, Math.ceil(bytes.length / 8));
  const out = new SparseRowBuffer(Math.ceil(est / 64), est, Math.ceil(est / 32));
  const rows = new TextRowsParser(source, {
    format: options.format ?? "xc",
    onError: options.onError ?? "fail",
    featureIndexBase: options.featureIndexBase,
  }, out);
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
 * import { loadXcFile } from "./dataset.ts";
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
  const src = await openSource(path, { name: baseName(path) });
  let size = 1 << 20;
  try {
    size = (await Deno.stat(path)).size * (src.gzip ? 4 : 1);
  } catch {
    // a file: URL or a race: keep the default estimate
  }
  const est = Math.max(1024, Math.ceil(size / 8));
  const out = new SparseRowBuffer(Math.ceil(est / 64), est, Math.ceil(est / 32));
  const rows = new TextRowsParser(src.name, {
    format: options.format ?? "xc",
    onError: options.onError ?? "fail",
    featureIndexBase: options.featureIndexBase,
  }, out);
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
 * import { loadDataset } from "./dataset.ts";
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
  const ds = await loadXcFile(`${dataDir}/${name}.${split}.txt`);
  return { ...ds, name };
}

/**
 * Reads `${dataDir}/${name}.${what}.txt`: one name per line, line k is index k.
 *
 * @example
 * ```ts
 * import { loadNames } from "./dataset.ts";
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
  const text = await Deno.readTextFile(`${dataDir}/${name}.${what}.txt`);
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/**
 * Row `i` of a CSR matrix as a {@link SparseVector} of subarray views (no copy).
 *
 * @example
 * ```ts
 * import { rowView } from "./dataset.ts";
 * const m = { numRows: 2, numCols: 3, indptr: Int32Array.of(0, 1, 3), indices: Int32Array.of(0, 1, 2), values: Float32Array.of(1, 2, 3) };
 * console.log([...rowView(m, 1).values]); // [ 2, 3 ]
 * ```
 */
export function rowView(m: CsrMatrix, i: number): SparseVector {
  if (!(i >= 0 && i < m.numRows)) {
    throw new RangeError(`rowView: row ${i} is out of range [0, ${m.numRows})`);
  }
  const a = m.indptr[i], b = m.indptr[i + 1];
  return { indices: m.indices.subarray(a, b), values: m.values.subarray(a, b) };
}

/**
 * The label indices of row `i` (a subarray view, no copy).
 *
 * @example
 * ```ts
 * import { labelsOf } from "./dataset.ts";
 * const y = { numRows: 2, numCols: 4, indptr: Int32Array.of(0, 0, 2), indices: Int32Array.of(1, 3) };
 * console.log([...labelsOf(y, 1)]); // [ 1, 3 ]
 * ```
 */
export function labelsOf(y: BinaryCsr, i: number): Int32Array {
  if (!(i >= 0 && i < y.numRows)) {
    throw new RangeError(`labelsOf: row ${i} is out of range [0, ${y.numRows})`);
  }
  return y.indices.subarray(y.indptr[i], y.indptr[i + 1]);
}

function gatherRows<T extends Int32Array | Float32Array>(
  indptr: Int32Array,
  data: T,
  rows: ArrayLike<number>,
  make: (n: number) => T,
): { indptr: Int32Array; data: T } {
  const n = rows.length;
  const ptr = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) {
    const r = rows[k];
    ptr[k + 1] = ptr[k] + indptr[r + 1] - indptr[r];
  }
  const out = make(ptr[n]);
  for (let k = 0; k < n; k++) {
    const r = rows[k];
    out.set(data.subarray(indptr[r], indptr[r + 1]), ptr[k]);
  }
  return { indptr: ptr, data: out };
}

/**
 * A new dataset with the given rows (copied, in the given order; repeats allowed).
 *
 * @example
 * ```ts
 * import { loadXcBytes, subsetRows } from "./dataset.ts";
 * const ds = loadXcBytes(new TextEncoder().encode("3 2 2\n0 0:1\n1 1:1\n0,1 0:1 1:1\n"), "t");
 * const s = subsetRows(ds, [2, 0]);
 * console.log(s.x.numRows, [...s.y.indices]); // 2 [ 0, 1, 0 ]
 * ```
 */
export function subsetRows(ds: Dataset, rows: ArrayLike<number>): Dataset {
  const n = ds.x.numRows;
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k];
    if (!(Number.isInteger(r) && r >= 0 && r < n)) {
      throw new RangeError(`subsetRows: row ${r} (position ${k}) is out of range [0, ${n})`);
    }
  }
  const fi = gatherRows(ds.x.indptr, ds.x.indices, rows, (m) => new Int32Array(m));
  const fv = gatherRows(ds.x.indptr, ds.x.values, rows, (m) => new Float32Array(m));
  const li = gatherRows(ds.y.indptr, ds.y.indices, rows, (m) => new Int32Array(m));
  return {
    name: ds.name,
    numFeatures: ds.numFeatures,
    numLabels: ds.numLabels,
    x: {
      numRows: rows.length,
      numCols: ds.x.numCols,
      indptr: fi.indptr,
      indices: fi.data,
      values: fv.data,
    },
    y: { numRows: rows.length, numCols: ds.y.numCols, indptr: li.indptr, indices: li.data },
  };
}

/**
 * Seeded random split: `round(n * validationFraction)` rows (chosen by a seeded shuffle) go to
 * `valid`, the rest to `train`; both keep the original relative row order.
 *
 * @example
 * ```ts
 * import { loadXcBytes, splitRows } from "./dataset.ts";
 * const ds = loadXcBytes(new TextEncoder().encode("4 1 1\n0 0:1\n0 0:2\n0 0:3\n0 0:4\n"), "t");
 * const { train, valid } = splitRows(ds, 0.25, 1);
 * console.log(train.x.numRows, valid.x.numRows); // 3 1
 * ```
 */
export function splitRows(
  ds: Dataset,
  validationFraction: number,
  seed: number,
): { train: Dataset; valid: Dataset } {
  if (!(validationFraction >= 0 && validationFraction <= 1)) {
    throw new RangeError(
      `splitRows: validationFraction must be in [0, 1], got ${validationFraction}`,
    );
  }
  const n = ds.x.numRows;
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  new Rng(seed).shuffle(perm);
  const nv = Math.round(n * validationFraction);
  const valid = perm.slice(0, nv).sort();
  const train = perm.slice(nv).sort();
  return { train: subsetRows(ds, train), valid: subsetRows(ds, valid) };
}

/**
 * Rows of `a` followed by rows of `b`; the feature and label spaces are the larger of the two.
 *
 * @example
 * ```ts
 * import { concatRows, loadXcBytes } from "./dataset.ts";
 * const enc = new TextEncoder();
 * const a = loadXcBytes(enc.encode("1 2 1\n0 0:1\n"), "a");
 * const b = loadXcBytes(enc.encode("1 3 2\n1 2:1\n"), "b");
 * const c = concatRows(a, b);
 * console.log(c.x.numRows, c.numFeatures, [...c.y.indices]); // 2 3 [ 0, 1 ]
 * ```
 */
export function concatRows(a: Dataset, b: Dataset): Dataset {
  const na = a.x.numRows, nb = b.x.numRows;
  const cat = (pa: Int32Array, pb: Int32Array): Int32Array => {
    const out = new Int32Array(na + nb + 1);
    out.set(pa.subarray(0, na + 1));
    const off = pa[na];
    for (let i = 1; i <= nb; i++) out[na + i] = off + pb[i];
    return out;
  };
  const join = <T extends Int32Array | Float32Array>(x: T, y: T, out: T): T => {
    out.set(x);
    out.set(y, x.length);
    return out;
  };
  const numFeatures = Math.max(a.numFeatures, b.numFeatures);
  const numLabels = Math.max(a.numLabels, b.numLabels);
  const fa = a.x.indptr[na], fb = b.x.indptr[nb];
  const la = a.y.indptr[na], lb = b.y.indptr[nb];
  return {
    name: a.name === b.name ? a.name : `${a.name}+${b.name}`,
    numFeatures,
    numLabels,
    x: {
      numRows: na + nb,
      numCols: Math.max(a.x.numCols, b.x.numCols),
      indptr: cat(a.x.indptr, b.x.indptr),
      indices: join(
        a.x.indices.subarray(0, fa),
        b.x.indices.subarray(0, fb),
        new Int32Array(fa + fb),
      ),
      values: join(
        a.x.values.subarray(0, fa),
        b.x.values.subarray(0, fb),
        new Float32Array(fa + fb),
      ),
    },
    y: {
      numRows: na + nb,
      numCols: Math.max(a.y.numCols, b.y.numCols),
      indptr: cat(a.y.indptr, b.y.indptr),
      indices: join(
        a.y.indices.subarray(0, la),
        b.y.indices.subarray(0, lb),
        new Int32Array(la + lb),
      ),
    },
  };
}

/**
 * Rows `[from, to)` of CSR features and labels as a minibatch: index and value arrays are views
 * into the inputs (no copy); only `indptr` is new (rebased to 0). No `observed` mask.
 *
 * @throws {RangeError} unless `0 <= from <= to <= rows`
 *
 * @example
 * ```ts
 * import { loadXcBytes, rowsOf } from "./dataset.ts";
 * const ds = loadXcBytes(new TextEncoder().encode("3 2 1\n0 0:1\n0 1:1\n0 0:1 1:1\n"), "t");
 * const b = rowsOf(ds, 1, 3);
 * console.log(b.x.numRows, [...b.x.indptr], [...b.x.indices]); // 2 [ 0, 1, 3 ] [ 1, 0, 1 ]
 * ```
 */
export function rowsOf(data: { x: CsrMatrix; y: BinaryCsr }, from: number, to: number): Batch {
  const n = data.x.numRows;
  if (!(Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from <= to && to <= n)) {
    throw new RangeError(`rowsOf: rows [${from}, ${to}) are not within [0, ${n})`);
  }
  const rebase = (ptr: Int32Array): Int32Array => {
    const out = new Int32Array(to - from + 1);
    const o = ptr[from];
    for (let i = from; i <= to; i++) out[i - from] = ptr[i] - o;
    return out;
  };
  const x = data.x, y = data.y;
  const xa = x.indptr[from], xb = x.indptr[to];
  const ya = y.indptr[from], yb = y.indptr[to];
  return {
    x: {
      numRows: to - from,
      numCols: x.numCols,
      indptr: rebase(x.indptr),
      indices: x.indices.subarray(xa, xb),
      values: x.values.subarray(xa, xb),
    },
    y: {
      numRows: to - from,
      numCols: y.numCols,
      indptr: rebase(y.indptr),
      indices: y.indices.subarray(ya, yb),
    },
  };
}

/**
 * Consecutive minibatches of `batchSize` rows in row order (the last one may be smaller), as
 * {@linkcode rowsOf} gives them (views; fully observed).
 *
 * @example
 * ```ts
 * import { batchesOf, loadXcBytes } from "./dataset.ts";
 * const ds = loadXcBytes(new TextEncoder().encode("3 2 1\n0 0:1\n0 1:1\n0 0:1 1:1\n"), "t");
 * console.log([...batchesOf(ds, 2)].map((b) => b.x.numRows)); // [ 2, 1 ]
 * ```
 */
export function* batchesOf(ds: Dataset, batchSize: number): IterableIterator<Batch> {
  if (!(Number.isInteger(batchSize) && batchSize >= 1)) {
    throw new RangeError(`batchesOf: batchSize must be a positive integer, got ${batchSize}`);
  }
  const n = ds.x.numRows;
  for (let s = 0; s < n; s += batchSize) yield rowsOf(ds, s, Math.min(n, s + batchSize));
}

/**
 * Number of positive rows of each label (length `y.numCols`).
 *
 * @example
 * ```ts
 * import { labelCounts } from "./dataset.ts";
 * const y = { numRows: 2, numCols: 3, indptr: Int32Array.of(0, 2, 3), indices: Int32Array.of(0, 2, 2) };
 * console.log([...labelCounts(y)]); // [ 1, 0, 2 ]
 * ```
 */
export function labelCounts(y: BinaryCsr): Int32Array {
  const c = new Int32Array(y.numCols);
  const end = y.indptr[y.numRows];
  for (let k = 0; k < end; k++) c[y.indices[k]]++;
  return c;
}
