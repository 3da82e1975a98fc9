/**
 * CoEmbed on huge (1e20–3e38), tiny (1e-30, denormal) and mixed feature values: training stays
 * finite, and every finite query gets finite scores, the same bit for bit from the trainer's
 * predictor and the SDK, ranked sensibly.
 *
 * Two faults this pins: (1) a model fitted to features near 1e30 (spectral start, so V near
 * 1e15) folded a row observing fewer features than rankX in with λ_X I + V_OᵀV_O, where λ_X is
 * lost to rounding: a singular system, and "solveSpd: matrix is not positive definite" (the
 * SDK: "fold-in failed"), or the batch fit refused the data; (2) ColEmbed-L's query t = x̃Q grows
 * with the features, and at 3e38 its scores overflowed float32 to ±Infinity.
 */
import { CoEmbedEstimator } from "../../../src/models/coembed/estimator.ts";
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { RandomFeaturesPredictor } from "../../../src/models/coembed/predictor.ts";
import { withLabelIndex } from "../../../src/linalg/mips_index.ts";
import { encodeModelFile } from "../../../src/format/model_file.ts";
import type { SparseVector } from "../../../src/data/types.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { decodeModel } from "../../../sdk/decode.ts";
import { randomFeatures } from "../../../sdk/kinds/random_features.ts";
import { assert, assertEquals } from "../../helpers.ts";
import { macroAucOf, maskedCsr, rowsBatch, synthetic } from "./helpers.ts";

const s = synthetic(400, 12, 5, 5);

/** The masked rows (about half the features observed) with every value times `scale`. */
function scaledRows(scale: number, keep = 0.5) {
  const m = maskedCsr(s, 0, 400, keep, 0.3, 6);
  for (let i = 0; i < m.x.values.length; i++) m.x.values[i] *= scale;
  return m;
}

/** Held-out row `r` (300 + r) of `m` as a query. */
function heldOut(m: ReturnType<typeof scaledRows>, r: number): SparseVector {
  const a = m.x.indptr[300 + r], b = m.x.indptr[301 + r];
  return { indices: m.x.indices.slice(a, b), values: m.x.values.slice(a, b) };
}

function allFinite(state: ModelState): boolean {
  return Object.values(state.tensors).every((t) =>
    Array.from(t as ArrayLike<number>).every(Number.isFinite)
  );
}

/**
 * Scores `x` with the trainer and the SDK (the kind's scorer and `loadModel`'s exact top k):
 * asserts they are finite and identical bit for bit, and returns the trainer's.
 */
function checkedScores(est: CoEmbedEstimator, file: Uint8Array, x: SparseVector): Float32Array {
  const scorer = randomFeatures(decodeModel(file)), edge = loadModel(file);
  const mine = est.predictScores(x), L = mine.length;
  assert(mine.every(Number.isFinite), `non-finite scores ${mine} for ${x.values}`);
  const theirs = scorer(x.indices, Float64Array.from(x.values));
  mine.forEach((v, j) => assert(Object.is(v, theirs[j]), `label ${j}: ${v} vs SDK ${theirs[j]}`));
  const top = est.predictTopK(x, L, { exact: true });
  const edgeTop = edge.predictTopK({ indices: [...x.indices], values: [...x.values] }, L, {
    exact: true,
  });
  assertEquals([...edgeTop.labels], [...top.labels], "the SDK's ranking");
  assertEquals([...edgeTop.scores], [...top.scores], "the SDK's top-k scores");
  return mine;
}

/** Macro-AUC of `est` on the 100 held-out rows of `m` (partial rows), checking each row. */
function heldOutAuc(est: CoEmbedEstimator, m: ReturnType<typeof scaledRows>): number {
  const file = est.toModelFile(), scores = new Float32Array(100 * s.L);
  for (let r = 0; r < 100; r++) scores.set(checkedScores(est, file, heldOut(m, r)), r * s.L);
  return macroAucOf(scores, s.y.subarray(300 * s.L), 100, s.L);
}

Deno.test("CoEmbed, absent missing, fitted to features near 1e30: partial rows fold in", () => {
  // complete rows to learn from (V near 1e15 after the warm start), partial rows to answer
  const complete = scaledRows(1e30, 1), partial = scaledRows(1e30);
  for (const variant of ["L", "NL"] as const) {
    const est = CoEmbedEstimator.create(
      { variant, absent: "missing", numRff: 50, gamma: 0.3e-60, seed: 2, warmStart: 100 },
      s.D,
      s.L,
    );
    for (let b = 0; b < 300; b += 20) est.learnMany(rowsBatch(complete, b, 20));
    assert(allFinite(est.toState()), `${variant}: the state stays finite`);
    const auc = heldOutAuc(est, partial);
    assert(auc > 0.7, `${variant}: held-out macro-AUC ${auc}`);
  }
});

Deno.test("CoEmbed L batch fit, absent missing, features near 1e30: trains, predicts = SDK", () => {
  const m = scaledRows(1e30), train = rowsBatch(m, 0, 300);
  const fit = fitCoEmbed({ x: train.x, y: train.y }, {
    variant: "L",
    absent: "missing",
    seed: 2,
  }, { epochs: 10 });
  assert(fit.transductiveScores().every(Number.isFinite), "finite transductive scores");
  const est = CoEmbedEstimator.fromFit(fit);
  const auc = heldOutAuc(est, m);
  assert(auc > 0.7, `held-out macro-AUC ${auc}`);
});

Deno.test("CoEmbed stream: a warm start on 1e20 features, then partial rows, learns them", () => {
  for (const variant of ["L", "NL"] as const) {
    const m = scaledRows(1e20);
    const est = CoEmbedEstimator.create(
      { variant, absent: "missing", numRff: 30, gamma: 0.3e-40, seed: 4, warmStart: 40 },
      s.D,
      s.L,
    );
    for (let b = 0; b < 120; b += 20) est.learnMany(rowsBatch(m, b, 20));
    assertEquals(est.rowsSeen, 120, `${variant}: every batch learned`);
    assert(allFinite(est.toState()), `${variant}: the state stays finite`);
    const file = est.toModelFile();
    for (let r = 0; r < 10; r++) checkedScores(est, file, heldOut(m, r));
  }
});

Deno.test("CoEmbed L: queries near float32's largest value get finite scores, ranked alike", () => {
  const m = scaledRows(1, 1);
  for (const input of ["raw", "projected"] as const) {
    const est = CoEmbedEstimator.create(
      { variant: "L", absent: "zero", inductiveInput: input, seed: 3 },
      s.D,
      s.L,
    );
    for (let b = 0; b < 300; b += 50) est.learnMany(rowsBatch(m, b, 50));
    const file = est.toModelFile();
    for (let r = 0; r < 20; r++) {
      const x = heldOut(m, r),
        top = (scale: number) => {
          const q = { indices: x.indices, values: x.values.map((v) => v * scale) };
          checkedScores(est, file, q);
          return [...est.predictTopK(q, s.L).labels];
        };
      // far beyond the biases, the ranking is that of x's direction whatever its size
      assertEquals(top(3e38 / 4), top(1e25), `${input} row ${r}`);
      assertEquals(top(-3e38 / 4), top(-1e25), `${input} row ${r}, negated`);
    }
  }
});

Deno.test("CoEmbed L: a huge query answered from the label index is finite and the SDK's", () => {
  const big = synthetic(300, 12, 400, 41), m = maskedCsr(big, 0, 300, 1, 0, 42);
  const est = CoEmbedEstimator.create({ variant: "L", absent: "zero", seed: 3 }, 12, 400);
  for (let b = 0; b < 240; b += 40) est.learnMany(rowsBatch(m, b, 40));
  const options = { minLabels: 0, clusters: 40, probes: 2 };
  const index = est.indexLabels(options)!;
  const edge = loadModel(encodeModelFile(withLabelIndex(est.toModelFileContent(), "P", options)));
  const predictor = new RandomFeaturesPredictor(est.core.predictorTensors());
  for (let r = 0; r < 20; r++) {
    const a = m.x.indptr[240 + r], b = m.x.indptr[241 + r];
    const x = {
      indices: m.x.indices.slice(a, b),
      values: m.x.values.slice(a, b).map((v) => v * 3e38 / 4),
    };
    const q = predictor.query(x.indices, x.values);
    assert(index.search(q, 3) !== undefined, "answered from the index");
    const fast = est.predictTopK(x, 3);
    assert(fast.scores.every(Number.isFinite), `row ${r}: finite ${fast.scores}`);
    const theirs = edge.predictTopK({ indices: [...x.indices], values: [...x.values] }, 3);
    assertEquals([...theirs.labels], [...fast.labels], `row ${r}: the SDK's labels`);
    assertEquals([...theirs.scores], [...fast.scores], `row ${r}: the SDK's scores`);
  }
});

Deno.test("CoEmbed: tiny, denormal and mixed-magnitude features train and predict finitely", () => {
  for (const variant of ["L", "NL"] as const) {
    for (const absent of ["zero", "missing"] as const) {
      for (const [what, scale] of [["tiny", 1e-30], ["denormal", 1e-44], ["mixed", 0]] as const) {
        const m = scaledRows(1);
        const v = m.x.values;
        // mixed: thirds of the entries at 1e30, 1e-30 and 1 times their value, in every row
        for (let i = 0; i < v.length; i++) v[i] *= scale || [1e30, 1e-30, 1][i % 3];
        const est = CoEmbedEstimator.create(
          { variant, absent, numRff: 20, gamma: 0.3, seed: 6, warmStart: 40 },
          s.D,
          s.L,
        );
        for (let b = 0; b < 120; b += 40) est.learnMany(rowsBatch(m, b, 40));
        const where = `${variant}, absent ${absent}, ${what}`;
        assert(allFinite(est.toState()), `${where}: the state stays finite`);
        const file = est.toModelFile();
        for (let r = 0; r < 5; r++) checkedScores(est, file, heldOut(m, r));
      }
    }
  }
});
