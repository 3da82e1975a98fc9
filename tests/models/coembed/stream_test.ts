/**
 * The streaming learner (fold-in per minibatch, one pass in row order, missing features absent)
 * learns the same kind of predictor as the batch fit: on synthetic low-rank data its inductive
 * macro-AUC is high and close to the batch run's.
 */
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import { macroAucOf, maskedCsr, synthetic } from "./helpers.ts";

Deno.test("streaming CoEmbed (one pass) comes close to the batch fit", () => {
  const s = synthetic(500, 16, 5, 21);
  const nTrain = 400, nTest = 100;
  const m = maskedCsr(s, 0, nTrain, 0.4, 0.5, 22);
  const opts = { variant: "NL" as const, numRff: 100, gamma: 0.2, rankX: 3, seed: 5 };
  const fit = fitCoEmbed({ x: m.x, y: m.y, observed: m.observed }, opts, {
    epochs: 10,
    batchSize: 32,
  });
  const stream = CoEmbedLearner.create({ ...opts, absent: "missing", globalSteps: 4 }, 0, 0);
  const bs = 20;
  for (let b = 0; b < nTrain; b += bs) {
    const xo = m.x.indptr[b], yo = m.y.indptr[b];
    stream.learnMany({
      x: {
        numRows: bs,
        numCols: s.D,
        indptr: m.x.indptr.slice(b, b + bs + 1).map((p) => p - xo),
        indices: m.x.indices.subarray(xo, m.x.indptr[b + bs]),
        values: m.x.values.subarray(xo, m.x.indptr[b + bs]),
      },
      y: {
        numRows: bs,
        numCols: s.L,
        indptr: m.y.indptr.slice(b, b + bs + 1).map((p) => p - yo),
        indices: m.y.indices.subarray(yo, m.y.indptr[b + bs]),
      },
    });
  }
  if (stream.numFeatures !== s.D || stream.numLabels !== s.L) {
    throw new Error(`stream grew to ${stream.numFeatures} × ${stream.numLabels}`);
  }
  const all = Int32Array.from({ length: s.D }, (_, d) => d);
  const sb = new Float32Array(nTest * s.L), ss = new Float32Array(nTest * s.L);
  const p = fit.predictor();
  for (let i = 0; i < nTest; i++) {
    const r = nTrain + i;
    const x = Float32Array.from(s.x.subarray(r * s.D, (r + 1) * s.D));
    sb.set(p.scores(all, x), i * s.L);
    ss.set(stream.predictScores({ indices: all, values: x }), i * s.L);
  }
  const truth = s.y.subarray(nTrain * s.L);
  const batchAuc = macroAucOf(sb, truth, nTest, s.L), streamAuc = macroAucOf(ss, truth, nTest, s.L);
  if (!(streamAuc > 0.75)) throw new Error(`stream macro-AUC ${streamAuc}`);
  if (!(streamAuc >= batchAuc - 0.05)) {
    throw new Error(`stream macro-AUC ${streamAuc} vs batch ${batchAuc}`);
  }
});
