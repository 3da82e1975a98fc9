/**
 * Small helpers of the stream tests: assertions, event lines, temporary directories, TCP fronts
 * on test backends, POP publishing.
 *
 * @module
 */
export {
  assert,
  assertEquals,
  assertThrowsMsg,
  DATA_DIR,
  HAS_DATA,
  withTempDir,
} from "../data/helpers.ts";
import { factory as leml } from "../../src/models/leml/mod.ts";
import { mulberry32 } from "../mulberry32.ts";
import { LearningService, type ServiceOptions } from "../../src/service/service.ts";
import { factory as ova } from "../../src/models/ova/mod.ts";
import { syntheticExamples } from "../../src/data/synthetic.ts";
import type { BuiltModel } from "../../src/service/service_types.ts";
import type { Estimator } from "../../src/models/estimator.ts";
import type { Example } from "../../src/data/types.ts";
import { popModelBuilder } from "../../src/service/publish_pop.ts";
import { RedisClient } from "../../src/service/redis_client.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";
import { withTempDir } from "../data/helpers.ts";
import { TcpFront } from "../../src/service/tcp_front.ts";
import { ManualTimers } from "./manual_timers.ts";

/**
 * `serve` flags of a small OVA learner thread (seed 3, 16 labels per feature, minibatches of 8,
 * no automatic publishing, no POP), for the learner-thread tests.
 */
export const OVA_THREAD_FLAGS: readonly string[] = [
  "--model",
  "ova",
  "--option",
  "seed=3",
  "--option",
  "maxLabelsPerFeature=16",
  "--batch-size",
  "8",
  "--publish-every",
  "0",
  "--no-prune",
];

/**
 * Options of a small test service: LEML rank 4 (seed 1), minibatches of 4, no automatic
 * publishing, no log.
 */
export function serviceOptions(dir: string, extra: Partial<ServiceOptions> = {}): ServiceOptions {
  return {
    factory: leml,
    stateDir: dir,
    batchSize: 4,
    modelOptions: { rank: 4, seed: 1 },
    publishEvery: 0,
    log: () => {},
    ...extra,
  };
}

/**
 * Options of a small test service ({@linkcode serviceOptions}) reading the Redis stream "ev" at
 * `url`, whose dead-letter stream "ev:rejected" cannot be written: the key is set to a plain
 * string here, so every copy answers WRONGTYPE. No automatic checkpoint; `redis` adds to the
 * source's options, `extra` to the service's.
 */
export async function brokenDeadLetterOptions(
  c: RedisClient,
  url: string,
  dir: string,
  redis: Partial<NonNullable<ServiceOptions["redis"]>> = {},
  extra: Partial<ServiceOptions> = {},
): Promise<ServiceOptions> {
  await c.command("SET", "ev:rejected", "not a stream");
  return serviceOptions(dir, {
    redis: { url, key: "ev", blockMs: 20, ...redis },
    checkpointSeconds: 0,
    checkpointEvery: 1e9,
    ...extra,
  });
}

/** One NDJSON event line. */
export function eventLine(
  id: string,
  features: Record<string, number>,
  labels: (string | number)[],
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({ id, features, labels, ...extra });
}

/**
 * `n` events with a planted structure: event i has feature `i % 10` (and a shared feature 10)
 * and label `t<i % 5>` (feature j predicts label j % 5).
 */
export function plantedEvents(n: number, start = 0): string[] {
  const out: string[] = [];
  for (let i = start; i < start + n; i++) {
    out.push(eventLine(`e${i}`, { [String(i % 10)]: 1, "10": 0.5 }, [`t${i % 5}`]));
  }
  return out;
}

/**
 * `n` NDJSON lines for POP publishing tests: event i has feature `i % 10` (value 1), which tells
 * its label `t<i % 5>`, and 30 weak features (0.01) among 200, so that many small weights exist
 * for POP to prune.
 */
export function popEvents(n: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const f: Record<string, number> = { [String(i % 10)]: 1 };
    for (let j = 0; j < 30; j++) f[String(20 + ((i * 7 + j * 13) % 200))] = 0.01;
    lines.push(JSON.stringify({ features: f, labels: [`t${i % 5}`] }));
  }
  return lines;
}

/**
 * Runs `fn` with `Worker` recording the workers it makes (restored after), e.g. to dispatch a
 * message as if one of them had sent it.
 */
export async function recordingWorkers<T>(fn: (made: Worker[]) => Promise<T>): Promise<T> {
  const Real = globalThis.Worker;
  const made: Worker[] = [];
  globalThis.Worker = class extends Real {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      made.push(this);
    }
  };
  try {
    return await fn(made);
  } finally {
    globalThis.Worker = Real;
  }
}

/** `n` events with index features and labels "L<l>" from a synthetic stream (ova tests). */
export function syntheticEvents(n: number, seed: number, numLabels: number): string[] {
  return [...syntheticExamples({ rows: n, numFeatures: 800, numLabels, avgNnz: 10, seed })].map(
    (e, i) =>
      JSON.stringify({
        id: `s${seed}-${i}`,
        features: Object.fromEntries([...e.x.indices].map((j, p) => [String(j), e.x.values[p]])),
        labels: [...e.labels].map((l) => `L${l}`),
      }),
  );
}

/** An ova service on this thread with the options of {@linkcode OVA_THREAD_FLAGS}. */
export function openOvaSameThread(dir: string): Promise<LearningService> {
  return LearningService.open({
    factory: ova,
    stateDir: dir,
    batchSize: 8,
    modelOptions: { seed: 3, maxLabelsPerFeature: 16 },
    publishEvery: 0,
    log: () => {},
  });
}

/** What `p` settles with, or a "timed out" error after 30 s (a hang guard, not a timing assert). */
export async function settled<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out: ${what} never settled`)), 30_000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `fn` every 20 ms until it holds; throws naming `what` after `ms` (a hang guard, not a
 * timing assertion).
 */
export async function waitUntil(
  fn: () => boolean | Promise<boolean>,
  what: string,
  ms = 10000,
): Promise<void> {
  const t0 = performance.now();
  while (!(await fn())) {
    if (performance.now() - t0 > ms) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * `n` NDJSON events from `start` on, ids `<prefix><i>`: 12 of 600 features, 2 of 300 labels,
 * seeded by i (the same events for the same numbers).
 */
export function seededEvents(n: number, start = 0, prefix = "c"): string {
  const out: string[] = [];
  for (let i = start; i < start + n; i++) {
    const r = mulberry32(i + 1), f: Record<string, number> = {};
    for (let t = 0; t < 12; t++) f[String(Math.floor(r() ** 2 * 600))] = 1 + t;
    const labels = [`l${Math.floor(r() ** 2 * 300)}`, `l${Math.floor(r() * 300)}`];
    out.push(eventLine(`${prefix}${i}`, f, [...new Set(labels)]));
  }
  return out.join("\n");
}

/**
 * Reads `conn` until the peer closes it, or closes it after `boundMs` (a hang guard): whether the
 * peer closed it, what it sent, and the milliseconds it took.
 */
export async function readUntilClosed(
  conn: Deno.Conn,
  boundMs: number,
): Promise<{ closed: boolean; text: string; ms: number }> {
  const dec = new TextDecoder();
  const t0 = performance.now();
  let text = "";
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      conn.close();
    } catch { /* closed */ }
  }, boundMs);
  const buf = new Uint8Array(16384);
  try {
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += dec.decode(buf.subarray(0, n));
    }
  } catch (e) {
    if (!timedOut && !(e instanceof Deno.errors.ConnectionReset)) throw e;
  }
  clearTimeout(timer);
  try {
    conn.close();
  } catch { /* closed */ }
  return { closed: !timedOut, text, ms: performance.now() - t0 };
}

/**
 * Runs `fn` with a real Redis started for it (its URL and a client connected to it) and a
 * temporary directory; stops both afterwards.
 */
export async function withRedis(
  fn: (url: string, c: RedisClient, dir: string) => Promise<void>,
): Promise<void> {
  const server = await startRedisServer();
  const c = await RedisClient.connect(server.url);
  try {
    await withTempDir((dir) => fn(server.url, c, dir));
  } finally {
    c.close();
    await server.stop();
  }
}

/**
 * Runs `fn` with the port of a TCP front (header timeout 10 s, at most 16 connections) on a server
 * that answers each request with the length of its body in bytes; closes both afterwards.
 */
export async function withBodyLengthFront(fn: (port: number) => Promise<void>): Promise<void> {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    async (req) => new Response(`${(await req.arrayBuffer()).byteLength}`),
  );
  const front = TcpFront.listen({
    port: 0,
    backend: { hostname: "127.0.0.1", port: server.addr.port },
    headerTimeoutMs: 10_000,
    maxConnections: 16,
  });
  try {
    await fn(front.addr.port);
  } finally {
    await front.close();
    await server.shutdown();
  }
}

/**
 * Runs `fn` with a TCP front (at most 16 connections, header timeout `headerTimeoutMs`) whose
 * timers go off only when the test fires them, on a raw TCP backend that serves its one
 * connection with `serve`, then closes it (`serve` failing, the front having closed the
 * connection, ends it quietly). Closes the front and the backend afterwards.
 */
export async function withRawBackendFront(
  headerTimeoutMs: number,
  serve: (conn: Deno.Conn) => Promise<void>,
  fn: (front: TcpFront, timers: ManualTimers) => Promise<void>,
): Promise<void> {
  const backend = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    const conn = await backend.accept();
    try {
      await serve(conn);
    } catch {
      /* closed by the front */
    } finally {
      try {
        conn.close();
      } catch { /* closed */ }
    }
  })();
  const timers = new ManualTimers();
  const front = TcpFront.listen({
    port: 0,
    backend: { hostname: "127.0.0.1", port: (backend.addr as Deno.NetAddr).port },
    headerTimeoutMs,
    maxConnections: 16,
    timers,
  });
  try {
    await fn(front, timers);
  } finally {
    await front.close();
    backend.close();
    await served.catch(() => {}); // a backend the front never connected to: nothing served
  }
}

/**
 * The file POP publishing (`popModelBuilder`, 10 validation rows at least, `maxWeights` if given)
 * builds of `m`, trained on `events`, which are also its validation rows: label counts of each
 * event's first label, label names `labelNames` (default `l0`, `l1`, ...).
 */
export async function publishWithPop(
  m: Estimator,
  events: readonly Example[],
  options: { labelNames?: string[]; maxWeights?: number } = {},
): Promise<BuiltModel> {
  const { labelNames, maxWeights } = options;
  const builder = popModelBuilder({ minValidationRows: 10, ...(maxWeights ? { maxWeights } : {}) });
  try {
    const counts = new Float64Array(m.numLabels);
    for (const e of events) counts[e.labels[0]]++;
    return await builder.build({
      estimator: m,
      labelNames: labelNames ?? Array.from({ length: m.numLabels }, (_, l) => `l${l}`),
      labelCounts: counts,
      applied: events.length,
      meta: {},
      validation: events,
    });
  } finally {
    builder.close?.();
  }
}
