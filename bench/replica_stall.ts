/**
 * Does the serving thread stall while `serve` learns a big model? Starts `tagstream serve
 * --model ova` in a subprocess on 127.0.0.1 (10⁶ features and labels by default), posts
 * synthetic NDJSON events (avgNnz 50, avgLabels 5) from `--senders` concurrent senders in
 * batches of `--batch`, and times a one-row `/predict` every `--predict-ms` (as the operator's
 * walk of session 34 did). Prints one JSON line: the /predict p50/p99/max and the probes over
 * 100 ms and 500 ms, events/s, and the replica's refresh numbers from `/metrics` →
 * `learnerThread` (full rebuilds and deltas, `replicaBuildMs`, slices, the longest slice).
 *
 * ```
 * npx deno run -A bench/replica_stall.ts [--labels 1e6] [--features 1e6] [--events 120000]
 *   [--senders 8] [--batch 500] [--predict-ms 20] [--seconds 150] [--port 0]
 * ```
 *
 * The default run takes about 2-3 minutes on 2 cores (most of it learning).
 *
 * @module
 */
import { countFlag, intFlag } from "../src/cli/commands/args.ts";
import { syntheticExamples } from "../src/data/synthetic.ts";
import { type BenchScript, runBench } from "./args.ts";

/** The options of the stall check. */
export interface ReplicaStallOptions {
  labels: number;
  features: number;
  events: number;
  senders: number;
  batch: number;
  predictMs: number;
  seconds: number;
  port: number;
}

/** The command line of bench/replica_stall.ts. */
export const REPLICA_STALL: BenchScript<ReplicaStallOptions> = {
  task: "replica-stall",
  usage:
    "deno run -A bench/replica_stall.ts [--labels 1e6] [--features 1e6] [--events 120000] [--senders 8] [--batch 500] [--predict-ms 20] [--seconds 150] [--port 0]",
  flags: {
    labels: "string",
    features: "string",
    events: "string",
    senders: "string",
    batch: "string",
    "predict-ms": "string",
    seconds: "string",
    port: "string",
  },
  options: (f) => ({
    labels: countFlag(f, "labels", 1e6, 1, 1e7)!,
    features: countFlag(f, "features", 1e6, 1, 1e7)!,
    events: countFlag(f, "events", 120_000, 1, 1e7)!,
    senders: intFlag(f, "senders", 8, 1, 256)!,
    batch: intFlag(f, "batch", 500, 1, 100_000)!,
    predictMs: intFlag(f, "predict-ms", 20, 1, 10_000)!,
    seconds: intFlag(f, "seconds", 150, 1, 86_400)!,
    port: intFlag(f, "port", 0, 0, 65535)!,
  }),
};

const TOKEN = "bench-token";

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

function eventLines(o: ReplicaStallOptions, rows: number, rowSeed: number, id: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (
    const e of syntheticExamples({
      rows,
      numLabels: o.labels,
      numFeatures: o.features,
      avgNnz: 50,
      avgLabels: 5,
      seed: 1,
      rowSeed,
    })
  ) {
    const f: string[] = [];
    for (let k = 0; k < e.x.indices.length; k++) {
      f.push(`"${e.x.indices[k]}":${+e.x.values[k].toFixed(4)}`);
    }
    const labels = [...e.labels].map((l) => `"L${l}"`).join(",");
    out.push(`{"id":"${id}${i++}","features":{${f.join(",")}},"labels":[${labels}]}`);
  }
  return out;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function main(o: ReplicaStallOptions): Promise<void> {
  const lines = eventLines(o, o.events, 2, "e");
  const probes = eventLines(o, 200, 9, "p").map((l) => {
    const f = JSON.parse(l).features as Record<string, number>;
    const indices = Object.keys(f).map(Number);
    return JSON.stringify({ indices, values: indices.map((k) => f[String(k)]), k: 5 });
  });
  const dir = await Deno.makeTempDir({ prefix: "replica_stall_" });
  const port = o.port || freePort();
  const url = `http://127.0.0.1:${port}`;
  const main = new URL("../src/cli/main.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      main,
      "serve",
      "--model",
      "ova",
      "--port",
      String(port),
      "--state-dir",
      dir,
      "--quiet",
      "--max-features",
      String(o.features),
      "--max-labels",
      String(o.labels),
      "--max-feature-growth",
      String(o.features),
    ],
    env: { TAGSTREAM_TOKEN: TOKEN, NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const H = { authorization: `Bearer ${TOKEN}` };
  try {
    for (let tries = 0;; tries++) {
      try {
        const r = await fetch(`${url}/health`);
        await r.body?.cancel();
        if (r.ok) break;
      } catch { /* not up yet */ }
      if (tries > 600) throw new Error("serve did not start within 60 s");
      await new Promise((r) => setTimeout(r, 100));
    }
    const t0 = performance.now();
    const elapsed = () => (performance.now() - t0) / 1000;
    let next = 0, accepted = 0, stop = false;
    const sender = async () => {
      while (!stop && next < lines.length && elapsed() < o.seconds) {
        const from = next, to = Math.min(lines.length, next + o.batch);
        next = to;
        const r = await fetch(`${url}/events`, {
          method: "POST",
          headers: H,
          body: lines.slice(from, to).join("\n") + "\n",
        });
        const j = await r.json().catch(() => ({}));
        accepted += (j as { accepted?: number }).accepted ?? 0;
      }
    };
    const predictMs: number[] = [];
    let non200 = 0;
    const prober = async () => {
      let i = 0;
      while (!stop) {
        const s = performance.now();
        const r = await fetch(`${url}/predict`, {
          method: "POST",
          headers: { ...H, "content-type": "application/json" },
          body: probes[i++ % probes.length],
        });
        await r.arrayBuffer();
        predictMs.push(performance.now() - s);
        if (r.status !== 200) non200++;
        const wait = o.predictMs - (performance.now() - s);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    };
    // every full rebuild seen by /metrics (once a second): its cost and its longest slice
    const builds: { ms: number; slices?: number; maxSliceMs?: number }[] = [];
    const sampler = async () => {
      let seen = 1;
      while (!stop) {
        await new Promise((r) => setTimeout(r, 1000));
        const lt = (await (await fetch(`${url}/metrics`, { headers: H })).json()).learnerThread;
        if (lt !== undefined && lt.replicas !== seen) {
          seen = lt.replicas;
          builds.push({
            ms: lt.replicaBuildMs,
            slices: lt.replicaSlices,
            maxSliceMs: lt.replicaMaxSliceMs,
          });
        }
      }
    };
    const pr = prober(), sm = sampler();
    await Promise.all(Array.from({ length: o.senders }, sender));
    const sendSec = elapsed();
    stop = true;
    await Promise.all([pr, sm]);
    const m = await (await fetch(`${url}/metrics`, { headers: H })).json();
    const lt = m.learnerThread ?? {};
    console.log(JSON.stringify({
      labels: o.labels,
      features: o.features,
      senders: o.senders,
      batch: o.batch,
      accepted,
      sendSec: +sendSec.toFixed(1),
      eventsPerSec: Math.round(accepted / sendSec),
      predict: {
        n: predictMs.length,
        non200,
        p50: +quantile(predictMs, 0.5).toFixed(2),
        p99: +quantile(predictMs, 0.99).toFixed(2),
        max: +Math.max(...predictMs).toFixed(1),
        over100ms: predictMs.filter((x) => x > 100).length,
        over500ms: predictMs.filter((x) => x > 500).length,
      },
      builds: {
        seen: builds.length,
        msMedian: +quantile(builds.map((b) => b.ms), 0.5).toFixed(1),
        msMax: +Math.max(...builds.map((b) => b.ms)).toFixed(1),
        maxSliceMs: builds[0]?.maxSliceMs === undefined
          ? null
          : +Math.max(...builds.map((b) => b.maxSliceMs!)).toFixed(1),
      },
      replica: {
        replicas: lt.replicas,
        deltas: lt.deltas,
        replicaBuildMs: lt.replicaBuildMs,
        replicaBuildWallMs: lt.replicaBuildWallMs,
        replicaSlices: lt.replicaSlices,
        replicaMaxSliceMs: lt.replicaMaxSliceMs,
        replicasSuperseded: lt.replicasSuperseded,
        deltasTooBig: lt.deltasTooBig,
        deltaApplyMs: lt.deltaApplyMs,
        deltaBytes: lt.deltaBytes,
        resyncs: lt.resyncs,
        snapshotCostMs: lt.snapshotCostMs,
      },
    }));
  } finally {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    const err = await new Response(child.stderr).text();
    await child.status;
    if (err.trim() !== "") console.error(err.trim().split("\n").slice(-5).join("\n"));
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await runBench(REPLICA_STALL, main);
