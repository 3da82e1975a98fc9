/**
 * `deno task scale`: how streaming learners behave as the number of labels L grows.
 *
 * For every size L of `--sizes` (default 10³, 10⁴, 10⁵, 10⁶) and every learner of `--learners`
 * (default `ova,leml,br`) it streams synthetic rows (power-law label frequencies, planted
 * prototypes; `--avg-nnz` 50 feature draws and `--avg-labels` 5 labels per row; D =
 * `--features`, by default min(10⁶, max(10⁴, 10·L))) through the learner, one pass, in
 * minibatches, then evaluates it on `--test-rows` held-out rows drawn from the same structure
 * with another row seed. With `--dataset debrecs[,debtags]` it learns
 * `<data-dir>/NAME.train.txt` in file order instead and evaluates on `NAME.test.txt` (data
 * directory: `--data-dir`, else `$TAGSTREAM_DATA`, else `./data`).
 *
 * Each (learner, source) runs in its own subprocess (`bench/scale_worker.ts`) with a capped V8
 * heap (`--heap-mb`), so peak RSS figures do not mix and a learner that blows up does not take
 * the machine down: the parent also kills a child whose RSS passes `--max-rss-mb` (typed-array
 * memory is outside the V8 heap) or that outlives its time allowance. Learning stops at
 * `--budget-seconds` of learning time; such a run reports `"finished": false` with the rows
 * learned, the rate and the projected time of the whole stream.
 *
 * stdout: one JSON line per (learner, source) — events/s (learning only), CPU seconds, peak
 * RSS (every `...MB` figure and flag, `--heap-mb` and `--max-rss-mb` too, is in MB of 10⁶
 * bytes), model-file bytes (f32 and f16), P@1/3/5 and PSP@1/3/5 on the held-out rows (propensities
 * from the label counts of the rows learned), the learner's own statistics when it exposes
 * `refreshStats` or `stats`; for ova and br (`toLabelWeights()`) `pruned`: the largest
 * magnitude-pruned f16 file within `--prune-max-bytes` (default 25 MiB, a Workers KV value),
 * with P@k/PSP@k of it and of the unpruned file through the SDK on the same held-out rows (at most
 * `--prune-eval-rows`) and the relative PSP@5 loss; and `service`: median milliseconds and bytes
 * of the service's replica snapshot, replica rebuild, checkpoint and publish over
 * `--service-reps` repetitions — then a summary line. A progress bar with rate and ETA goes to
 * stderr on a terminal. A step that fails after learning (evaluation, the model file, the pruned
 * export, the service's costs) leaves its error in the run's line instead of its figures
 * (`evalError` and `metrics: null`, ...), under `failed` in the summary, and on stderr; the exit
 * code is then 1. A run that stops early (budget, RSS, a learner that cannot be built or fails
 * while learning) is `"finished": false` with its reason, not a failure of the benchmark.
 *
 * Every flag is checked before the first worker starts ({@linkcode SCALE}): bad input (a size
 * out of range or not an integer, an unknown learner or model option, a dataset without its
 * files, a flag the run would ignore) is one line on stderr and exit code 2.
 *
 * ```sh
 * npx deno task scale --sizes 1e3,1e4 --learners leml,br --budget-seconds 60
 * npx deno task scale --dataset debrecs,debtags --learners leml
 * npx deno task scale --sizes 1e5 --rows 500000 --options "leml:rank=32 br:learningRate=0.1"
 * ```
 *
 * @module
 */
import {
  countFlag,
  DECIMAL_NUMBER,
  type Flags,
  intFlag,
  listFlag,
  numberFlag,
  stringFlag,
} from "../src/cli/commands/args.ts";
import { Progress } from "../src/progress/mod.ts";
import { resolveSyntheticOptions } from "../src/data/synthetic.ts";
import { loadFactory } from "../src/models/registry.ts";
import {
  type BenchScript,
  checkXcDatasets,
  dataDirOf,
  namesFlag,
  refuseIgnored,
  runBench,
} from "./args.ts";
import type { DatasetSource, SyntheticSource, WorkerJob } from "./scale_worker.ts";

const USAGE = `deno task scale [--sizes 1e3,1e4,1e5,1e6] [--rows N|N1,N2,..] [--features D|D1,D2,..]
  [--test-rows 2000] [--avg-nnz 50] [--avg-labels 5] [--learners ova,leml,br]
  [--options "leml:rank=64,lr=0.005 br:learningRate=0.05"] [--options-json '{"leml":{...}}']
  [--budget-seconds 120] [--eval-budget-seconds 60] [--batch-size 256] [--seed 0]
  [--heap-mb 4096] [--max-rss-mb N] [--skip-f16] [--dataset debrecs,debtags] [--data-dir DIR]
  [--prune-max-bytes 26214400 (0: skip)] [--prune-delta 1] [--prune-eval-rows 2000]
  [--service-reps 3 (0: skip)] [--quiet]`;

/** Default model options per learner (`--options` and `--options-json` override them). */
const DEFAULT_OPTIONS: Record<string, Record<string, unknown>> = {
  leml: { rank: 64, lr: 0.005, lrH: 0.003, l2Normalize: true },
  br: {},
  ova: {},
};

const DEFAULT_SIZES = [1e3, 1e4, 1e5, 1e6];

/**
 * The learners whose models the workers prune (they have `toLabelWeights()`,
 * bench/scale_worker.ts): the pruning flags are refused when none of them runs.
 */
const PRUNABLE = ["ova", "br"];

/** Training rows for L labels when `--rows` is not given: 20·L within [50 000, 2 000 000]. */
function defaultRows(numLabels: number): number {
  return Math.min(2_000_000, Math.max(50_000, 20 * numLabels));
}

/** Feature-space size for L labels when `--features` is not given: 10·L within [10⁴, 10⁶]. */
function defaultFeatures(numLabels: number): number {
  return Math.min(1_000_000, Math.max(10_000, 10 * numLabels));
}

/** Largest label, feature and row count of a synthetic stream (label and feature indices are i32). */
const MAX_COUNT = 2 ** 31 - 1;

/**
 * A count flag that is one value for every size or a comma list with one value per size
 * (`1e5` is written as such), or `fallback(L)` for each size.
 */
function perSize(
  f: Flags,
  flag: string,
  sizes: number[],
  fallback: (l: number) => number,
): number[] {
  if (f.values[flag] === undefined) return sizes.map(fallback);
  const list = listFlag(f, flag, [], (g, n) => countFlag(g, n, undefined, 1, MAX_COUNT)!);
  if (list.length === 1) return sizes.map(() => list[0]);
  if (list.length !== sizes.length) {
    throw new RangeError(
      `--${flag}: give one value or one per size (${sizes.length}), got ${list.length}`,
    );
  }
  return list;
}

/** `true`, `false`, a number in plain decimal, else the string (`0x10` stays a string). */
function parseValue(v: string): unknown {
  if (v === "true") return true;
  if (v === "false") return false;
  return DECIMAL_NUMBER.test(v) && Number.isFinite(Number(v)) ? Number(v) : v;
}

/**
 * `--options` groups `learner:key=value,key=value` (several per flag, space-separated, or the
 * flag repeated) merged over the defaults, then `--options-json` `{"learner": {...}}`; `given`:
 * the learners these flags name.
 */
function modelOptions(
  groups: string[],
  json: string | undefined,
): { options: Record<string, Record<string, unknown>>; given: Set<string> } {
  const out: Record<string, Record<string, unknown>> = {};
  const given = new Set<string>();
  for (const [k, v] of Object.entries(DEFAULT_OPTIONS)) out[k] = { ...v };
  for (const group of groups.flatMap((g) => g.split(/\s+/)).filter((g) => g !== "")) {
    const colon = group.indexOf(":");
    if (colon <= 0) {
      throw new TypeError(`--options: expected learner:key=value[,key=value], got '${group}'`);
    }
    const learner = group.slice(0, colon);
    given.add(learner);
    const o = out[learner] ??= {};
    for (const pair of group.slice(colon + 1).split(",")) {
      const eq = pair.indexOf("=");
      if (eq <= 0) {
        throw new TypeError(`--options: expected key=value, got '${pair}' in '${group}'`);
      }
      o[pair.slice(0, eq)] = parseValue(pair.slice(eq + 1));
    }
  }
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (e) {
      throw new SyntaxError(`--options-json: ${(e as Error).message}`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new TypeError(`--options-json: expected {"learner": {options}}, got ${json}`);
    }
    for (const [learner, o] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof o !== "object" || o === null || Array.isArray(o)) {
        throw new TypeError(`--options-json: options of '${learner}' must be an object`);
      }
      given.add(learner);
      out[learner] = { ...(out[learner] ?? {}), ...(o as Record<string, unknown>) };
    }
  }
  return { options: out, given };
}

/** MB (10⁶ bytes) in a kB (KiB) figure of /proc. */
const MB_PER_KIB = 1024 / 1e6;

/** MemAvailable in MB (NaN when unknown). */
function memAvailableMB(): number {
  try {
    const m = /MemAvailable:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/meminfo"));
    return m ? Number(m[1]) * MB_PER_KIB : NaN;
  } catch {
    return NaN;
  }
}

/** Current RSS of a process in MB (NaN once it is gone). */
function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
    return m ? Number(m[1]) * MB_PER_KIB : NaN;
  } catch {
    return NaN;
  }
}

interface RunLimits {
  heapMB: number;
  maxRssMB: number;
  /** Wall seconds after which the child is killed. */
  killAfterSeconds: number;
}

/** Splits a byte stream into lines; calls `onLine` for each complete line. */
async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void) {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    rest += chunk;
    let nl: number;
    while ((nl = rest.indexOf("\n")) >= 0) {
      onLine(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
    }
  }
  if (rest !== "") onLine(rest);
}

const WORKER = new URL("./scale_worker.ts", import.meta.url).pathname;

/** Runs one job in a subprocess and returns its result record (or a failure record). */
async function runJob(
  job: WorkerJob,
  label: string,
  limits: RunLimits,
  progress: Progress,
): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  const heapMiB = Math.max(1, Math.floor((limits.heapMB * 1e6) / 2 ** 20)); // V8 takes MiB
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `--v8-flags=--max-old-space-size=${heapMiB}`,
      WORKER,
      JSON.stringify(job),
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let result: Record<string, unknown> | undefined;
  let last: { done: number; learnSeconds: number } = { done: 0, learnSeconds: 0 };
  let phase = "";
  let killed: string | undefined;
  let maxRss = 0;
  const stderrTail: string[] = [];

  const out = readLines(child.stdout, (line) => {
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(line);
    } catch {
      console.error(`${label}: ${line}`);
      return;
    }
    if (m.type === "result") {
      delete m.type;
      result = m;
    } else if (m.type === "phase") {
      phase = String(m.phase);
      if (typeof m.total === "number") progress.start(m.total, `${label} ${phase}`);
      else progress.done();
    } else if (m.type === "progress") {
      const done = Number(m.done);
      const info: Record<string, number> = {};
      if (m.phase === "learn") {
        last = { done, learnSeconds: Number(m.learnSeconds) };
        if (last.learnSeconds > 0) info["learn/s"] = done / last.learnSeconds;
      }
      progress.tick(done - progress.doneCount, info);
    }
  });
  const err = readLines(child.stderr, (line) => {
    stderrTail.push(line);
    if (stderrTail.length > 20) stderrTail.shift();
    console.error(`${label}: ${line}`);
  });
  const watchdog = setInterval(() => {
    const rss = rssOf(child.pid);
    if (rss > maxRss) maxRss = rss;
    if (killed !== undefined) return;
    if (rss > limits.maxRssMB) {
      killed = `killed: RSS ${Math.round(rss)} MB passed --max-rss-mb ${limits.maxRssMB}`;
    } else if ((performance.now() - t0) / 1000 > limits.killAfterSeconds) {
      killed = `killed after ${limits.killAfterSeconds} s without a result (in phase ` +
        `'${phase || "start"}'; a single step may outlast the budget)`;
    }
    if (killed !== undefined) {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  }, 200);
  const status = await child.status;
  clearInterval(watchdog);
  await Promise.all([out, err]);
  progress.done();
  const wallSeconds = Math.round(performance.now() - t0) / 1000;
  if (result !== undefined) return { ...result, parentWallSeconds: wallSeconds };
  // no result: the child was killed or died
  const eventsPerSecond = last.learnSeconds > 0 ? last.done / last.learnSeconds : 0;
  const planned = job.source.kind === "synthetic" ? job.source.rows : undefined;
  const lastErr = stderrTail.filter((l) => l.trim() !== "").slice(-3).join(" | ");
  return {
    learner: job.learner,
    finished: false,
    reason: killed ??
      `worker died (exit code ${status.code}${status.signal ? `, ${status.signal}` : ""}) in ` +
        `phase '${phase || "start"}'${lastErr ? `: ${lastErr}` : ""}`,
    phase: phase || "start",
    rowsLearned: last.done,
    learnSeconds: Math.round(last.learnSeconds * 1000) / 1000,
    eventsPerSecond: Math.round(eventsPerSecond * 10) / 10,
    ...(planned !== undefined && last.done >= planned ? {} : {
      projectedSeconds: planned !== undefined && eventsPerSecond > 0
        ? Math.round((planned / eventsPerSecond) * 10) / 10
        : null,
    }),
    peakRssMB: Math.round(maxRss * 10) / 10,
    parentWallSeconds: wallSeconds,
  };
}

/** What `deno task scale` runs with (see {@linkcode SCALE}). */
export interface ScaleOptions {
  sizes: number[];
  rows: number[];
  features: number[];
  /** Whether `--rows` / `--features` were given (else the defaults' rules). */
  rowsGiven: boolean;
  featuresGiven: boolean;
  testRows: number;
  avgNnz: number;
  avgLabels: number;
  learners: string[];
  options: Record<string, Record<string, unknown>>;
  budgetSeconds: number;
  evalBudgetSeconds: number;
  batchSize: number;
  seed: number;
  heapMB: number;
  maxRssMB: number;
  datasets: string[];
  dataDir: string;
  f16: boolean;
  pruneMaxBytes: number;
  pruneDelta: number;
  pruneEvalRows: number;
  serviceRepetitions: number;
  quiet: boolean;
}

/**
 * The steps of a run that failed after it learned, each with its error: the run's figures of
 * that step are missing (`metrics: null`, `modelBytes: null`, ...), though it may be finished.
 */
function failedSteps(r: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const steps: [string, unknown][] = [
    ["evaluate", r.evalError],
    ["modelFile", r.modelFileError],
    ["modelFileF16", r.modelFileF16Error],
    ["pruned", (r.pruned as Record<string, unknown> | undefined)?.error],
    ["service", (r.service as Record<string, unknown> | undefined)?.error],
  ];
  for (const [step, error] of steps) if (error !== undefined) out[step] = String(error);
  return out;
}

/** Longest `--budget-seconds` and `--eval-budget-seconds`: a day. */
const MAX_SECONDS = 86_400;

/**
 * The command line of `deno task scale`, every flag checked before a worker starts: counts and
 * sizes within their limits (`1e5` allowed, `0x10` not), no empty entry, the learners known and
 * their `--options` accepted by them (and set for a learner that runs), each size's synthetic
 * stream possible, the datasets' files in the data directory, and no flag the run would ignore
 * (`--data-dir` without `--dataset`, the synthetic stream's flags without `--sizes` alongside
 * `--dataset`, the pruning flags with `--prune-max-bytes 0` or without a learner that can be
 * pruned: ova or br).
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { SCALE } from "./scale.ts";
 * const o = await benchOptions(SCALE, ["--sizes", "1e3,2e3", "--rows", "500", "--learners", "br"]);
 * console.log(o.sizes, o.rows, o.learners); // [ 1000, 2000 ] [ 500, 500 ] [ "br" ]
 * await benchOptions(SCALE, ["--sizes", "1e3,,1e4"]).catch((e) => console.log(e.message)); // --sizes has an empty entry: '1e3,,1e4'
 * ```
 */
export const SCALE: BenchScript<ScaleOptions> = {
  task: "scale",
  usage: USAGE,
  flags: {
    sizes: "string",
    rows: "string",
    features: "string",
    "test-rows": "string",
    "avg-nnz": "string",
    "avg-labels": "string",
    learners: "string",
    options: "multiple",
    "options-json": "string",
    "budget-seconds": "string",
    "eval-budget-seconds": "string",
    "batch-size": "string",
    seed: "string",
    "heap-mb": "string",
    "max-rss-mb": "string",
    "skip-f16": "boolean",
    "prune-max-bytes": "string",
    "prune-delta": "string",
    "prune-eval-rows": "string",
    "service-reps": "string",
    dataset: "string",
    "data-dir": "string",
    quiet: "boolean",
  },
  async options(f) {
    const datasets = namesFlag(f, "dataset", []);
    const sizes = listFlag(
      f,
      "sizes",
      datasets.length > 0 ? [] : DEFAULT_SIZES,
      (g, n) => countFlag(g, n, undefined, 1, MAX_COUNT)!,
    );
    if (sizes.length === 0) {
      const synthetic = ["rows", "features", "test-rows", "avg-nnz", "avg-labels"];
      refuseIgnored(f, synthetic, "without --sizes (it shapes the synthetic streams)");
    }
    if (datasets.length === 0) refuseIgnored(f, ["data-dir"], "without --dataset");
    const rows = perSize(f, "rows", sizes, defaultRows);
    const features = perSize(f, "features", sizes, defaultFeatures);
    const testRows = countFlag(f, "test-rows", 2000, 1, 1e7)!;
    const avgNnz = numberFlag(f, "avg-nnz", 50, 1, 1e6)!;
    const avgLabels = numberFlag(f, "avg-labels", 5, 1, 1e6)!;
    const seed = intFlag(f, "seed", 0)!;
    sizes.forEach((numLabels, i) => {
      try {
        resolveSyntheticOptions({
          numLabels,
          numFeatures: features[i],
          rows: rows[i],
          avgNnz,
          avgLabels,
          seed,
        });
      } catch (e) {
        throw new RangeError(`--sizes ${numLabels}: ${(e as Error).message}`);
      }
    });
    const learners = namesFlag(f, "learners", ["ova", "leml", "br"]);
    const { options, given } = modelOptions(
      (f.values.options as string[] | undefined) ?? [],
      stringFlag(f, "options-json"),
    );
    for (const learner of given) {
      if (!learners.includes(learner)) {
        throw new TypeError(
          `--options: options of '${learner}' have no effect: --learners is ${learners.join(",")}`,
        );
      }
      const set = ["seed", "numFeatures", "numLabels"].find((k) => k in options[learner]);
      if (set !== undefined) {
        throw new TypeError(
          `--options: ${learner}:${set} is set by the benchmark (--seed, --features, --sizes)`,
        );
      }
    }
    // an unknown learner or an option it does not take: refused here, not in each worker
    const named = (e: unknown, flag: string) =>
      new (e instanceof RangeError ? RangeError : TypeError)(`${flag}: ${(e as Error).message}`);
    for (const learner of learners) {
      const factory = await loadFactory(learner).catch((e) => {
        throw named(e, "--learners");
      });
      try {
        factory.settings?.parse(options[learner] ?? {});
      } catch (e) {
        throw named(e, "--options");
      }
    }
    if (!learners.some((l) => PRUNABLE.includes(l))) {
      refuseIgnored(
        f,
        ["prune-max-bytes", "prune-delta", "prune-eval-rows"],
        `with --learners ${learners.join(",")}: only ${PRUNABLE.join(" and ")} can be pruned`,
      );
    }
    const pruneMaxBytes = countFlag(f, "prune-max-bytes", 25 * 2 ** 20, 0, MAX_COUNT)!;
    if (pruneMaxBytes === 0) {
      refuseIgnored(f, ["prune-delta", "prune-eval-rows"], "with --prune-max-bytes 0");
    }
    const budgetSeconds = numberFlag(f, "budget-seconds", 120, 0.001, MAX_SECONDS)!;
    const available = memAvailableMB();
    return {
      sizes,
      rows,
      features,
      rowsGiven: f.values.rows !== undefined,
      featuresGiven: f.values.features !== undefined,
      testRows,
      avgNnz,
      avgLabels,
      learners,
      options,
      budgetSeconds,
      evalBudgetSeconds: numberFlag(f, "eval-budget-seconds", 60, 0.001, MAX_SECONDS)!,
      batchSize: countFlag(f, "batch-size", 256, 1, 1 << 16)!,
      seed,
      heapMB: countFlag(f, "heap-mb", 4096, 16, 1 << 20)!,
      maxRssMB: countFlag(
        f,
        "max-rss-mb",
        Number.isFinite(available)
          ? Math.max(1024, Math.min(8192, Math.floor(available / 2)))
          : 8192,
        1,
        1 << 30,
      )!,
      datasets,
      dataDir: datasets.length > 0 ? await checkXcDatasets(f, datasets, true) : dataDirOf(f).dir,
      f16: f.values["skip-f16"] !== true,
      pruneMaxBytes,
      pruneDelta: countFlag(f, "prune-delta", 1, 0, 1 << 20)!,
      pruneEvalRows: countFlag(f, "prune-eval-rows", 2000, 1, 1e7)!,
      serviceRepetitions: countFlag(f, "service-reps", 3, 0, 1000)!,
      quiet: f.values.quiet === true,
    };
  },
};

async function main(o: ScaleOptions): Promise<void> {
  const { sizes, rows, features, testRows, avgNnz, avgLabels, learners, options } = o;
  const { budgetSeconds, evalBudgetSeconds, batchSize, seed, heapMB, maxRssMB } = o;
  const { datasets, dataDir, f16, pruneMaxBytes, pruneDelta, pruneEvalRows } = o;
  const { serviceRepetitions } = o;
  const progress = new Progress({ silent: o.quiet });
  const limits: RunLimits = {
    heapMB,
    maxRssMB,
    // learning, evaluation, the pruned file's comparison and the service's steps
    killAfterSeconds: 2 * budgetSeconds + 2 * evalBudgetSeconds + 300,
  };

  const sources: { label: string; source: SyntheticSource | DatasetSource }[] = [];
  sizes.forEach((numLabels, i) => {
    sources.push({
      label: `L=${numLabels}`,
      source: {
        kind: "synthetic",
        numLabels,
        numFeatures: features[i],
        rows: rows[i],
        testRows,
        avgNnz,
        avgLabels,
      },
    });
  });
  for (const name of datasets) {
    sources.push({ label: name, source: { kind: "dataset", name, dataDir } });
  }

  const t0 = performance.now();
  const summary: Record<string, unknown>[] = [];
  for (const { label, source } of sources) {
    for (const learner of learners) {
      const job: WorkerJob = {
        learner,
        options: options[learner] ?? {},
        source,
        batchSize,
        seed,
        budgetSeconds,
        evalBudgetSeconds,
        f16,
        pruneMaxBytes,
        pruneDelta,
        pruneEvalRows,
        serviceRepetitions,
      };
      if (!progress.drawing && !o.quiet) {
        console.error(`scale: ${learner} on ${label} ...`);
      }
      const r = await runJob(job, `${learner} ${label}`, limits, progress);
      const describe = source.kind === "synthetic"
        ? {
          source: "synthetic",
          numLabels: source.numLabels,
          numFeatures: source.numFeatures,
          rowsPlanned: source.rows,
          avgNnzDraws: source.avgNnz,
          avgLabels: source.avgLabels,
          heldOutRowSeed: `seed + 0.5`,
        }
        : { source: "dataset", dataset: source.name, dataDir: source.dataDir };
      const line = {
        bench: "scale",
        ...describe,
        ...r,
        learner,
        options: job.options,
        batchSize,
        seed,
        budgetSeconds,
      };
      console.log(JSON.stringify(line));
      const failed = failedSteps(r);
      summary.push({
        learner,
        source: label,
        finished: r.finished,
        ...(r.finished ? {} : { reason: r.reason }),
        ...(Object.keys(failed).length > 0 ? { failed } : {}),
        eventsPerSecond: r.eventsPerSecond,
        peakRssMB: r.peakRssMB,
        "P@1": (r.metrics as Record<string, number> | null | undefined)?.["P@1"] ?? null,
        ...(r.pruned === undefined ? {} : {
          prunedBytes: (r.pruned as Record<string, unknown>).bytes,
          relativePsp5Loss: (r.pruned as Record<string, unknown>).relativePsp5Loss,
        }),
      });
    }
  }
  console.log(JSON.stringify({
    bench: "scale",
    summary: true,
    runs: summary.length,
    finished: summary.filter((s) => s.finished === true).length,
    sizes,
    ...(sizes.length === 0 ? {} : {
      rowsPerSize: Object.fromEntries(sizes.map((l, i) => [String(l), rows[i]])),
      featuresPerSize: Object.fromEntries(sizes.map((l, i) => [String(l), features[i]])),
      rowsRule: o.rowsGiven ? "--rows" : "default: 20·L within [50000, 2000000]",
      featuresRule: !o.featuresGiven ? "default: 10·L within [1e4, 1e6]" : "--features",
      testRows,
      avgNnzDraws: avgNnz,
      avgLabels,
    }),
    datasets,
    learners,
    heapMB,
    maxRssMB,
    totalSeconds: Math.round(performance.now() - t0) / 1000,
    failed: summary.filter((s) => s.failed !== undefined).length,
    results: summary,
  }));
  const failures = summary.filter((s) => s.failed !== undefined);
  if (failures.length > 0) {
    for (const s of failures) {
      for (const [step, error] of Object.entries(s.failed as Record<string, string>)) {
        console.error(`scale: ${s.learner} on ${s.source}: ${step} failed: ${error}`);
      }
    }
    Deno.exit(1);
  }
}

if (import.meta.main) await runBench(SCALE, main);
