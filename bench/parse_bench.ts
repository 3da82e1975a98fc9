/**
 * `deno task bench [--data-dir DIR] [--size-mb N] [--repeat R] [--no-generated] [--keep FILE]
 * [--ndjson-mb M]`:
 * parsing throughput of the XC text format, for the whole-file loader (`loadXcFile`), the
 * streaming reader (`readExamples`, rows as `Example`s) and the streaming reader followed by the
 * minibatcher (CSR batches of 256 rows). It runs on every `*.txt` data file of the data directory
 * (`--data-dir`, else `$TAGSTREAM_DATA`, else `./data`) and on a synthetic XC file of about
 * `--size-mb` MB (default 200) generated into a temporary directory and deleted afterwards
 * (`--keep FILE`: written to FILE and kept).
 *
 * For information it also times the streaming NDJSON reader on about `--ndjson-mb` MB of events
 * (default 20; 0 skips it).
 *
 * Each measurement is the best of `--repeat` runs (default 3; the median is reported too). MB/s
 * counts 10^6 bytes of the (uncompressed) file per second; parsing runs on one thread. The last
 * stdout line is ONE JSON object: `{"bench": "parse", "unit": ..., "files": [...],
 * "generated": {...}, "targetMBps": 60, "xcMBps": ...}` where `xcMBps` is the streaming reader's
 * best throughput on the generated file (the figure the 60 MB/s target is about).
 *
 * Every flag is checked before anything is measured ({@linkcode PARSE_BENCH}); bad input is one
 * line on stderr and exit code 2.
 *
 * @module
 */
import { intFlag, numberFlag, stringFlag } from "../src/cli/commands/args.ts";
import { checkOutFile } from "../src/cli/commands/path_checks.ts";
import { type BenchScript, checkDirectory, dataDirOf, refuseIgnored, runBench } from "./args.ts";
import { loadXcFile } from "../src/data/dataset.ts";
import { readExamples } from "../src/data/readers.ts";
import { Minibatcher } from "../src/data/batcher.ts";
import {
  SyntheticGenerator,
  type SyntheticOptions,
  syntheticXcStream,
} from "../src/data/synthetic.ts";

/** One timed mode on one file. */
interface Timing {
  /** Best wall time, seconds. */
  seconds: number;
  /** Median wall time, seconds. */
  medianSeconds: number;
  /** Throughput of the best run, 10^6 bytes per second. */
  MBps: number;
  /** Rows per second of the best run. */
  rowsPerSecond: number;
}

/** All modes on one file. */
interface FileResult {
  file: string;
  bytes: number;
  rows: number;
  nnz: number;
  whole: Timing;
  stream: Timing;
  streamBatches: Timing;
}

const TARGET_MBPS = 60;

/** Largest `--size-mb`. */
const MAX_MB = 4096;
/** Largest `--ndjson-mb`: the events are joined into one string (V8's limit is about 512 MB). */
const MAX_NDJSON_MB = 500;

/** Shape of the generated file: bibtex/delicious-like sparse rows, wider spaces. */
const GENERATED: SyntheticOptions = {
  numFeatures: 100_000,
  numLabels: 5_000,
  avgNnz: 40,
  avgLabels: 4,
  seed: 1,
};

async function time(
  repeat: number,
  run: () => Promise<{ rows: number; nnz: number }>,
): Promise<{ times: number[]; rows: number; nnz: number }> {
  const times: number[] = [];
  let rows = 0, nnz = 0;
  for (let r = 0; r < repeat; r++) {
    const t0 = performance.now();
    const out = await run();
    times.push((performance.now() - t0) / 1000);
    if (r > 0 && (out.rows !== rows || out.nnz !== nnz)) {
      throw new Error(`bench: runs disagree (${out.rows} vs ${rows} rows)`);
    }
    rows = out.rows;
    nnz = out.nnz;
  }
  return { times, rows, nnz };
}

function timing(times: number[], bytes: number, rows: number): Timing {
  const s = [...times].sort((a, b) => a - b);
  const best = s[0];
  const round = (v: number, d: number) => Number(v.toFixed(d));
  return {
    seconds: round(best, 4),
    medianSeconds: round(s[Math.floor((s.length - 1) / 2)], 4),
    MBps: round(bytes / 1e6 / best, 1),
    rowsPerSecond: Math.round(rows / best),
  };
}

async function measureFile(path: string, name: string, repeat: number): Promise<FileResult> {
  const bytes = (await Deno.stat(path)).size;
  const whole = await time(repeat, async () => {
    const ds = await loadXcFile(path);
    return { rows: ds.x.numRows, nnz: ds.x.indices.length };
  });
  const stream = await time(repeat, async () => {
    const r = await readExamples(path, { format: "xc" });
    let rows = 0, nnz = 0;
    for await (const e of r.stream) {
      rows++;
      nnz += e.x.indices.length;
    }
    return { rows, nnz };
  });
  const batched = await time(repeat, async () => {
    const r = await readExamples(path, { format: "xc" });
    let rows = 0, nnz = 0;
    for await (const b of r.stream.pipeThrough(new Minibatcher({ batchSize: 256, sizes: r }))) {
      rows += b.x.numRows;
      nnz += b.x.indptr[b.x.numRows];
    }
    return { rows, nnz };
  });
  if (stream.rows !== whole.rows || stream.nnz !== whole.nnz || batched.nnz !== whole.nnz) {
    throw new Error(`bench: ${name}: the streaming reader and the loader disagree`);
  }
  return {
    file: name,
    bytes,
    rows: whole.rows,
    nnz: whole.nnz,
    whole: timing(whole.times, bytes, whole.rows),
    stream: timing(stream.times, bytes, stream.rows),
    streamBatches: timing(batched.times, bytes, batched.rows),
  };
}

/**
 * The streaming NDJSON reader (index feature keys, label names) on about `bytes` of events built
 * from synthetic rows, written to a temporary file.
 */
async function measureNdjson(
  bytes: number,
  repeat: number,
): Promise<Timing & { bytes: number; rows: number }> {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_bench_" });
  try {
    const path = `${dir}/events.ndjson`;
    // Rows are drawn until `bytes` are written; the generator's bound is only a ceiling.
    const g = new SyntheticGenerator({ ...GENERATED, rows: 2 ** 31 - 1 });
    const parts: string[] = [];
    let size = 0, rows = 0;
    while (size < bytes) {
      const e = g.next();
      const features: Record<string, number> = {};
      for (let k = 0; k < e.x.indices.length; k++) {
        features[e.x.indices[k]] = Number(e.x.values[k].toFixed(4));
      }
      const line = JSON.stringify({
        id: `e${rows}`,
        features,
        labels: Array.from(e.labels, (l) => `label_${l}`),
      }) + "\n";
      parts.push(line);
      size += line.length;
      rows++;
    }
    await Deno.writeTextFile(path, parts.join(""));
    const fileBytes = (await Deno.stat(path)).size;
    const t = await time(repeat, async () => {
      const r = await readExamples(path);
      let n = 0, nnz = 0;
      for await (const e of r.stream) {
        n++;
        nnz += e.x.indices.length;
      }
      return { rows: n, nnz };
    });
    if (t.rows !== rows) throw new Error(`bench: ndjson: ${t.rows} rows read, ${rows} written`);
    const out = { bytes: fileBytes, rows, ...timing(t.times, fileBytes, rows) };
    console.error(`ndjson: ${fileBytes} bytes, ${rows} rows; stream ${out.MBps} MB/s`);
    return out;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Rows giving about `targetBytes` of XC text, from the mean line length of a sample. */
function rowsFor(targetBytes: number): number {
  const g = new SyntheticGenerator({ ...GENERATED, rows: 2000 });
  let chars = 0;
  for (let i = 0; i < 2000; i++) {
    const e = g.next();
    chars += e.labels.length * 5 + e.x.indices.length * 13 + 1;
  }
  return Math.max(1, Math.round(targetBytes / (chars / 2000)));
}

/** What `deno task bench` runs with (see {@linkcode PARSE_BENCH}). */
export interface ParseBenchOptions {
  dataDir: string;
  /** Whether the data directory exists (a missing default one measures the generated file only). */
  hasDataDir: boolean;
  repeat: number;
  /** Megabytes of the generated file; undefined with `--no-generated`. */
  sizeMb?: number;
  keep?: string;
  ndjsonMb: number;
}

/**
 * The command line of `deno task bench`: each flag checked (counts and sizes within their
 * limits, in plain decimal; `--keep` a file in an existing directory, not one of the data files;
 * an explicit `--data-dir` a directory; no `--size-mb` or `--keep` with `--no-generated`) before
 * anything is measured.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { PARSE_BENCH } from "./parse_bench.ts";
 * const o = await benchOptions(PARSE_BENCH, ["--data-dir", "/", "--repeat", "1", "--ndjson-mb", "0"]);
 * console.log(o.repeat, o.sizeMb, o.ndjsonMb); // 1 200 0
 * await benchOptions(PARSE_BENCH, ["--repeat", "0x10"]).catch((e) => console.log(e.message)); // --repeat must be an integer in [1, 100], got '0x10'
 * ```
 */
export const PARSE_BENCH: BenchScript<ParseBenchOptions> = {
  task: "bench",
  usage: `deno task bench [--data-dir DIR] [--repeat 3 (1-100)] [--size-mb 200 (up to ${MAX_MB})]
  [--no-generated] [--keep FILE] [--ndjson-mb 20 (0: skip; up to ${MAX_NDJSON_MB})]
Parsing throughput of the XC text format on every *.train.txt/*.test.txt of the data directory
(--data-dir, else $TAGSTREAM_DATA, else ./data) and on a generated file of --size-mb MB (kept
as FILE with --keep); the NDJSON reader on --ndjson-mb MB of events. One JSON line on stdout.`,
  flags: {
    "data-dir": "string",
    "size-mb": "string",
    repeat: "string",
    "no-generated": "boolean",
    "ndjson-mb": "string",
    keep: "string",
  },
  async options(f) {
    const repeat = intFlag(f, "repeat", 3, 1, 100)!;
    const generated = f.values["no-generated"] !== true;
    if (!generated) refuseIgnored(f, ["size-mb", "keep"], "with --no-generated");
    const sizeMb = numberFlag(f, "size-mb", 200, 0.001, MAX_MB)!;
    const ndjsonMb = numberFlag(f, "ndjson-mb", 20, 0, MAX_NDJSON_MB)!;
    const keep = stringFlag(f, "keep");
    const { dir, source, hint } = dataDirOf(f);
    // the default directory may be missing (the generated file alone is measured), not one given
    const hasDataDir = await checkDirectory(dir, source, hint, source !== "--data-dir");
    if (keep !== undefined) {
      // not one of the data files: it was measured, then overwritten by the generated file
      const names = hasDataDir ? await dataFiles(dir) : [];
      const inputs = names.map((name) => ({
        what: `the data file ${name}`,
        path: `${dir}/${name}`,
      }));
      await checkOutFile(keep, "keep", { inputs });
    }
    return {
      dataDir: dir,
      hasDataDir,
      repeat,
      ...(generated ? { sizeMb } : {}),
      ...(keep !== undefined ? { keep } : {}),
      ndjsonMb,
    };
  },
};

/** The XC data files of `dir` that are measured (`*.train.txt`, `*.test.txt`), sorted. */
async function dataFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && /\.(train|test)\.txt$/.test(e.name)) names.push(e.name);
  }
  return names.sort();
}

async function main(o: ParseBenchOptions): Promise<void> {
  const { dataDir, repeat } = o;
  const files: FileResult[] = [];
  let names: string[] = [];
  if (o.hasDataDir) {
    names = await dataFiles(dataDir);
  } else {
    console.error(`bench: no data directory at ${dataDir}; only the generated file is measured`);
  }
  for (const name of names) {
    const r = await measureFile(`${dataDir}/${name}`, name, repeat);
    files.push(r);
    console.error(
      `${name}: ${r.bytes} bytes, ${r.rows} rows; loader ${r.whole.MBps} MB/s, stream ` +
        `${r.stream.MBps} MB/s, stream+batches ${r.streamBatches.MBps} MB/s`,
    );
  }

  let generated: (FileResult & { generateSeconds: number }) | undefined;
  if (o.sizeMb !== undefined) {
    const dir = await Deno.makeTempDir({ prefix: "tagstream_bench_" });
    const path = o.keep ?? `${dir}/synthetic.train.txt`;
    try {
      const rows = rowsFor(o.sizeMb * 1e6);
      const t0 = performance.now();
      const file = await Deno.open(path, { write: true, create: true, truncate: true });
      await syntheticXcStream({ ...GENERATED, rows }).pipeTo(file.writable);
      const generateSeconds = (performance.now() - t0) / 1000;
      const r = await measureFile(path, `synthetic (${rows} rows)`, repeat);
      generated = { ...r, generateSeconds: Number(generateSeconds.toFixed(2)) };
      console.error(
        `generated: ${r.bytes} bytes, ${r.rows} rows in ${generated.generateSeconds} s; loader ` +
          `${r.whole.MBps} MB/s, stream ${r.stream.MBps} MB/s, stream+batches ` +
          `${r.streamBatches.MBps} MB/s`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  let ndjson: (Timing & { bytes: number; rows: number }) | undefined;
  if (o.ndjsonMb > 0) ndjson = await measureNdjson(o.ndjsonMb * 1e6, repeat);
  const xcMBps = generated?.stream.MBps ??
    (files.length > 0 ? Math.min(...files.map((f) => f.stream.MBps)) : undefined);
  console.log(JSON.stringify({
    bench: "parse",
    unit: "MBps = 1e6 bytes/s of uncompressed XC text, best of repeat runs, one thread",
    repeat,
    dataDir,
    files,
    generated,
    ndjson,
    targetMBps: TARGET_MBPS,
    xcMBps,
    meetsTarget: xcMBps === undefined ? undefined : xcMBps >= TARGET_MBPS,
  }));
}

if (import.meta.main) await runBench(PARSE_BENCH, main);
