/**
 * The batch fit's row update (`FitOptions.rowUpdate`): "fold-in" (default) sets a minibatch's
 * U_i to the label-free ridge fit of its observed features and G_i = 0 before each global step,
 * and ends with every row folded in under the final V; "joint" (the paper's Algorithm 1) keeps
 * the row factors and moves them with the labels.
 */
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { CoEmbedCore } from "../../../src/models/coembed/core.ts";
import { resolveConfig } from "../../../src/models/coembed/config.ts";
import { blockFromCsr } from "../../../src/models/coembed/blocks.ts";
import { RandomFeaturesPredictor } from "../../../src/models/coembed/predictor.ts";
import { maskedCsr, synthetic } from "./helpers.ts";

const OPTS = { variant: "NL" as const, numRff: 30, rankX: 3, seed: 5 };

function data() {
  const s = synthetic(80, 8, 3, 21);
  const m = maskedCsr(s, 0, 80, 0.5, 0.3, 22);
  return { s, m, d: { x: m.x, y: m.y, observed: m.observed } };
}

Deno.test("fitCoEmbed fold-in (default): U is the ridge fold-in under the final V, G = 0", () => {
  const { s, m, d } = data();
  const fit = fitCoEmbed(d, OPTS, { epochs: 3, batchSize: 16 });
  if (fit.rowUpdate !== "fold-in") throw new Error(`default row update ${fit.rowUpdate}`);
  if (fit.G.some((g) => g !== 0)) throw new Error("G is not 0 after a fold-in fit");
  if (fit.rowSteps.some((t) => t !== 0)) throw new Error("a fold-in fit took row Adam steps");
  // the same ridge fit, on a core with the fit's final V
  const core = new CoEmbedCore(resolveConfig(OPTS), s.D, s.L);
  core.V.set(fit.core.V);
  const block = blockFromCsr(m.x, m.y, s.D, s.L, "zero", m.observed);
  const U = new Float64Array(fit.U.length);
  core.ridgeFoldInRows(block, U);
  for (let i = 0; i < U.length; i++) {
    if (Math.abs(U[i] - fit.U[i]) > 1e-12) {
      throw new Error(`U[${i}] = ${fit.U[i]}, the fold-in under the final V is ${U[i]}`);
    }
  }
});

Deno.test("fitCoEmbed fold-in: a training row's score is the inductive predictor's score", () => {
  // the classifier is trained on what it is applied to: the transductive score of a training
  // row (E = 0) equals the inductive predictor's score of the row's observed entries alone
  const { m, d } = data();
  const fit = fitCoEmbed(d, OPTS, { epochs: 3, batchSize: 16 });
  const L = m.y.numCols, trans = fit.transductiveScores();
  const p = new RandomFeaturesPredictor({ ...fit.core.predictorTensors(), absent: "missing" });
  for (let i = 0; i < 10; i++) {
    const a = m.x.indptr[i], b = m.x.indptr[i + 1];
    const out = p.scores(m.x.indices.subarray(a, b), m.x.values.subarray(a, b));
    for (let j = 0; j < L; j++) {
      if (Math.abs(out[j] - trans[i * L + j]) > 1e-3) {
        throw new Error(
          `row ${i} label ${j}: inductive ${out[j]}, transductive ${trans[i * L + j]}`,
        );
      }
    }
  }
  // a joint fit's training rows carry their labels in U_i and G_i: the two scores differ
  const joint = fitCoEmbed(d, OPTS, { epochs: 3, batchSize: 16, rowUpdate: "joint" });
  const tj = joint.transductiveScores();
  const pj = new RandomFeaturesPredictor({ ...joint.core.predictorTensors(), absent: "missing" });
  let maxDiff = 0;
  for (let i = 0; i < 10; i++) {
    const a = m.x.indptr[i], b = m.x.indptr[i + 1];
    const out = pj.scores(m.x.indices.subarray(a, b), m.x.values.subarray(a, b));
    for (let j = 0; j < L; j++) maxDiff = Math.max(maxDiff, Math.abs(out[j] - tj[i * L + j]));
  }
  if (!(maxDiff > 1e-3)) throw new Error(`joint fit: scores agree to ${maxDiff}`);
});

Deno.test("fitCoEmbed joint: row factors take label-driven Adam steps and are kept", () => {
  const { d } = data();
  const fit = fitCoEmbed(d, { ...OPTS, rowSteps: 2 }, {
    epochs: 2,
    batchSize: 16,
    rowUpdate: "joint",
  });
  if (fit.rowUpdate !== "joint") throw new Error(`row update ${fit.rowUpdate}`);
  if (!fit.G.some((g) => g !== 0)) throw new Error("G never moved in a joint fit");
  // 2 epochs × 2 row steps per visit, kept across epochs
  if (!fit.rowSteps.every((t) => t === 4)) {
    throw new Error(`row step counts ${Array.from(fit.rowSteps.slice(0, 5))}`);
  }
});

Deno.test("fitCoEmbed fold-in and joint give different models; a bad rowUpdate is refused", () => {
  const { d } = data();
  const a = fitCoEmbed(d, OPTS, { epochs: 2, rowUpdate: "fold-in" });
  const b = fitCoEmbed(d, OPTS, { epochs: 2, rowUpdate: "joint" });
  if (a.core.V.every((v, i) => v === b.core.V[i])) throw new Error("same V for both updates");
  let threw = false;
  try {
    fitCoEmbed(d, OPTS, { epochs: 1, rowUpdate: "adam" as never });
  } catch (e) {
    threw = e instanceof RangeError && /rowUpdate/.test((e as Error).message);
  }
  if (!threw) throw new Error("rowUpdate 'adam' was accepted");
});
