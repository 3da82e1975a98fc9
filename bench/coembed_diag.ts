/**
 * Diagnostic (development aid): one masked yeast/scene split on a tuning seed, per-epoch
 * objective and inductive macro-AUC of the CoEmbed fit, to study convergence.
 *
 *   deno run --allow-all bench/coembed_diag.ts --dataset yeast --variant NL --epochs 30
 *
 * @module
 */
import { parseArgs } from "node:util";
import { concatRows, loadDataset } from "../src/data/dataset.ts";
import { resolveDataDir } from "../src/data/data_dir.ts";
import { Rng } from "../src/random/mod.ts";
import { fitCoEmbed } from "../src/models/coembed/fit.ts";
import { RandomFeaturesPredictor } from "../src/models/coembed/predictor.ts";
import { macroAuc } from "./repro/experiments/coembed.ts";

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      dataset: { type: "string", default: "yeast" },
      variant: { type: "string", default: "NL" },
      epochs: { type: "string", default: "30" },
      tau: { type: "string", default: "0.5" },
      seed: { type: "string", default: "99" },
      config: { type: "string", default: "{}" },
      every: { type: "string", default: "5" },
      standardize: { type: "boolean", default: false },
      keep: { type: "string", default: "0.4" },
      gamma: { type: "string", default: "0.5" },
    },
  });
  const dir = resolveDataDir();
  const ds = concatRows(
    await loadDataset(dir, values.dataset!, "train"),
    await loadDataset(dir, values.dataset!, "test"),
  );
  const N = ds.x.numRows, D = ds.numFeatures, L = ds.numLabels;
  const X = new Float64Array(N * D), Y = new Uint8Array(N * L);
  for (let i = 0; i < N; i++) {
    for (let p = ds.x.indptr[i]; p < ds.x.indptr[i + 1]; p++) {
      X[i * D + ds.x.indices[p]] = ds.x.values[p];
    }
    for (let p = ds.y.indptr[i]; p < ds.y.indptr[i + 1]; p++) Y[i * L + ds.y.indices[p]] = 1;
  }
  const rng = new Rng(Number(values.seed));
  if (values.standardize) {
    for (let d = 0; d < D; d++) {
      let m = 0, q = 0;
      for (let i = 0; i < N; i++) m += X[i * D + d];
      m /= N;
      for (let i = 0; i < N; i++) q += (X[i * D + d] - m) ** 2;
      const sd = Math.sqrt(q / N) || 1;
      for (let i = 0; i < N; i++) X[i * D + d] = (X[i * D + d] - m) / sd;
    }
  }
  const perm = new Int32Array(N).map((_, i) => i);
  rng.shuffle(perm);
  const nT = Math.round(0.8 * N);
  const tr = perm.slice(0, nT).sort(), te = perm.slice(nT).sort();
  const tau = Number(values.tau);
  const xi: number[] = [], xv: number[] = [], yi: number[] = [];
  const xp = [0], yp = [0];
  for (const r of tr) {
    for (let d = 0; d < D; d++) {
      if (rng.next() < Number(values.keep)) {
        xi.push(d);
        xv.push(X[r * D + d]);
      }
    }
    xp.push(xi.length);
    for (let j = 0; j < L; j++) if (Y[r * L + j] && rng.next() >= tau) yi.push(j);
    yp.push(yi.length);
  }
  const x = {
    numRows: nT,
    numCols: D,
    indptr: Int32Array.from(xp),
    indices: Int32Array.from(xi),
    values: Float32Array.from(xv),
  };
  const y = { numRows: nT, numCols: L, indptr: Int32Array.from(yp), indices: Int32Array.from(yi) };
  const teTruth = new Uint8Array(te.length * L);
  te.forEach((r, i) => teTruth.set(Y.subarray(r * L, r * L + L), i * L));
  const trTruth = new Uint8Array(tr.length * L);
  tr.forEach((r, i) => trTruth.set(Y.subarray(r * L, r * L + L), i * L));
  const all = new Int32Array(D).map((_, d) => d);
  const evalFit = (fit: ReturnType<typeof fitCoEmbed>, input: "raw" | "projected") => {
    const t = { ...fit.core.predictorTensors(), input };
    const p = new RandomFeaturesPredictor(t);
    const s = new Float32Array(te.length * L), o = new Float32Array(L), v = new Float32Array(D);
    te.forEach((r, i) => {
      for (let d = 0; d < D; d++) v[d] = X[r * D + d];
      p.scores(all, v, o);
      s.set(o, i * L);
    });
    return macroAuc(s, teTruth, te.length, L);
  };
  const every = Number(values.every);
  const t0 = performance.now();
  fitCoEmbed({ x, y, observed: { ...y, numCols: D, indptr: x.indptr, indices: x.indices } }, {
    variant: values.variant,
    gamma: Number(values.gamma),
    ...JSON.parse(values.config!),
  }, {
    epochs: Number(values.epochs),
    onEpoch: (e, fit) => {
      if ((e + 1) % every !== 0) return;
      const ts = fit.transductiveScores();
      console.log(JSON.stringify({
        epoch: e + 1,
        sec: ((performance.now() - t0) / 1000).toFixed(1),
        objective: fit.objective().toFixed(1),
        indProjected: evalFit(fit, "projected").toFixed(4),
        indRaw: evalFit(fit, "raw").toFixed(4),
        trans: macroAuc(ts, trTruth, tr.length, L).toFixed(4),
      }));
    },
  });
}
