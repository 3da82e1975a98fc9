/**
 * Batch (transductive) CoEmbed on synthetic low-rank data: feature masks are honoured, the
 * objective decreases, and both the recovered labels and the inductive predictor beat chance by
 * a wide margin; the reconstruction of masked entries beats mean imputation.
 */
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { macroAucOf, maskedCsr, synthetic } from "./helpers.ts";

Deno.test("fitCoEmbed ignores the values of unobserved entries (a missing value is absent)", () => {
  const s = synthetic(60, 10, 4, 1);
  const m = maskedCsr(s, 0, 60, 0.5, 0.3, 2);
  // Same observed entries, but the CSR also carries garbage at unobserved positions.
  const xi: number[] = [], xv: number[] = [], xp = [0];
  for (let i = 0; i < 60; i++) {
    for (let d = 0; d < s.D; d++) {
      xi.push(d);
      xv.push(m.mask[i * s.D + d] ? s.x[i * s.D + d] : 1000 + d);
    }
    xp.push(xi.length);
  }
  const noisy = {
    numRows: 60,
    numCols: s.D,
    indptr: Int32Array.from(xp),
    indices: Int32Array.from(xi),
    values: Float32Array.from(xv),
  };
  const opts = { variant: "NL" as const, numRff: 30, seed: 3 };
  const a = fitCoEmbed({ x: m.x, y: m.y, observed: m.observed }, opts, { epochs: 3 });
  const b = fitCoEmbed({ x: noisy, y: m.y, observed: m.observed }, opts, { epochs: 3 });
  // "absent = missing" with only the observed entries listed is the same as the explicit mask.
  const c = fitCoEmbed({ x: m.x, y: m.y }, { ...opts, absent: "missing" }, { epochs: 3 });
  const sa = a.transductiveScores(), sb = b.transductiveScores(), sc = c.transductiveScores();
  for (let i = 0; i < sa.length; i++) {
    if (sa[i] !== sb[i]) throw new Error(`entry ${i}: ${sa[i]} vs ${sb[i]} (mask ignored)`);
    if (sa[i] !== sc[i]) throw new Error(`entry ${i}: ${sa[i]} vs ${sc[i]} (absent=missing)`);
  }
  // Whereas treating absent entries as observed zeros gives a different model.
  const z = fitCoEmbed({ x: m.x, y: m.y }, { ...opts, absent: "zero" }, { epochs: 3 });
  const sz = z.transductiveScores();
  if (sz.every((v, i) => v === sa[i])) throw new Error("absent=zero gave the masked model");
});

for (const variant of ["L", "NL"] as const) {
  Deno.test(`fitCoEmbed ${variant} recovers weak labels and missing features`, () => {
    const s = synthetic(400, 16, 5, 11);
    const nTrain = 320;
    const m = maskedCsr(s, 0, nTrain, 0.4, 0.5, 12);
    const objectives: number[] = [];
    const fit = fitCoEmbed(
      { x: m.x, y: m.y, observed: m.observed },
      { variant, numRff: 100, gamma: 0.2, lambda: 0.3, rankX: 3, seed: 4 },
      { epochs: 12, batchSize: 32, onEpoch: (_e, f) => objectives.push(f.objective()) },
    );
    if (!(objectives[objectives.length - 1] < 0.8 * objectives[0])) {
      throw new Error(`objective did not decrease: ${objectives.map((o) => o.toFixed(1))}`);
    }
    const truth = s.y.subarray(0, nTrain * s.L);
    const trans = macroAucOf(fit.transductiveScores(), truth, nTrain, s.L);
    if (!(trans > 0.8)) throw new Error(`transductive macro-AUC ${trans}`);
    // Inductive: held-out rows with full features.
    const nTest = s.N - nTrain, scores = new Float32Array(nTest * s.L);
    const all = Int32Array.from({ length: s.D }, (_, d) => d);
    const p = fit.predictor();
    for (let i = 0; i < nTest; i++) {
      const r = nTrain + i;
      const x = Float32Array.from(s.x.subarray(r * s.D, (r + 1) * s.D));
      scores.set(p.scores(all, x), i * s.L);
    }
    const ind = macroAucOf(scores, s.y.subarray(nTrain * s.L), nTest, s.L);
    if (!(ind > 0.8)) throw new Error(`inductive macro-AUC ${ind}`);
    // Reconstruction of the masked entries vs the mean of each feature's observed entries.
    const xh = fit.reconstructedFeatures();
    let errModel = 0, errMean = 0;
    const mean = new Float64Array(s.D), cnt = new Float64Array(s.D);
    for (let i = 0; i < nTrain; i++) {
      for (let d = 0; d < s.D; d++) {
        if (m.mask[i * s.D + d]) {
          mean[d] += s.x[i * s.D + d];
          cnt[d]++;
        }
      }
    }
    for (let d = 0; d < s.D; d++) mean[d] /= cnt[d];
    for (let i = 0; i < nTrain; i++) {
      for (let d = 0; d < s.D; d++) {
        if (m.mask[i * s.D + d]) continue;
        errModel += (xh[i * s.D + d] - s.x[i * s.D + d]) ** 2;
        errMean += (mean[d] - s.x[i * s.D + d]) ** 2;
      }
    }
    if (!(errModel < 0.5 * errMean)) {
      throw new Error(`reconstruction error ${errModel} vs mean imputation ${errMean}`);
    }
  });
}
