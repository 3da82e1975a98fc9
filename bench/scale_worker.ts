/**
 * One run of the scale benchmark (`bench/scale.ts`), in its own process so that its peak RSS is
 * its own: `deno run -A bench/scale_worker.ts '<job JSON>'`.
 *
 * The job names a learner, its options and a source: a synthetic stream (power-law labels,
 * planted prototypes; held-out rows come from the same structure with another row seed) or a
 * dataset's XC train/test files. The worker learns one pass in minibatches (timing only
 * `learnMany`, wall and CPU), stops at the learning budget, measures the model file (f32 and
 * f16), evaluates P@1/3/5 and PSP@1/3/5 on the held-out rows (propensities from the label counts
 * of the rows learned), and reads its own peak RSS (`VmHWM` of /proc/self/status). Then, for a
 * model with `toLabelWeights()` (ova, br), the largest magnitude-pruned f16 `linear-sparse` file
 * within `pruneMaxBytes` (25 MiB, a Workers KV value) and its P@k/PSP@k against the unpruned
 * file's, both through the SDK on the same held-out rows (`pruned`, see
 * `scale/prune_export.ts`); and for every model what the service pays for it: snapshot, replica
 * rebuild, checkpoint and publish times and bytes (`service`, see `scale/service_costs.ts`).
 *
 * stdout is NDJSON: `{"type":"phase",...}` and `{"type":"progress",...}` lines while it runs
 * (so the parent can draw a progress bar and knows how far a run got if it has to kill it), and
 * one `{"type":"result",...}` line at the end. Failures (an unknown learner, bad options, an
 * allocation that fails) are reported in the result, never thrown: a step that fails after
 * learning leaves its error beside its figures (`evalError` with `metrics: null`,
 * `modelFileError` with `modelBytes: null`, `pruned.error`, `service.error`).
 *
 * @module
 */
import { UNLIMITED } from "../src/models/space_limits.ts";
import process from "node:process";
import type { Batch, Example } from "../src/data/types.ts";
import type { Estimator } from "../src/models/estimator.ts";
import { loadFactory } from "../src/models/registry.ts";
import { SyntheticGenerator } from "../src/data/synthetic.ts";
import { examplesToBatch } from "../src/data/batcher.ts";
import { batchesOf, type Dataset, loadDataset, rowView } from "../src/data/dataset.ts";
import { PrecisionAtK } from "../src/metrics/precision.ts";
import { PspAtK } from "../src/metrics/psp.ts";
import { propensities } from "../src/metrics/propensity.ts";
import type { EstimatorFactory } from "../src/models/estimator.ts";
import type { LabelWeights } from "../src/models/label_weights.ts";
import { KV_VALUE_LIMIT, prunedExport } from "./scale/prune_export.ts";
import { serviceCosts } from "./scale/service_costs.ts";

/** A synthetic stream: `rows` training rows, `testRows` held-out rows of the same structure. */
export interface SyntheticSource {
  kind: "synthetic";
  numLabels: number;
  numFeatures: number;
  rows: number;
  testRows: number;
  avgNnz: number;
  avgLabels: number;
}

/** `<dataDir>/<name>.train.txt` (learned in file order) and `<name>.test.txt` (evaluated). */
export interface DatasetSource {
  kind: "dataset";
  name: string;
  dataDir: string;
}

/** What the parent asks the worker to do. */
export interface WorkerJob {
  learner: string;
  options: Record<string, unknown>;
  source: SyntheticSource | DatasetSource;
  batchSize: number;
  seed: number;
  /** Learning seconds (time inside `learnMany`) after which learning stops. */
  budgetSeconds: number;
  /** Seconds after which evaluation stops (the rows evaluated so far count). */
  evalBudgetSeconds: number;
  /** Also measure the f16 model file. */
  f16: boolean;
  /**
   * Byte budget of the pruned export of a model with `toLabelWeights()` (default 25 MiB, a
   * Workers KV value); 0 skips it.
   */
  pruneMaxBytes?: number;
  /** Weights the pruned export keeps per label at least (default 1). */
  pruneDelta?: number;
  /** Held-out rows the pruned and unpruned files are both scored on through the SDK (2000). */
  pruneEvalRows?: number;
  /** Repetitions of the service's snapshot, restore, checkpoint and publish (default 3; 0 skips). */
  serviceRepetitions?: number;
}

/** The held-out rows of a synthetic stream use this row seed: `seed + TEST_ROW_SEED_OFFSET`. */
export const TEST_ROW_SEED_OFFSET = 0.5;

const encoder = new TextEncoder();

function emit(message: Record<string, unknown>): void {
  const bytes = encoder.encode(JSON.stringify(message) + "\n");
  let off = 0;
  while (off < bytes.length) off += Deno.stdout.writeSync(bytes.subarray(off));
}

/**
 * Current and peak resident set size in MB, 10⁶ bytes (from /proc/self/status, whose kB are KiB;
 * else Deno's figures).
 */
function memoryMB(): { rss: number; peak: number } {
  const kib = 1024 / 1e6;
  try {
    const s = Deno.readTextFileSync("/proc/self/status");
    const rss = /VmRSS:\s+(\d+) kB/.exec(s), hwm = /VmHWM:\s+(\d+) kB/.exec(s);
    if (rss && hwm) return { rss: Number(rss[1]) * kib, peak: Number(hwm[1]) * kib };
  } catch {
    // not Linux: fall through
  }
  const rss = Deno.memoryUsage().rss / 1e6;
  return { rss, peak: Math.max(rss, process.resourceUsage().maxRSS * kib) };
}

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

function round(v: number, digits = 3): number {
  if (!Number.isFinite(v)) return v;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** JSON-able copies of the learner's own statistics (`refreshStats`, `stats`), if any. */
function learnerExtras(model: Estimator): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const name of ["refreshStats", "stats"]) {
    try {
      const v = (model as unknown as Record<string, unknown>)[name];
      if (v === undefined || v === null || typeof v === "function") continue;
      out[name] = JSON.parse(JSON.stringify(v));
    } catch (e) {
      out[name] = `not JSON-able: ${errorText(e)}`;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Held-out rows: features and sorted labels. */
interface TestRows {
  rows: { x: Example["x"]; labels: Int32Array }[];
}

interface Plan {
  numFeatures: number;
  numLabels: number;
  rowsPlanned: number;
  batches: () => Iterator<Batch>;
  test: TestRows;
}

function syntheticPlan(src: SyntheticSource, job: WorkerJob): Plan {
  const shape = {
    numFeatures: src.numFeatures,
    numLabels: src.numLabels,
    avgNnz: src.avgNnz,
    avgLabels: src.avgLabels,
    seed: job.seed,
  };
  const held = new SyntheticGenerator({
    ...shape,
    rows: src.testRows,
    rowSeed: job.seed + TEST_ROW_SEED_OFFSET,
  });
  const test: TestRows = { rows: [] };
  for (let i = 0; i < src.testRows; i++) {
    const e = held.next();
    test.rows.push({ x: e.x, labels: e.labels });
  }
  return {
    numFeatures: src.numFeatures,
    numLabels: src.numLabels,
    rowsPlanned: src.rows,
    test,
    batches: function* () {
      const g = new SyntheticGenerator({ ...shape, rows: src.rows });
      const buf: Example[] = [];
      for (let done = 0; done < src.rows;) {
        const n = Math.min(job.batchSize, src.rows - done);
        buf.length = 0;
        for (let i = 0; i < n; i++) buf.push(g.next());
        done += n;
        yield examplesToBatch(buf, src.numFeatures, src.numLabels);
      }
    },
  };
}

async function datasetPlan(src: DatasetSource, job: WorkerJob): Promise<Plan> {
  const trainRaw = await loadDataset(src.dataDir, src.name, "train");
  const testRaw = await loadDataset(src.dataDir, src.name, "test");
  const numFeatures = Math.max(trainRaw.numFeatures, testRaw.numFeatures);
  const numLabels = Math.max(trainRaw.numLabels, testRaw.numLabels);
  const train: Dataset = {
    name: trainRaw.name,
    numFeatures,
    numLabels,
    x: { ...trainRaw.x, numCols: numFeatures },
    y: { ...trainRaw.y, numCols: numLabels },
  };
  const test: TestRows = { rows: [] };
  for (let i = 0; i < testRaw.x.numRows; i++) {
    const y = testRaw.y;
    test.rows.push({
      x: rowView(testRaw.x, i),
      labels: y.indices.subarray(y.indptr[i], y.indptr[i + 1]),
    });
  }
  return {
    numFeatures,
    numLabels,
    rowsPlanned: train.x.numRows,
    test,
    batches: () => batchesOf(train, job.batchSize),
  };
}

/**
 * Runs one job and returns the result record (also used by tests through the CLI).
 */
async function run(job: WorkerJob): Promise<Record<string, unknown>> {
  const wall0 = performance.now(), cpu0 = cpuSeconds();
  const baselineRssMB = round(memoryMB().rss, 1);
  const result: Record<string, unknown> = { learner: job.learner, baselineRssMB };
  const finish = () => {
    const mem = memoryMB();
    result.peakRssMB = round(mem.peak, 1);
    result.wallSeconds = round((performance.now() - wall0) / 1000);
    result.cpuSeconds = round(cpuSeconds() - cpu0);
    return result;
  };

  let plan: Plan;
  let model: Estimator;
  let factory: EstimatorFactory;
  try {
    plan = job.source.kind === "synthetic"
      ? syntheticPlan(job.source, job)
      : await datasetPlan(job.source, job);
  } catch (e) {
    Object.assign(result, { finished: false, phase: "data", reason: errorText(e) });
    return finish();
  }
  result.rowsPlanned = plan.rowsPlanned;
  result.numFeatures = plan.numFeatures;
  result.numLabels = plan.numLabels;
  result.testRows = plan.test.rows.length;
  try {
    factory = await loadFactory(job.learner);
    model = factory.create({
      ...UNLIMITED, // sized by the plan: a size past the models' default limits is the point here
      ...job.options,
      seed: job.seed,
      numFeatures: plan.numFeatures,
      numLabels: plan.numLabels,
    });
    result.kind = model.kind;
  } catch (e) {
    Object.assign(result, { finished: false, phase: "create", reason: errorText(e) });
    return finish();
  }

  // learning: one pass, timing only learnMany
  const counts = new Int32Array(plan.numLabels);
  let rowsLearned = 0, nnz = 0, positives = 0;
  let learnSeconds = 0, learnCpuSeconds = 0;
  let finished = true;
  let reason: string | undefined;
  let lastReport = -Infinity;
  emit({ type: "phase", phase: "learn", total: plan.rowsPlanned });
  const it = plan.batches();
  try {
    for (let r = it.next(); !r.done; r = it.next()) {
      const batch = r.value;
      const c0 = cpuSeconds(), t0 = performance.now();
      model.learnMany(batch);
      learnSeconds += (performance.now() - t0) / 1000;
      learnCpuSeconds += cpuSeconds() - c0;
      const n = batch.x.numRows;
      rowsLearned += n;
      nnz += batch.x.indptr[n] - batch.x.indptr[0];
      const y = batch.y;
      for (let k = y.indptr[0]; k < y.indptr[n]; k++) {
        const l = y.indices[k];
        if (l < counts.length) counts[l]++;
        positives++;
      }
      const now = performance.now();
      if (now - lastReport >= 250) {
        lastReport = now;
        emit({ type: "progress", phase: "learn", done: rowsLearned, learnSeconds });
      }
      if (learnSeconds >= job.budgetSeconds && rowsLearned < plan.rowsPlanned) {
        finished = false;
        reason = `learning budget of ${job.budgetSeconds} s reached after ${rowsLearned} of ` +
          `${plan.rowsPlanned} rows`;
        break;
      }
    }
  } catch (e) {
    finished = false;
    reason = `learning failed after ${rowsLearned} rows: ${errorText(e)}`;
    result.phase = "learn";
  }
  emit({ type: "progress", phase: "learn", done: rowsLearned, learnSeconds });
  const eventsPerSecond = learnSeconds > 0 ? rowsLearned / learnSeconds : 0;
  Object.assign(result, {
    finished,
    ...(reason === undefined ? {} : { reason }),
    rowsLearned,
    learnSeconds: round(learnSeconds),
    learnCpuSeconds: round(learnCpuSeconds),
    eventsPerSecond: round(eventsPerSecond, 1),
    ...(finished ? {} : {
      projectedSeconds: eventsPerSecond > 0 ? round(plan.rowsPlanned / eventsPerSecond, 1) : null,
    }),
    nnzPerRow: rowsLearned > 0 ? round(nnz / rowsLearned, 2) : 0,
    labelsPerRow: rowsLearned > 0 ? round(positives / rowsLearned, 2) : 0,
    labelsSeen: counts.reduce((s, c) => s + (c > 0 ? 1 : 0), 0),
    learnPeakRssMB: round(memoryMB().peak, 1),
  });
  if (result.phase === "learn") return finish(); // the model may be half-updated: no evaluation

  const extras = learnerExtras(model);
  if (extras) result.extras = extras;

  // model file sizes
  emit({ type: "phase", phase: "model-file" });
  try {
    const t0 = performance.now();
    result.modelBytes = model.toModelFile().length;
    result.modelFileSeconds = round((performance.now() - t0) / 1000);
  } catch (e) {
    result.modelBytes = null;
    result.modelFileError = errorText(e);
  }
  if (job.f16) {
    try {
      result.modelBytesF16 = model.toModelFile({ quantize: "f16" }).length;
    } catch (e) {
      result.modelBytesF16 = null;
      result.modelFileF16Error = errorText(e);
    }
  }
  const modelFilePeakRssMB = round(memoryMB().peak, 1);

  // held-out evaluation: P@k and PSP@k with the propensities of the rows learned
  const props = rowsLearned > 0 ? propensities(counts, rowsLearned) : undefined;
  if (props !== undefined) {
    const ks = [1, 3, 5];
    const p = new PrecisionAtK(ks);
    const psp = new PspAtK(props, ks);
    const rows = plan.test.rows;
    emit({ type: "phase", phase: "evaluate", total: rows.length });
    const t0 = performance.now();
    let evaluated = 0;
    try {
      for (const row of rows) {
        const top = model.predictTopK(row.x, 5).labels;
        p.add(top, row.labels);
        psp.add(top, row.labels);
        evaluated++;
        const now = performance.now();
        if (now - lastReport >= 250) {
          lastReport = now;
          emit({ type: "progress", phase: "evaluate", done: evaluated });
        }
        if ((now - t0) / 1000 >= job.evalBudgetSeconds) break;
      }
    } catch (e) {
      result.evalError = errorText(e);
    }
    emit({ type: "progress", phase: "evaluate", done: evaluated });
    const evalSeconds = (performance.now() - t0) / 1000;
    // a failed evaluation has no figures: those of the rows before the error are not the model's
    let metrics: Record<string, number> | null = null;
    if (result.evalError === undefined) {
      metrics = {};
      for (const [k, v] of Object.entries({ ...p.result(), ...psp.result() })) {
        metrics[k] = round(v);
      }
    }
    Object.assign(result, {
      metrics,
      testRowsEvaluated: evaluated,
      evalSeconds: round(evalSeconds),
      predictMsPerRow: evaluated > 0 ? round((1000 * evalSeconds) / evaluated, 4) : null,
    });
  }

  // peak RSS (VmHWM, which only grows) at the end of each phase: what each phase added
  const peaks: Record<string, number> = {
    learn: result.learnPeakRssMB as number,
    modelFile: modelFilePeakRssMB,
    evaluate: round(memoryMB().peak, 1),
  };
  result.phasePeakRssMB = peaks;

  // the service's files carry label names: decimal ones here
  const labelNames = Array.from({ length: model.numLabels }, (_, l) => String(l));

  // pruned export within a byte budget, scored against the unpruned file through the SDK
  const toLabelWeights = (model as { toLabelWeights?: () => LabelWeights }).toLabelWeights;
  const pruneMaxBytes = job.pruneMaxBytes ?? KV_VALUE_LIMIT;
  if (typeof toLabelWeights === "function" && props !== undefined && pruneMaxBytes > 0) {
    emit({ type: "phase", phase: "prune" });
    try {
      const t0 = performance.now();
      const unpruned = model.toModelFile({ labelNames });
      const weights = toLabelWeights.call(model);
      const encodeSeconds = (performance.now() - t0) / 1000;
      result.pruned = {
        labelNames: "decimal",
        unprunedEncodeSeconds: round(encodeSeconds),
        ...prunedExport(weights, unpruned, plan.test.rows, props, {
          maxBytes: pruneMaxBytes,
          delta: job.pruneDelta ?? 1,
          evalRows: job.pruneEvalRows ?? 2000,
          evalBudgetSeconds: job.evalBudgetSeconds,
        }),
      };
    } catch (e) {
      result.pruned = { error: errorText(e) };
    }
    peaks.prune = round(memoryMB().peak, 1);
  }

  // what the service pays: snapshot, replica rebuild, checkpoint, publish
  const reps = job.serviceRepetitions ?? 3;
  if (reps > 0) {
    emit({ type: "phase", phase: "service" });
    let dir: string | undefined;
    try {
      dir = await Deno.makeTempDir({ prefix: "tagstream_scale_" });
      // the held-out rows serve as the next events between incremental checkpoints
      result.service = await serviceCosts(model, factory, {
        repetitions: reps,
        dir,
        labelNames,
        moreRows: plan.test.rows,
        batchSize: job.batchSize,
      });
    } catch (e) {
      result.service = { error: errorText(e) };
    } finally {
      if (dir !== undefined) await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
    peaks.service = round(memoryMB().peak, 1);
  }
  return finish();
}

if (import.meta.main) {
  let job: WorkerJob;
  try {
    job = JSON.parse(Deno.args[0] ?? "");
  } catch (e) {
    console.error(`scale_worker: the first argument must be the job as JSON: ${errorText(e)}`);
    Deno.exit(2);
  }
  const result = await run(job);
  emit({ type: "result", ...result });
}
