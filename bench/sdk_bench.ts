/**
 * SDK benchmarks. Targets (issue 7): top-5 on the POP-pruned bibtex model at p50 ≤ 20 µs per
 * query; decode of a 10 MB model ≤ 20 ms; the SDK's own code ≤ 10 KB minified, ≤ 50 KB with
 * msgpackr. Issue 17: the SDK imports msgpackr's decoder only (`msgpackr/unpack`), so the SDK
 * with msgpackr is ≤ 30 KiB minified (45 KB with the encoder) and no bundle holds the encoder;
 * `sizeTargetsMet` and `msgpackrEncoderBundled` report it. The Cloudflare Worker example's
 * bundle (`cloudflareAdapterWithSdkAndMsgpackr`) is reported beside it: 49.2 KB → 32.0 KB when the
 * decoder-only import landed, before the shared /predict protocol code joined it.
 *
 *   deno task bench:sdk                         # deno bench: latency and decode tables
 *   deno run -A bench/sdk_bench.ts              # one JSON line: p50 µs/query, decode ms, sizes
 *
 * The pruned model is `--model FILE` (or `$SDK_BENCH_MODEL`), else it is made by
 * `deno task prune --dataset bibtex --train br` (POP at ε = 1%, λ = 0.01, δ = 5) into a temp
 * directory; queries are the first 500 rows of bibtex.test.txt (data from `--data-dir`, else
 * `$TAGSTREAM_DATA`, else `./data`). The 10 MB models are synthetic `linear-sparse` files
 * (f32 weights, and f16 weights with u16 label indices).
 *
 * The command line goes through the bench runner ({@linkcode SDK_BENCH}, `bench/args.ts`):
 * `--help`, and an unknown flag, a missing value, a model file or data file that is not there
 * refused before any work with one line `bench/sdk_bench.ts: message` and exit code 2 (it was
 * read loosely: `--modle x` was ignored and the prune started; a missing model file was a stack
 * trace).
 *
 * @module
 */
import { type Flags, stringFlag } from "../src/cli/commands/args.ts";
import { statOrUndefined } from "../src/cli/commands/path_checks.ts";
import { loadDataset } from "../src/data/dataset.ts";
import { encodeModelFile } from "../src/format/model_file.ts";
import { float32ToFloat16 } from "../src/format/quantize.ts";
import type { ModelFileContent } from "../src/format/types.ts";
import { loadModel } from "../sdk/mod.ts";
import { type BenchScript, checkXcDatasets, dataDirOf, runBench } from "./args.ts";
import { quantile } from "./quantile.ts";

const root = new URL("../", import.meta.url).pathname;

/** The options of bench/sdk_bench.ts. */
export interface SdkBenchOptions {
  /** The data directory (holds bibtex.test.txt, and bibtex.train.txt when no model is given). */
  dataDir: string;
  /** The pruned model file (`--model`, else `$SDK_BENCH_MODEL`); none: made by `deno task prune`. */
  model?: string;
}

/** `--model`, else `$SDK_BENCH_MODEL` (empty: unset), checked to be a file: a TypeError naming it. */
async function modelFileOf(f: Flags): Promise<string | undefined> {
  const flag = stringFlag(f, "model");
  if (flag === "") throw new RangeError("--model is empty: give a model file");
  const env = flag === undefined ? Deno.env.get("SDK_BENCH_MODEL") : undefined;
  const path = flag ?? (env === "" ? undefined : env);
  if (path === undefined) return undefined;
  const source = flag !== undefined ? "--model" : "$SDK_BENCH_MODEL";
  let info: Deno.FileInfo | undefined;
  try {
    info = await statOrUndefined(path);
  } catch (e) {
    throw new TypeError(`${source} ${path}: ${(e as Error).message}`);
  }
  if (info === undefined) throw new TypeError(`${source} ${path}: no such file`);
  if (!info.isFile) throw new TypeError(`${source} ${path} is not a file`);
  return path;
}

/**
 * The command line of bench/sdk_bench.ts (`deno run -A bench/sdk_bench.ts`, and `deno task
 * bench:sdk` with flags after `--`), checked before any work: only `--model FILE` and
 * `--data-dir DIR`, the model a file, the data directory holding bibtex.test.txt (and
 * bibtex.train.txt when the model is to be made).
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { SDK_BENCH } from "./sdk_bench.ts";
 * await benchOptions(SDK_BENCH, ["--bogus"]).catch((e) => console.log(e.message)); // unknown option '--bogus' (see deno run -A bench/sdk_bench.ts --help)
 * await benchOptions(SDK_BENCH, ["--model", "/no/such.tsm"]).catch((e) => console.log(e.message)); // --model /no/such.tsm: no such file
 * ```
 */
export const SDK_BENCH: BenchScript<SdkBenchOptions> = {
  task: "bench/sdk_bench.ts",
  usage: `deno run -A bench/sdk_bench.ts [--model FILE] [--data-dir DIR]
  (deno task bench:sdk [-- --model FILE --data-dir DIR]: the deno bench tables)
SDK benchmarks: top-5 latency on the POP-pruned bibtex model (--model FILE, else
$SDK_BENCH_MODEL, else made by deno task prune --dataset bibtex --train br), the decode time of
10 MB models and the bundle sizes; one JSON line. Queries are the first 500 rows of
bibtex.test.txt in --data-dir (else $TAGSTREAM_DATA, else ./data).`,
  flags: { model: "string", "data-dir": "string" },
  async options(f) {
    const model = await modelFileOf(f);
    // the data directory last: every other flag is checked without it
    let dataDir: string;
    if (model === undefined) {
      dataDir = await checkXcDatasets(f, ["bibtex"], true);
    } else {
      // only the queries are read: the test file is needed, not the training file
      const { dir, source, hint } = dataDirOf(f);
      const info = await statOrUndefined(dir);
      if (info === undefined || !info.isDirectory) {
        const what = info === undefined ? ": no such directory" : " is not a directory";
        throw new TypeError(`${source} ${dir}${what} (it should hold bibtex.test.txt)${hint}`);
      }
      const test = await statOrUndefined(`${dir}/bibtex.test.txt`);
      if (!test?.isFile) {
        throw new TypeError(`${source} ${dir}: no bibtex.test.txt there (the queries)${hint}`);
      }
      dataDir = dir;
    }
    return { dataDir, model };
  },
};

async function prunedModel(o: SdkBenchOptions): Promise<{ bytes: Uint8Array; path: string }> {
  const dataDir = o.dataDir;
  if (o.model) return { bytes: await Deno.readFile(o.model), path: o.model };
  const dir = await Deno.makeTempDir();
  // removed also when the prune fails (it was left in the temporary directory)
  try {
    const path = `${dir}/bibtex.pop.tsm`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        `${root}src/cli/prune.ts`,
        "--dataset",
        "bibtex",
        "--train",
        "br",
        "--data-dir",
        dataDir,
        "--out",
        path,
        "--no-plot",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`deno task prune failed:\n${new TextDecoder().decode(out.stderr)}`);
    }
    return {
      bytes: await Deno.readFile(path),
      path: "deno task prune --dataset bibtex --train br",
    };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** A synthetic linear-sparse file of about `mb` MB. */
function bigModel(mb: number, half: boolean): Uint8Array {
  const D = 50_000, L = 4_000, nnz = Math.round(mb * 1e6 / (half ? 4 : 8));
  const featPtr = Int32Array.from({ length: D + 1 }, (_, j) => Math.floor(j * nnz / D));
  const labels = Int32Array.from({ length: nnz }, (_, i) => (i * 7919) % L);
  const weights = Float32Array.from({ length: nnz }, (_, i) => Math.sin(i));
  const content: ModelFileContent = {
    kind: "linear-sparse",
    numFeatures: D,
    numLabels: L,
    labelNames: Array.from({ length: L }, (_, l) => `label-${l}`),
    params: { nnz },
    tensors: {
      featPtr: { dtype: "i32", shape: [D + 1], data: featPtr },
      labelIdx: half
        ? { dtype: "u16", shape: [nnz], data: Uint16Array.from(labels) }
        : { dtype: "i32", shape: [nnz], data: labels },
      weights: half
        ? { dtype: "f16", shape: [nnz], data: float32ToFloat16(weights) }
        : { dtype: "f32", shape: [nnz], data: weights },
      bias: { dtype: "f32", shape: [L], data: new Float32Array(L) },
    },
  };
  return encodeModelFile(content);
}

/**
 * Minified bundle sizes (esbuild from node_modules). `sdk` is the target "SDK's own code": the
 * entry sdk/mod.ts (loadModel, the Model and its queries, ModelFormatError), msgpackr external.
 * The runtime adapters are separate entry points, reported for information with the SDK they
 * pull in (msgpackr external): `sdkDenoDeploy` (sdk/deno_deploy.ts + serving), `sdkCloudflare`
 * (sdk/cloudflare.ts + serving), `sdkHttp` (sdk/http.ts, the JSON predict handler).
 */
async function sizes(): Promise<Record<string, number | boolean>> {
  const esbuild = `${root}node_modules/.bin/esbuild`;
  const out: Record<string, number | boolean> = {};
  let encoder = false;
  const build = async (name: string, entry: string, external: boolean) => {
    const args = [entry, "--bundle", "--minify", "--format=esm", "--platform=browser"];
    if (external) args.push("--external:msgpackr/unpack");
    const r = await new Deno.Command(esbuild, { args, stdout: "piped", stderr: "piped" }).output();
    if (!r.success) throw new Error(new TextDecoder().decode(r.stderr));
    out[`${name}MinBytes`] = r.stdout.length;
    if (!external) {
      // a message only msgpackr's encoder (pack.js) has
      const text = new TextDecoder().decode(r.stdout);
      encoder ||= text.includes("Packed buffer would be larger than maximum buffer size");
    }
    const gz = new Response(
      new Blob([r.stdout]).stream().pipeThrough(new CompressionStream("gzip")),
    );
    out[`${name}GzipBytes`] = (await gz.arrayBuffer()).byteLength;
  };
  await build("sdk", `${root}sdk/mod.ts`, true);
  await build("sdkWithMsgpackr", `${root}sdk/mod.ts`, false);
  await build("sdkDenoDeploy", `${root}sdk/deno_deploy.ts`, true);
  await build("sdkCloudflare", `${root}sdk/cloudflare.ts`, true);
  await build("sdkHttp", `${root}sdk/http.ts`, true);
  await build(
    "cloudflareAdapterWithSdkAndMsgpackr",
    `${root}examples/cloudflare-worker/src/worker.ts`,
    false,
  );
  out.msgpackrEncoderBundled = encoder;
  out.sizeTargetsMet = !encoder && (out.sdkWithMsgpackrMinBytes as number) <= 30 * 1024;
  return out;
}

/**
 * Loads the models and queries, registers the `deno bench` tables and, run as the main module
 * (`deno run`), prints one JSON line.
 */
async function main(o: SdkBenchOptions): Promise<void> {
  const pruned = await prunedModel(o);
  const model = loadModel(pruned.bytes);
  const test = await loadDataset(o.dataDir, "bibtex", "test");
  const rows = Array.from({ length: Math.min(500, test.x.numRows) }, (_, i) => {
    const s = test.x.indptr[i], e = test.x.indptr[i + 1];
    return { indices: test.x.indices.slice(s, e), values: test.x.values.slice(s, e) };
  });
  const space = model.featureSpace;
  const records = rows.slice(0, 100).map((r) => {
    const rec: Record<string, number> = {};
    r.indices.forEach((j, p) => {
      rec[space?.type === "vocabulary" ? space.names[j] : String(j)] = r.values[p];
    });
    return rec;
  });
  const big32 = bigModel(10, false), big16 = bigModel(10, true);

  let q = 0;
  Deno.bench(`top-5, pruned bibtex (${(pruned.bytes.length / 1e6).toFixed(2)} MB), one query`, {
    group: "query",
    baseline: true,
  }, () => {
    model.predictTopK(rows[q++ % rows.length], 5);
  });
  Deno.bench("top-5, pruned bibtex, {name: value} record", { group: "query" }, () => {
    model.predictTopK(records[q++ % records.length], 5);
  });
  Deno.bench("top-5 batch of 100 rows (per batch)", () => {
    model.predictBatch(rows.slice(0, 100), 5);
  });
  Deno.bench(`loadModel pruned bibtex`, { group: "decode" }, () => {
    loadModel(pruned.bytes);
  });
  Deno.bench(`loadModel ${(big32.length / 1e6).toFixed(1)} MB (f32)`, { group: "decode" }, () => {
    loadModel(big32);
  });
  Deno.bench(
    `loadModel ${(big16.length / 1e6).toFixed(1)} MB (f16, u16)`,
    { group: "decode" },
    () => {
      loadModel(big16);
    },
  );

  if (!import.meta.main) return;
  // per-query latency: each query timed alone (the mean of a block of 32 hid the tail from p99),
  // the first 1,600 a warm-up
  const perQuery: number[] = [];
  for (let q = 0; q < 9600; q++) {
    const t = performance.now();
    model.predictTopK(rows[q % rows.length], 5);
    perQuery.push((performance.now() - t) * 1000);
  }
  const decode = (bytes: Uint8Array) => {
    const ms: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t = performance.now();
      loadModel(bytes);
      ms.push(performance.now() - t);
    }
    return { p50: quantile(ms, 0.5), min: Math.min(...ms) };
  };
  const d32 = decode(big32), d16 = decode(big16), dp = decode(pruned.bytes);
  console.log(JSON.stringify({
    model: pruned.path,
    modelBytes: pruned.bytes.length,
    kind: model.kind,
    queries: rows.length,
    top5P50Us: +quantile(perQuery.slice(1600), 0.5).toFixed(2),
    top5P99Us: +quantile(perQuery.slice(1600), 0.99).toFixed(2),
    decodePrunedMsP50: +dp.p50.toFixed(3),
    decode10MbF32Bytes: big32.length,
    decode10MbF32MsP50: +d32.p50.toFixed(2),
    decode10MbF32MsMin: +d32.min.toFixed(2),
    decode10MbF16Bytes: big16.length,
    decode10MbF16MsP50: +d16.p50.toFixed(2),
    decode10MbF16MsMin: +d16.min.toFixed(2),
    ...(await sizes()),
  }));
}

// the main module under `deno run` and `deno bench` (where import.meta.main is false), not when
// imported (the tests, the doc example)
if (Deno.mainModule === import.meta.url) await runBench(SDK_BENCH, main);
