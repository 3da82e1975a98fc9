/**
 * Speed of one CoEmbed fit (the paper's run-time test, section 5.4: transductive setting, all
 * rows, 60% of the feature entries masked, τ = 0.8), with the experiment's settings for the
 * dataset (`TUNED` of bench/repro/experiments/coembed.ts: 10 epochs on yeast, 30 on scene):
 *
 *   deno run --allow-all bench/coembed_speed.ts [--dataset yeast] [--variant NL] [--epochs N]
 *     [--repeats 3] [--data-dir DIR]
 *
 * Prints one JSON line with the fit times: wall-clock seconds and, on Linux, the CPU seconds the
 * process spent (user + system, from /proc/self/stat), which a busy machine inflates much less.
 * Target: ColEmbed-NL on yeast < 10 s. Bad flags ({@linkcode COEMBED_SPEED}) are one line on
 * stderr and exit code 2, before the data is read.
 *
 * @module
 */
import { countFlag, stringFlag } from "../src/cli/commands/args.ts";
import { concatRows, loadDataset } from "../src/data/dataset.ts";
import { Rng } from "../src/random/mod.ts";
import { fitCoEmbed } from "../src/models/coembed/fit.ts";
import { TUNED } from "./repro/experiments/coembed.ts";
import { type BenchScript, checkXcDatasets, choiceFlag, runBench } from "./args.ts";

/** CPU seconds (user + system) of this process so far, or NaN off Linux. */
function cpuSeconds(): number {
  try {
    const f = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** The options of bench/coembed_speed.ts. */
export interface CoEmbedSpeedOptions {
  dataDir: string;
  dataset: string;
  variant: "L" | "NL";
  epochs: number;
  repeats: number;
}

/**
 * The command line of bench/coembed_speed.ts, every flag checked before the data is read:
 * counts in plain decimal within their limits, the variant L or NL, the dataset's training and
 * test files there.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { COEMBED_SPEED } from "./coembed_speed.ts";
 * await benchOptions(COEMBED_SPEED, ["--variant", "nl"]).catch((e) => console.log(e.message)); // --variant must be L or NL, got 'nl'
 * await benchOptions(COEMBED_SPEED, ["--repeats", "0"]).catch((e) => console.log(e.message)); // --repeats must be an integer in [1, 1000], got '0'
 * ```
 */
export const COEMBED_SPEED: BenchScript<CoEmbedSpeedOptions> = {
  task: "bench/coembed_speed.ts",
  usage: `deno run -A bench/coembed_speed.ts [--dataset yeast] [--variant NL|L]
  [--epochs N (default: the experiment's for the dataset, else 30; 1-100000)]
  [--repeats 3 (1-1000)] [--data-dir DIR]
Seconds of one CoEmbed fit (transductive, 60% of the feature entries masked); one JSON line.`,
  flags: {
    dataset: "string",
    variant: "string",
    epochs: "string",
    repeats: "string",
    "data-dir": "string",
  },
  async options(f) {
    const dataset = stringFlag(f, "dataset", "yeast")!;
    const variant = choiceFlag(f, "variant", "NL", ["NL", "L"]);
    const epochs = countFlag(f, "epochs", TUNED[dataset]?.epochs ?? 30, 1, 100_000)!;
    const repeats = countFlag(f, "repeats", 3, 1, 1000)!;
    // the data directory last: every other flag is checked without it
    const dataDir = await checkXcDatasets(f, [dataset], true);
    return { dataDir, dataset, variant, epochs, repeats };
  },
};

if (import.meta.main) await runBench(COEMBED_SPEED, main);

async function main(o: CoEmbedSpeedOptions): Promise<void> {
  const ds = concatRows(
    await loadDataset(o.dataDir, o.dataset, "train"),
    await loadDataset(o.dataDir, o.dataset, "test"),
  );
  const N = ds.x.numRows, D = ds.numFeatures;
  const rng = new Rng(0);
  const dense = new Float64Array(N * D);
  for (let i = 0; i < N; i++) {
    for (let p = ds.x.indptr[i]; p < ds.x.indptr[i + 1]; p++) {
      dense[i * D + ds.x.indices[p]] = ds.x.values[p];
    }
  }
  const xi: number[] = [], xv: number[] = [], xp = [0], yi: number[] = [], yp = [0];
  for (let i = 0; i < N; i++) {
    for (let d = 0; d < D; d++) {
      if (rng.next() < 0.4) {
        xi.push(d);
        xv.push(dense[i * D + d]);
      }
    }
    xp.push(xi.length);
    for (let p = ds.y.indptr[i]; p < ds.y.indptr[i + 1]; p++) {
      if (rng.next() >= 0.8) yi.push(ds.y.indices[p]);
    }
    yp.push(yi.length);
  }
  const x = {
    numRows: N,
    numCols: D,
    indptr: Int32Array.from(xp),
    indices: Int32Array.from(xi),
    values: Float32Array.from(xv),
  };
  const y = {
    numRows: N,
    numCols: ds.numLabels,
    indptr: Int32Array.from(yp),
    indices: Int32Array.from(yi),
  };
  const observed = { numRows: N, numCols: D, indptr: x.indptr, indices: x.indices };
  const epochs = o.epochs;
  const seconds: number[] = [], cpu: number[] = [];
  for (let r = 0; r < o.repeats; r++) {
    const t0 = performance.now(), c0 = cpuSeconds();
    fitCoEmbed({ x, y, observed }, { variant: o.variant, seed: r }, { epochs });
    seconds.push((performance.now() - t0) / 1000);
    cpu.push(Math.round((cpuSeconds() - c0) * 100) / 100);
  }
  console.log(JSON.stringify({
    bench: "coembed_speed",
    dataset: o.dataset,
    variant: o.variant,
    rows: N,
    features: D,
    epochs,
    seconds,
    meanSeconds: seconds.reduce((a, b) => a + b, 0) / seconds.length,
    cpuSeconds: cpu,
    note: "wall-clock on a shared 2-core machine; single-threaded",
  }));
}
