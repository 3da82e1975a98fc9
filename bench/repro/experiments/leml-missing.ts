/**
 * `deno task repro leml-missing --dataset bibtex [--fraction 0.2] [--lambda 10]
 * [--iterations 5]`: the LEML paper's Table 4 protocol. A seeded 20% of all (row, label)
 * training entries, positives and negatives alike, are revealed; batch LEML (squared loss,
 * k = 0.4·L, Algorithm 1 on the observed entries only) is trained on them; the test set has full
 * labels. Reports P@1/3/5, `hamming` (threshold 0.5 on the 0/1 squared-loss scores) and
 * `instanceAUC`.
 *
 * `br` is the paper's BR column of Table 4: per label an L2-regularised least-squares regressor
 * (with an unregularised bias) fitted on the rows where that label is observed only, i.e. the
 * minimiser of the same objective with a full-rank Frobenius-regularised Z (λ = `--br-lambda`,
 * default the LEML λ; solved per label by CG to a relative residual of 1e-6), with the same
 * threshold 0.5. `paper` holds the Table 4 figures (bibtex only) next to ours.
 *
 * @module
 */
import type { Experiment, ExperimentFlags } from "../types.ts";
import { loadTrainTest, numberFlag, PROPENSITY_FLAGS, timeSeconds } from "../harness.ts";
import { LemlBatch, revealEntries } from "../../../src/models/leml/mod.ts";
import { evaluateModel } from "../../../src/metrics/evaluate.ts";
import { conjugateGradient } from "../../../src/linalg/cg.ts";
import type { BinaryCsr, CsrMatrix, SparseVector } from "../../../src/data/types.ts";

/** The LEML paper's Table 4 (20% of entries observed, k = 0.4·L, squared loss). */
const TABLE4: Record<
  string,
  Record<string, { "P@3": number; hamming: number; instanceAUC: number }>
> = {
  bibtex: {
    LEML: { "P@3": 28.5, hamming: 0.0136, instanceAUC: 0.8332 },
    BCS: { "P@3": 23.84, hamming: 0.2496, instanceAUC: 0.7871 },
    BR: { "P@3": 25.78, hamming: 0.0193, instanceAUC: 0.8087 },
  },
};

/**
 * BR with missing labels: for each label l, argmin_z,b ½Σ_{i∈Ω_l}(x_iᵀz + b − y_il)² + λ/2‖z‖²
 * over the rows Ω_l where l is observed (a revealed 1 or a revealed 0). Returns a scorer whose
 * scores are x·z_l + b_l − 0.5 (threshold 0.5 of the 0/1 targets, so Hamming counts scores > 0).
 */
function trainMissingBr(
  x: CsrMatrix,
  y: BinaryCsr,
  observed: BinaryCsr,
  lambda: number,
): { predictScores(v: SparseVector, out?: Float32Array): Float32Array; weights: number } {
  const n = x.numRows, D = x.numCols, L = y.numCols;
  // rows of each label's observed entries, with their targets
  const cnt = new Int32Array(L + 1);
  for (let p = 0; p < observed.indptr[n]; p++) cnt[observed.indices[p] + 1]++;
  for (let l = 0; l < L; l++) cnt[l + 1] += cnt[l];
  const fill = cnt.slice(0, L), rowsOf = new Int32Array(cnt[L]), target = new Uint8Array(cnt[L]);
  for (let i = 0; i < n; i++) {
    let q = y.indptr[i];
    for (let p = observed.indptr[i]; p < observed.indptr[i + 1]; p++) {
      const l = observed.indices[p];
      while (q < y.indptr[i + 1] && y.indices[q] < l) q++;
      const e = fill[l]++;
      rowsOf[e] = i;
      target[e] = q < y.indptr[i + 1] && y.indices[q] === l ? 1 : 0;
    }
  }
  const W = new Float32Array(D * L), bias = new Float32Array(L);
  const theta = new Float64Array(D + 1), rhs = new Float64Array(D + 1);
  for (let l = 0; l < L; l++) {
    const e0 = cnt[l], e1 = cnt[l + 1];
    rhs.fill(0);
    for (let e = e0; e < e1; e++) {
      if (target[e] === 0) continue;
      const i = rowsOf[e];
      for (let p = x.indptr[i]; p < x.indptr[i + 1]; p++) rhs[x.indices[p]] += x.values[p];
      rhs[D] += 1;
    }
    theta.fill(0);
    conjugateGradient(
      (s, out) => {
        for (let j = 0; j < D; j++) out[j] = lambda * s[j];
        out[D] = 1e-9 * s[D];
        for (let e = e0; e < e1; e++) {
          const i = rowsOf[e];
          let z = s[D];
          for (let p = x.indptr[i]; p < x.indptr[i + 1]; p++) z += x.values[p] * s[x.indices[p]];
          for (let p = x.indptr[i]; p < x.indptr[i + 1]; p++) out[x.indices[p]] += x.values[p] * z;
          out[D] += z;
        }
      },
      rhs,
      theta,
      { maxIterations: 500, tolerance: 1e-6 },
    );
    for (let j = 0; j < D; j++) W[j * L + l] = theta[j];
    bias[l] = theta[D];
  }
  return {
    weights: D * L,
    predictScores(v: SparseVector, out = new Float32Array(L)): Float32Array {
      for (let l = 0; l < L; l++) out[l] = bias[l] - 0.5;
      for (let p = 0; p < v.indices.length; p++) {
        const j = v.indices[p];
        if (j < 0 || j >= D) continue;
        const a = v.values[p], b = j * L;
        for (let l = 0; l < L; l++) out[l] += a * W[b + l];
      }
      return out;
    },
  };
}

/** The three Table 4 figures of an evaluation. */
function table4Figures(m: Record<string, number>) {
  return { "P@3": m["P@3"], hamming: m.hamming, instanceAUC: m.instanceAUC };
}

const lemlMissing: Experiment = async (ctx) => {
  // every flag is checked before the data is read and anything is trained (a bare `--fraction`
  // has no value: numberFlag refuses it rather than reading it as 1)
  const fraction = numberFlag(ctx.flags, "fraction", 0.2);
  const lambda = numberFlag(ctx.flags, "lambda", 10);
  const iterations = numberFlag(ctx.flags, "iterations", 5);
  if (
    !(fraction > 0 && fraction <= 1) || !(lambda >= 0) ||
    !(Number.isInteger(iterations) && iterations >= 1)
  ) {
    throw new TypeError(
      "--fraction must be in (0, 1], --lambda >= 0, --iterations an integer >= 1, got " +
        `${fraction}, ${lambda}, ${iterations}`,
    );
  }
  const brLambda = numberFlag(ctx.flags, "br-lambda", lambda);
  if (!(brLambda > 0)) {
    throw new TypeError(`--br-lambda must be > 0 (it defaults to --lambda), got ${brLambda}`);
  }
  const { train, test, propensities, labelNames } = await loadTrainTest(ctx);
  const rank = Math.max(1, Math.round(0.4 * train.numLabels));
  const { observed, y } = revealEntries(train.y, fraction, ctx.seed + 1);
  const { result: model, seconds } = await timeSeconds(() =>
    LemlBatch.fit(train.x, y, {
      rank,
      lambda,
      iterations,
      seed: ctx.seed,
      observed,
      fullyObserved: new Uint8Array(train.x.numRows),
    })
  );
  const ev = evaluateModel(model, test, { propensities, progress: ctx.progress });
  const file = model.toModelFile({ labelNames, meta: { dataset: ctx.dataset } });
  const { result: br, seconds: brSeconds } = await timeSeconds(() =>
    trainMissingBr(train.x, y, observed, brLambda)
  );
  const brEv = evaluateModel(br, test, { propensities, macroAuc: false });
  return {
    metrics: ev.metrics,
    stdErr: ev.stdErr,
    trainSeconds: seconds,
    predictMsPerRow: ev.predictMsPerRow,
    modelBytes: file.byteLength,
    extra: {
      rank,
      lambda,
      iterations,
      fraction,
      observedEntries: observed.indices.length,
      observedPositives: y.indices.length,
      threshold: 0.5,
      table4: {
        LEML: table4Figures(ev.metrics),
        BR: {
          ...table4Figures(brEv.metrics),
          "P@1": brEv.metrics["P@1"],
          "P@5": brEv.metrics["P@5"],
          lambda: brLambda,
          trainSeconds: brSeconds,
          weights: br.weights,
        },
        paper: TABLE4[ctx.dataset] ?? null,
      },
    },
  };
};

/**
 * The flags `repro leml-missing` accepts besides `--dataset`, `--data-dir` and `--seed` (the runner
 * refuses any other); it reads `<dataset>.test.txt`.
 *
 * @example
 * ```ts
 * import { FLAGS } from "./leml-missing.ts";
 * console.log(FLAGS.flags.includes("fraction")); // true
 * ```
 */
export const FLAGS: ExperimentFlags = {
  flags: ["fraction", "lambda", "iterations", "br-lambda", ...PROPENSITY_FLAGS],
  test: true,
};

export default lemlMissing;
