/**
 * `deno task repro sleec-pool --dataset delicious --members a,b,... [--combos JSON]
 * [--k-grid 30,50] [--vote-power 8] [--config JSON] [--valid-fraction 0.2]`: a pool of ensemble
 * members (specs in ../sleec_pool_members.ts: SLEEC learners with any cluster count and seed,
 * label-aware clusterings, principal-subspace, LEML-metric and raw-cosine members) fitted once on
 * the first 80% of the TRAINING file; every combination is then scored on the last 20% (the test
 * file is never read) by the `knn-embedding` rule: per member the k nearest fit rows, weighted
 * max(0, sim)^π and normalised, the members' label distributions averaged, top-5 ties to the
 * smaller label. A member is trained once and a combination costs a pass over the stored
 * neighbours, so many ensembles are compared at the cost of their distinct members.
 *
 * Prints one JSON line per member (alone) and per combination (`--combos '{"name": ["spec",
 * ...]}'`; by default the members alone and all of them together), each with P@1/3/5 and their
 * mean for every k. `--config` sets the SLEEC options of every member (n̄, rank, …; default n̄ =
 * 250 as `sleec-ablation`). `--seed` other than 0 is refused: the seeds are in the member specs.
 * Every member spec is checked before the first member is fitted.
 *
 * @module
 */
import { loadDataset } from "../../../src/data/dataset.ts";
import { preprocessRows } from "../../../src/data/preprocess.ts";
import { labelLists } from "../../../src/models/sleec/batch.ts";
import type { SleecConfig } from "../../../src/models/sleec/config.ts";
import { topKDense } from "../../../sdk/internal.ts";
import { PrecisionAtK } from "../../../src/metrics/precision.ts";
import { voteWeights } from "../../../src/models/sleec/predictor.ts";
import { intList, jsonObjectFlag, numberFlag } from "../harness.ts";
import { buildMember, checkMembers, nearestRows, type Neighbours } from "../sleec_pool_members.ts";
import type { Experiment, ExperimentFlags, ExperimentResult } from "../types.ts";
import { lastRowsSplit } from "./sleec-ablation.ts";

/**
 * P@1, P@3 and P@5 (percent) of the members' averaged votes: per member the first `k` neighbours
 * of each query row weigh max(0, sim)^power, normalised to sum 1 (1/k each when they sum to 0).
 *
 * @example
 * ```ts
 * import { poolPrecision } from "./sleec-pool.ts";
 * const n = { K: 2, rows: Int32Array.of(0, 1), sims: Float32Array.of(0.9, 0.1) };
 * const fitLabels = [Int32Array.of(2), Int32Array.of(0, 1)];
 * console.log(poolPrecision([n], fitLabels, [Int32Array.of(2)], 3, 2, 1)["P@1"]); // 100
 * ```
 */
export function poolPrecision(
  members: readonly Neighbours[],
  fitLabels: readonly Int32Array[],
  truth: readonly Int32Array[],
  numLabels: number,
  k: number,
  power: number,
): { "P@1": number; "P@3": number; "P@5": number } {
  const acc = new Float64Array(numLabels), w = new Float64Array(k);
  const precision = new PrecisionAtK([1, 3, 5]);
  for (let i = 0; i < truth.length; i++) {
    acc.fill(0);
    for (const m of members) {
      const kk = Math.min(k, m.K);
      let count = 0;
      while (count < kk && m.rows[i * m.K + count] >= 0) {
        w[count] = m.sims[i * m.K + count];
        count++;
      }
      const sum = voteWeights(w, count, true, power);
      for (let q = 0; q < count; q++) {
        for (const l of fitLabels[m.rows[i * m.K + q]]) acc[l] += w[q] / sum;
      }
    }
    precision.add(topKDense(acc, Math.min(5, numLabels)).labels, truth[i]);
  }
  const p = precision.result();
  return { "P@1": p["P@1"], "P@3": p["P@3"], "P@5": p["P@5"] };
}

const r2 = (v: number) => Math.round(v * 100) / 100;

const sleecPool: Experiment = async (ctx): Promise<ExperimentResult> => {
  const f = ctx.flags;
  if (ctx.seed !== 0) {
    // nothing here draws from --seed: the JSON would report a seed the run never used
    throw new TypeError(
      `sleec-pool: --seed is not read (got ${ctx.seed}): a SLEEC member's seed is part of its ` +
        `spec (sleec:C:SEED) and the other members are deterministic`,
    );
  }
  if (f.members === undefined || f.members === true) {
    throw new TypeError("sleec-pool: --members needs a comma-separated list of member specs");
  }
  const specs = [...new Set(String(f.members).split(",").map((s) => s.trim()).filter(Boolean))];
  // every spec now, not when its turn comes after the members before it were fitted
  checkMembers(specs, "sleec-pool");
  const combos: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(jsonObjectFlag(f, "combos", "sleec-pool"))) {
    if (!Array.isArray(list) || list.length === 0 || list.some((s) => !specs.includes(s))) {
      throw new TypeError(
        `sleec-pool: --combos '${name}' must list members given in --members (${specs.join(",")})`,
      );
    }
    combos[name] = list as string[];
  }
  if (Object.keys(combos).length === 0 && specs.length > 1) combos.all = specs;
  const kGrid = intList(f["k-grid"], [30, 50], "k-grid");
  const power = numberFlag(f, "vote-power") ?? 8;
  if (!(Number.isInteger(power) && power >= 1)) {
    throw new RangeError(`sleec-pool: --vote-power must be a positive integer, got ${power}`);
  }
  const config: Partial<SleecConfig> = {
    svpNeighbours: 250,
    ...jsonObjectFlag(f, "config", "sleec-pool", "an object of SLEEC options"),
  };
  const validFraction = numberFlag(f, "valid-fraction") ?? 0.2;
  if (!(validFraction > 0 && validFraction < 1)) {
    throw new RangeError(`sleec-pool: --valid-fraction must be in (0, 1), got ${validFraction}`);
  }
  const train = await loadDataset(ctx.dataDir, ctx.dataset, "train");
  checkMembers(specs, "sleec-pool", train.x.numCols);
  const { fit, valid } = lastRowsSplit(train, validFraction);
  const xn = preprocessRows(fit.x, { l2Normalize: true });
  const qn = preprocessRows(valid.x, { l2Normalize: true });
  const fitLabels = labelLists(fit.y), truth = labelLists(valid.y), L = fit.y.numCols;
  const K = Math.max(...kGrid);
  const pool = new Map<string, Neighbours>();
  const seconds: Record<string, number> = {};
  ctx.progress.start(specs.length, "members");
  for (const spec of specs) {
    const t0 = performance.now();
    pool.set(spec, nearestRows(buildMember(spec, xn, fit.y, fitLabels, config), qn, K));
    seconds[spec] = r2((performance.now() - t0) / 1000);
    ctx.progress.tick(1);
  }
  ctx.progress.done();
  const rows: Record<string, unknown>[] = [];
  const score = (name: string, list: string[]) => {
    const byK = kGrid.map((k) => {
      const p = poolPrecision(list.map((s) => pool.get(s)!), fitLabels, truth, L, k, power);
      return {
        k,
        "P@1": r2(p["P@1"]),
        "P@3": r2(p["P@3"]),
        "P@5": r2(p["P@5"]),
        mean: r2((p["P@1"] + p["P@3"] + p["P@5"]) / 3),
      };
    });
    const best = byK.reduce((a, b) => b.mean > a.mean ? b : a);
    const row = {
      combo: name,
      members: list,
      best,
      byK,
      ...(list.length === 1 ? { fitSeconds: seconds[list[0]] } : {}),
    };
    console.log(JSON.stringify(row));
    rows.push(row);
  };
  for (const spec of specs) score(spec, [spec]);
  for (const [name, list] of Object.entries(combos)) score(name, list);
  const top = rows.reduce((a, b) =>
    (b.best as { mean: number }).mean > (a.best as { mean: number }).mean ? b : a
  );
  const tb = top.best as Record<string, number>;
  return {
    metrics: { "P@1": tb["P@1"], "P@3": tb["P@3"], "P@5": tb["P@5"] },
    trainSeconds: Object.values(seconds).reduce((a, b) => a + b, 0),
    predictMsPerRow: 0,
    modelBytes: 0,
    extra: {
      split: `last ${valid.x.numRows} of the training file's ${train.x.numRows} rows are ` +
        "validation rows (test file unread)",
      votePower: power,
      config,
      bestCombo: top.combo,
      rows,
    },
  };
};

/**
 * The flags `repro sleec-pool` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner
 * refuses any other); it reads only `<dataset>.train.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./sleec-pool.ts";
 * console.log(FLAGS.flags.includes("members")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: ["members", "combos", "k-grid", "vote-power", "config", "valid-fraction"],
};

export default sleecPool;
