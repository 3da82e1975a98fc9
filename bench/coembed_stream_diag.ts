/**
 * Diagnostic (development aid): batch fit vs streaming learner of CoEmbed on one masked split of
 * the coembed experiment's --tune protocol (training file only), per repeat: the inductive
 * macro-AUC on the held-out 20%, the batch objective of each model's globals on the same training
 * rows (divided by their number; rows re-folded with the globals fixed: ridge, then --refold Adam
 * steps), the factor norms, and how far label-driven row steps move U_i from the label-free ridge
 * fold-in the predictor uses (uDrift = mean ‖U_i − u_i‖ / mean ‖u_i‖; gNorm = mean ‖G_i‖: the
 * fit's own rows, or fresh rows after the stream's row steps). Then the mean macro-AUC of each
 * model over the repeats. --batch and --stream take JSON config overrides of the two models.
 *
 *   deno run --allow-all bench/coembed_stream_diag.ts --dataset yeast --variant NL \
 *     --stream '{"replay": 5000}' --passes 1
 *
 * @module
 */
import { parseArgs } from "node:util";
import { loadDataset, rowsOf } from "../src/data/dataset.ts";
import { resolveDataDir } from "../src/data/data_dir.ts";
import { Rng } from "../src/random/mod.ts";
import { blockFromCsr } from "../src/models/coembed/blocks.ts";
import { resolveConfig } from "../src/models/coembed/config.ts";
import type { CoEmbedCore } from "../src/models/coembed/core.ts";
import { CoEmbedFit, fitCoEmbed } from "../src/models/coembed/fit.ts";
import { CoEmbedLearner } from "../src/models/coembed/learner.ts";
import { RandomFeaturesPredictor } from "../src/models/coembed/predictor.ts";
import {
  macroAuc,
  maskRows,
  medianGamma,
  rowsTruth,
  toDense,
  TUNED,
} from "./repro/experiments/coembed.ts";

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      dataset: { type: "string", default: "yeast" },
      variant: { type: "string", default: "NL" },
      tau: { type: "string", default: "0.5" },
      seed: { type: "string", default: "0" },
      repeats: { type: "string", default: "3" },
      "skip-batch": { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      batch: { type: "string", default: "{}" },
      stream: { type: "string", default: "{}" },
      passes: { type: "string", default: "1" },
      consolidate: { type: "string", default: "0" },
      refold: { type: "string", default: "30" },
      epochs: { type: "string" },
      every: { type: "string", default: "0" },
      init: { type: "string", default: "spectral" },
    },
  });
  const ds = values.dataset!;
  const dense = toDense(await loadDataset(resolveDataDir(), ds, "train"));
  const { N, D, L } = dense;
  const sums = new Map<string, number[]>();
  const repeats = Number(values.repeats);
  for (let rep = 0; rep < repeats; rep++) {
    const seed = Number(values.seed) * 1000 + rep;
    const rng = new Rng(seed + 1);
    const perm = new Int32Array(N).map((_, i) => i);
    rng.shuffle(perm);
    const nTrain = Math.round(0.8 * N);
    const trainRows = perm.slice(0, nTrain).sort(), testRows = perm.slice(nTrain).sort();
    const masked = maskRows(dense, trainRows, Number(values.tau), rng);
    const gamma = medianGamma(masked, dense, trainRows, new Rng(seed + 2));
    const tuned = TUNED[ds] ?? {};
    const base = {
      variant: values.variant,
      gamma,
      seed,
      streamSteps: tuned.streamSteps,
      replayRatio: tuned.replayRatio,
    };
    const epochs = Number(values.epochs ?? tuned.epochs ?? 30);
    const truth = rowsTruth(dense, testRows);
    const all = new Int32Array(D).map((_, d) => d);
    const xv = new Float32Array(D);
    const auc = (p: RandomFeaturesPredictor) => {
      const s = new Float32Array(testRows.length * L), o = new Float32Array(L);
      for (let i = 0; i < testRows.length; i++) {
        for (let d = 0; d < D; d++) xv[d] = dense.x[testRows[i] * D + d];
        p.scores(all, xv, o);
        s.set(o, i * L);
      }
      return macroAuc(s, truth, testRows.length, L);
    };
    const block = blockFromCsr(
      masked.data.x,
      masked.data.y,
      D,
      L,
      "zero",
      masked.data.observed,
    );
    const norms = (core: CoEmbedCore) => {
      const n = (a: Float64Array) => Math.sqrt(a.reduce((s, v) => s + v * v, 0));
      return {
        V: +n(core.V).toFixed(2),
        P: +n(core.P).toFixed(2),
        Q: +n(core.Q).toFixed(2),
        H: +n(core.H).toFixed(2),
        b: +n(core.b).toFixed(2),
      };
    };
    // Batch objective per row of some globals: rows re-folded (ridge, then Adam) with them fixed.
    const objective = (core: CoEmbedCore) => {
      const saved = core.step;
      const fit = new CoEmbedFit(core, block);
      core.rowSteps(block, fit.U, fit.G, fit.rowMoments, fit.rowSteps, Number(values.refold));
      core.step = saved;
      return +(fit.objective() / nTrain).toFixed(4);
    };
    // How far the rows' U_i (trained with the label loss) sit from their label-free ridge fold-in
    // u_i (the predictor's input for a new row): mean ‖U_i − u_i‖ / mean ‖u_i‖, and mean ‖G_i‖.
    // `U` given: the fit's own rows; otherwise fresh rows after `steps` Adam steps from u_i.
    const drift = (core: CoEmbedCore, steps: number, U?: Float64Array, G?: Float64Array) => {
      const saved = core.step;
      const ridge = new CoEmbedFit(core, block);
      let Uq = U, Gq = G;
      if (!Uq || !Gq) {
        const f = new CoEmbedFit(core, block);
        core.rowSteps(block, f.U, f.G, f.rowMoments, f.rowSteps, steps);
        Uq = f.U;
        Gq = f.G;
      }
      core.step = saved;
      const kX = core.config.rankX, kE = core.config.rankE;
      let dn = 0, rn = 0, gn = 0;
      for (let i = 0; i < nTrain; i++) {
        let a = 0, b = 0, g = 0;
        for (let k = 0; k < kX; k++) {
          a += (Uq[i * kX + k] - ridge.U[i * kX + k]) ** 2;
          b += ridge.U[i * kX + k] ** 2;
        }
        for (let e = 0; e < kE; e++) g += Gq[i * kE + e] ** 2;
        dn += Math.sqrt(a);
        rn += Math.sqrt(b);
        gn += Math.sqrt(g);
      }
      return { uDrift: +(dn / rn).toFixed(3), gNorm: +(gn / nTrain).toFixed(3) };
    };
    const report = (
      name: string,
      core: CoEmbedCore,
      p: RandomFeaturesPredictor,
      d?: { uDrift: number; gNorm: number },
    ) => {
      const a = auc(p);
      (sums.get(name) ?? sums.set(name, []).get(name)!).push(a);
      if (!values.quiet) {
        console.log(JSON.stringify({
          rep,
          name,
          auc: +a.toFixed(4),
          objective: objective(core),
          norms: norms(core),
          steps: core.step,
          ...d,
        }));
      }
    };

    const batchCfg = resolveConfig({ ...base, ...JSON.parse(values.batch!) });
    const every = Number(values.every);
    const fit = values["skip-batch"] ? undefined : fitCoEmbed(masked.data, batchCfg, {
      epochs,
      init: values.init as "spectral" | "random",
      onEpoch: (e, f) => {
        if (every > 0 && (e + 1) % every === 0 && e + 1 < epochs) {
          report(`batch epoch ${e + 1}`, f.core, f.predictor());
        }
      },
    });
    if (fit) report("batch", fit.core, fit.predictor(), drift(fit.core, 0, fit.U, fit.G));

    const streamCfg = { ...base, absent: "missing", ...JSON.parse(values.stream!) };
    const est = CoEmbedLearner.create(streamCfg, D, L);
    const sb = 64, passes = Number(values.passes);
    for (let pass = 0; pass < passes; pass++) {
      for (let s = 0; s < nTrain; s += sb) {
        est.learnMany(rowsOf(masked.data, s, Math.min(nTrain, s + sb)));
      }
      report(
        `stream pass ${pass + 1}`,
        est.core,
        new RandomFeaturesPredictor(est.core.predictorTensors()),
        drift(
          est.core,
          est.config.foldInSteps + est.config.streamSteps * est.config.streamRowSteps,
        ),
      );
    }
    const ce = Number(values.consolidate);
    if (ce > 0) {
      est.consolidate(ce);
      report(
        `consolidated ${ce}`,
        est.core,
        new RandomFeaturesPredictor(est.core.predictorTensors()),
      );
    }
  }
  for (const [name, v] of sums) {
    console.log(
      JSON.stringify({ name, meanAuc: +(v.reduce((p, q) => p + q, 0) / v.length).toFixed(4) }),
    );
  }
}
