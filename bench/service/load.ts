/**
 * The load check: `tagstream serve` (LEML streaming by default, token auth and the write-ahead
 * log on, as deployed) is driven for a fixed time by concurrent keep-alive connections:
 *
 * 1. `events`: connections POST NDJSON bodies of a dataset's training rows (bibtex-like),
 *    without ids (the bodies repeat: with ids every event after the first pass would be a
 *    duplicate, acknowledged and not learned); reported: events learned per second (the model's
 *    learned count over the phase), request latency p50/p99, error counts;
 * 2. `predict`: connections POST one-row `/predict` requests (test rows, k = 5); reported:
 *    requests per second, latency p50/p99, error counts;
 * 3. `mixed`: both at once (reported, no target).
 *
 * Targets (checked by the bench script, reported by the test): ≥ 20,000 events/s learned,
 * `/predict` p99 ≤ 5 ms at 64 connections, zero 5xx.
 *
 * The load generator is `wrk` when installed (`scripts/install-services.sh --bench`; a C client
 * that leaves the server's core alone), else a small Deno client in this process. Each phase
 * reports the CPU used by the server and by the client and the machine's load average, because
 * on a shared 2-core machine these numbers depend on what else runs. `/predict` bodies use the
 * `features` object form by default; `predictForm: "compact"` sends `{"indices": [...],
 * "values": [...]}` and `"indices"` sends `{"indices": [...]}` (binary features).
 *
 * @module
 */
import { loadXcFile, rowView } from "../../src/data/dataset.ts";
import {
  cpuSecondsOf,
  getJson,
  HttpConnection,
  loadAverage,
  quantile,
  type ServiceProcess,
  startService,
  xcEvents,
} from "./harness.ts";
import { runWrk, wrkAvailable, type WrkResult } from "./wrk.ts";

/**
 * Options of {@linkcode runLoadCheck}.
 *
 * @example
 * ```ts
 * import type { LoadOptions } from "./load.ts";
 * const o: LoadOptions = { dataDir: "/data", seconds: 2, predictConnections: 8 };
 * console.log(o.seconds); // 2
 * ```
 */
export interface LoadOptions {
  /** Directory of `<dataset>.train.txt` and `.test.txt`. */
  dataDir: string;
  /** Dataset (default "bibtex"). */
  dataset?: string;
  /** Seconds per phase (default 10; a whole number with the wrk client). */
  seconds?: number;
  /** Warm-up seconds before the measured phases (default 2). */
  warmupSeconds?: number;
  /** Connections posting events (default 4). */
  eventConnections?: number;
  /** Events per POST /events body (default 250). */
  eventsPerRequest?: number;
  /** Connections sending /predict (default 64). */
  predictConnections?: number;
  /** Phases to run (default all three). */
  phases?: ("events" | "predict" | "mixed")[];
  /** More `serve` flags. */
  serveArgs?: string[];
  /** More `deno run` flags for the server, e.g. `--cpu-prof` (default none). */
  denoFlags?: string[];
  /** Load generator: "wrk" (default when installed) or "deno" (an in-process client). */
  client?: "wrk" | "deno";
  /** Body form of `/predict` requests (default "object"). */
  predictForm?: PredictForm;
  /** Progress messages. */
  log?: (m: string) => void;
}

/**
 * Body forms of `/predict` requests: `{"features": {"<index>": value, ...}}`,
 * `{"indices": [...], "values": [...]}`, or `{"indices": [...]}` (every value 1).
 *
 * @example
 * ```ts
 * import type { PredictForm } from "./load.ts";
 * const f: PredictForm = "compact";
 * console.log(f); // "compact"
 * ```
 */
export type PredictForm = "object" | "compact" | "indices";

/**
 * Measurements of one kind of request in one phase.
 *
 * @example
 * ```ts
 * import type { LoadStats } from "./load.ts";
 * function p99(s: LoadStats): number { return s.p99Ms; }
 * console.log(typeof p99); // "function"
 * ```
 */
export interface LoadStats {
  connections: number;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  status2xx: number;
  status4xx: number;
  status5xx: number;
  networkErrors: number;
  /** CPU use of the server and of this load generator over the phase, percent of one core. */
  serverCpuPercent: number | null;
  clientCpuPercent: number;
  /**
   * Requests per CPU-second of the server process (all its threads: the HTTP loop, GC, the
   * publishing worker): less sensitive than the rates to what else runs on a shared machine.
   * In the mixed phase both kinds of request share that CPU.
   */
  requestsPerServerCpuSecond: number | null;
  /** Connections the server closed after a response (see denoland/deno#36657). */
  serverClosedConnections: number;
  /** The machine's 1-minute load average at the start and at the end of the phase. */
  loadAverage: [number, number];
  /** `/events` only: events accepted, and learned per second over the phase. */
  eventsAccepted?: number;
  eventsLearned?: number;
  /**
   * Events learned from the phase's start until at most 10 s after its end (the learner may
   * still be behind the accepted events when a short phase ends on a loaded machine).
   */
  eventsLearnedEventually?: number;
  eventsLearnedPerSecond?: number;
  /** `/events` only: events learned per CPU-second of the server process. */
  eventsLearnedPerServerCpuSecond?: number | null;
}

/**
 * What {@linkcode runLoadCheck} reports.
 *
 * @example
 * ```ts
 * import type { LoadReport } from "./load.ts";
 * function ok(r: LoadReport): boolean { return r.zero5xx; }
 * console.log(typeof ok); // "function"
 * ```
 */
export interface LoadReport {
  check: "load";
  dataset: string;
  model: string;
  phases: Record<string, { events?: LoadStats; predict?: LoadStats }>;
  targets: { eventsLearnedPerSecond: number; predictP99Ms: number; zero5xx: true };
  meetsEventsTarget: boolean | null;
  meetsPredictTarget: boolean | null;
  zero5xx: boolean;
  rssBytes: number;
  /** The Deno version of the server. */
  deno: string;
  /** The load generator used. */
  client: "wrk" | "deno";
  /** Body form of the `/predict` requests, and their mean size in bytes (head and body). */
  predictForm: PredictForm;
  predictRequestBytes: number;
  /** Whether the server learned on its learner thread (`serve` without `--same-thread`). */
  learnerThread: boolean;
  /** CPUs of the machine. */
  cpus: number;
}

const TOKEN = "load-check-token";

interface Worker {
  reconnects: number;
  latencies: number[];
  requests: number;
  s2: number;
  s4: number;
  s5: number;
  net: number;
  accepted: number;
}

async function drive(
  port: number,
  connections: number,
  until: number,
  next: (i: number) => Uint8Array,
  onBody?: (w: Worker, body: string) => void,
): Promise<Worker> {
  const total: Worker = {
    reconnects: 0,
    latencies: [],
    requests: 0,
    s2: 0,
    s4: 0,
    s5: 0,
    net: 0,
    accepted: 0,
  };
  await Promise.all(Array.from({ length: connections }, async (_, c) => {
    let conn: HttpConnection | undefined;
    let i = c;
    while (performance.now() < until) {
      try {
        conn ??= await HttpConnection.open(port);
        const request = next(i);
        i += connections;
        const t0 = performance.now();
        const res = await conn.send(request);
        total.latencies.push(performance.now() - t0);
        total.requests++;
        if (res.status < 300) total.s2++;
        else if (res.status < 500) total.s4++;
        else total.s5++;
        onBody?.(total, res.body);
        if (conn.closed) {
          conn = undefined;
          total.reconnects++;
        }
      } catch {
        total.net++;
        conn?.close();
        conn = undefined;
      }
    }
    conn?.close();
  }));
  return total;
}

type Measured = Worker & { p50?: number; p99?: number; max?: number; seconds?: number };

function fromWrk(r: WrkResult): Measured {
  return {
    seconds: r.seconds,
    reconnects: r.serverClosedConnections,
    latencies: [],
    requests: r.requests,
    s2: r.status2xx,
    s4: r.status4xx,
    s5: r.status5xx,
    net: r.networkErrors,
    accepted: r.accepted,
    p50: r.p50Ms,
    p99: r.p99Ms,
    max: r.maxMs,
  };
}

function stats(
  w: Measured,
  connections: number,
  seconds: number,
  cpu: { server: number; client: number },
  load: [number, number],
): LoadStats {
  return {
    serverCpuPercent: Number.isFinite(cpu.server) ? (100 * cpu.server) / seconds : null,
    clientCpuPercent: (100 * cpu.client) / seconds,
    requestsPerServerCpuSecond: cpu.server > 0 ? w.requests / cpu.server : null,
    connections,
    seconds,
    requests: w.requests,
    requestsPerSecond: w.requests / (w.seconds ?? seconds),
    p50Ms: w.p50 ?? quantile(w.latencies, 0.5),
    p99Ms: w.p99 ?? quantile(w.latencies, 0.99),
    maxMs: w.max ?? w.latencies.reduce((a, b) => Math.max(a, b), 0),
    status2xx: w.s2,
    status4xx: w.s4,
    status5xx: w.s5,
    networkErrors: w.net,
    serverClosedConnections: w.reconnects,
    loadAverage: load,
  };
}

/** The `/predict` body of one row in the given form. */
function predictBody(indices: Int32Array, values: Float32Array, form: PredictForm): string {
  if (form === "object") {
    const f: Record<string, number> = {};
    for (let p = 0; p < indices.length; p++) f[indices[p]] = values[p];
    return JSON.stringify({ features: f, k: 5 });
  }
  if (form === "indices") return JSON.stringify({ indices: Array.from(indices), k: 5 });
  return JSON.stringify({ indices: Array.from(indices), values: Array.from(values), k: 5 });
}

/**
 * Runs the load check (see the module doc) against a fresh `tagstream serve`.
 *
 * @example
 * ```ts
 * import { runLoadCheck } from "./load.ts";
 * console.log(typeof runLoadCheck); // "function" (bench/service_load.ts runs it)
 * ```
 */
export async function runLoadCheck(options: LoadOptions): Promise<LoadReport> {
  const dataset = options.dataset ?? "bibtex";
  const seconds = options.seconds ?? 10;
  const warmup = options.warmupSeconds ?? 2;
  const evConns = options.eventConnections ?? 4;
  const perRequest = options.eventsPerRequest ?? 250;
  const pConns = options.predictConnections ?? 64;
  const phases = options.phases ?? ["events", "predict", "mixed"];
  const form = options.predictForm ?? "object";
  const client = options.client ?? ((await wrkAvailable()) ? "wrk" : "deno");
  const log = options.log ?? (() => {});
  if (client === "wrk" && !(Number.isInteger(seconds) && seconds >= 1)) {
    throw new RangeError(
      `load check: seconds must be a whole number >= 1 with the wrk client (wrk -d takes whole ` +
        `seconds), got ${seconds}; give client "deno" (--client deno) for other durations`,
    );
  }
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  const ev = await xcEvents(`${options.dataDir}/${dataset}.train.txt`);
  // The bodies are sent over and over: without their ids, so that every event is learned again
  // (with ids, the service's deduplication window acknowledged every event after the first pass
  // of the file without applying it, and the events phase measured no learning)
  const lines = ev.lines.map((l) => l.replace(/^\{"id":"(?:[^"\\]|\\.)*",/, "{"));
  const bodies: Uint8Array[] = [];
  for (let s = 0; s + perRequest <= lines.length; s += perRequest) {
    const body = lines.slice(s, s + perRequest).join("\n") + "\n";
    bodies.push(HttpConnection.encodeRequest("POST", "/events", body, headers));
  }
  const test = await loadXcFile(`${options.dataDir}/${dataset}.test.txt`);
  const queries: Uint8Array[] = [];
  for (let i = 0; i < test.x.numRows; i++) {
    const r = rowView(test.x, i);
    if (form === "indices" && r.values.some((v) => v !== 1)) {
      throw new RangeError(`predictForm "indices" needs binary rows; ${dataset} has other values`);
    }
    const body = predictBody(r.indices, r.values, form);
    queries.push(HttpConnection.encodeRequest("POST", "/predict", body, headers));
  }
  // an empty list would make every send a TypeError, counted as a network error, in a tight loop
  if (bodies.length === 0) {
    throw new RangeError(
      `load check: eventsPerRequest ${perRequest} is more than the ${lines.length} rows of ` +
        `${dataset}.train.txt: no /events body to send`,
    );
  }
  if (queries.length === 0) {
    throw new RangeError(`load check: ${dataset}.test.txt has no rows: no /predict to send`);
  }
  const nextEvents = (i: number) => bodies[i % bodies.length];
  const nextQuery = (i: number) => queries[i % queries.length];
  const countAccepted = (w: Worker, body: string) => {
    const m = /"accepted":(\d+)/.exec(body);
    if (m) w.accepted += Number(m[1]);
  };
  const stateDir = await Deno.makeTempDir({ prefix: "tagstream-load-" });
  let svc: ServiceProcess | undefined;
  try {
    svc = await startService({
      stateDir,
      token: TOKEN,
      args: options.serveArgs ?? [],
      denoFlags: options.denoFlags,
    });
    const port = svc.port;
    const learned = async () =>
      ((await getJson(`${svc!.url}/metrics`, TOKEN)).events as { learned: number }).learned;
    log(`client ${client}; warm-up ${warmup} s`);
    const tw = performance.now() + warmup * 1000;
    await Promise.all([
      drive(port, evConns, tw, nextEvents),
      drive(port, Math.min(pConns, 8), tw, nextQuery),
    ]);
    const report: LoadReport["phases"] = {};
    for (const phase of phases) {
      log(`phase ${phase}: ${seconds} s`);
      const l0 = await learned();
      const la0 = loadAverage();
      const s0 = cpuSecondsOf(svc.pid), c0 = cpuSecondsOf(Deno.pid);
      const t0 = performance.now(), until = t0 + seconds * 1000;
      let runs: (Measured | undefined)[];
      let wrkCpu = 0;
      if (client === "wrk") {
        const r = await Promise.all([
          phase !== "predict"
            ? runWrk({ port, connections: evConns, seconds, requests: bodies, countAccepted: true })
            : undefined,
          phase !== "events"
            ? runWrk({ port, connections: pConns, seconds, requests: queries })
            : undefined,
        ]);
        runs = r.map((x) => (x === undefined ? undefined : fromWrk(x)));
        wrkCpu = r.reduce((a, x) => a + (x?.cpuSeconds ?? 0), 0);
      } else {
        runs = await Promise.all([
          phase !== "predict" ? drive(port, evConns, until, nextEvents, countAccepted) : undefined,
          phase !== "events" ? drive(port, pConns, until, nextQuery) : undefined,
        ]);
      }
      const dt = (performance.now() - t0) / 1000;
      const cpu = {
        server: cpuSecondsOf(svc.pid) - s0,
        client: cpuSecondsOf(Deno.pid) - c0 + wrkCpu,
      };
      const load: [number, number] = [la0, loadAverage()];
      const l1 = await learned();
      let lEventually = l1;
      if (runs[0] !== undefined && runs[0].accepted > 0) {
        for (let w = 0; w < 100 && lEventually === l0; w++) {
          await new Promise((r) => setTimeout(r, 100));
          lEventually = await learned();
        }
      }
      const out: { events?: LoadStats; predict?: LoadStats } = {};
      if (runs[0] !== undefined) {
        out.events = {
          ...stats(runs[0], evConns, dt, cpu, load),
          eventsAccepted: runs[0].accepted,
          eventsLearned: l1 - l0,
          eventsLearnedEventually: lEventually - l0,
          eventsLearnedPerSecond: (l1 - l0) / dt,
          eventsLearnedPerServerCpuSecond: cpu.server > 0 ? (l1 - l0) / cpu.server : null,
        };
      }
      if (runs[1] !== undefined) out.predict = stats(runs[1], pConns, dt, cpu, load);
      report[phase] = out;
    }
    const m = await getJson(`${svc.url}/metrics`, TOKEN);
    const all = Object.values(report).flatMap((p) => [p.events, p.predict]).filter((s) =>
      s !== undefined
    ) as LoadStats[];
    const evRate = report.events?.events?.eventsLearnedPerSecond;
    const p99 = report.predict?.predict?.p99Ms;
    return {
      check: "load",
      dataset,
      model: String(m.model),
      phases: report,
      targets: { eventsLearnedPerSecond: 20000, predictP99Ms: 5, zero5xx: true },
      meetsEventsTarget: evRate === undefined ? null : evRate >= 20000,
      meetsPredictTarget: p99 === undefined ? null : p99 <= 5,
      zero5xx: all.every((s) => s.status5xx === 0),
      rssBytes: (m.memory as { rssBytes: number }).rssBytes,
      deno: Deno.version.deno,
      client,
      predictForm: form,
      learnerThread: !(options.serveArgs ?? []).includes("--same-thread"),
      predictRequestBytes: queries.reduce((a, q) => a + q.length, 0) / queries.length,
      cpus: navigator.hardwareConcurrency,
    };
  } finally {
    if (svc !== undefined) await svc.stop();
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
}
