/**
 * The crash check: a dataset's training rows are fed as events into a Redis Stream at a steady
 * rate while `tagstream serve --source redis://...` consumes them; the server is `kill -9`ed at
 * random moments several times and restarted each time. A second, uninterrupted run on the same
 * events is the reference. Afterwards every event must have been applied exactly once (the
 * applied count and the order-independent digest of the applied ids match the fed events, the
 * Redis pending list is empty) and the test P@1 must be within `maxP1Gap` points of the
 * uninterrupted run.
 *
 * @module
 */
import { loadNames, loadXcFile } from "../../src/data/dataset.ts";
import { Rng } from "../../src/random/mod.ts";
import { RedisClient } from "../../src/service/redis_client.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { evaluateByName } from "../../src/cli/commands/eval.ts";
import { openState } from "../../src/cli/commands/state.ts";
import { labelCounts } from "../../src/data/dataset.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";
import { getJson, type ServiceProcess, startService, waitFor, xcEvents } from "./harness.ts";

/**
 * Options of {@linkcode runCrashCheck}.
 *
 * @example
 * ```ts
 * import type { CrashOptions } from "./crash.ts";
 * const o: CrashOptions = { dataDir: "/data", rows: 1000, kills: 2 };
 * console.log(o.kills); // 2
 * ```
 */
export interface CrashOptions {
  /** Directory of `<dataset>.train.txt` / `.test.txt` / `.labels.txt`. */
  dataDir: string;
  /** Dataset (default "bibtex"). */
  dataset?: string;
  /** First rows of the training file used as events (default: all). */
  rows?: number;
  /** kill -9 count (default 5). */
  kills?: number;
  /** Events fed per second (default 1500). */
  rate?: number;
  /** Seed of the kill moments (default 1). */
  seed?: number;
  /** More `serve` flags (model, batch size, ...). */
  serveArgs?: string[];
  /** Largest accepted |P@1 difference| in points (default 0.5). */
  maxP1Gap?: number;
  /** Progress messages. */
  log?: (m: string) => void;
}

/**
 * One run's outcome.
 *
 * @example
 * ```ts
 * import type { RunOutcome } from "./crash.ts";
 * function ok(r: RunOutcome): boolean { return r.pending === 0; }
 * console.log(typeof ok); // "function"
 * ```
 */
export interface RunOutcome {
  applied: number;
  rejected: number;
  digest: string;
  pending: number;
  testP1: number;
  prequentialP1: number | null;
  kills: number[];
  restarts: number;
  /** What each restarted server logged about its recovery. */
  recoveries: string[];
  seconds: number;
}

/**
 * What {@linkcode runCrashCheck} reports.
 *
 * @example
 * ```ts
 * import type { CrashReport } from "./crash.ts";
 * function passed(r: CrashReport): boolean { return r.pass; }
 * console.log(typeof passed); // "function"
 * ```
 */
export interface CrashReport {
  check: "crash";
  dataset: string;
  events: number;
  expectedDigest: string;
  uninterrupted: RunOutcome;
  crashed: RunOutcome;
  p1Gap: number;
  exactlyOnce: boolean;
  pass: boolean;
  failures: string[];
}

const STREAM_ARGS = ["--checkpoint-every", "500", "--checkpoint-seconds", "1"];

async function feed(
  redis: RedisClient,
  key: string,
  lines: readonly string[],
  rate: number,
): Promise<void> {
  const t0 = performance.now();
  let sent = 0;
  while (sent < lines.length) {
    const due = Math.min(lines.length, Math.floor(((performance.now() - t0) / 1000) * rate) + 1);
    const batch: Promise<unknown>[] = [];
    for (; sent < due; sent++) batch.push(redis.xadd(key, { event: lines[sent] }));
    await Promise.all(batch);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function oneRun(
  o: Required<Omit<CrashOptions, "rows" | "serveArgs" | "log">> & {
    serveArgs: string[];
    log: (m: string) => void;
  },
  redisUrl: string,
  key: string,
  lines: readonly string[],
  kills: number,
  evaluate: (stateDir: string) => Promise<number>,
): Promise<RunOutcome> {
  const stateDir = await Deno.makeTempDir({ prefix: "tagstream-crash-" });
  const args = [
    "--source",
    redisUrl,
    "--stream-key",
    key,
    "--publish-every",
    "0",
    ...STREAM_ARGS,
    ...o.serveArgs,
  ];
  const redis = await RedisClient.connect(redisUrl);
  const t0 = performance.now();
  let svc: ServiceProcess | undefined;
  const killAt: number[] = [];
  let restarts = 0;
  const recoveries: string[] = [];
  const noteRecovery = (p: ServiceProcess) => {
    for (const line of p.stderr().split("\n")) {
      if (/resumed from|acknowledged|replayed/.test(line)) {
        recoveries.push(line.replace(/^\[tagstream\] /, "").replace(stateDir, "STATE"));
      }
    }
  };
  try {
    svc = await startService({ stateDir, args });
    const duration = (lines.length / o.rate) * 1000;
    const rng = new Rng(o.seed + kills);
    for (let i = 0; i < kills; i++) killAt.push(Math.round(rng.next() * duration));
    killAt.sort((a, b) => a - b);
    const fed = feed(redis, key, lines, o.rate);
    const tFeed = performance.now();
    for (const at of killAt) {
      const wait = tFeed + at - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await svc.kill9();
      noteRecovery(svc);
      o.log(`kill -9 at ${((performance.now() - tFeed) / 1000).toFixed(2)} s; restarting`);
      svc = await startService({ stateDir, args });
      restarts++;
    }
    await fed;
    const current = svc;
    await waitFor(
      async () => {
        const m = await getJson(`${current.url}/metrics`);
        const ev = m.events as { applied: number };
        const r = m.redis as { pending: number };
        return ev.applied >= lines.length && r.pending === 0;
      },
      `all ${lines.length} events applied and acknowledged`,
      60000,
      100,
    );
    const code = await svc.stop();
    noteRecovery(svc);
    svc = undefined;
    if (code !== 0) throw new Error(`serve exited with code ${code} on SIGTERM`);
    const l = await openState(stateDir);
    const pending = await redis.xpendingCount(key, "tagstream");
    return {
      applied: l.applied,
      rejected: l.rejected,
      digest: l.idDigest,
      pending,
      testP1: await evaluate(stateDir),
      prequentialP1: Number.isFinite(l.window.cumulativeP1) ? l.window.cumulativeP1 : null,
      kills: killAt,
      restarts,
      recoveries,
      seconds: (performance.now() - t0) / 1000,
    };
  } finally {
    if (svc !== undefined) await svc.kill9();
    redis.close();
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
}

/**
 * Runs the crash check (see the module doc) against a throwaway `redis-server`.
 *
 * @example
 * ```ts
 * import { runCrashCheck } from "./crash.ts";
 * console.log(typeof runCrashCheck); // "function" (bench/service_crash.ts runs it)
 * ```
 */
export async function runCrashCheck(options: CrashOptions): Promise<CrashReport> {
  const o = {
    dataset: options.dataset ?? "bibtex",
    kills: options.kills ?? 5,
    rate: options.rate ?? 1500,
    seed: options.seed ?? 1,
    maxP1Gap: options.maxP1Gap ?? 0.5,
    dataDir: options.dataDir,
    serveArgs: options.serveArgs ?? [],
    log: options.log ?? (() => {}),
  };
  const trainPath = `${o.dataDir}/${o.dataset}.train.txt`;
  const ev = await xcEvents(trainPath, options.rows ?? Infinity);
  const test = await loadXcFile(`${o.dataDir}/${o.dataset}.test.txt`);
  const train = await loadXcFile(trainPath);
  const names = await loadNames(o.dataDir, o.dataset, "labels").catch(() => ev.labelNames);
  const evaluate = async (stateDir: string) => {
    const l = await openState(stateDir);
    const est = l.estimator, vocab = l.parser.labels.names;
    const r = evaluateByName(
      {
        numFeatures: est.numFeatures,
        numLabels: est.numLabels,
        labelName: (i) => vocab[i] ?? String(i),
        predictScores: (x, out) => est.predictScores(x, out),
      },
      test,
      names.length === test.numLabels ? names : ev.labelNames,
      labelCounts(train.y),
      train.x.numRows,
    );
    return r.metrics["P@1"];
  };
  const server = await startRedisServer();
  try {
    o.log(`uninterrupted run: ${ev.lines.length} events at ${o.rate}/s`);
    const a = await oneRun(o, server.url, "events:a", ev.lines, 0, evaluate);
    o.log(`crash run: ${o.kills} kills`);
    const b = await oneRun(o, server.url, "events:b", ev.lines, o.kills, evaluate);
    const expectedDigest = StreamLearner.digestOf(ev.ids);
    const failures: string[] = [];
    for (const [name, r] of [["uninterrupted", a], ["crashed", b]] as const) {
      if (r.applied !== ev.lines.length) {
        failures.push(`${name}: ${r.applied} events applied, expected ${ev.lines.length}`);
      }
      if (r.digest !== expectedDigest) failures.push(`${name}: applied-id digest differs`);
      if (r.pending !== 0) failures.push(`${name}: ${r.pending} Redis entries still pending`);
      if (r.rejected !== 0) failures.push(`${name}: ${r.rejected} events rejected`);
    }
    const gap = Math.abs(a.testP1 - b.testP1);
    if (!(gap <= o.maxP1Gap)) {
      failures.push(`test P@1 differs by ${gap.toFixed(3)} points (limit ${o.maxP1Gap})`);
    }
    if (b.restarts !== o.kills) failures.push(`${b.restarts} restarts for ${o.kills} kills`);
    return {
      check: "crash",
      dataset: o.dataset,
      events: ev.lines.length,
      expectedDigest,
      uninterrupted: a,
      crashed: b,
      p1Gap: gap,
      exactlyOnce: failures.every((f) => !f.includes("applied") && !f.includes("pending")),
      pass: failures.length === 0,
      failures,
    };
  } finally {
    await server.stop();
  }
}
