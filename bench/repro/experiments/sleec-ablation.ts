/**
 * `deno task repro sleec-ablation --dataset delicious [--variants a,b,...] [--extra JSON]
 * [--k-grid 5,10,...] [--valid-fraction 0.2] [--learners T] [--euclidean]`: why batch SLEEC lands where it does, measured on a
 * VALIDATION split of the training file only (the test file is never read).
 *
 * The split is deterministic: the LAST `--valid-fraction` (default 20%) of the training file's
 * rows are the validation rows, the others the fit rows ({@linkcode lastRowsSplit}). Every
 * variant ({@linkcode ABLATIONS}, or `--extra '{"name": {"what": "...", "config": {...}}}'`)
 * changes the `reference` configuration (the one `repro sleec-curve` validated on delicious:
 * one cluster, n̄ = 250, the other {@linkcode SleecConfig} defaults) and is fit once on the fit
 * rows; the k of the kNN prediction (`--k-grid`, default 5,10,15,20,30,50,70,100) and the
 * weighting (similarity-weighted and counted votes) only change prediction, so each fit is scored
 * for every pair. A variant with `numLearners` T > 1 is also scored with its first t learners,
 * t = 1..T (the learner curve on validation). `--learners T` sets T for every variant but `reference`. Variants
 * that differ only in prediction options (k, weighting, `votePower`) share one fit
 * (`reusedFit: true`).
 *
 * `--euclidean` also scores, for variants with one cluster per learner, the kNN rule of the
 * SLEEC authors' released code ({@linkcode EuclideanKnn}: Euclidean distances between the
 * unnormalised embeddings, counted votes), which the `knn-embedding` file cannot express; those
 * grid points carry `euclidean: true` and never count as `best`.
 *
 * Every flag and every variant's configuration is checked before the data is read: an unknown
 * variant (the `--extra` ones may be named in `--variants`), a setting the trainer refuses,
 * `--euclidean` other than true or false, or `--learners` when only `reference` runs.
 *
 * Prints one JSON line per variant as it goes (`best`: the (k, weighting, learners) with the
 * highest mean of P@1, P@3 and P@5; `grid`: every scored point; `fitSeconds`; the i8 and
 * float32 `knn-embedding` model-file bytes), then the usual single result object whose
 * `extra.rows` holds every line.
 *
 * @module
 */
import { type Dataset, labelCounts, loadDataset } from "../../../src/data/dataset.ts";
import type { CsrMatrix, SparseVector } from "../../../src/data/types.ts";
import { preprocessRows } from "../../../src/data/preprocess.ts";
import { embedRow } from "../../../src/models/sleec/learner.ts";
import { subsetRows } from "../../../src/data/dataset_subsets.ts";
import { propensities as propensitiesOf } from "../../../src/metrics/propensity.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";
import {
  resolveConfig,
  type SleecConfig,
  SleecModel,
  trainSleec,
} from "../../../src/models/sleec/mod.ts";
import type { Experiment, ExperimentFlags, ExperimentResult } from "../types.ts";
import { intList, jsonObjectFlag, namingFlags, numberFlag } from "../harness.ts";

/**
 * One ablation: overrides of the reference configuration.
 *
 * @example
 * ```ts
 * import type { SleecAblation } from "./sleec-ablation.ts";
 * const a: SleecAblation = { what: "n̄ = 500", config: { svpNeighbours: 500 } };
 * console.log(a.config.svpNeighbours); // 500
 * ```
 */
export interface SleecAblation {
  /** What the variant changes, in words. */
  what: string;
  /** Overrides of {@linkcode REFERENCE}. */
  config: Partial<SleecConfig>;
}

/**
 * The reference configuration: what `repro sleec-curve` validated on delicious (C = 1,
 * n̄ = 250) over the {@linkcode SleecConfig} defaults.
 *
 * @example
 * ```ts
 * import { REFERENCE } from "./sleec-ablation.ts";
 * console.log(REFERENCE.svpNeighbours); // 250
 * ```
 */
export const REFERENCE: Readonly<Partial<SleecConfig>> = Object.freeze({
  numClusters: 1,
  svpNeighbours: 250,
});

/**
 * The ensemble the `sleec-curve` test run chose (C = 6, 4 learners; with the reference's
 * n̄ = 250): the base of the `ens*` variants. `--learners T` overrides the learner count of
 * every variant.
 *
 * @example
 * ```ts
 * import { ENSEMBLE } from "./sleec-ablation.ts";
 * console.log(ENSEMBLE.numClusters, ENSEMBLE.numLearners); // 6 4
 * ```
 */
export const ENSEMBLE: Readonly<Partial<SleecConfig>> = Object.freeze({
  numClusters: 6,
  numLearners: 4,
});

/**
 * The named variants (`reference` is always run first).
 *
 * @example
 * ```ts
 * import { ABLATIONS } from "./sleec-ablation.ts";
 * console.log(ABLATIONS.reference.what); // "as repro sleec-curve validated it"
 * ```
 */
export const ABLATIONS: Readonly<Record<string, SleecAblation>> = Object.freeze({
  reference: { what: "as repro sleec-curve validated it", config: {} },
  svp30: { what: "30 SVP iterations (3x)", config: { svpIterations: 30 } },
  svp100: { what: "100 SVP iterations (10x)", config: { svpIterations: 100 } },
  nbar100: { what: "n̄ = 100", config: { svpNeighbours: 100 } },
  nbar500: { what: "n̄ = 500", config: { svpNeighbours: 500 } },
  rank50: { what: "embedding dimension 50", config: { rank: 50 } },
  rank150: { what: "embedding dimension 150", config: { rank: 150 } },
  lambda01: { what: "λ = 0.1", config: { lambda: 0.1 } },
  lambda10: { what: "λ = 10", config: { lambda: 10 } },
  mu0: { what: "μ = 0 (no L1 on XV)", config: { mu: 0 } },
  mu01: { what: "μ = 0.01", config: { mu: 0.01 } },
  admm20: { what: "20 ADMM iterations, 50 CG", config: { admmIterations: 20, cgIterations: 50 } },
  rawOmega: { what: "raw label overlaps in Ω (the paper)", config: { normalizeLabels: false } },
  padOmega: {
    what: "Ω padded to n̄ with points sharing no label (the paper)",
    config: { padNeighbourhoods: true },
  },
  c2: { what: "2 clusters", config: { numClusters: 2 } },
  c6x8: { what: "6 clusters, 8 learners", config: { numClusters: 6, numLearners: 8 } },
  ens: { what: "ensemble: 6 clusters, 4 learners", config: ENSEMBLE },
  ensPow2: { what: "ensemble, weights sim^2", config: { ...ENSEMBLE, votePower: 2 } },
  ensPow4: { what: "ensemble, weights sim^4", config: { ...ENSEMBLE, votePower: 4 } },
  ensPow8: { what: "ensemble, weights sim^8", config: { ...ENSEMBLE, votePower: 8 } },
  ensPow16: { what: "ensemble, weights sim^16", config: { ...ENSEMBLE, votePower: 16 } },
  ensTfidf: {
    what: "ensemble, tf-idf features",
    config: { ...ENSEMBLE, featureWeighting: "tfidf" },
  },
  ensRows63: {
    what: "ensemble, each learner on 63.2% of the rows",
    config: { ...ENSEMBLE, rowFraction: 0.632 },
  },
  ensFeat50: {
    what: "ensemble, each learner on half the features",
    config: { ...ENSEMBLE, featureFraction: 0.5 },
  },
});

/** Options that only change prediction: variants differing only in them share one fit. */
const PREDICTION_KEYS: readonly string[] = [
  "k",
  "weighted",
  "votePower",
];

/** The training-relevant part of a configuration, as a key of the fit cache. */
function fitKey(cfg: Partial<SleecConfig>): string {
  const entries = Object.entries(cfg).filter(([k]) => !PREDICTION_KEYS.includes(k));
  return JSON.stringify(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * `model` with the vote rule of `cfg` (`votePower`, default 1); shares all arrays.
 *
 * @example
 * ```ts
 * import { withRule } from "./sleec-ablation.ts";
 * import { trainSleec } from "../../../src/models/sleec/mod.ts";
 * const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) };
 * const y = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
 * console.log(withRule(trainSleec(x, y, { rank: 1 }), { votePower: 2 }).knn.votePower); // 2
 * ```
 */
export function withRule(model: SleecModel, cfg: Partial<SleecConfig>): SleecModel {
  const { votePower: _, ...knn } = model.knn;
  const power = cfg.votePower ?? 1;
  return new SleecModel(power === 1 ? knn : { ...knn, votePower: power }, model.idf);
}

/**
 * The last `fraction` of `train`'s rows (file order) as validation rows, the rest as fit rows.
 *
 * @throws {RangeError} when `fraction` is not in (0, 1) or either part would be empty.
 *
 * @example
 * ```ts
 * import { lastRowsSplit } from "./sleec-ablation.ts";
 * const ds = {
 *   name: "t", numFeatures: 1, numLabels: 1,
 *   x: { numRows: 5, numCols: 1, indptr: Int32Array.of(0, 1, 2, 3, 4, 5), indices: new Int32Array(5), values: Float32Array.of(1, 2, 3, 4, 5) },
 *   y: { numRows: 5, numCols: 1, indptr: new Int32Array(6), indices: new Int32Array(0) },
 * };
 * const { fit, valid } = lastRowsSplit(ds, 0.2);
 * console.log(fit.x.numRows, Array.from(valid.x.values)); // 4 [ 5 ]
 * ```
 */
export function lastRowsSplit(train: Dataset, fraction = 0.2): { fit: Dataset; valid: Dataset } {
  if (!(fraction > 0 && fraction < 1)) {
    throw new RangeError(`lastRowsSplit: fraction must be in (0, 1), got ${fraction}`);
  }
  const n = train.x.numRows;
  const nValid = Math.round(n * fraction);
  if (nValid < 1 || nValid >= n) {
    throw new RangeError(`lastRowsSplit: ${n} rows cannot give ${fraction} validation rows`);
  }
  const cut = n - nValid;
  const range = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, i) => a + i);
  return { fit: subsetRows(train, range(0, cut)), valid: subsetRows(train, range(cut, n)) };
}

/**
 * The first `t` learners of an ensemble, as a model of its own.
 *
 * @example
 * ```ts
 * import { firstLearners } from "./sleec-ablation.ts";
 * import { trainSleec } from "../../../src/models/sleec/mod.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const y = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) };
 * console.log(firstLearners(trainSleec(x, y, { rank: 2, numLearners: 3 }), 2).knn.numLearners); // 2
 * ```
 */
export function firstLearners(model: SleecModel, t: number): SleecModel {
  const knn = model.knn;
  return new SleecModel({
    ...knn,
    numLearners: t,
    clusters: knn.clusters.filter((c) => c.learner < t),
  }, model.idf);
}

/**
 * A diagnostic scorer the `knn-embedding` file cannot express: the kNN rule of the SLEEC
 * authors' released code (Euclidean distance between the UNNORMALISED embeddings XV, each of
 * the k nearest points voting 1 for each of its labels, summed over learners, then divided by
 * k × learners). Only for models whose learners have one cluster each, trained on `fitX` (the
 * raw training rows; they are L2-normalised here as `trainSleec` does).
 *
 * @throws {RangeError} when a learner has more than one cluster or `fitX` does not match.
 *
 * @example
 * ```ts
 * import { EuclideanKnn } from "./sleec-ablation.ts";
 * import { trainSleec } from "../../../src/models/sleec/mod.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const y = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) };
 * const e = new EuclideanKnn(trainSleec(x, y, { rank: 2 }), x, 1);
 * console.log(Array.from(e.predictScores({ indices: Int32Array.of(1), values: Float32Array.of(2) }))); // [ 0, 1 ]
 * ```
 */
export class EuclideanKnn {
  readonly #model: SleecModel;
  readonly #k: number;
  readonly #points: Float64Array[] = [];
  readonly #norms: Float64Array[] = [];
  readonly #z: Float64Array;
  readonly #idx: Int32Array;
  readonly #dist: Float64Array;
  readonly #acc: Float64Array;

  constructor(model: SleecModel, fitX: CsrMatrix, k: number) {
    const knn = model.knn, r = knn.rank;
    this.#model = model;
    this.#k = k;
    const xn = preprocessRows(fitX, { l2Normalize: true });
    const z = new Float64Array(r);
    for (let t = 0; t < knn.numLearners; t++) {
      const cs = knn.clusters.filter((c) => c.learner === t);
      if (cs.length !== 1 || cs[0].numPoints !== xn.numRows) {
        throw new RangeError(
          `EuclideanKnn: learner ${t} needs exactly one cluster of all ${xn.numRows} rows`,
        );
      }
      const pts = new Float64Array(xn.numRows * r), norms = new Float64Array(xn.numRows);
      for (let i = 0; i < xn.numRows; i++) {
        embedRow(xn.indices, xn.values, xn.indptr[i], xn.indptr[i + 1], cs[0].v, r, z);
        let s = 0;
        for (let a = 0; a < r; a++) {
          pts[i * r + a] = z[a];
          s += z[a] * z[a];
        }
        norms[i] = s;
      }
      this.#points.push(pts);
      this.#norms.push(norms);
    }
    this.#z = new Float64Array(r);
    this.#idx = new Int32Array(k);
    this.#dist = new Float64Array(k);
    this.#acc = new Float64Array(knn.numLabels);
  }

  /** Vote shares of every label (in [0, 1]). */
  predictScores(x: SparseVector, out = new Float32Array(this.#model.numLabels)): Float32Array {
    const knn = this.#model.knn, r = knn.rank, z = this.#z, acc = this.#acc;
    let ss = 0;
    for (let e = 0; e < x.values.length; e++) ss += x.values[e] * x.values[e];
    const inv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
    acc.fill(0);
    let votes = 0;
    for (let t = 0; t < knn.numLearners; t++) {
      const c = knn.clusters.find((q) => q.learner === t)!;
      embedRow(x.indices, x.values, 0, x.indices.length, c.v, r, z);
      for (let a = 0; a < r; a++) z[a] *= inv;
      const pts = this.#points[t], norms = this.#norms[t], n = norms.length;
      const k = Math.min(this.#k, n), idx = this.#idx, dist = this.#dist;
      let m = 0;
      for (let i = 0; i < n; i++) {
        let dot = 0;
        const o = i * r;
        for (let a = 0; a < r; a++) dot += pts[o + a] * z[a];
        const d = norms[i] - 2 * dot; // ‖p − z‖² − ‖z‖²
        if (m === k && !(d < dist[m - 1])) continue;
        let p = m < k ? m++ : m - 1;
        while (p > 0 && dist[p - 1] > d) {
          dist[p] = dist[p - 1];
          idx[p] = idx[p - 1];
          p--;
        }
        dist[p] = d;
        idx[p] = i;
      }
      for (let q = 0; q < m; q++) {
        for (const l of c.labels[idx[q]]) acc[l] += 1;
      }
      votes += m;
    }
    for (let l = 0; l < acc.length; l++) out[l] = votes > 0 ? acc[l] / votes : 0;
    return out;
  }
}

/** Parses `--extra` into named variants. */
function extraVariants(flags: Record<string, string | boolean>): Record<string, SleecAblation> {
  const parsed = jsonObjectFlag(
    flags,
    "extra",
    "sleec-ablation",
    "an object of {what, config} variants",
  );
  const out: Record<string, SleecAblation> = {};
  for (const [name, a] of Object.entries(parsed)) {
    const cfg = (a as { config?: unknown })?.config;
    if (typeof cfg !== "object" || cfg === null || Array.isArray(cfg)) {
      throw new TypeError(`sleec-ablation: --extra variant '${name}' needs a config object`);
    }
    out[name] = { what: String((a as { what?: unknown }).what ?? name), config: cfg };
  }
  return out;
}

const r2 = (v: number) => Math.round(v * 100) / 100;

const sleecAblation: Experiment = async (ctx): Promise<ExperimentResult> => {
  const f = ctx.flags;
  // every flag and variant is checked before the data is read and the first fit: they were
  // found out at their turn, after the fits before them
  const validFraction = numberFlag(f, "valid-fraction") ?? 0.2;
  if (!(validFraction > 0 && validFraction < 1)) {
    throw new RangeError(
      `sleec-ablation: --valid-fraction must be in (0, 1), got ${validFraction}`,
    );
  }
  const euclidean = f.euclidean === true ? "true" : f.euclidean;
  if (euclidean !== undefined && euclidean !== "true" && euclidean !== "false") {
    // any other word was read as false
    throw new TypeError(`sleec-ablation: --euclidean must be true or false, got '${euclidean}'`);
  }
  const extra = extraVariants(f);
  const all: Record<string, SleecAblation> = { ...ABLATIONS, ...extra };
  const named = f.variants === undefined
    ? Object.keys(ABLATIONS)
    : String(f.variants).split(",").map((s) => s.trim()).filter((s) => s.length > 0);
  for (const n of named) {
    // an --extra variant may be named too (it was refused as unknown)
    if (!Object.hasOwn(all, n)) {
      throw new TypeError(
        `sleec-ablation: unknown variant '${n}' (known: ${Object.keys(all).join(", ")})`,
      );
    }
  }
  const order = [...new Set(["reference", ...named, ...Object.keys(extra)])];
  const kGrid = intList(f["k-grid"], [5, 10, 15, 20, 30, 50, 70, 100], "k-grid");
  const learners = numberFlag(f, "learners");
  if (learners !== undefined && order.length === 1) {
    throw new TypeError(
      "sleec-ablation: --learners sets the learners of every variant but reference, the only " +
        "one run here: name others with --variants or --extra",
    );
  }
  for (const name of order) {
    const cfg: Partial<SleecConfig> = { seed: ctx.seed, ...REFERENCE, ...all[name].config };
    if (learners !== undefined && name !== "reference") cfg.numLearners = learners;
    // the trainer's checks: --learners names its flag, a variant's own config its variant
    const optionFlags: Record<string, string> = learners !== undefined && name !== "reference"
      ? { numLearners: "learners" }
      : {};
    try {
      namingFlags(f, optionFlags, () => resolveConfig(cfg as Record<string, unknown>));
    } catch (e) {
      if (!(e instanceof TypeError || e instanceof RangeError)) throw e;
      if (e.message.startsWith("--")) throw e;
      const Err = e instanceof RangeError ? RangeError : TypeError;
      throw new Err(`sleec-ablation: variant '${name}': ${e.message}`, { cause: e });
    }
  }
  const train = await loadDataset(ctx.dataDir, ctx.dataset, "train");
  const { fit, valid } = lastRowsSplit(train, validFraction);
  // propensities from the fit rows' label counts (A = 0.55, B = 1.5), as repro's harness does
  const propensities = propensitiesOf(labelCounts(fit.y), Math.max(1, fit.x.numRows), 0.55, 1.5);
  const rows: Record<string, unknown>[] = [];
  const fits = new Map<string, { model: SleecModel; fitSeconds: number }>();
  let fitTotal = 0;
  ctx.progress.start(order.length, "variants");
  for (const name of order) {
    const v = all[name];
    const cfg: Partial<SleecConfig> = { seed: ctx.seed, ...REFERENCE, ...v.config };
    if (learners !== undefined && name !== "reference") cfg.numLearners = learners;
    const key = fitKey(cfg);
    let cached = fits.get(key);
    const reused = cached !== undefined;
    if (cached === undefined) {
      const t0 = performance.now();
      const trained = trainSleec(fit.x, fit.y, cfg);
      cached = { model: trained, fitSeconds: (performance.now() - t0) / 1000 };
      fitTotal += cached.fitSeconds;
      fits.set(key, cached);
    }
    const model = withRule(cached.model, cfg);
    const fitSeconds = cached.fitSeconds;
    const T = model.knn.numLearners;
    const grid: Record<string, number | boolean>[] = [];
    let best: Record<string, number | boolean> | undefined;
    for (let t = 1; t <= T; t++) {
      const m = firstLearners(model, t);
      for (const k of kGrid) {
        for (const weighted of [true, false]) {
          const r = evaluateModel(m.withPrediction(k, weighted), valid, {
            propensities,
            macroAuc: false,
            timingRows: 0,
          }).metrics;
          const p = {
            learners: t,
            k,
            weighted,
            "P@1": r2(r["P@1"]),
            "P@3": r2(r["P@3"]),
            "P@5": r2(r["P@5"]),
            mean: r2((r["P@1"] + r["P@3"] + r["P@5"]) / 3),
          };
          grid.push(p);
          if (best === undefined || p.mean > (best.mean as number)) best = p;
        }
      }
    }
    if (euclidean === "true") {
      if (model.knn.clusters.length === T) {
        for (const k of kGrid) {
          const r = evaluateModel(new EuclideanKnn(model, fit.x, k), valid, {
            propensities,
            macroAuc: false,
            timingRows: 0,
          }).metrics;
          grid.push({
            learners: T,
            k,
            weighted: false,
            euclidean: true,
            "P@1": r2(r["P@1"]),
            "P@3": r2(r["P@3"]),
            "P@5": r2(r["P@5"]),
            mean: r2((r["P@1"] + r["P@3"] + r["P@5"]) / 3),
          });
        }
      }
    }
    const row = {
      variant: name,
      what: v.what,
      config: v.config,
      fitRows: fit.x.numRows,
      validRows: valid.x.numRows,
      fitSeconds: r2(fitSeconds),
      reusedFit: reused,
      modelBytes: model.toModelFile().byteLength,
      modelBytesI8: model.toModelFile({ quantize: "i8" }).byteLength,
      best,
      grid,
    };
    console.log(JSON.stringify(row));
    rows.push(row);
    ctx.progress.tick(1, { fitSeconds: r2(fitTotal) });
  }
  ctx.progress.done();
  const ref = rows[0].best as Record<string, number>;
  return {
    metrics: { "P@1": ref["P@1"], "P@3": ref["P@3"], "P@5": ref["P@5"] },
    trainSeconds: fitTotal,
    predictMsPerRow: 0,
    modelBytes: rows[0].modelBytes as number,
    extra: {
      split: `last ${valid.x.numRows} of the training file's ${train.x.numRows} rows are ` +
        "validation rows (test file unread)",
      selection: "mean of P@1,P@3,P@5 on the validation rows",
      rows,
    },
  };
};

/**
 * The flags `repro sleec-ablation` accepts besides `--dataset`, `--data-dir` and `--seed` (the
 * runner refuses any other); it reads only `<dataset>.train.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./sleec-ablation.ts";
 * console.log(FLAGS.flags.includes("valid-fraction")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: ["valid-fraction", "extra", "variants", "k-grid", "learners", "euclidean"],
};

export default sleecAblation;
