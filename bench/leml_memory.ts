/**
 * Peak-RSS check of a streaming LEML pass: `deno run -A bench/leml_memory.ts [--rows 2000000]
 * [--batch 256] [--replay 2000] [--replay-steps 2]` generates a seeded stream (5000 features, 200 labels, ~20 non-zeros and ~3
 * labels per row) batch by batch, never holding more than one batch, trains the streaming
 * estimator on it (with bounded experience replay: a reservoir of at most `--replay` rows, each
 * minibatch learned in `--replay-steps` steps on the new rows plus as many replayed ones;
 * `--replay 0` turns it off) and prints one JSON line with, at checkpoints (every 10% of the rows), the
 * current RSS and the process's peak RSS so far, in MB of 10⁶ bytes (`VmHWM` of
 * /proc/self/status, Linux; null elsewhere). Both should stay flat after the first checkpoint:
 * the model and its scratch do not grow with the number of rows seen, and the reservoir stops
 * growing at `--replay` rows. Bad flags ({@linkcode LEML_MEMORY}) are one line on stderr and exit
 * code 2.
 *
 * @module
 */
import { countFlag } from "../src/cli/commands/args.ts";
import { LemlStream } from "../src/models/leml/mod.ts";
import { Rng } from "../src/random/mod.ts";
import type { Batch } from "../src/data/types.ts";
import { type BenchScript, runBench } from "./args.ts";

/** Peak resident set size of this process in MB of 10⁶ bytes (Linux; /proc's kB), or null. */
function peakRssMB(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"));
    return m ? Math.round(Number(m[1]) * 1024 / 1e5) / 10 : null;
  } catch {
    return null;
  }
}

/** The options of bench/leml_memory.ts. */
export interface LemlMemoryOptions {
  rows: number;
  batch: number;
  replay: number;
  replaySteps: number;
}

/**
 * The command line of bench/leml_memory.ts: counts in plain decimal (`2e6` too) within their
 * limits, checked before the stream starts.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { LEML_MEMORY } from "./leml_memory.ts";
 * console.log(await benchOptions(LEML_MEMORY, ["--rows", "1e4", "--replay", "0"])); // { rows: 10000, batch: 256, replay: 0, replaySteps: 2 }
 * await benchOptions(LEML_MEMORY, ["--batch", "0x10"]).catch((e) => console.log(e.message)); // --batch must be an integer in [1, 65536], got '0x10'
 * ```
 */
export const LEML_MEMORY: BenchScript<LemlMemoryOptions> = {
  task: "bench/leml_memory.ts",
  usage: `deno run -A bench/leml_memory.ts [--rows 2000000 (1-1e12)] [--batch 256 (1-65536)]
  [--replay 2000 (0: off; 0-1e9)] [--replay-steps 2 (1-65536)]
Current and peak RSS of a streaming LEML pass over a seeded synthetic stream; one JSON line.`,
  flags: { rows: "string", batch: "string", replay: "string", "replay-steps": "string" },
  options: (f) => ({
    rows: countFlag(f, "rows", 2_000_000, 1, 1e12)!,
    batch: countFlag(f, "batch", 256, 1, 1 << 16)!,
    replay: countFlag(f, "replay", 2000, 0, 1e9)!,
    replaySteps: countFlag(f, "replay-steps", 2, 1, 1 << 16)!,
  }),
};

if (import.meta.main) await runBench(LEML_MEMORY, main);

function main({ rows, batch: bs, replay, replaySteps }: LemlMemoryOptions): void {
  const D = 5000, L = 200, rng = new Rng(1);
  const xi = new Int32Array(bs * 40), xv = new Float32Array(bs * 40).fill(1);
  const yi = new Int32Array(bs * 8), xp = new Int32Array(bs + 1), yp = new Int32Array(bs + 1);
  const seen = new Uint8Array(D);

  function nextBatch(n: number): Batch {
    let px = 0, py = 0;
    for (let i = 0; i < n; i++) {
      const topic = rng.nextInt(20);
      const start = px;
      for (let t = 0; t < 20; t++) {
        const j = (topic * 250 + rng.nextInt(250) + (t < 4 ? 0 : rng.nextInt(D))) % D;
        if (!seen[j]) {
          seen[j] = 1;
          xi[px++] = j;
        }
      }
      for (let p = start; p < px; p++) seen[xi[p]] = 0;
      xi.subarray(start, px).sort();
      xp[i + 1] = px;
      const l0 = topic * 10;
      const cnt = 1 + rng.nextInt(5);
      for (let c = 0; c < cnt; c++) yi[py + c] = l0 + c;
      py += cnt;
      yp[i + 1] = py;
    }
    return {
      x: {
        numRows: n,
        numCols: D,
        indptr: xp.subarray(0, n + 1),
        indices: xi.subarray(0, px),
        values: xv.subarray(0, px),
      },
      y: { numRows: n, numCols: L, indptr: yp.subarray(0, n + 1), indices: yi.subarray(0, py) },
    };
  }

  const model = new LemlStream({ rank: 16, lr: 0.002, seed: 0, replay, replaySteps });
  const checkpoints: {
    rows: number;
    rssMB: number;
    peakRssMB: number | null;
    replayRows: number;
    seconds: number;
  }[] = [];
  const t0 = performance.now();
  const every = Math.max(bs, Math.floor(rows / 10));
  let done = 0, next = every;
  const mb = () => Math.round(Deno.memoryUsage().rss / 1e5) / 10;
  checkpoints.push({ rows: 0, rssMB: mb(), peakRssMB: peakRssMB(), replayRows: 0, seconds: 0 });
  while (done < rows) {
    const n = Math.min(bs, rows - done);
    model.learnMany(nextBatch(n));
    done += n;
    if (done >= next || done === rows) {
      checkpoints.push({
        rows: done,
        rssMB: mb(),
        peakRssMB: peakRssMB(),
        replayRows: model.replayRows,
        seconds: (performance.now() - t0) / 1000,
      });
      next += every;
    }
  }
  const rss = checkpoints.map((c) => c.rssMB);
  const peaks = checkpoints.map((c) => c.peakRssMB ?? 0);
  console.log(JSON.stringify({
    bench: "leml_memory",
    rows,
    batch: bs,
    rank: 16,
    replay,
    replaySteps,
    numFeatures: D,
    numLabels: L,
    checkpoints,
    rssGrowthAfterFirstCheckpointMB: Math.round((Math.max(...rss.slice(1)) - rss[1]) * 10) / 10,
    peakRssGrowthAfterFirstCheckpointMB: Math.round((peaks[peaks.length - 1] - peaks[1]) * 10) / 10,
  }));
}
