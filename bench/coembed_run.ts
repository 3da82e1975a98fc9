/**
 * Runs the `coembed` repro experiment directly (same JSON as `deno task repro coembed`), and
 * optionally a grid over variants and τ:
 *
 *   deno run --allow-all bench/coembed_run.ts --dataset yeast [--variant L|NL|all]
 *     [--tau 0.3|0.5|0.8|all] [--repeats N] [--seed S] [--data-dir DIR] [other experiment flags]
 *
 * Prints one JSON object per (variant, τ) on its own line.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { resolveDataDir } from "../src/data/data_dir.ts";
import { Progress } from "../src/progress/mod.ts";
import experiment from "./repro/experiments/coembed.ts";

if (import.meta.main) {
  const strings = [
    "dataset",
    "data-dir",
    "seed",
    "variant",
    "tau",
    "repeats",
    "epochs",
    "batch",
    "gamma",
    "lambda",
    "lambdaX",
    "lambdaS",
    "lambdaE",
    "alpha",
    "lr",
    "rowLr",
    "rff",
    "rank",
    "rowSteps",
    "globalSteps",
    "foldInSteps",
    "warmStart",
    "consolidateEpochs",
    "streamBatch",
    "streamSteps",
    "replayRatio",
    "replay",
    "replayPerStep",
    "streamRowSteps",
    "transLambda",
    "init",
    "input",
  ];
  const options: Record<string, { type: "string" | "boolean" }> = {};
  for (const s of strings) options[s] = { type: "string" };
  for (const b of ["no-stream", "no-transductive", "no-baseline", "tune"]) {
    options[b] = { type: "boolean" };
  }
  const { values } = parseArgs({ args: Deno.args, options, allowPositionals: false });
  const flags: Record<string, string | boolean> = {};
  for (const [k, v] of Object.entries(values)) {
    if (v !== undefined) flags[k] = v as string | boolean;
  }
  const dataset = String(flags.dataset ?? "yeast");
  const dataDir = resolveDataDir(
    typeof flags["data-dir"] === "string" ? flags["data-dir"] : undefined,
  );
  const seed = Number(flags.seed ?? 0);
  const variants = flags.variant === "all" ? ["L", "NL"] : [String(flags.variant ?? "NL")];
  const taus = flags.tau === "all" ? ["0.3", "0.5", "0.8"] : [String(flags.tau ?? "0.5")];
  for (const key of ["dataset", "data-dir", "seed"]) delete flags[key];
  for (const variant of variants) {
    for (const tau of taus) {
      const t0 = performance.now();
      const r = await experiment({
        dataset,
        dataDir,
        seed,
        flags: { ...flags, variant, tau },
        progress: new Progress({ silent: true }),
      });
      console.log(JSON.stringify({
        experiment: "coembed",
        dataset,
        metrics: r.metrics,
        trainSeconds: r.trainSeconds,
        predictMsPerRow: r.predictMsPerRow,
        modelBytes: r.modelBytes,
        ...r.extra,
        perRepeat: undefined,
        wallSeconds: (performance.now() - t0) / 1000,
      }));
    }
  }
}
