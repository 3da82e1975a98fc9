/**
 * The SDK's `random-features` scorer (sdk/kinds/random_features.ts, which imports nothing from
 * src/) gives the trainer's scores within 1e-6, for both variants, both meanings of absent
 * features and both inductive inputs, on complete and partly missing rows.
 */
import { CoEmbedLearner as CoEmbedEstimator } from "../../../src/models/coembed/learner.ts";
import { randomFeatures } from "../../../sdk/kinds/random_features.ts";
import type { DecodedModel, SdkTensor } from "../../../sdk/kinds/types.ts";
import { topK } from "../../../sdk/topk.ts";
import { maskedCsr, rand, rowsBatch, synthetic } from "./helpers.ts";

function decoded(est: CoEmbedEstimator): DecodedModel {
  const c = est.toModelFileContent();
  const tensors: Record<string, SdkTensor> = {};
  for (const [k, t] of Object.entries(c.tensors)) {
    tensors[k] = { shape: t.shape, data: Float32Array.from(t.data as Float32Array) };
  }
  return {
    kind: c.kind,
    formatVersion: 1,
    numFeatures: c.numFeatures,
    numLabels: c.numLabels,
    params: c.params,
    tensors,
  };
}

for (const variant of ["L", "NL"] as const) {
  for (const absent of ["zero", "missing"] as const) {
    for (const input of ["projected", "raw"] as const) {
      Deno.test(`SDK random-features scorer = trainer (${variant}, absent ${absent}, ${input})`, () => {
        const s = synthetic(120, 12, 5, 5);
        const m = maskedCsr(s, 0, 120, 0.6, 0.3, 6);
        const est = CoEmbedEstimator.create(
          { variant, absent, inductiveInput: input, numRff: 50, gamma: 0.3, seed: 2 },
          s.D,
          s.L,
        );
        for (let b = 0; b < 120; b += 20) {
          est.learnMany(rowsBatch(m, b, 20));
        }
        const scorer = randomFeatures(decoded(est));
        const g = rand(9);
        let partial = 0;
        for (let r = 0; r < 20; r++) {
          // Complete rows and rows with random features left out.
          const keep = r % 2 === 0 ? 1 : 0.5;
          const idx: number[] = [], val: number[] = [];
          for (let d = 0; d < s.D; d++) {
            if (g() < keep) {
              idx.push(d);
              // NL: the last two rows are huge (angles far beyond ±1e5, where the trainer's fast
              // cos/sin hands over to Math's, as the SDK computes them)
              val.push(s.x[r * s.D + d] * (variant === "NL" && r >= 18 ? 1e12 : 1));
            }
          }
          if (idx.length < s.D) partial++;
          const x = { indices: Int32Array.from(idx), values: Float32Array.from(val) };
          const a = est.predictTopK(x, s.L), b = topK(scorer(x.indices, x.values), s.L, s.L);
          for (let j = 0; j < s.L; j++) {
            if (Math.abs(a.scores[j] - b.scores[j]) > 1e-6) {
              throw new Error(`row ${r}, rank ${j}: trainer ${a.scores[j]} vs SDK ${b.scores[j]}`);
            }
            if (a.labels[j] !== b.labels[j] && a.scores[j] !== b.scores[j]) {
              throw new Error(`row ${r}, rank ${j}: label ${a.labels[j]} vs ${b.labels[j]}`);
            }
          }
        }
        if (partial === 0) throw new Error("no partly missing row was tested");
        // Scores must depend on the row (a constant scorer would pass the comparison above).
        const s0 = est.predictScores({
          indices: Int32Array.of(0, 1),
          values: Float32Array.of(2, -2),
        });
        const s1 = est.predictScores({
          indices: Int32Array.of(0, 1),
          values: Float32Array.of(-2, 2),
        });
        if (s0.every((v, j) => v === s1[j])) throw new Error("scores do not depend on the row");
      });
    }
  }
}
