/**
 * What the replay reservoir (src/data/reservoir.ts, tested in tests/data/reservoir_test.ts) is
 * for in CoEmbed: one pass over a stream sorted by label (scene's file order) forgets the early
 * labels without replay and keeps them with it.
 */
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import { macroAucOf, maskedCsr, rand, rowsBatch, synthetic } from "./helpers.ts";

Deno.test("replay keeps one pass over a label-sorted stream from forgetting", () => {
  // one label per row (the argmax of a latent score, as in scene), rows sorted by label
  const s = synthetic(600, 12, 4, 31);
  s.y.fill(0);
  const g = rand(33);
  const B = Float64Array.from({ length: s.D * s.L }, () => g() - 0.5);
  for (let r = 0; r < s.N; r++) {
    let best = 0, bestScore = -Infinity;
    for (let j = 0; j < s.L; j++) {
      let z = 0;
      for (let d = 0; d < s.D; d++) z += s.x[r * s.D + d] * B[d * s.L + j];
      if (z > bestScore) [best, bestScore] = [j, z];
    }
    s.y[r * s.L + best] = 1;
  }
  const label = (r: number) => s.y.subarray(r * s.L, (r + 1) * s.L).indexOf(1);
  const order = Array.from({ length: 500 }, (_, r) => r).sort((a, b) =>
    label(a) - label(b) || a - b
  );
  const sorted = { ...s, x: new Float64Array(s.x.length), y: new Uint8Array(s.y.length) };
  order.forEach((r, i) => {
    sorted.x.set(s.x.subarray(r * s.D, (r + 1) * s.D), i * s.D);
    sorted.y.set(s.y.subarray(r * s.L, (r + 1) * s.L), i * s.L);
  });
  const m = maskedCsr(sorted, 0, 500, 0.6, 0.3, 32);
  const auc = (replay: number) => {
    const est = CoEmbedLearner.create(
      { variant: "L", rankX: 4, absent: "missing", replay, seed: 4 },
      s.D,
      s.L,
    );
    for (let b = 0; b < 500; b += 25) {
      est.learnMany(rowsBatch(m, b, 25));
    }
    const all = Int32Array.from({ length: s.D }, (_, d) => d);
    const scores = new Float32Array(100 * s.L);
    for (let i = 0; i < 100; i++) {
      const x = Float32Array.from(s.x.subarray((500 + i) * s.D, (501 + i) * s.D));
      scores.set(est.predictScores({ indices: all, values: x }), i * s.L);
    }
    return macroAucOf(scores, s.y.subarray(500 * s.L), 100, s.L);
  };
  const without = auc(0), withReplay = auc(500);
  if (!(withReplay > 0.8 && withReplay > without + 0.05)) {
    throw new Error(`macro-AUC with replay ${withReplay}, without ${without}`);
  }
});
