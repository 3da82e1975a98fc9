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
 * Target: ColEmbed-NL on yeast < 10 s.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { concatRows, loadDataset } from "../src/data/dataset.ts";
import { resolveDataDir } from "../src/data/data_dir.ts";
import { Rng } from "../src/random/mod.ts";
import { fitCoEmbed } from "../src/models/coembed/fit.ts";
import { TUNED } from "./repro/experiments/coembed.ts";

/** CPU seconds (user + system) of this process so far, or NaN off Linux. */
function cpuSeconds(): number {
  try {
    const f = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      dataset: { type: "string", default: "yeast" },
      variant: { type: "string", default: "NL" },
      epochs: { type: "string" },
      repeats: { type: "string", default: "3" },
      "data-dir": { type: "string" },
    },
  });
  const dir = resolveDataDir(values["data-dir"]);
  const ds = concatRows(
    await loadDataset(dir, values.dataset!, "train"),
    await loadDataset(dir, values.dataset!, "test"),
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
  const epochs = Number(values.epochs ?? TUNED[values.dataset!]?.epochs ?? 30);
  const seconds: number[] = [], cpu: number[] = [];
  for (let r = 0; r < Number(values.repeats); r++) {
    const t0 = performance.now(), c0 = cpuSeconds();
    fitCoEmbed({ x, y, observed }, { variant: values.variant, seed: r }, { epochs });
    seconds.push((performance.now() - t0) / 1000);
    cpu.push(Math.round((cpuSeconds() - c0) * 100) / 100);
  }
  console.log(JSON.stringify({
    bench: "coembed_speed",
    dataset: values.dataset,
    variant: values.variant,
    rows: N,
    features: D,
    epochs,
    seconds,
    meanSeconds: seconds.reduce((a, b) => a + b, 0) / seconds.length,
    cpuSeconds: cpu,
    note: "wall-clock on a shared 2-core machine; single-threaded",
  }));
}
