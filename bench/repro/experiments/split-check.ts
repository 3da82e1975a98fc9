/**
 * `deno task repro split-check --dataset delicious [--members raw,sleec:1:0] [--splits 4]
 * [--k 30] [--vote-power 8] [--config JSON]`: how well the validation splits of the training
 * file predict the test file for nearest-neighbour members (specs of ../sleec_pool_members.ts).
 * Each member is fitted on the fit rows of each split and scored by the `knn-embedding` vote
 * (the `k` nearest fit rows, weighted max(0, sim)^π) on:
 *
 * - `last`: the last 20% of the training file (the split of `sleec-ablation` and `sleec-pool`);
 * - `first`: the first 20%;
 * - `random#s`: `--splits` random 20% subsets (`validationSplit` with the seeds `--seed` + s);
 * - `test`: the test file, with the whole training file as the fit rows.
 *
 * It chooses nothing: no setting is tuned here, so reading the test file is a measurement of the
 * splits, not of a choice. Prints one JSON line per member and split, and per member the spread of
 * the validation means and the test mean's distance to them. Every member spec is checked before
 * the first member is fitted.
 *
 * @module
 */
import { loadDataset } from "../../../src/data/dataset.ts";
import { preprocessRows } from "../../../src/data/preprocess.ts";
import { subsetRows } from "../../../src/data/dataset_subsets.ts";
import type { Dataset } from "../../../src/data/types.ts";
import { labelLists } from "../../../src/models/sleec/batch.ts";
import type { SleecConfig } from "../../../src/models/sleec/config.ts";
import { jsonObjectFlag, numberFlag, validationSplit } from "../harness.ts";
import { buildMember, checkMembers, nearestRows } from "../sleec_pool_members.ts";
import type { Experiment, ExperimentFlags, ExperimentResult } from "../types.ts";
import { lastRowsSplit } from "./sleec-ablation.ts";
import { poolPrecision } from "./sleec-pool.ts";

const r2 = (v: number) => Math.round(v * 100) / 100;

const splitCheck: Experiment = async (ctx): Promise<ExperimentResult> => {
  const f = ctx.flags;
  const specs = f.members === undefined
    ? ["raw"]
    : [...new Set(String(f.members).split(",").map((s) => s.trim()).filter(Boolean))];
  if (f.members === true || specs.length === 0) {
    throw new TypeError("split-check: --members needs a comma-separated list of member specs");
  }
  // every spec now, not when its turn comes after the members before it were fitted
  checkMembers(specs, "split-check");
  const count = numberFlag(f, "splits") ?? 4;
  const k = numberFlag(f, "k") ?? 30;
  const power = numberFlag(f, "vote-power") ?? 8;
  for (
    const [name, v, max] of [["splits", count, 100], ["k", k, 1000], [
      "vote-power",
      power,
      64,
    ]] as const
  ) {
    if (!(Number.isInteger(v) && v >= (name === "splits" ? 0 : 1) && v <= max)) {
      throw new RangeError(
        `split-check: --${name} must be an integer in [${
          name === "splits" ? 0 : 1
        }, ${max}], got ${v}`,
      );
    }
  }
  const config: Partial<SleecConfig> = {
    svpNeighbours: 250,
    ...jsonObjectFlag(f, "config", "split-check", "an object of SLEEC options"),
  };
  const train = await loadDataset(ctx.dataDir, ctx.dataset, "train");
  const test = await loadDataset(ctx.dataDir, ctx.dataset, "test");
  checkMembers(specs, "split-check", train.x.numCols);
  const n = train.x.numRows, nValid = Math.round(n * 0.2);
  const range = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, i) => a + i);
  const splits: { name: string; fit: Dataset; valid: Dataset }[] = [
    { name: "last", ...lastRowsSplit(train, 0.2) },
    {
      name: "first",
      fit: subsetRows(train, range(nValid, n)),
      valid: subsetRows(train, range(0, nValid)),
    },
  ];
  for (let s = 0; s < count; s++) {
    splits.push({ name: `random#${s}`, ...validationSplit(train, 0.2, ctx.seed + s) });
  }
  splits.push({ name: "test", fit: train, valid: test });
  const rows: Record<string, unknown>[] = [];
  const summary: Record<string, unknown> = {};
  const t0 = performance.now();
  ctx.progress.start(specs.length * splits.length, "fits");
  for (const spec of specs) {
    const means: number[] = [];
    let testMean = NaN;
    for (const s of splits) {
      const xn = preprocessRows(s.fit.x, { l2Normalize: true });
      const qn = preprocessRows(s.valid.x, { l2Normalize: true });
      const fitLabels = labelLists(s.fit.y);
      const nb = nearestRows(buildMember(spec, xn, s.fit.y, fitLabels, config), qn, k);
      const p = poolPrecision([nb], fitLabels, labelLists(s.valid.y), train.numLabels, k, power);
      const mean = (p["P@1"] + p["P@3"] + p["P@5"]) / 3;
      const row = {
        member: spec,
        split: s.name,
        rows: s.valid.x.numRows,
        "P@1": r2(p["P@1"]),
        "P@3": r2(p["P@3"]),
        "P@5": r2(p["P@5"]),
        mean: r2(mean),
      };
      console.log(JSON.stringify(row));
      rows.push(row);
      if (s.name === "test") testMean = mean;
      else means.push(mean);
      ctx.progress.tick(1);
    }
    const avg = means.reduce((a, b) => a + b, 0) / means.length;
    const sd = Math.sqrt(
      means.reduce((a, b) => a + (b - avg) ** 2, 0) / Math.max(1, means.length - 1),
    );
    summary[spec] = {
      validationMean: r2(avg),
      validationSd: r2(sd),
      validationMin: r2(Math.min(...means)),
      validationMax: r2(Math.max(...means)),
      test: r2(testMean),
      testMinusValidation: r2(testMean - avg),
    };
  }
  ctx.progress.done();
  const first = rows.find((r) => r.split === "test") as Record<string, number>;
  return {
    metrics: { "P@1": first["P@1"], "P@3": first["P@3"], "P@5": first["P@5"] },
    trainSeconds: r2((performance.now() - t0) / 1000),
    predictMsPerRow: 0,
    modelBytes: 0,
    extra: { k, votePower: power, config, summary, rows },
  };
};

/**
 * The flags `repro split-check` accepts besides `--dataset`, `--data-dir` and `--seed`; it reads
 * `<dataset>.test.txt` (the `test` split).
 *
 * @example
 * ```ts
 * import { FLAGS } from "./split-check.ts";
 * console.log(FLAGS.flags.includes("splits")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: ["members", "splits", "k", "vote-power", "config"],
  test: true,
};

export default splitCheck;
